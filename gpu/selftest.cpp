// gpu-selftest (the CUDA module's runSelftest, cuda_module.h): every correctness check of live mode on the
// device, one line each. Exit status: 0 all passed, 1 a check failed, 3 no usable device.
//   swap      round trips for every (out method, in method) pair through scattered blocks and slots:
//             the host copy and the restored blocks have the original checksum, the scribbled ones do not
//   fp8       the same round trip on an fp8 arena
//   kernels   layer-0 K and V against a plain CPU reference (embedding, RMSNorm, QKV GEMM, RoPE, arena write)
//   model     every layer's K and V of a 100-token prefill against the CPU transformer (reference_model.h)
//   recompute rebuilt K/V equals the K/V built incrementally (prefill chunk + decode steps) within 3% of the
//             largest value; the same chunking twice is bitwise identical; causal (a prefix's K/V does not
//             depend on later tokens)
//   leak      thousands of evict/resume cycles through the live backend leave device memory as it was
//   errors    bad block ids are refused with a message, not a crash
#include "gpu/cuda_module.h"
#include "gpu/device_context.h"
#include "gpu/live_backend_core.h"
#include "gpu/reference_model.h"
#include "gpu/synthetic.h"

#include "core/live_backend.h"
#include "core/workload.h"

#include <cmath>
#include <cstring>
#include <ostream>

namespace pl::gpu::cuda {

namespace {

struct Checker {
    std::ostream& log;
    int failures = 0;
    void report(bool ok, const std::string& name, const std::string& detail) {
        log << (ok ? "PASS " : "FAIL ") << name << ": " << detail << "\n";
        log.flush();
        if (!ok) {
            ++failures;
        }
    }
    void skip(const std::string& name, const std::string& why) {
        log << "SKIP " << name << ": " << why << "\n";
        log.flush();
    }
    // A device error fails the check it happened in, with the CUDA text.
    bool device(const Error& e, const std::string& name) {
        if (e) {
            report(false, name, *e);
            return false;
        }
        return true;
    }
};

std::vector<std::int64_t> range(std::int64_t from, std::int64_t n) {
    std::vector<std::int64_t> v;
    for (std::int64_t i = 0; i < n; ++i) {
        v.push_back(from + i);
    }
    return v;
}

void swapChecks(Checker& c, KvDtype dtype) {
    const std::string tag = dtype == KvDtype::Bf16 ? "swap" : "fp8-swap";
    DeviceSetup setup;
    setup.arena = kvShapeOf(*findTransformerPreset("tiny"), 16, 64, dtype);
    setup.host_slots = 32;
    std::string err;
    auto ctx = DeviceContext::create(setup, &err);
    if (!ctx) {
        c.report(false, tag, err);
        return;
    }
    const std::vector<std::int64_t> victim{3, 7, 8, 9, 20, 41};
    const std::vector<std::int64_t> hostIds{2, 3, 4, 10, 11, 30};
    const std::vector<std::int64_t> restored{50, 51, 52, 53, 54, 60};
    for (SwapMethod out : {SwapMethod::PerBlock, SwapMethod::Batched, SwapMethod::Gather}) {
        for (SwapMethod in : {SwapMethod::PerBlock, SwapMethod::Batched, SwapMethod::Gather}) {
            const std::string name = tag + " " + std::string(toString(out)) + "/" + std::string(toString(in));
            if ((out == SwapMethod::Batched || in == SwapMethod::Batched) && !ctx->info().batch_memcpy) {
                c.skip(name, "cudaMemcpyBatchAsync needs CUDA 12.8 or later (runtime " +
                                 std::to_string(ctx->info().runtime_version) + ")");
                continue;
            }
            std::uint64_t original = 0, onHost = 0, scribbled = 0, back = 0;
            double usOut = 0, usIn = 0;
            std::int64_t copiesOut = 0, copiesIn = 0;
            const auto seed = static_cast<std::uint32_t>(17 + static_cast<int>(out) * 3 + static_cast<int>(in));
            if (!c.device(ctx->fillPattern(false, victim, seed), name) ||
                !c.device(ctx->fillPattern(false, restored, seed + 100), name) ||
                !c.device(ctx->checksum(false, victim, &original), name) ||
                !c.device(ctx->swap(out, CopyDirection::DeviceToHost, victim, hostIds, &usOut, &copiesOut), name) ||
                !c.device(ctx->checksum(true, hostIds, &onHost), name) ||
                !c.device(ctx->fillPattern(false, victim, seed + 200), name) ||
                !c.device(ctx->checksum(false, victim, &scribbled), name) ||
                !c.device(ctx->swap(in, CopyDirection::HostToDevice, restored, hostIds, &usIn, &copiesIn), name) ||
                !c.device(ctx->checksum(false, restored, &back), name)) {
                continue;
            }
            const bool ok = onHost == original && back == original && scribbled != original;
            c.report(ok, name,
                     std::to_string(victim.size()) + " blocks, " +
                         std::to_string(static_cast<std::int64_t>(victim.size()) * ctx->arena().blockBytes()) +
                         " B each way, checksum " + std::to_string(original) + (ok ? " restored" : " MISMATCH") +
                         ", out " + std::to_string(usOut) + " us (" + std::to_string(copiesOut) + " copies), in " +
                         std::to_string(usIn) + " us (" + std::to_string(copiesIn) + " copies)");
        }
    }
}

// A context with the selftest's tiny transformer and `blocks` arena blocks of 16 tokens.
DeviceSetup tinyModelSetup(std::int64_t blocks) {
    const TransformerShape shape = *findTransformerPreset("tiny");
    DeviceSetup setup;
    setup.arena = kvShapeOf(shape, 16, blocks, KvDtype::Bf16);
    setup.with_model = true;
    setup.model = shape;
    return setup;
}

void recomputeChecks(Checker& c) {
    const DeviceSetup setup = tinyModelSetup(64);
    const TransformerShape& shape = setup.model;
    std::string err;
    auto ctx = DeviceContext::create(setup, &err);
    if (!ctx) {
        c.report(false, "recompute", err);
        return;
    }
    const std::uint32_t seed = 4242;
    const std::int64_t prompt = 64, total = 100;
    const auto a = range(0, 7), b = range(8, 7), d = range(16, 7), e = range(24, 7), f = range(32, 7);
    double us = 0;
    // A: as a live run builds it: the prompt, then one decode step per token.
    if (!c.device(ctx->prefill(seed, 0, prompt, a, &us), "recompute")) {
        return;
    }
    for (std::int64_t t = prompt; t < total; ++t) {
        if (!c.device(ctx->prefill(seed, t, 1, a, &us), "recompute")) {
            return;
        }
    }
    // The plain CPU reference (reference_model.h): layer 0 at three positions first (the kernels before any
    // attention), then, below, every layer and position of a one-shot prefill.
    const ReferenceKv ref = referencePrefill(shape, seed, total);
    // One token's K or V of `layer` in `table` against the reference: the largest |diff| and |reference| so far.
    auto compareToken = [&](const std::vector<std::int64_t>& table, std::int64_t layer, int kv, std::int64_t pos,
                            const char* check, double* maxDiff, double* maxAbs) {
        std::vector<float> got;
        if (!c.device(ctx->readToken(table, layer, kv, pos, &got), check)) {
            return false;
        }
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(got.size()); ++i) {
            const double r = ref.at(layer, kv, pos, i / shape.head_dim, i % shape.head_dim);
            *maxDiff = std::max(*maxDiff, std::fabs(got[static_cast<std::size_t>(i)] - r));
            *maxAbs = std::max(*maxAbs, std::fabs(r));
        }
        return true;
    };
    double refDiff = 0.0, refAbs = 0.0;
    for (std::int64_t pos : {std::int64_t{0}, std::int64_t{37}, std::int64_t{99}}) {
        for (int kv = 0; kv < 2; ++kv) {
            if (!compareToken(a, 0, kv, pos, "kernels", &refDiff, &refAbs)) {
                return;
            }
        }
    }
    c.report(refDiff <= 0.02, "kernels", "layer-0 K/V vs CPU reference at 3 positions: max |diff| " +
                                             std::to_string(refDiff) + " (tolerance 0.02)");
    // B and D: the recompute (one replay of every token), twice; E: A's chunking again.
    if (!c.device(ctx->prefill(seed, 0, total, b, &us), "recompute") ||
        !c.device(ctx->prefill(seed, 0, total, d, &us), "recompute") ||
        !c.device(ctx->prefill(seed, 0, prompt, e, &us), "recompute")) {
        return;
    }
    for (std::int64_t t = prompt; t < total; ++t) {
        if (!c.device(ctx->prefill(seed, t, 1, e, &us), "recompute")) {
            return;
        }
    }
    double diffAB = 0, absA = 0, diffBD = 0, diffAE = 0, dummy = 0;
    if (!c.device(ctx->compareKv(a, b, total, &diffAB, &absA), "recompute") ||
        !c.device(ctx->compareKv(b, d, total, &diffBD, &dummy), "recompute") ||
        !c.device(ctx->compareKv(a, e, total, &diffAE, &dummy), "recompute")) {
        return;
    }
    // The whole network: every layer's K and V at every position of the one-shot prefill (b) against the CPU.
    double modelDiff = 0.0, modelAbs = 0.0;
    for (std::int64_t l = 0; l < shape.layers; ++l) {
        for (int kv = 0; kv < 2; ++kv) {
            for (std::int64_t pos = 0; pos < total; ++pos) {
                if (!compareToken(b, l, kv, pos, "model", &modelDiff, &modelAbs)) {
                    return;
                }
            }
        }
    }
    c.report(modelDiff <= 0.03 * std::max(1.0, modelAbs), "model",
             "K/V of all " + std::to_string(shape.layers) + " layers x " + std::to_string(total) +
                 " positions vs the CPU transformer (attention, MLP, residuals): max |diff| " +
                 std::to_string(modelDiff) + ", max |K/V| " + std::to_string(modelAbs) + " (tolerance 3%)");
    c.report(diffAB <= 0.03 * std::max(1.0, absA), "recompute",
             "rebuilt K/V of " + std::to_string(total) + " tokens vs incremental: max |diff| " +
                 std::to_string(diffAB) + ", max |K/V| " + std::to_string(absA) + " (tolerance 3%)");
    c.report(diffBD == 0.0 && diffAE == 0.0, "recompute-bitwise",
             "same chunking twice: max |diff| " + std::to_string(diffBD) + " (one-shot), " + std::to_string(diffAE) +
                 " (incremental); expected 0");
    // Causality: a 40-token prefill equals the first 40 positions of the longer ones.
    double diffCausal = 0;
    if (!c.device(ctx->prefill(seed, 0, 40, f, &us), "causal") ||
        !c.device(ctx->compareKv(b, f, 40, &diffCausal, &dummy), "causal")) {
        return;
    }
    c.report(diffCausal <= 0.03 * std::max(1.0, absA), "causal",
             "K/V of positions 0..39 with and without 60 later tokens: max |diff| " + std::to_string(diffCausal));
}

// The softmax keeps score rows of up to 12,288 keys in shared memory and reads longer ones from global memory
// three times. Both paths do the same arithmetic in the same order, so a context built with the cache off must
// give the K/V of one built with it bit for bit, one-shot (a) and token by token (b). The two contexts have
// cuBLAS handles of their own; for the same shapes on one device it picks the same algorithms
// (`recompute-bitwise` checks that within one context), so a difference here is the softmax's.
void softmaxPathCheck(Checker& c) {
    DeviceSetup setup = tinyModelSetup(16);
    const TransformerShape shape = setup.model;
    std::string err;
    auto cached = DeviceContext::create(setup, &err);
    setup.softmax_cache = false;
    auto uncached = cached ? DeviceContext::create(setup, &err) : nullptr;
    if (!uncached) {
        c.report(false, "softmax-paths", err);
        return;
    }
    const std::uint32_t seed = 977;
    const std::int64_t prompt = 48, total = 80;
    const auto a = range(0, 5), b = range(5, 5);
    double us = 0, maxDiff = 0;
    std::int64_t differing = 0;
    for (DeviceContext* ctx : {cached.get(), uncached.get()}) {
        if (!c.device(ctx->prefill(seed, 0, total, a, &us), "softmax-paths") ||
            !c.device(ctx->prefill(seed, 0, prompt, b, &us), "softmax-paths")) {
            return;
        }
        for (std::int64_t t = prompt; t < total; ++t) {
            if (!c.device(ctx->prefill(seed, t, 1, b, &us), "softmax-paths")) {
                return;
            }
        }
    }
    std::vector<float> x, y;
    for (const auto* table : {&a, &b}) {
        for (std::int64_t l = 0; l < shape.layers; ++l) {
            for (int kv = 0; kv < 2; ++kv) {
                for (std::int64_t pos = 0; pos < total; ++pos) {
                    if (!c.device(cached->readToken(*table, l, kv, pos, &x), "softmax-paths") ||
                        !c.device(uncached->readToken(*table, l, kv, pos, &y), "softmax-paths")) {
                        return;
                    }
                    // != also counts a NaN on either side; a size mismatch counts as one value.
                    differing += x.size() == y.size() ? 0 : 1;
                    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
                        if (x[i] != y[i]) {
                            ++differing;
                            maxDiff = std::max(maxDiff, static_cast<double>(std::fabs(x[i] - y[i])));
                        }
                    }
                }
            }
        }
    }
    c.report(differing == 0, "softmax-paths",
             "K/V of " + std::to_string(total) + " tokens, one-shot and token by token, with the score rows in "
             "shared memory and without: " + std::to_string(differing) + " values differ (max |diff| " +
                 std::to_string(maxDiff) + "); expected 0");
}

void leakCheck(Checker& c, std::int64_t cycles) {
    const pl::Workload w = leakCheckWorkload();
    std::string err;
    auto backend = makeLiveBackend(w, LiveOptions{}, &err);
    if (!backend) {
        c.report(false, "leak", err);
        return;
    }
    std::int64_t free0 = 0, free1 = 0, total = 0;
    auto cycle = [&](std::int64_t i) { return leakCheckCycle(*backend, i); };
    // Warm-up: 180 cycles visit every context length of the cycle (gcd(7, 90) = 1) on both paths, so the
    // grow-only scratch buffers and cuBLAS's workspace reach their final size before memory is compared.
    constexpr std::int64_t kWarmup = 180;
    for (std::int64_t i = 0; i < kWarmup; ++i) {
        if (auto e = cycle(i); !e.empty()) {
            c.report(false, "leak", e);
            return;
        }
    }
    // Device memory as the runtime reports it, via a throwaway context's query.
    auto mem = [&](std::int64_t* f) {
        std::string e2;
        auto info = probeDevice(&e2);
        *f = info ? info->free_bytes : -1;
        total = info ? info->total_bytes : 0;
    };
    mem(&free0);
    for (std::int64_t i = kWarmup; i < kWarmup + cycles; ++i) {
        if (auto e = cycle(i); !e.empty()) {
            c.report(false, "leak", "cycle " + std::to_string(i) + ": " + e);
            return;
        }
    }
    leakCheckFinish(*backend);
    mem(&free1);
    c.report(free0 == free1 && free0 > 0, "leak",
             std::to_string(cycles) + " evict/resume cycles (swap and recompute): free device memory " +
                 std::to_string(free0) + " -> " + std::to_string(free1) + " B of " + std::to_string(total));
}

void errorChecks(Checker& c) {
    DeviceSetup setup;
    setup.arena = kvShapeOf(*findTransformerPreset("tiny"), 16, 8, KvDtype::Bf16);
    setup.host_slots = 4;
    std::string err;
    auto ctx = DeviceContext::create(setup, &err);
    if (!ctx) {
        c.report(false, "errors", err);
        return;
    }
    double us = 0;
    std::int64_t copies = 0;
    auto e1 = ctx->swap(SwapMethod::Gather, CopyDirection::DeviceToHost, {8}, {0}, &us, &copies);
    auto e2 = ctx->prefill(1, 0, 16, {0}, &us); // no model in this context
    auto e3 = ctx->referenceCopy(CopyDirection::HostToDevice, std::int64_t{1} << 40, &us);
    c.report(e1 && e1->find("outside") != std::string::npos && e2 && e3, "errors",
             "refused: " + e1.value_or("(accepted!)") + " | " + e2.value_or("(accepted!)"));
}

} // namespace

int runSelftest(const SelftestOptions& options, std::ostream& log, std::string* error) {
    auto info = probeDevice(error);
    if (!info) {
        return 3;
    }
    log << "device: " << info->name << " (sm_" << info->cc_major << info->cc_minor << ", " << info->sm_count
        << " SMs, " << info->total_bytes / (1024 * 1024) << " MiB, driver " << info->driver_version << ", runtime "
        << info->runtime_version << ")\n";
    Checker c{log};
    swapChecks(c, KvDtype::Bf16);
    swapChecks(c, KvDtype::Fp8E4M3);
    recomputeChecks(c);
    softmaxPathCheck(c);
    leakCheck(c, options.cycles);
    errorChecks(c);
    log << (c.failures == 0 ? "selftest: all checks passed\n"
                            : "selftest: " + std::to_string(c.failures) + " check(s) failed\n");
    return c.failures == 0 ? 0 : 1;
}

} // namespace pl::gpu::cuda
