#include "app/cli/measured_cost.h"

#include "app/cli/calibration_flags.h"
#include "core/number_text.h"

#include <variant>

namespace pl::cli {

double MeasuredCost::swapUsPerToken() const {
    return (rates.swap_out_us + rates.swap_in_us) / static_cast<double>(request.context_tokens);
}

double MeasuredCost::recomputeUsPerToken() const {
    return rates.replay_us / static_cast<double>(request.context_tokens);
}

std::optional<std::string> measuredCostFromArgs(const Args& args, const cost::CostInputs& in,
                                                const cost::CostOutputs& model, double tickUs,
                                                std::optional<MeasuredCost>& out) {
    const auto path = args.value("calibration");
    if (!path) {
        if (args.has("swap-method")) return "--swap-method: only with --calibration FILE";
        return std::nullopt;
    }
    auto loaded = cost::loadCalibrationFile(*path);
    if (const auto* e = std::get_if<std::string>(&loaded)) return *e;
    MeasuredCost m;
    m.path = *path;
    m.calibration = std::get<cost::Calibration>(std::move(loaded));
    // The cost model's machine: one GPU's KV shard per token at --block-size, priced at --context.
    Config machine;
    machine.block_size_tokens = in.block_size;
    machine.kv_bytes_per_token = model.kv_bytes_per_token_per_gpu;
    const auto method = swapMethodFlag(args);
    if (const auto* e = std::get_if<std::string>(&method)) return *e;
    const auto derived = cost::calibrateMachine(m.calibration, machine, tickUs, in.context, std::get<SwapMethod>(method));
    if (const auto* e = std::get_if<cost::RatesError>(&derived)) {
        const std::string flag = e->field == "block_size_tokens" ? "--block-size"
                                 : e->field == "context"           ? "--context"
                                 : e->field == "tick"              ? "--tick-us"
                                                                   : "--calibration";
        return flag + ": " + e->reason + " (calibration " + *path + ")";
    }
    m.request = std::get<cost::CalibratedMachine>(derived).request;
    m.rates = std::get<cost::CalibratedMachine>(derived).rates;
    m.breakevens = cost::measuredBreakevenContexts(m.calibration, m.request.method,
                                                   m.request.block_size_tokens, m.request.kv_bytes_per_token);
    out = std::move(m);
    return std::nullopt;
}

std::string measuredCostText(const MeasuredCost& m, const cost::CostOutputs& model) {
    const double swap = m.swapUsPerToken();
    const double recompute = m.recomputeUsPerToken();
    std::string s = "\nmeasured on " + m.calibration.device_name + " (" + m.path + "): " + std::string(toString(m.request.method)) +
                    " swaps at " + std::to_string(m.request.block_size_tokens) + "-token blocks, L = " +
                    formatThousands(m.request.context_tokens) + " tokens, " +
                    formatThousands(m.request.kv_bytes_per_token) + " B of KV per token\n";
    s += "  swap round trip     " + formatFixed(swap, 2) + " us/token   (model: " +
         formatFixed(model.swap_us_per_token, 2) + ")\n";
    s += "  recompute           " + formatFixed(recompute, 2) + " us/token   (model: " +
         formatFixed(model.recompute_us_per_token, 2) + ")\n";
    s += "  cheaper here        ";
    s += swap < recompute ? "swap" : recompute < swap ? "recompute" : "a tie";
    s += "\n";
    if (m.breakevens.empty()) {
        s += "  break-even context  none: the measured curves never cross\n";
    } else {
        s += "  break-even context ";
        for (std::size_t i = 0; i < m.breakevens.size(); ++i) {
            s += i == 0 ? " " : " and ";
            s += formatThousands(static_cast<std::int64_t>(m.breakevens[i] + 0.5));
        }
        s += " tokens (where the measured swap and replay cost the same)\n";
    }
    for (const auto& note : m.rates.notes) s += "  note: " + note + "\n";
    return s;
}

nlohmann::json measuredCostJson(const MeasuredCost& m) {
    nlohmann::json j;
    j["calibration"] = m.path;
    j["device"] = m.calibration.device_name;
    j["swap_method"] = std::string(toString(m.request.method));
    j["block_size"] = m.request.block_size_tokens;
    j["context"] = m.request.context_tokens;
    j["kv_bytes_per_token"] = m.request.kv_bytes_per_token;
    j["swap_us_per_token"] = m.swapUsPerToken();
    j["recompute_us_per_token"] = m.recomputeUsPerToken();
    j["breakeven_context_tokens"] = m.breakevens;
    j["notes"] = m.rates.notes;
    return j;
}

} // namespace pl::cli
