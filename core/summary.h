#pragma once
// RunSummary: the figures people compare runs by (CLI compare, the lab's compare view, sweeps). Derived from a
// finished run's records and totals; integer percentiles (nearest rank), so summaries are exact everywhere.

#include "core/engine.h"
#include "core/fallbacks.h"
#include "core/workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pl {

struct Percentiles {
    std::int64_t p50 = 0;
    std::int64_t p90 = 0;
    std::int64_t p99 = 0;
    std::int64_t max = 0;
    std::int64_t count = 0;
};

// Nearest-rank percentile of non-negative integers (sorted copy); empty input gives zeros.
Percentiles percentiles(std::vector<std::int64_t> values);

struct RunSummary {
    Totals totals;
    Percentiles queue_ticks;      // per request: ticks spent waiting (first admission and resumes)
    Percentiles ttft_ticks;       // first_token_tick - arrival_tick, requests that produced a token
    Percentiles tpot_ticks_x100;  // (completion - first_token) * 100 / (generated - 1), completed with >1 token
    Percentiles completion_ticks; // completion_tick - arrival_tick, completed requests
    std::int64_t flagged_excessive_wait = 0;
    std::int64_t flagged_repeated_preemption = 0;
    std::int64_t flagged_any = 0;
    std::vector<std::string> flagged_ids; // ids with any flag, in workload order
    FallbackCounts fallbacks;             // evictions that did not run as the policy asked, by reason
};

RunSummary summarize(const Workload& workload, const RunResult& run);

// "512 B", "4.0 KiB", "3.25 MiB", "8.00 GiB" (binary units): byte counts in the CLI's tables and reports and in
// the lab, so both say the same thing.
std::string formatBytes(std::int64_t bytes);

} // namespace pl
