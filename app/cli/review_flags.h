#pragma once
// --slo-ttft-ms --slo-tpot-ms --slo-ttft-ticks --slo-tpot-ticks: the SLOs that run, compare, report and gate
// take (core/review/goodput.h), and the goodput lines run and compare print with them.

#include "app/cli/args.h"

#include "core/review/goodput.h"

#include <optional>
#include <set>
#include <string>

namespace pl::cli {

std::set<std::string> sloFlagNames();

// The SLOs given in `args`; the reason when a value is malformed or a criterion is given both in ms and in ticks.
std::optional<std::string> slosFromArgs(const Args& args, review::Slos& slos);

// run's and compare's latency lines: ITL beside TTFT/TPOT, in ms where the workload gives tick_us, and the
// goodput under `slos` when any is given. `label` starts each line ("" for run, the mode for compare).
std::string latencyLines(const review::RunOutcomes& run, const review::Slos& slos, const std::string& label);

} // namespace pl::cli
