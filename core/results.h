#pragma once
// What a run gives back, apart from the engine that made it: the per-tick figures, the totals, the per-request
// records, a live backend's measurements and the whole RunResult (ledger, records, totals). Receipts, summaries,
// reviews, the lab and the CLI read these; engine.h (which includes this file) makes them.

#include "core/ledger.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pl {

// Per-tick figures for the running plots (recorded when EngineOptions::record_series is set).
struct TickStats {
    Tick tick = 0;
    std::int64_t occupied_blocks = 0;
    std::int64_t in_flight_blocks = 0;
    std::int64_t waiting = 0;
    std::int64_t running = 0;
    std::int64_t host_bytes = 0;
    std::int64_t replay_tokens_total = 0;
    std::int64_t swap_out_bytes_total = 0;
    std::int64_t swap_in_bytes_total = 0;
    std::int64_t completed = 0;
};

struct Totals {
    std::int64_t ticks = 0;
    std::int64_t request_ticks = 0;
    std::int64_t pressure_events = 0;
    std::int64_t evictions = 0;
    std::int64_t freed_blocks = 0;
    std::int64_t replay_tokens = 0;
    std::int64_t swap_out_bytes = 0;
    std::int64_t swap_in_bytes = 0;
    std::int64_t peak_host_bytes = 0;
    std::int64_t completed = 0;
    std::int64_t censored = 0;
    std::int64_t queue_reentries = 0;
    std::int64_t cached_tokens = 0; // prefix sharing: tokens attached from the cache at admissions and resumes
    friend bool operator==(const Totals&, const Totals&) = default;
};

// What a live backend measured for one engine call (docs/live-mode.md). Never hashed: written in the
// receipt's top-level "live" member, beside the simulation it annotates.
struct LiveAnnotation {
    std::int64_t seq = 0;          // the event it belongs to (evict: swap_out/replay; resume: swap_in)
    std::int32_t request = -1;
    std::string kind;              // "swap_out", "replay" or "swap_in"
    std::int64_t tokens = 0;       // tokens the engine asked the backend to move or recompute
    double measured_us = 0.0;
    double modelled_us = 0.0;
    std::int64_t bytes_moved = 0;
    std::int64_t tokens_computed = 0;
    bool ok = true;
    std::string error;
};

// Per-request outcome, for receipts.
struct RequestRecord {
    std::int32_t request = -1;
    bool completed = false;
    std::int64_t generated_tokens = 0;
    std::int64_t first_token_tick = -1;
    std::int64_t completion_tick = -1;
    std::int64_t preemptions = 0;
    std::int64_t queue_ticks = 0;
    bool excessive_wait = false;
    bool repeated_preemption = false;
};

// A finished run: ledger, per-request records and totals.
struct RunResult {
    Ledger ledger;
    std::vector<RequestRecord> records;
    std::vector<std::string> tenants;
    Totals totals;
    // Live runs only (a backend was given): the device, its measurements in seq order, and the first error
    // of a call that returns nothing (LiveBackend::lastError).
    bool live_run = false;
    std::string live_device;
    std::vector<LiveAnnotation> live;
    std::string live_error;
};

} // namespace pl
