#include "core/fallbacks.h"

#include "core/summary.h"

#include <algorithm>

namespace pl {

FallbackCounts countFallbacks(const Ledger& ledger) {
    FallbackCounts f;
    for (const auto& e : ledger.events) {
        if (e.kind != EventKind::Evict) {
            continue;
        }
        f.evictions += 1;
        f.swapped += e.mode != Recovery::Recompute ? 1 : 0;
        switch (e.fallback) {
        case Fallback::None:
            break;
        case Fallback::HostFull:
            f.host_full += 1;
            f.largest_host_full_need_bytes = std::max(f.largest_host_full_need_bytes, e.fallback_need_bytes);
            break;
        case Fallback::HybridHostShrunk:
            f.hybrid_shrunk += 1;
            break;
        case Fallback::NothingToSwap:
            f.nothing_to_swap += 1;
            break;
        }
    }
    return f;
}

std::string hostFullNote(const Workload& workload, Recovery mode, const FallbackCounts& counts) {
    // Only where the mode never reached the host: then its figures are recompute's, and the reader must be told
    // why. A mode that swapped some victims shows its swap bytes itself.
    if (counts.host_full == 0 || counts.swapped > 0) {
        return {};
    }
    const auto& c = workload.config;
    const std::string name(toString(mode));
    const std::string n = std::to_string(counts.host_full);
    const std::string which =
        counts.host_full == counts.evictions
            ? (counts.host_full == 1 ? "its only eviction" : "all " + n + " evictions")
            : "every eviction that tried to swap (" + n + " of " + std::to_string(counts.evictions) + ")";
    std::string need;
    if (counts.largest_host_full_need_bytes > 0) {
        need = ", the largest swap needed " + std::to_string(counts.largest_host_full_need_bytes) + " B (" +
               formatBytes(counts.largest_host_full_need_bytes) + ")";
    }
    return name + ": " + which + " fell back to recompute because host memory was full (host_capacity_bytes " +
           std::to_string(c.host_capacity_bytes) + " (" + formatBytes(c.host_capacity_bytes) + "), KV " +
           std::to_string(c.kv_bytes_per_token) + " B per token" + need + "), so its figures are recompute's: raise " +
           "host_capacity_bytes (--host-capacity-bytes) so victims fit on the host";
}

} // namespace pl
