#pragma once
// --model M --gpu G for import-trace and generate: the workload's machine from the cost model's tick rates (the
// figures `preemptlab-cli rates` prints as a config fragment: block size, KV bytes per token, prefill and
// transfer rates and, where the GPU's memory is known, capacity), so a user need not copy the fragment by hand.
// The command applies its explicit config flags afterwards, so they win.

#include "app/cli/args.h"

#include "core/workload.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pl::cli {

// The options applyMachineRates reads.
const std::set<std::string>& machineRateOptionNames();

// Without --model and --gpu: nothing. Otherwise fills `c` from the rates at one tick of `tickUs` microseconds and
// appends the keys it set to `keys`. Returns "--flag: reason" on bad input (an unknown preset, a tick too short
// for a rate to reach 1).
std::optional<std::string> applyMachineRates(const Args& args, double tickUs, Config& c,
                                             std::vector<std::string>& keys);

// The config keys (with their values) whose values in `c` are still those of `defaults` and that no flag in
// `args` (nor `alsoSet`) named: what the user has not chosen, for a note on stderr.
std::vector<std::pair<std::string, std::int64_t>> configKeysLeftAtDefaults(const Args& args, const Config& c, const Config& defaults,
                                                  const std::vector<std::string>& alsoSet);

} // namespace pl::cli
