#pragma once
// CostReport: the cost model's inputs and outputs as JSON and as a readable explanation. The CLI's
// `breakeven` prints these, and the lab can export the same text, so both say the same thing.

#include "core/cost/cost_model.h"
#include "core/cost/tick_rates.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pl::cost {

// Every output of computeCost (optional figures are null where none exists) plus the inputs under "inputs".
nlohmann::json costReportJson(const CostInputs& in, const CostOutputs& out);

// The explanation as rows: a title (model, GPU, KV dtype, context), each figure with where it comes from, and
// the verdict lines. The CLI's text and the lab's break-even table are both written from it.
struct CostReport {
    struct Row {
        std::string label; // "KV per token", "break-even context", ...
        std::string value; // the figure and how it is made
    };
    std::string title;
    std::vector<Row> rows;
    std::vector<std::string> verdicts; // "verdict: ..." lines
};
CostReport costReport(const CostInputs& in, const CostOutputs& out);

// The report as `preemptlab-cli breakeven` prints it: the title, "  label" padded to 20 columns then the
// value, one line per row, then the verdict lines.
std::string costReportText(const CostReport& report);
std::string costReportText(const CostInputs& in, const CostOutputs& out);

// The `config` fragment of a workload holding the tick rates: {"config": {...}}.
nlohmann::json tickRatesConfigJson(const TickRates& r);

} // namespace pl::cost
