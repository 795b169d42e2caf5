#pragma once
// Timeline export (issue 26): one run as Chrome trace event JSON (the JSON Object format), which Perfetto
// (https://ui.perfetto.dev) and chrome://tracing open. A track per request (a thread of process 1) with a
// complete slice per contiguous state, an instant per eviction on the victim's track, and counters (process 2)
// for occupied blocks, the waiting queue, host bytes and link bytes in flight. Made from the run's ledger (the
// events the receipt is made from) and its per-tick series; written a piece at a time, never held whole, in
// the same bytes for the same run. docs/contracts.md ("Timeline file") describes the format.

#include "core/engine.h"
#include "core/workload.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pl {

inline constexpr std::string_view kTimelineFormat = "preemptlab.timeline.v1";
// Microseconds per tick when the workload does not say (the metadata says so).
inline constexpr std::int64_t kDefaultTickUs = 1000;

// How long a tick is, and where that figure came from (written in the trace's metadata).
struct TickLength {
    std::int64_t us = kDefaultTickUs;
    std::string source = "default: the workload gives no tick length, 1 tick = 1000 us";
};

// The workload's tick length when it gives one (config.tick_us; else the `--tick-ms` of the `import-trace` or
// `generate` command its notes name, "Command: preemptlab-cli ... --tick-ms 20 ...": 20000 us), else the default.
TickLength tickLengthOf(const Workload& w);

// The states a request's track shows, one slice per contiguous stretch (the slice's name).
// copying: its KV moving over the link (args.direction "out" after an eviction, "in" on resume).
std::string_view timelineStateName(Phase p);

// Where trace text goes, a piece at a time (about a megabyte each).
using TimelineSink = std::function<void(std::string_view)>;

// The trace of `run` (a run of `workload`; `series`: its per-tick figures, EngineOptions::record_series) handed
// to `sink` piece by piece. Timestamps are ticks x tick.us. `stop` (the lab's Cancel; the CLI gives none) is read
// every 1024 engine steps and events: once set, pl::Cancelled (stop_check.h). The text does not depend on it.
// `onlyRequests` (request indices; empty: every request): only these requests' tracks and eviction instants
// are written, as the lab's flagged-only timeline shows them; the metadata then says how many
// ("tracks_of_requests"), and the pool's counters are the whole run's. Empty, the bytes are as before it existed.
void streamTimeline(const Workload& workload, const RunResult& run, std::span<const TickStats> series,
                    const TickLength& tick, const TimelineSink& sink, const std::atomic<bool>* stop = nullptr,
                    std::span<const std::int32_t> onlyRequests = {});
// The same text whole (tests, small runs).
std::string timelineText(const Workload& workload, const RunResult& run, std::span<const TickStats> series,
                         const TickLength& tick, std::span<const std::int32_t> onlyRequests = {});
// Written atomically to `path` (a complete file or none); the message "PATH: reason" on failure.
// Cancelled through `stop`: the exception passes, and no file is left. `run` must be a run of `workload` (the
// trace steps it again beside the ledger): one that is not gives an error, and no file.
std::optional<std::string> writeTimeline(const std::string& path, const Workload& workload, const RunResult& run,
                                         std::span<const TickStats> series, const TickLength& tick,
                                         const std::atomic<bool>* stop = nullptr,
                                         std::span<const std::int32_t> onlyRequests = {});

} // namespace pl
