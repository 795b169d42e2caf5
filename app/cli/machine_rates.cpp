#include "app/cli/machine_rates.h"

#include "core/cost/tick_rates.h"
#include "core/workload_overrides.h"
#include "core/workload_rules.h"

#include <algorithm>
#include <variant>

namespace pl::cli {

const std::set<std::string>& machineRateOptionNames() {
    static const std::set<std::string> names = {"model", "gpu"};
    return names;
}

std::optional<std::string> applyMachineRates(const Args& args, double tickUs, Config& c,
                                             std::vector<std::string>& keys) {
    const auto model = args.value("model");
    const auto gpu = args.value("gpu");
    if (!model && !gpu) {
        return std::nullopt;
    }
    // The lab's import dialog computes its machine the same way (cost::presetTickRates).
    const auto asView = [](const std::optional<std::string>& s) {
        return s ? std::optional<std::string_view>(*s) : std::nullopt;
    };
    const auto result = cost::presetTickRates(asView(model), asView(gpu), tickUs);
    if (const auto* err = std::get_if<cost::CostInputError>(&result)) {
        return "--" + err->field + ": " + err->reason;
    }
    const std::vector<std::string> set = cost::applyTickRates(std::get<cost::TickRates>(result), c);
    keys.insert(keys.end(), set.begin(), set.end());
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
