#pragma once
// FallbackCounts: how many of a run's evictions did not run as the policy asked, by reason (the evict events'
// Event::fallback), and the note that says so when a mode never swapped because host memory was full. One
// helper for the CLI's compare and the lab's Compare view, so both count and word it alike. Never hashed.

#include "core/ledger.h"
#include "core/workload.h"

#include <cstdint>
#include <string>

namespace pl {

struct FallbackCounts {
    std::int64_t host_full = 0;       // swap or hybrid wanted the host, not even its prefix fitted: recomputed
    std::int64_t hybrid_shrunk = 0;   // hybrid swapped a shorter prefix than it wanted (host memory short)
    std::int64_t nothing_to_swap = 0; // hybrid: the context holds no full block to swap: recomputed
    std::int64_t evictions = 0;       // every evict event
    std::int64_t swapped = 0;         // evictions that did put KV on the host (swap, or hybrid's prefix)
    std::int64_t largest_host_full_need_bytes = 0; // the largest host-full swap: what it needed on the host
    std::int64_t total() const { return host_full + hybrid_shrunk + nothing_to_swap; }
    friend bool operator==(const FallbackCounts&, const FallbackCounts&) = default;
};

// Counts the evict events of a ledger.
FallbackCounts countFallbacks(const Ledger& ledger);

// A line for a mode that put nothing on the host because every swap it tried found host memory full (at least
// one such eviction): the mode, the count, the workload's host_capacity_bytes and KV bytes per token, and the
// fix (raise host_capacity_bytes, --host-capacity-bytes). Empty otherwise.
std::string hostFullNote(const Workload& workload, Recovery mode, const FallbackCounts& counts);

} // namespace pl
