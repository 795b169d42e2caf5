#include "app/cli/workload_flags.h"

#include "app/cli/commands.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <cstdio>
#include <variant>

namespace pl::cli {

std::set<std::string> workloadFlagNames() {
    std::set<std::string> names;
    for (const auto& keys : {configKeys(), policyKeys()}) {
        for (auto k : keys) {
            names.insert(settingFlag(k).substr(2)); // without the "--"
        }
    }
    return names;
}

int badInput(const std::string& message) {
    std::fprintf(stderr, "preemptlab-cli: %s\n", message.c_str());
    return kExitBadInput;
}

bool parseCommand(int argc, char** argv, const ArgSpec& spec, const std::vector<std::string>& positionals,
                  const std::string& usage, Args& args) {
    auto err = parseArgs(argc, argv, 1, spec, args);
    if (!err) {
        err = positionalProblem(args, positionals);
    }
    if (err) {
        badInput(*err + "\nusage: preemptlab-cli " + usage);
        return false;
    }
    return true;
}

std::optional<Workload> loadWithOverrides(const std::string& file, const Args& args) {
    auto loaded = loadWorkloadFile(file);
    if (auto* err = std::get_if<InputError>(&loaded)) {
        badInput(err->message());
        return std::nullopt;
    }
    Workload w = std::get<Workload>(std::move(loaded));
    const auto flags = workloadFlagNames();
    for (const auto& [name, value] : args.options) {
        if (!flags.count(name)) {
            continue;
        }
        if (auto err = applyOverride(w, name, value)) { // it takes the flag spelling too
            badInput(err->message());
            return std::nullopt;
        }
    }
    if (auto err = validateWorkload(w)) {
        InputError e = *err;
        e.file = file + " (after command-line overrides)";
        badInput(e.message());
        return std::nullopt;
    }
    return w;
}

} // namespace pl::cli
