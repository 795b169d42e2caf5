#pragma once
// Livelock: a run that stopped getting anywhere, read from its ledger alone (the lab's hint, docs/lab.md).
//
// A request advances when one of its events shows more work done than any of its earlier events: more output
// tokens generated, or, before its first token, more prompt tokens prefilled (an evict's or a censor's
// context), or when it completes. Every request's last event (complete or censor) carries its final counts, so
// a gain is always seen, at the latest at the next event of that request: no request gained a token or
// finished after `lastAdvance`. The run is livelocked when it was cut off at max_ticks with requests
// unfinished, nothing advanced for at least wait_threshold_ticks before its end, and evictions kept taking
// blocks back meanwhile (at least two: evicted, resumed, evicted again): the scheduler churned without progress.
// A run that merely ran out of ticks while still advancing, or that stalled without evictions, is not one.

#include "core/model.h"
#include "core/results.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pl {

struct Livelock {
    Tick lastAdvance = -1;       // the last tick in which a request was seen to advance (-1: none ever did)
    Tick end = 0;                // the run's last tick
    std::int64_t evictions = 0;  // evictions after lastAdvance
    std::int64_t censored = 0;   // requests unfinished at the end
    // Requests evicted after lastAdvance (request indices), most evictions first, then by index; with counts.
    struct Churn {
        std::int32_t request = -1;
        std::int64_t evictions = 0;
    };
    std::vector<Churn> churned;
};

// The livelock of `run` (made from `workload`), or nullopt when the run kept advancing to its end, finished
// every request, or stalled without evictions.
std::optional<Livelock> findLivelock(const Workload& workload, const RunResult& run);

// One sentence for people: from which tick nothing finished or advanced, and why. Request ids come from
// `workload` (the run's normalised order).
std::string livelockSentence(const Workload& workload, const Livelock& livelock);

} // namespace pl
