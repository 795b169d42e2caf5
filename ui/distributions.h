#pragma once
// Per-request tick intervals drawn as distributions: TTFT-like (first token - arrival), TPOT-like ((completion
// - first token) / (generated - 1)), completion (completion - arrival) and queue delay (queue_ticks). Tick
// differences under the model, not field latency (seed 003). Censored requests are left out of the
// completion-based figures and counted separately.

#include "core/engine.h"

#include <vector>

namespace plui {

struct Distributions {
    std::vector<double> ttft;
    std::vector<double> tpot;
    std::vector<double> completion;
    std::vector<double> queueDelay;
    int censored = 0;

    static Distributions from(const pl::Workload& workload, const std::vector<pl::RequestRecord>& records);
};

struct Histogram {
    std::vector<double> centers;
    std::vector<double> counts;
    double width = 1;
};
// Integer-friendly bins: width a whole number of ticks when the range allows it, never under `minWidth` (1 for
// whole ticks, 0.01 for ticks per token: the resolution the summaries report), so near-equal values share a bar.
// When every value is a whole number the bins are whole numbers too (at least 1) and a bar is centred on the
// numbers it holds (the bar of 3 on 3, of 0..24 on 12), as `width` wide; otherwise centres are bin midpoints.
Histogram histogram(const std::vector<double>& values, double minWidth, int maxBins = 40);

} // namespace plui
