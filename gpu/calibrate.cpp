// calibrate: measures swap copies (each method, both directions, several block and copy sizes, against one
// large contiguous pinned copy) and prefill (several context lengths) on the device, then fits them
// (calibration.h). Victim blocks are every other arena block, as a fragmented pool scatters them, so the
// batched method gets no coalescing for free.
#include "device_api.h"
#include "device_context.h"

#include <algorithm>
#include <ostream>

namespace pl::gpu {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

std::optional<std::string> runCalibration(const CalibrateOptions& o, Calibration& out, std::ostream& log) {
    std::string err;
    auto info = probeDevice(&err);
    if (!info) {
        return err;
    }
    const auto shape = findTransformerPreset(o.model);
    if (!shape) {
        return "model '" + o.model + "' is not a preset (" + transformerPresetNames() + ")";
    }
    if (o.copy_blocks.empty() || o.block_sizes.empty() || o.repetitions < 1) {
        return std::string("calibrate: nothing to measure");
    }
    Calibration c;
    c.device_name = info->name;
    c.compute_capability = std::to_string(info->cc_major) + "." + std::to_string(info->cc_minor);
    c.driver_version = info->driver_version;
    c.runtime_version = info->runtime_version;
    c.model = shape->name;
    c.kv_dtype = "bf16";
    c.peak_bf16_tflops = datasheetBf16Tflops(info->name);
    const std::int64_t maxBlocks = *std::max_element(o.copy_blocks.begin(), o.copy_blocks.end());
    const int reps = o.repetitions;

    for (std::int64_t bs : o.block_sizes) {
        DeviceSetup setup;
        setup.arena = kvShapeOf(*shape, bs, 2 * maxBlocks, KvDtype::Bf16);
        setup.host_slots = maxBlocks;
        auto ctx = DeviceContext::create(setup, &err);
        if (!ctx) {
            return "block size " + std::to_string(bs) + ": " + err;
        }
        c.kv_bytes_per_token = ctx->arena().kvBytesPerToken();
        if (bs == o.block_sizes.front()) {
            for (CopyDirection dir : {CopyDirection::DeviceToHost, CopyDirection::HostToDevice}) {
                const std::int64_t bytes = ctx->hostPool().totalBytes();
                std::vector<double> t;
                for (int r = 0; r <= reps; ++r) {
                    double us = 0;
                    if (auto e = ctx->referenceCopy(dir, bytes, &us)) {
                        return e;
                    }
                    if (r > 0) {
                        t.push_back(us); // the first run is a warm-up
                    }
                }
                SwapSample s{"reference", toString(dir), 0, 0, bytes, 1, median(t)};
                log << "reference " << s.direction << " " << bytes << " B: " << s.us << " us, "
                    << gigabytesPerSecond(bytes, s.us) << " GB/s\n";
                c.swaps.push_back(s);
            }
        }
        for (SwapMethod m : {SwapMethod::PerBlock, SwapMethod::Batched, SwapMethod::Gather}) {
            if (m == SwapMethod::Batched && !ctx->info().batch_memcpy) {
                log << "batched: skipped, cudaMemcpyBatchAsync needs CUDA 12.8 or later (runtime "
                    << ctx->info().runtime_version << ")\n";
                continue;
            }
            for (CopyDirection dir : {CopyDirection::DeviceToHost, CopyDirection::HostToDevice}) {
                for (std::int64_t n : o.copy_blocks) {
                    std::vector<std::int64_t> blocks, slots;
                    for (std::int64_t i = 0; i < n; ++i) {
                        blocks.push_back(2 * i);
                        slots.push_back(i);
                    }
                    std::vector<double> t;
                    std::int64_t copies = 0;
                    for (int r = 0; r <= reps; ++r) {
                        double us = 0;
                        if (auto e = ctx->swap(m, dir, blocks, slots, &us, &copies)) {
                            return std::string(toString(m)) + " " + toString(dir) + ": " + *e;
                        }
                        if (r > 0) {
                            t.push_back(us);
                        }
                    }
                    SwapSample s{toString(m), toString(dir), bs, n, n * ctx->arena().blockBytes(), copies, median(t)};
                    log << s.method << " " << s.direction << " block_size " << bs << " x" << n << " (" << s.bytes
                        << " B, " << copies << " copies): " << s.us << " us, " << gigabytesPerSecond(s.bytes, s.us)
                        << " GB/s\n";
                    c.swaps.push_back(s);
                }
            }
        }
    }

    if (!o.prefill_tokens.empty()) {
        const std::int64_t maxTokens = *std::max_element(o.prefill_tokens.begin(), o.prefill_tokens.end());
        DeviceSetup setup;
        setup.arena = kvShapeOf(*shape, 16, (maxTokens + 15) / 16, KvDtype::Bf16);
        setup.with_model = true;
        setup.model = *shape;
        auto ctx = DeviceContext::create(setup, &err);
        if (!ctx) {
            return "prefill model " + shape->name + ": " + err;
        }
        if (auto e = ctx->gemmTflops(8192, &c.gemm_tflops)) {
            return e;
        }
        log << "cuBLAS BF16 GEMM 8192^3: " << c.gemm_tflops << " TFLOP/s (datasheet " << c.peak_bf16_tflops << ")\n";
        std::vector<std::int64_t> table;
        for (std::int64_t i = 0; i < setup.arena.num_blocks; ++i) {
            table.push_back(i);
        }
        for (std::int64_t tokens : o.prefill_tokens) {
            std::vector<double> t;
            const int prefillReps = std::max(1, reps / 2);
            for (int r = 0; r <= prefillReps; ++r) {
                double us = 0;
                if (auto e = ctx->prefill(1234, 0, tokens, table, &us)) {
                    return "prefill " + std::to_string(tokens) + ": " + *e;
                }
                if (r > 0) {
                    t.push_back(us);
                }
            }
            PrefillSample p{tokens, median(t), prefillFlops(*shape, 0, tokens)};
            const double tflops = p.flops / p.us / 1e6;
            log << "prefill " << tokens << " tokens: " << p.us << " us, " << tflops << " TFLOP/s";
            if (c.peak_bf16_tflops > 0) {
                log << " (" << 100.0 * tflops / c.peak_bf16_tflops << "% of datasheet dense BF16)";
            }
            log << "\n";
            c.prefills.push_back(p);
        }
    }
    fitCalibration(c);
    for (const SwapFit& f : c.swap_fits) {
        log << "fit " << f.method << " " << f.direction << " block_size " << f.block_size << ": " << f.fixed_us
            << " us + bytes / " << f.bandwidth_gbps << " GB/s (r2 " << f.r2 << "), largest copy at "
            << 100.0 * efficiencyVsReference(c, f.method, f.direction, f.block_size) << "% of the reference\n";
    }
    out = std::move(c);
    return std::nullopt;
}

} // namespace pl::gpu
