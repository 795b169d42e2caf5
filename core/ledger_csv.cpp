#include "core/ledger_csv.h"

#include "core/number_text.h"

#include <unordered_map>

namespace pl {

namespace {

std::string csvQuoted(std::string_view s) {
    if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
    std::string q = "\"";
    for (char c : s) {
        q += c;
        if (c == '"') q += '"';
    }
    return q + "\"";
}

} // namespace

std::string_view fallbackWords(Fallback f) {
    switch (f) {
    case Fallback::None: return {};
    case Fallback::HostFull: return "host memory full";
    case Fallback::HybridHostShrunk: return "hybrid prefix shrunk to fit host";
    case Fallback::NothingToSwap: return "nothing to swap";
    }
    return "?";
}

LedgerRows ledgerRows(const std::vector<Event>& events) {
    LedgerRows rows;
    std::unordered_map<std::int32_t, std::size_t> pending; // request -> the row awaiting its copy back
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        if (e.kind == EventKind::Evict) {
            pending[e.request] = rows.events.size();
            rows.events.push_back(i);
            rows.swap_in_bytes.push_back(0);
        } else if (e.kind == EventKind::SwapInDone && e.swap_in_bytes > 0) {
            if (auto it = pending.find(e.request); it != pending.end()) {
                rows.swap_in_bytes[it->second] = e.swap_in_bytes;
                pending.erase(it);
            }
        }
    }
    return rows;
}

std::vector<LiveRowSums> liveRowSums(const std::vector<Event>& events, const std::vector<std::size_t>& rowEvents,
                                     const std::vector<LiveAnnotation>& live) {
    std::vector<LiveRowSums> sums(rowEvents.size());
    std::unordered_map<std::int64_t, std::size_t> rowOfSeq;
    for (std::size_t r = 0; r < rowEvents.size(); ++r) rowOfSeq[events[rowEvents[r]].seq] = r;
    for (std::size_t i = 0; i < live.size(); ++i) {
        const LiveAnnotation& a = live[i];
        const auto it = rowOfSeq.find(a.seq);
        if (it == rowOfSeq.end()) continue;
        LiveRowSums& c = sums[it->second];
        c.any = true;
        c.ok = c.ok && a.ok;
        c.measured_us += a.measured_us;
        c.modelled_us += a.modelled_us;
        c.bytes_moved += a.bytes_moved;
        c.tokens_computed += a.tokens_computed;
        if (!a.ok) c.errors += (c.errors.empty() ? "" : "; ") + a.error;
        c.annotations.push_back(i);
    }
    return sums;
}

std::string ledgerCsv(const Workload& workload, const std::vector<Event>& events, const std::vector<LiveAnnotation>& live) {
    std::string out = "tick,victim,mode,fallback,freed_blocks,replay_tokens,swap_out_bytes,swap_in_bytes,"
                      "est_recompute_ticks,est_swap_ticks,queue_position";
    if (!live.empty()) out += ",measured_us,bytes_moved,tokens_computed,modelled_us,device_error";
    out += '\n';
    const LedgerRows rows = ledgerRows(events);
    const std::vector<LiveRowSums> cells = live.empty() ? std::vector<LiveRowSums>{} : liveRowSums(events, rows.events, live);
    for (std::size_t r = 0; r < rows.events.size(); ++r) {
        const Event& e = events[rows.events[r]];
        out += std::to_string(e.tick) + ',' + csvQuoted(workload.requests[static_cast<std::size_t>(e.request)].id) + ',' +
               std::string(toString(e.mode)) + ',' + csvQuoted(fallbackWords(e.fallback)) + ',' +
               std::to_string(e.freed_blocks) + ',' + std::to_string(e.replay_tokens) + ',' +
               std::to_string(e.swap_out_bytes) + ',' + std::to_string(rows.swap_in_bytes[r]) + ',' +
               std::to_string(e.est_recompute_ticks) + ',' + std::to_string(e.est_swap_ticks) + ',' +
               std::to_string(e.queue_position);
        if (!live.empty()) {
            const LiveRowSums& c = cells[r];
            const bool model = c.any && c.modelled_us != 0.0;
            out += ',' + (c.any ? formatFixed(c.measured_us, 3) : std::string()) + ',' +
                   (c.any ? std::to_string(c.bytes_moved) : std::string()) + ',' +
                   (c.any ? std::to_string(c.tokens_computed) : std::string()) + ',' +
                   (model ? formatFixed(c.modelled_us, 3) : std::string()) + ',' + csvQuoted(c.errors);
        }
        out += '\n';
    }
    return out;
}

} // namespace pl
