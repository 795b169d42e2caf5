#pragma once
// Reading the cost model's inputs (core/cost/cost_model.h) from the command line: --model/--gpu presets, then
// explicit numbers that override single fields. Shared by `breakeven` and `rates`.

#include "app/cli/args.h"

#include "core/cost/cost_model.h"

#include <optional>
#include <string>

namespace pl::cli {

// The valued options costInputsFromArgs understands.
const std::set<std::string>& costOptionNames();

// Fills `in` from the options; returns "--flag: reason" on bad input.
std::optional<std::string> costInputsFromArgs(const Args& args, pl::cost::CostInputs& in);

// Strict number parsing: the whole text must be a finite number. parseCount also takes a k/M/B/G/T suffix.
std::optional<double> parseReal(const std::string& text);
std::optional<double> parseCount(const std::string& text);
std::optional<std::int64_t> parseInteger(const std::string& text);

} // namespace pl::cli
