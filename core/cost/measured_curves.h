#pragma once
// MeasuredCurves: what a calibration.json says about swap against recompute, as curves a view draws without
// computing anything: the per-token cost of each over its measured range (no extrapolation), where they cross,
// the swap copies measured at one block size with their fitted lines, and the prefill measurements with their
// fit. The lab's break-even explorer draws these (ui/breakevenview.cpp); `breakeven --calibration` prints the
// same figures (measuredSwapUsPerToken, measuredBreakevenContexts in calibrated_rates.h).

#include "core/cost/calibration.h"
#include "core/cost/swap_method.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pl::cost {

struct Curve {
    std::vector<double> x, y;
};

struct SwapMeasurements {
    SwapMethod method = SwapMethod::Gather;
    std::string direction;  // "d2h" or "h2d"
    Curve points;           // bytes -> us, as measured
    Curve fit;              // bytes -> us along the fitted line, over the measured bytes (empty without a fit)
};

struct MeasuredCurves {
    std::int64_t block_size = -1;  // the block size drawn: the wanted one if measured, else 16, else the first
    SwapMethod method = SwapMethod::Gather; // gather if measured at that block size, else the first fit's
    Curve swap_us_per_token;       // context tokens -> swap round trip, us per token, over the measured copy sizes
    Curve recompute_us_per_token;  // context tokens -> replay, us per token, over the measured prefill lengths
    std::vector<double> breakevens; // contexts where the two cost the same, ascending (measuredBreakevenContexts)
    std::vector<SwapMeasurements> swaps; // every method and direction measured at block_size, in method order
    Curve prefill_points;          // tokens -> us, as measured
    Curve prefill_fit;             // tokens -> us along the quadratic fit, over the measured lengths
};

// `steps` + 1 points per per-token curve (log-spaced), `fitSteps` + 1 along the prefill fit.
MeasuredCurves measuredCurves(const Calibration& c, std::int64_t wantedBlockSize, int steps = 48, int fitSteps = 32);

} // namespace pl::cost
