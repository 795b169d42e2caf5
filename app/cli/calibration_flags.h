#pragma once
// --calibration FILE --tick-ms MS [--swap-method M] [--calibration-context L]: for the commands that take a
// workload (run, compare), derive the workload's transfer_bytes_per_tick and prefill_tokens_per_tick from a
// calibration.json's measured fits (cost::calibrateMachine, core/cost/calibrated_rates.h), print what was
// derived and from which fit, and hand the calibration on (run --live uses it for the modelled microseconds).

#include "app/cli/args.h"

#include "core/cost/calibration.h"
#include "core/cost/swap_method.h"
#include "core/workload.h"

#include <optional>
#include <set>
#include <string>
#include <variant>

namespace pl::cli {

std::set<std::string> calibrationFlagNames();

// --swap-method (gather when absent), or the error "--swap-method: must be per-block, batched or gather, got 'X'".
std::variant<SwapMethod, std::string> swapMethodFlag(const Args& args);

// Applies the flags to `w` (loaded from `file`). Without --calibration: nothing, and `used` stays empty.
// On bad input prints "preemptlab-cli: FILE: /json/pointer: reason" (or the flag and reason) and returns false.
bool applyCalibrationFlags(const Args& args, const std::string& file, Workload& w,
                           std::optional<cost::Calibration>& used);

} // namespace pl::cli
