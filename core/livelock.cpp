#include "core/livelock.h"

#include "core/number_text.h"

#include <algorithm>
#include <utility>

namespace pl {

namespace {

// Work an event shows its request has done, compared lexicographically: output tokens, then (before the first
// token) prompt tokens prefilled. Only the kinds that carry these counts take part.
struct Work {
    std::int64_t generated = 0;
    std::int64_t prefilled = 0;
    auto operator<=>(const Work&) const = default;
};

bool carriesWork(EventKind k) {
    return k == EventKind::FirstToken || k == EventKind::Evict || k == EventKind::Complete || k == EventKind::Censor;
}

} // namespace

std::optional<Livelock> findLivelock(const Workload& workload, const RunResult& run) {
    const auto& events = run.ledger.events;
    if (events.empty() || run.totals.censored == 0) return std::nullopt;
    const std::size_t requestCount = workload.requests.size();
    std::vector<Work> best(requestCount);
    Livelock out;
    out.end = events.back().tick;
    for (const Event& e : events) {
        if (e.request < 0 || static_cast<std::size_t>(e.request) >= requestCount) continue;
        if (e.kind == EventKind::Complete) {
            out.lastAdvance = e.tick;
            continue;
        }
        if (!carriesWork(e.kind)) continue;
        const Work now{e.generated_tokens, e.generated_tokens > 0 ? 0 : e.context_tokens};
        Work& seen = best[static_cast<std::size_t>(e.request)];
        if (now > seen) {
            seen = now;
            out.lastAdvance = e.tick;
        }
    }
    const std::int64_t stalled = out.end - out.lastAdvance;
    if (stalled < std::max<std::int64_t>(1, workload.config.wait_threshold_ticks)) return std::nullopt;
    std::vector<std::int64_t> perRequest(requestCount, 0);
    for (const Event& e : events) {
        if (e.kind != EventKind::Evict || e.tick <= out.lastAdvance) continue;
        ++out.evictions;
        if (e.request >= 0 && static_cast<std::size_t>(e.request) < requestCount) ++perRequest[static_cast<std::size_t>(e.request)];
    }
    if (out.evictions < 2) return std::nullopt;
    out.censored = run.totals.censored;
    for (std::size_t r = 0; r < requestCount; ++r) {
        if (perRequest[r] > 0) out.churned.push_back({static_cast<std::int32_t>(r), perRequest[r]});
    }
    std::stable_sort(out.churned.begin(), out.churned.end(),
                     [](const Livelock::Churn& a, const Livelock::Churn& b) { return a.evictions > b.evictions; });
    return out;
}

std::string livelockSentence(const Workload& workload, const Livelock& livelock) {
    std::string who;
    constexpr std::size_t kNamed = 3;
    for (std::size_t i = 0; i < livelock.churned.size() && i < kNamed; ++i) {
        const auto& c = livelock.churned[i];
        if (i > 0) who += i + 1 == std::min(livelock.churned.size(), kNamed) ? " and " : ", ";
        who += workload.requests[static_cast<std::size_t>(c.request)].id + " (" + formatThousands(c.evictions) + ")";
    }
    if (livelock.churned.size() > kNamed) who += " and " + formatThousands(static_cast<std::int64_t>(livelock.churned.size() - kNamed)) + " more";
    const std::string from = livelock.lastAdvance < 0 ? std::string("the start")
                                                      : std::string("tick ") + formatThousands(livelock.lastAdvance + 1);
    return std::string("Livelock: from ") + from + " to the end (tick " + formatThousands(livelock.end) +
           ") no request generated a token or finished, while " + formatThousands(livelock.evictions) +
           " evictions took blocks back (" + who + "): every request resumed meanwhile was evicted again, or cut off, "
           "before it gained a token, and " + formatThousands(livelock.censored) +
           (livelock.censored == 1 ? " request was" : " requests were") + " unfinished at max_ticks.";
}

} // namespace pl
