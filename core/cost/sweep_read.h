#pragma once
// Reading a sweep's JSON result (`preemptlab.sweep.v1`, what `preemptlab-cli sweep --out F.json` and
// `sweep-merge --out F.json` write with sweepJson) back into a SweepResult, for the lab's Sweep view.
// Everything is checked: the grid (`vary`), `modes`, `metric`, and each point's index, values, results (one per
// mode), winner and flip axes; errors name the file, the JSON path and the reason
// ("s.json: /points/3/results/swap/metric: not a number with six decimals").
// The file prints means and metrics with six decimals, so those figures are read back rounded to six decimals;
// winners, margins and flips are the file's own (the sweep computed them from the exact figures).

#include "core/cost/sweep.h"

#include <atomic>
#include <string>
#include <string_view>
#include <variant>

namespace pl::cost {

inline constexpr std::string_view kSweepResultFormat = "preemptlab.sweep.v1";

std::variant<SweepResult, InputError> parseSweepResult(std::string_view text, const std::string& file);
// Reads the file (at most 4 GiB; `stop` as readTextFile reads it) and checks it as parseSweepResult does.
std::variant<SweepResult, InputError> loadSweepResultFile(const std::string& path,
                                                          const std::atomic<bool>* stop = nullptr);

} // namespace pl::cost
