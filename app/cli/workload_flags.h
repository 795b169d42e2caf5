#pragma once
// Shared by the commands that take a workload: load it, apply `--<config or policy key> value` overrides
// (dashes for underscores), validate, and report errors as the contract says (file, JSON path, reason).

#include "app/cli/args.h"

#include "core/workload.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pl::cli {

// Every config and policy key as a flag name ("capacity-blocks", "resume-guard", ...).
std::set<std::string> workloadFlagNames();

// Load WORKLOAD and apply the overrides found in `args`. On error prints to stderr and returns nullopt.
std::optional<Workload> loadWithOverrides(const std::string& file, const Args& args);

// Prints the error, then returns kExitBadInput.
int badInput(const std::string& message);

// Parses a command's arguments and checks its positionals; on a mistake prints what is wrong, then the usage
// ("usage: preemptlab-cli " + usage), and returns false.
bool parseCommand(int argc, char** argv, const ArgSpec& spec, const std::vector<std::string>& positionals,
                  const std::string& usage, Args& args);

} // namespace pl::cli
