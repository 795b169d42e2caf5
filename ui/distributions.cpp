#include "ui/distributions.h"

#include <algorithm>
#include <cmath>

namespace plui {

Distributions Distributions::from(const pl::Workload& workload, const std::vector<pl::RequestRecord>& records) {
    Distributions d;
    for (const pl::RequestRecord& r : records) {
        if (r.request < 0 || static_cast<std::size_t>(r.request) >= workload.requests.size()) continue;
        const auto& spec = workload.requests[static_cast<std::size_t>(r.request)];
        d.queueDelay.push_back(static_cast<double>(r.queue_ticks));
        if (r.first_token_tick >= 0) d.ttft.push_back(static_cast<double>(r.first_token_tick - spec.arrival_tick));
        if (!r.completed) {
            ++d.censored;
            continue;
        }
        d.completion.push_back(static_cast<double>(r.completion_tick - spec.arrival_tick));
        if (r.generated_tokens > 1 && r.first_token_tick >= 0) {
            d.tpot.push_back(static_cast<double>(r.completion_tick - r.first_token_tick) /
                             static_cast<double>(r.generated_tokens - 1));
        }
    }
    return d;
}

Histogram histogram(const std::vector<double>& values, double minWidth, int maxBins) {
    Histogram h;
    if (values.empty()) return h;
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    const double span = *hi - *lo;
    // Whole numbers (tick counts, or ticks per token that came out whole) are discrete: a bin narrower than 1
    // splits nothing apart, and each number owns the unit cell around it.
    const bool whole = std::all_of(values.begin(), values.end(), [](double v) { return v == std::floor(v); });
    double width = std::max(span / maxBins, whole ? std::max(minWidth, 1.0) : minWidth);
    if (width >= 1.0) width = std::ceil(width);
    if (width <= 0) width = 1;
    // Whole numbers: bins on multiples of the width. Fractions (ticks per token): bins from the smallest value,
    // so the bar holding 1.0 starts at 1.0 (on multiples of 0.015 it stood on 0.99 to 1.005 and read as values
    // under 1).
    const double start = whole ? std::floor(*lo / width) * width : *lo;
    const int bins = std::max(1, static_cast<int>(std::floor((*hi - start) / width)) + 1);
    // Bin i holds [start + i * width, start + (i + 1) * width). For whole numbers that is the numbers from
    // start + i * width to one less than the next bin's first, and the bar covers their unit cells, half a unit
    // to the left: the bar of 3 stands on 3 (2.5 to 3.5), not between 3 and 4.
    const double firstEdge = whole ? start - 0.5 : start;
    h.width = width;
    h.counts.assign(static_cast<std::size_t>(bins), 0.0);
    h.centers.resize(static_cast<std::size_t>(bins));
    for (int i = 0; i < bins; ++i) h.centers[static_cast<std::size_t>(i)] = firstEdge + (i + 0.5) * width;
    for (double v : values) {
        const int i = std::clamp(static_cast<int>(std::floor((v - start) / width)), 0, bins - 1);
        h.counts[static_cast<std::size_t>(i)] += 1;
    }
    return h;
}

} // namespace plui
