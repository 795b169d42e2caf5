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

#include "engine.h"

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

// The CSV of a run (`live`: a live run's annotations, empty for a simulation).
std::string ledgerCsv(const Workload& workload, const std::vector<Event>& events,
                      const std::vector<LiveAnnotation>& live = {});

} // namespace pl
