#include "core/cost/cost_model.h"

#include "core/number_text.h"

#include <algorithm>
#include <cmath>

namespace pl::cost {

namespace {

std::int64_t ceilDivPositive(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Per-GPU view of the model under tensor parallelism (the slowest shard).
struct Shard {
    double kv_bytes_per_token = 0.0; // b_kv on one GPU
    double weight_flop_per_token = 0.0; // 2N / tp
    double attention_flop_per_pair = 0.0; // 4 x layers x heads_gpu x head_dim
    double effective_flops = 0.0;    // FLOP/s at MFU
    double link_bytes_per_s = 0.0;   // raw link per direction
};

std::int64_t kvHeadsPerGpu(const CostInputs& in) { return ceilDivPositive(in.model.kv_heads, in.tp); }
std::int64_t headsPerGpu(const CostInputs& in) { return ceilDivPositive(in.model.heads, in.tp); }

double rawLinkGbps(const CostInputs& in) { return in.link_gbps > 0.0 ? in.link_gbps : in.hardware.link_gbps; }

std::int64_t kvBytesPerTokenPerGpu(const CostInputs& in) {
    return 2 * in.model.layers * kvHeadsPerGpu(in) * in.model.head_dim * in.model.kv_dtype_bytes;
}

Shard shardOf(const CostInputs& in) {
    Shard s;
    s.kv_bytes_per_token = static_cast<double>(kvBytesPerTokenPerGpu(in));
    s.weight_flop_per_token = 2.0 * in.model.params / static_cast<double>(in.tp);
    s.attention_flop_per_pair = 4.0 * static_cast<double>(in.model.layers) *
                                static_cast<double>(headsPerGpu(in)) * static_cast<double>(in.model.head_dim);
    s.effective_flops = in.hardware.bf16_tflops * 1e12 * in.mfu;
    s.link_bytes_per_s = rawLinkGbps(in) * 1e9;
    return s;
}

// Bytes moved by one copy call when swapping a request of `context` tokens (per GPU).
std::int64_t copyBytesAt(const CostInputs& in, std::int64_t context) {
    const std::int64_t oneTensorBlock =
        in.block_size * kvHeadsPerGpu(in) * in.model.head_dim * in.model.kv_dtype_bytes;
    switch (in.layout) {
    case CopyLayout::Separate:
        return oneTensorBlock;
    case CopyLayout::Together:
        return 2 * oneTensorBlock;
    case CopyLayout::Batched:
        return context * kvBytesPerTokenPerGpu(in);
    }
    return oneTensorBlock;
}

std::string fmt1(double v) { return formatFixed(v, 1); }
std::string fmtUs(double v) { return formatFixed(v, 2); }

} // namespace

std::string_view toString(CopyLayout l) {
    switch (l) {
    case CopyLayout::Separate:
        return "separate";
    case CopyLayout::Together:
        return "together";
    case CopyLayout::Batched:
        return "batched";
    }
    return "separate";
}

std::optional<CopyLayout> parseCopyLayout(std::string_view s) {
    for (auto l : {CopyLayout::Separate, CopyLayout::Together, CopyLayout::Batched}) {
        if (toString(l) == s) {
            return l;
        }
    }
    return std::nullopt;
}

std::optional<CostInputError> validateCostInputs(const CostInputs& in) {
    auto intIn = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return v >= lo && v <= hi; };
    auto realIn = [](double v, double lo, double hi) { return std::isfinite(v) && v > lo && v <= hi; };
    auto range = [](std::int64_t lo, std::int64_t hi) {
        return "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    };
    const auto& m = in.model;
    if (!intIn(m.layers, 1, 1000)) {
        return CostInputError{"layers", range(1, 1000)};
    }
    if (!intIn(m.heads, 1, 1024)) {
        return CostInputError{"heads", range(1, 1024)};
    }
    if (!intIn(m.kv_heads, 1, m.heads)) {
        return CostInputError{"kv-heads", "must be from 1 to --heads (" + std::to_string(m.heads) + ")"};
    }
    if (!intIn(m.head_dim, 1, 1024)) {
        return CostInputError{"head-dim", range(1, 1024)};
    }
    if (!realIn(m.params, 0.0, 1e15)) {
        return CostInputError{"params", "must be a parameter count above 0 and at most 1e15"};
    }
    if (!intIn(m.kv_dtype_bytes, 1, 8)) {
        return CostInputError{"kv-bytes", range(1, 8)};
    }
    if (!intIn(m.weight_dtype_bytes, 1, 8)) {
        return CostInputError{"weight-bytes", range(1, 8)};
    }
    const auto& h = in.hardware;
    if (!realIn(h.bf16_tflops, 0.0, 1e6)) {
        return CostInputError{"tflops", "must be above 0 and at most 1e6 TFLOP/s"};
    }
    if (!realIn(h.hbm_tbps, 0.0, 1e3)) {
        return CostInputError{"hbm-tbps", "must be above 0 and at most 1000 TB/s"};
    }
    if (!realIn(rawLinkGbps(in), 0.0, 1e6)) {
        return CostInputError{"link-gbps", "must be above 0 and at most 1e6 GB/s"};
    }
    if (!std::isfinite(h.memory_gb) || h.memory_gb < 0.0 || h.memory_gb > 1e6) {
        return CostInputError{"hbm-gb", "must be from 0 to 1e6 GB"};
    }
    if (!realIn(in.mfu, 0.0, 1.0)) {
        return CostInputError{"mfu", "must be above 0 and at most 1"};
    }
    if (!intIn(in.tp, 1, 1024)) {
        return CostInputError{"tp", range(1, 1024)};
    }
    // Tensor parallelism shards attention heads evenly (vLLM and TensorRT-LLM refuse otherwise); KV heads
    // are split when there are at least as many as GPUs, else replicated, which also needs an even split.
    if (m.heads % in.tp != 0) {
        return CostInputError{"tp", "must divide the model's " + std::to_string(m.heads) + " attention heads"};
    }
    if (in.tp <= m.kv_heads ? m.kv_heads % in.tp != 0 : in.tp % m.kv_heads != 0) {
        return CostInputError{"tp", "must divide the model's " + std::to_string(m.kv_heads) +
                                        " KV heads or be a multiple of them (replicated KV heads)"};
    }
    if (!intIn(in.block_size, 1, 1'000'000)) {
        return CostInputError{"block-size", range(1, 1'000'000)};
    }
    if (!std::isfinite(in.copy_overhead_us) || in.copy_overhead_us < 0.0 || in.copy_overhead_us > 1e9) {
        return CostInputError{"copy-overhead-us", "must be from 0 to 1e9 microseconds"};
    }
    if (!intIn(in.context, 1, 100'000'000)) {
        return CostInputError{"context", range(1, 100'000'000)};
    }
    if (!intIn(in.batch, 1, 1'000'000)) {
        return CostInputError{"batch", range(1, 1'000'000)};
    }
    if (!intIn(in.decode_context, 0, 100'000'000)) {
        return CostInputError{"decode-context", range(0, 100'000'000)};
    }
    return std::nullopt;
}

double effectiveBandwidthGbps(double copyBytes, double linkGbps, double overheadUs) {
    const double seconds = overheadUs * 1e-6 + copyBytes / (linkGbps * 1e9);
    return copyBytes / seconds / 1e9;
}

double swapUsPerToken(const CostInputs& in, double context) {
    const Shard s = shardOf(in);
    const auto tokens = static_cast<std::int64_t>(std::max(1.0, std::round(context)));
    const double copy = static_cast<double>(copyBytesAt(in, tokens));
    const double eff = effectiveBandwidthGbps(copy, rawLinkGbps(in), in.copy_overhead_us) * 1e9;
    return 2.0 * s.kv_bytes_per_token / eff * 1e6;
}

double recomputeUsPerToken(const CostInputs& in, double context) {
    const Shard s = shardOf(in);
    return (s.weight_flop_per_token + s.attention_flop_per_pair * context / 2.0) / s.effective_flops * 1e6;
}

std::optional<double> breakevenContextAt(const CostInputs& in, double effectiveGbps) {
    const Shard s = shardOf(in);
    const double flopBudget = 2.0 * s.kv_bytes_per_token * s.effective_flops / (effectiveGbps * 1e9);
    const double length = (flopBudget - s.weight_flop_per_token) / (s.attention_flop_per_pair / 2.0);
    if (!(length > 0.0)) {
        return std::nullopt;
    }
    return length;
}

namespace {

// Batched copies: per-token swap is 2o/L + 2b/B, recompute (2N' + a'L/2)/F. Multiplying by L gives
// (a'/2F) L^2 + (2N'/F - 2b/B) L - 2o = 0, whose positive root is the break-even.
std::optional<double> batchedBreakeven(const CostInputs& in) {
    if (in.copy_overhead_us <= 0.0) {
        return breakevenContextAt(in, rawLinkGbps(in));
    }
    const Shard s = shardOf(in);
    const double alpha = s.attention_flop_per_pair / 2.0 / s.effective_flops;
    const double beta = s.weight_flop_per_token / s.effective_flops - 2.0 * s.kv_bytes_per_token / s.link_bytes_per_s;
    const double gamma = -2.0 * in.copy_overhead_us * 1e-6;
    const double disc = beta * beta - 4.0 * alpha * gamma;
    return (-beta + std::sqrt(disc)) / (2.0 * alpha);
}

} // namespace

CostOutputs computeCost(const CostInputs& in) {
    const Shard s = shardOf(in);
    CostOutputs out;
    const auto L = static_cast<double>(in.context);
    out.kv_bytes_per_token = kvBytesPerToken(in.model);
    out.kv_bytes_per_token_per_gpu = kvBytesPerTokenPerGpu(in);
    out.copy_bytes = copyBytesAt(in, in.context);
    switch (in.layout) {
    case CopyLayout::Separate:
        out.copies_per_block = 2 * in.model.layers;
        break;
    case CopyLayout::Together:
        out.copies_per_block = in.model.layers;
        break;
    case CopyLayout::Batched:
        out.copies_per_block = 0;
        break;
    }
    out.copies_per_swap =
        in.layout == CopyLayout::Batched ? 1 : ceilDivPositive(in.context, in.block_size) * out.copies_per_block;
    out.link_gbps = rawLinkGbps(in);
    out.effective_link_gbps =
        effectiveBandwidthGbps(static_cast<double>(out.copy_bytes), out.link_gbps, in.copy_overhead_us);
    out.effective_tflops = s.effective_flops / 1e12;

    out.swap_us_per_token = swapUsPerToken(in, L);
    out.recompute_us_per_token = recomputeUsPerToken(in, L);
    out.recompute_weights_us_per_token = s.weight_flop_per_token / s.effective_flops * 1e6;

    // Break-even bandwidth: the effective rate at which 2 b / B equals t_rec(L); then the raw link that the
    // copy path needs to reach it, c / (c / B* - o), which does not exist when the overhead alone is too slow.
    const double beEff = 2.0 * s.kv_bytes_per_token / (out.recompute_us_per_token * 1e-6);
    out.breakeven_effective_gbps = beEff / 1e9;
    const auto copy = static_cast<double>(out.copy_bytes);
    const double rawSeconds = copy / beEff - in.copy_overhead_us * 1e-6;
    if (rawSeconds > 0.0) {
        out.breakeven_link_gbps = copy / rawSeconds / 1e9;
    }
    out.breakeven_context_tokens = in.layout == CopyLayout::Batched
                                       ? batchedBreakeven(in)
                                       : breakevenContextAt(in, out.effective_link_gbps);
    const double mfuTie = in.mfu * out.recompute_us_per_token / out.swap_us_per_token;
    if (mfuTie <= 1.0) {
        out.breakeven_mfu = mfuTie;
    }

    // Spare compute: a decode step reads the weights and every running request's KV once; while memory-bound,
    // the tensor cores could have done step x peak FLOP, i.e. that many tokens' 2N' FLOP.
    const double weightBytes = in.model.params * static_cast<double>(in.model.weight_dtype_bytes) /
                               static_cast<double>(in.tp);
    const double kvRead = static_cast<double>(in.batch) * static_cast<double>(in.decode_context) *
                          s.kv_bytes_per_token;
    const double stepSeconds = (weightBytes + kvRead) / (in.hardware.hbm_tbps * 1e12);
    out.decode_step_us = stepSeconds * 1e6;
    const double peak = in.hardware.bf16_tflops * 1e12;
    out.compute_capacity_tokens = stepSeconds * peak / s.weight_flop_per_token;
    const auto batch = static_cast<double>(in.batch);
    out.spare_compute_tokens = std::max(0.0, out.compute_capacity_tokens - batch);
    out.spare_compute_tokens_at_mfu = std::max(0.0, out.compute_capacity_tokens * in.mfu - batch);

    // Verdict at L on the effective link.
    const double swap = out.swap_us_per_token;
    const double rec = out.recompute_us_per_token;
    const std::string ctx = formatThousands(in.context) + "-token context";
    if (std::abs(swap - rec) <= 1e-9 * std::max(swap, rec)) {
        out.verdict = "tie";
        out.reason = "tie at " + ctx + ": both cost " + fmtUs(swap) + " us/token";
    } else if (swap < rec) {
        out.verdict = "swap";
        out.reason = "swap: " + fmtUs(swap) + " us/token round trip at " + fmt1(out.effective_link_gbps) +
                     " GB/s effective vs " + fmtUs(rec) + " us/token to recompute at " + ctx + " (" +
                     formatFixed(rec / swap, 1) + "x); recompute wins only below " +
                     fmt1(*out.breakeven_effective_gbps) + " GB/s effective";
    } else {
        out.verdict = "recompute";
        std::string flip =
            out.breakeven_context_tokens
                ? "swap wins above " + formatBreakevenContext(*out.breakeven_context_tokens) + " tokens"
                : std::string("swap wins at no length");
        out.reason = "recompute: " + fmtUs(rec) + " us/token vs " + fmtUs(swap) + " us/token to swap at " +
                     fmt1(out.effective_link_gbps) + " GB/s effective, " + ctx + " (" +
                     formatFixed(swap / rec, 1) + "x); " + flip + " or above " +
                     fmt1(*out.breakeven_effective_gbps) + " GB/s effective";
    }
    return out;
}

std::string formatBreakevenContext(double tokens) {
    return tokens < 100.0 ? formatFixed(tokens, 1) : formatThousands(static_cast<std::int64_t>(std::floor(tokens)));
}

std::vector<CurvePoint> sampleCurves(const CostInputs& in, std::int64_t from, std::int64_t to, int points) {
    std::vector<CurvePoint> curve;
    from = std::max<std::int64_t>(1, from);
    to = std::max(from, to);
    points = std::max(1, points);
    curve.reserve(static_cast<std::size_t>(points));
    for (int i = 0; i < points; ++i) {
        const double t = points == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(points - 1);
        const auto ctx = static_cast<std::int64_t>(
            std::llround(static_cast<double>(from) + t * static_cast<double>(to - from)));
        const auto L = static_cast<double>(ctx);
        curve.push_back({ctx, swapUsPerToken(in, L), recomputeUsPerToken(in, L)});
    }
    return curve;
}

} // namespace pl::cost
