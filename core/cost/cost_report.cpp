#include "core/cost/cost_report.h"

#include "core/number_text.h"

#include <cmath>

namespace pl::cost {

namespace {

nlohmann::json optional(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string bytes(std::int64_t b) { return formatThousands(b) + " B"; }

std::string dtypeName(std::int64_t bytes) {
    switch (bytes) {
    case 1: return "fp8";
    case 2: return "bf16";
    case 4: return "fp32";
    default: return std::to_string(bytes) + " B";
    }
}

} // namespace

nlohmann::json costReportJson(const CostInputs& in, const CostOutputs& out) {
    nlohmann::json inputs = {
        {"model", {{"name", in.model.name}, {"layers", in.model.layers}, {"heads", in.model.heads},
                   {"kv_heads", in.model.kv_heads}, {"head_dim", in.model.head_dim}, {"params", in.model.params},
                   {"kv_dtype_bytes", in.model.kv_dtype_bytes}, {"weight_dtype_bytes", in.model.weight_dtype_bytes}}},
        {"gpu", {{"name", in.hardware.name}, {"bf16_tflops", in.hardware.bf16_tflops},
                 {"hbm_tbps", in.hardware.hbm_tbps}, {"link_gbps_paper", in.hardware.link_gbps},
                 {"link", in.hardware.link}, {"memory_gb", in.hardware.memory_gb}}},
        {"mfu", in.mfu}, {"link_gbps", out.link_gbps}, {"tp", in.tp}, {"block_size", in.block_size},
        {"kv_layout", std::string(toString(in.layout))}, {"copy_overhead_us", in.copy_overhead_us},
        {"context", in.context}, {"batch", in.batch}, {"decode_context", in.decode_context}};
    return {
        {"format", "preemptlab.breakeven.v1"},
        {"inputs", inputs},
        {"kv_bytes_per_token", out.kv_bytes_per_token},
        {"kv_bytes_per_token_per_gpu", out.kv_bytes_per_token_per_gpu},
        {"copy_bytes", out.copy_bytes},
        {"copies_per_block", out.copies_per_block},
        {"copies_per_swap", out.copies_per_swap},
        {"effective_link_gbps", out.effective_link_gbps},
        {"swap_us_per_token", out.swap_us_per_token},
        {"recompute_us_per_token", out.recompute_us_per_token},
        {"recompute_weights_us_per_token", out.recompute_weights_us_per_token},
        {"effective_tflops", out.effective_tflops},
        {"breakeven_link_gbps", optional(out.breakeven_link_gbps)},
        {"breakeven_effective_gbps", optional(out.breakeven_effective_gbps)},
        {"breakeven_context_tokens", optional(out.breakeven_context_tokens)},
        {"breakeven_mfu", optional(out.breakeven_mfu)},
        {"decode_step_us", out.decode_step_us},
        {"compute_capacity_tokens", out.compute_capacity_tokens},
        {"spare_compute_tokens", out.spare_compute_tokens},
        {"spare_compute_tokens_at_mfu", out.spare_compute_tokens_at_mfu},
        {"verdict", out.verdict},
        {"reason", out.reason},
    };
}

CostReport costReport(const CostInputs& in, const CostOutputs& out) {
    const auto& m = in.model;
    CostReport report;
    auto line = [&report](const std::string& label, const std::string& text) { report.rows.push_back({label, text}); };
    report.title = m.display + " on " + in.hardware.display + (in.tp > 1 ? " x" + std::to_string(in.tp) + " (TP)" : "") +
                   ", KV " + dtypeName(m.kv_dtype_bytes) + ", context " + formatThousands(in.context) + " tokens" +
                   (in.tp > 1 ? "; figures are per GPU (the slowest shard)" : "");
    line("KV per token", bytes(out.kv_bytes_per_token) + " = 2 x " + std::to_string(m.layers) + " layers x " +
                             std::to_string(m.kv_heads) + " KV heads x " + std::to_string(m.head_dim) + " x " +
                             std::to_string(m.kv_dtype_bytes) + " B" +
                             (in.tp > 1 ? "; " + bytes(out.kv_bytes_per_token_per_gpu) + " per GPU" : ""));
    if (in.layout == CopyLayout::Batched) {
        line("copy path", "one batched copy of " + bytes(out.copy_bytes) + " per direction, " +
                              formatFixed(in.copy_overhead_us, 1) + " us per copy");
    } else {
        line("copy path", std::string(in.layout == CopyLayout::Separate ? "K and V in separate tensors"
                                                                         : "K and V together") +
                              " per layer: " + std::to_string(out.copies_per_block) + " copies of " +
                              bytes(out.copy_bytes) + " per " + std::to_string(in.block_size) +
                              "-token block, " + formatThousands(out.copies_per_swap) + " per direction, " +
                              formatFixed(in.copy_overhead_us, 1) + " us each");
    }
    line("link", formatFixed(out.link_gbps, 1) + " GB/s per direction" +
                     (in.link_gbps > 0.0 ? "" : " (" + in.hardware.link + " on paper; pass --link-gbps measured)") +
                     " -> " + formatFixed(out.effective_link_gbps, 2) + " GB/s effective = copy / (overhead + copy / link)");
    line("swap", formatFixed(out.swap_us_per_token, 2) + " us/token round trip = 2 x KV / effective link");
    const double attnGflop = 4.0 * static_cast<double>(m.layers) * static_cast<double>(m.heads) *
                             static_cast<double>(m.head_dim) * static_cast<double>(in.context) / 2.0 / 1e9;
    line("recompute", formatFixed(out.recompute_us_per_token, 2) + " us/token = (2N " +
                          formatFixed(2.0 * m.params / 1e9, 2) + " GFLOP + attention " + formatFixed(attnGflop, 2) +
                          " GFLOP" + (in.tp > 1 ? ", / " + std::to_string(in.tp) + " GPUs" : "") + ") / " +
                          formatFixed(out.effective_tflops, 1) + " TFLOP/s (" + formatFixed(in.mfu * 100.0, 0) +
                          "% MFU); weights term alone " + formatFixed(out.recompute_weights_us_per_token, 2) + " us");
    std::string be = formatFixed(*out.breakeven_effective_gbps, 2) + " GB/s effective";
    be += out.breakeven_link_gbps ? " (a raw link of " + formatFixed(*out.breakeven_link_gbps, 2) + " GB/s)"
                                  : " (out of reach: the per-copy overhead alone is slower)";
    line("break-even link", be + "; recompute is cheaper below");
    line("break-even context",
         out.breakeven_context_tokens
             ? formatBreakevenContext(*out.breakeven_context_tokens) + " tokens: recompute is cheaper below, swap above"
             : std::string("none: swap is cheaper at every length on this link"));
    line("break-even MFU", out.breakeven_mfu ? formatFixed(*out.breakeven_mfu * 100.0, 1) + "%"
                                             : std::string("none: recompute loses even at 100% MFU"));
    line("spare compute", "a decode step at batch " + formatThousands(in.batch) + " x " +
                              formatThousands(in.decode_context) + " tokens reads weights + KV in " +
                              formatFixed(out.decode_step_us / 1000.0, 2) + " ms; at peak that is " +
                              formatFixed(std::floor(out.compute_capacity_tokens), 0) + " tokens of compute, " +
                              formatFixed(std::floor(out.spare_compute_tokens), 0) + " spare (" +
                              formatFixed(std::floor(out.spare_compute_tokens_at_mfu), 0) + " at MFU)");
    report.verdicts.push_back("verdict: " + out.reason);
    return report;
}

std::string costReportText(const CostReport& report) {
    std::string t = report.title + "\n";
    for (const CostReport::Row& row : report.rows) {
        const std::size_t pad = row.label.size() < 20 ? 20 - row.label.size() : 1;
        t += std::string("  ") + row.label + std::string(pad, ' ') + row.value + "\n";
    }
    for (const std::string& verdict : report.verdicts) t += verdict + "\n";
    return t;
}

std::string costReportText(const CostInputs& in, const CostOutputs& out) { return costReportText(costReport(in, out)); }

nlohmann::json tickRatesConfigJson(const TickRates& r) {
    nlohmann::json config = {{"block_size_tokens", r.block_size_tokens},
                             {"kv_bytes_per_token", r.kv_bytes_per_token},
                             {"prefill_tokens_per_tick", r.prefill_tokens_per_tick},
                             {"transfer_bytes_per_tick", r.transfer_bytes_per_tick},
                             {"host_capacity_bytes", r.host_capacity_bytes}};
    if (r.capacity_blocks) {
        config["capacity_blocks"] = *r.capacity_blocks;
    }
    return {{"config", config}};
}

} // namespace pl::cost
