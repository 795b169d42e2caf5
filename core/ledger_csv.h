#pragma once
// The victim ledger as CSV: one row per evict event, in ledger order, with what became of its copy back. The lab's
// Export > Ledger as CSV (Ctrl+Shift+L), the review bundle's ledger.csv and `preemptlab-cli run --ledger-csv FILE`
// all write these bytes (docs/contracts.md, "Ledger CSV"). Numbers are plain integers (bytes in bytes); a field
// holding a comma, a quote or a line break is quoted, quotes doubled.
//
// Columns: tick, victim (the request id), mode (the mode used), fallback (why it differs from the policy's, in
// words: "host memory full", "hybrid prefix shrunk to fit host", "nothing to swap"; empty when it does not),
// freed_blocks, replay_tokens, swap_out_bytes, swap_in_bytes (what the victim's next landed swap-in copied back;
// 0 for none), est_recompute_ticks, est_swap_ticks, queue_position; with live measurements (a live run's
// annotations, never hashed) also measured_us, bytes_moved, tokens_computed, modelled_us (3 decimals; empty where
// the eviction had no device work or no model) and device_error.

#include "core/engine.h"

#include <string>
#include <string_view>
#include <vector>

namespace pl {

// The fallback in words, as the ledger's Mode column and the CSV say it ("" for none).
std::string_view fallbackWords(Fallback f);

// The rows' evict events in ledger order, and for each the swap-in bytes its victim's next landed copy back brought.
struct LedgerRows {
    std::vector<std::size_t> events;
    std::vector<std::int64_t> swap_in_bytes;
};
LedgerRows ledgerRows(const std::vector<Event>& events);

// A live run's measurements for one row: the sums over the annotations that carry its evict's seq (an evict's
// device calls, swap_out and replay, hybrid has both; a swap_in belongs to the resume), and which they are.
// The CSV's live columns and the lab's ledger both show these.
struct LiveRowSums {
    bool any = false; // some call carried the row's seq
    bool ok = true;   // every one of them succeeded
    double measured_us = 0.0;
    double modelled_us = 0.0;
    std::int64_t bytes_moved = 0;
    std::int64_t tokens_computed = 0;
    std::string errors;                   // the failed calls' errors, "; "-separated
    std::vector<std::size_t> annotations; // the calls' indices in `live`, in order
};
// One per row, `rowEvents` being the rows' evict events (LedgerRows::events).
std::vector<LiveRowSums> liveRowSums(const std::vector<Event>& events, const std::vector<std::size_t>& rowEvents,
                                     const std::vector<LiveAnnotation>& live);

// The CSV of a run (`live`: a live run's annotations, empty for a simulation).
std::string ledgerCsv(const Workload& workload, const std::vector<Event>& events,
                      const std::vector<LiveAnnotation>& live = {});

} // namespace pl
