#include "core/summary.h"

#include "core/number_text.h"

#include <algorithm>

namespace pl {

Percentiles percentiles(std::vector<std::int64_t> values) {
    Percentiles p;
    p.count = static_cast<std::int64_t>(values.size());
    if (values.empty()) {
        return p;
    }
    std::sort(values.begin(), values.end());
    const auto n = static_cast<std::int64_t>(values.size());
    auto rank = [&](std::int64_t pct) {
        // nearest rank: ceil(pct/100 * n), 1-based
        const std::int64_t r = std::max<std::int64_t>(1, (pct * n + 99) / 100);
        return values[static_cast<std::size_t>(r - 1)];
    };
    p.p50 = rank(50);
    p.p90 = rank(90);
    p.p99 = rank(99);
    p.max = values.back();
    return p;
}

RunSummary summarize(const Workload& workload, const RunResult& run) {
    RunSummary s;
    s.totals = run.totals;
    s.fallbacks = countFallbacks(run.ledger);
    std::vector<std::int64_t> queue, ttft, tpot, completion;
    for (const auto& rec : run.records) {
        const auto& spec = workload.requests[static_cast<std::size_t>(rec.request)];
        queue.push_back(rec.queue_ticks);
        if (rec.first_token_tick >= 0) {
            ttft.push_back(rec.first_token_tick - spec.arrival_tick);
        }
        if (rec.completed) {
            completion.push_back(rec.completion_tick - spec.arrival_tick);
            if (rec.generated_tokens > 1) {
                tpot.push_back((rec.completion_tick - rec.first_token_tick) * 100 / (rec.generated_tokens - 1));
            }
        }
        s.flagged_excessive_wait += rec.excessive_wait ? 1 : 0;
        s.flagged_repeated_preemption += rec.repeated_preemption ? 1 : 0;
        if (rec.excessive_wait || rec.repeated_preemption) {
            s.flagged_any += 1;
            s.flagged_ids.push_back(spec.id);
        }
    }
    s.queue_ticks = percentiles(std::move(queue));
    s.ttft_ticks = percentiles(std::move(ttft));
    s.tpot_ticks_x100 = percentiles(std::move(tpot));
    s.completion_ticks = percentiles(std::move(completion));
    return s;
}

std::string formatBytes(std::int64_t b) {
    if (b >= (std::int64_t{1} << 30)) {
        return formatFixed(static_cast<double>(b) / (1 << 30), 2) + " GiB";
    }
    if (b >= (1 << 20)) {
        return formatFixed(static_cast<double>(b) / (1 << 20), 2) + " MiB";
    }
    if (b >= (1 << 10)) {
        return formatFixed(static_cast<double>(b) / (1 << 10), 1) + " KiB";
    }
    return std::to_string(b) + " B";
}

} // namespace pl
