#pragma once
// CostReport: the cost model's inputs and outputs as JSON and as a readable explanation. The CLI's
// `breakeven` prints these, and the lab can export the same text, so both say the same thing.

#include "cost/cost_model.h"
#include "cost/tick_rates.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pl::cost {

// Every output of computeCost (optional figures are null where none exists) plus the inputs under "inputs".
nlohmann::json costReportJson(const CostInputs& in, const CostOutputs& out);

// A few lines explaining each figure and where it comes from.
std::string costReportText(const CostInputs& in, const CostOutputs& out);

// The `config` fragment of a workload holding the tick rates: {"config": {...}}.
nlohmann::json tickRatesConfigJson(const TickRates& r);

} // namespace pl::cost
