#pragma once
// breakeven and rates with --calibration FILE [--swap-method M]: the calibration's measured curves priced the
// way the cost model prices its own (one GPU's KV shard per token, --block-size, --context), so the measured
// figures stand beside the paper ones (docs/cost-model.md, "Measured beside modelled").

#include "app/cli/args.h"

#include "core/cost/calibrated_rates.h"
#include "core/cost/cost_model.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pl::cli {

struct MeasuredCost {
    std::string path;
    cost::Calibration calibration;
    cost::RatesRequest request;
    cost::CalibratedRates rates;    // at request.tick_us
    std::vector<double> breakevens; // context lengths where the measured swap and replay cost the same
    double swapUsPerToken() const;
    double recomputeUsPerToken() const;
};

// Reads --calibration and --swap-method (nullopt in `out` when --calibration is absent) and prices the curves
// at `tickUs`. Returns an error message naming the file or flag and the reason.
std::optional<std::string> measuredCostFromArgs(const Args& args, const cost::CostInputs& in,
                                                const cost::CostOutputs& model, double tickUs,
                                                std::optional<MeasuredCost>& out);

std::string measuredCostText(const MeasuredCost& m, const cost::CostOutputs& model);
nlohmann::json measuredCostJson(const MeasuredCost& m);

} // namespace pl::cli
