#include "machine_rates.h"

#include "cost_args.h"

#include "cost/tick_rates.h"
#include "workload_rules.h"

#include <algorithm>
#include <variant>

namespace pl::cli {

const std::set<std::string>& machineRateOptionNames() {
    static const std::set<std::string> names = {"model", "gpu"};
    return names;
}

std::optional<std::string> applyMachineRates(const Args& args, double tickUs, Config& c,
                                             std::vector<std::string>& keys) {
    Args presets; // only the presets: the rest of the command line is the command's own
    for (const std::string& name : machineRateOptionNames()) {
        if (auto v = args.value(name)) {
            presets.options.emplace_back(name, *v);
        }
    }
    if (presets.options.empty()) {
        return std::nullopt;
    }
    cost::TickRatesInputs in;
    if (auto err = costInputsFromArgs(presets, in.cost)) {
        return err;
    }
    in.tick_us = tickUs;
    const auto result = cost::computeTickRates(in);
    if (const auto* err = std::get_if<cost::CostInputError>(&result)) {
        return "--" + err->field + ": " + err->reason;
    }
    const auto& r = std::get<cost::TickRates>(result);
    c.block_size_tokens = r.block_size_tokens;
    c.kv_bytes_per_token = r.kv_bytes_per_token;
    c.prefill_tokens_per_tick = r.prefill_tokens_per_tick;
    c.transfer_bytes_per_tick = r.transfer_bytes_per_tick;
    keys.insert(keys.end(), {"block_size_tokens", "kv_bytes_per_token", "prefill_tokens_per_tick",
                             "transfer_bytes_per_tick"});
    if (r.capacity_blocks) {
        c.capacity_blocks = *r.capacity_blocks;
        keys.push_back("capacity_blocks");
    }
    return std::nullopt;
}

std::vector<std::pair<std::string, std::int64_t>> configKeysLeftAtDefaults(const Args& args, const Config& c,
                                                                           const Config& defaults,
                                                                           const std::vector<std::string>& alsoSet) {
    std::vector<std::pair<std::string, std::int64_t>> left;
    for (const ConfigField& f : configFields()) {
        const std::string key(f.key);
        const bool named = args.has(settingFlag(key).substr(2)) || args.has(key) ||
                           std::find(alsoSet.begin(), alsoSet.end(), key) != alsoSet.end();
        if (!named && c.*f.member == defaults.*f.member) {
            left.emplace_back(key, c.*f.member);
        }
    }
    return left;
}

} // namespace pl::cli
