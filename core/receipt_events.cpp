// One receipt line per event kind (eventCanonical): each kind's fields in byte order of their keys, so the
// line written is its canonical JSON and event_hash covers the very bytes written. The rest of the receipt is
// receipt.cpp's.
#include "core/receipt.h"

#include "core/receipt_writer.h"

#include <stdexcept>
#include <string>

namespace pl {

using receipt_detail::SortedObject;

namespace {

std::string fallbackText(const Workload& w, const Event& e) {
    const auto& c = w.config;
    switch (e.fallback) {
    case Fallback::None:
        return {};
    case Fallback::HostFull: {
        // Swap wanted the whole context on the host; hybrid its prefix of full blocks (not even one fitted).
        const std::int64_t need =
            e.fallback_need_bytes > 0 ? e.fallback_need_bytes : e.context_tokens * c.kv_bytes_per_token;
        const std::string what =
            w.policy.recovery == Recovery::Hybrid
                ? "hybrid swapping a " + std::to_string(need / c.kv_bytes_per_token) + "-token prefix"
                : "swapping " + std::to_string(e.context_tokens) + " tokens";
        return "host memory full: " + what + " needs " + std::to_string(need) + " bytes but " +
               std::to_string(e.fallback_free_bytes) + " of host_capacity_bytes " +
               std::to_string(c.host_capacity_bytes) + " are free; recomputed instead";
    }
    case Fallback::HybridHostShrunk:
        return "host memory short: hybrid wanted " + std::to_string(e.fallback_need_bytes) + " bytes but " +
               std::to_string(e.fallback_free_bytes) + " are free; swapped prefix shrunk to " +
               std::to_string(e.swap_blocks) + " blocks";
    case Fallback::NothingToSwap: {
        const std::int64_t full = e.context_tokens / c.block_size_tokens;
        if (full > 0) { // the share rounds down to no block (issue 21: it said "no full block" here too)
            return "hybrid: hybrid_swap_percent " + std::to_string(w.policy.hybrid_swap_percent) + " of its " +
                   std::to_string(full) + " full block" + (full == 1 ? "" : "s") + " rounds down to 0 blocks (context " +
                   std::to_string(e.context_tokens) + " tokens, block size " + std::to_string(c.block_size_tokens) +
                   "); recomputed instead";
        }
        return "hybrid: no full block to swap (context " + std::to_string(e.context_tokens) + " tokens, block size " +
               std::to_string(c.block_size_tokens) + ", hybrid_swap_percent " +
               std::to_string(w.policy.hybrid_swap_percent) + "); recomputed instead";
    }
    }
    return {};
}

// One candidate's object appended to `out` (an evict lists up to 8).
void appendCandidate(std::string& out, const Workload& w, const RunResult& run, const Candidate& c,
                     bool tenantBlocks) {
    SortedObject o(out);
    o.integer("admit_seq", c.admit_seq);
    o.integer("arrival_tick", c.arrival_tick);
    o.integer("blocks", c.blocks);
    o.integer("context_tokens", c.context_tokens);
    o.integer("generated_tokens", c.generated_tokens);
    o.string("id", w.requests[static_cast<std::size_t>(c.request)].id);
    o.integer("max_output_tokens", c.max_output_tokens);
    o.integer("priority", c.priority);
    o.integer("prompt_tokens", c.prompt_tokens);
    o.string("tenant", run.tenants[static_cast<std::size_t>(c.tenant)]);
    if (tenantBlocks) {
        o.integer("tenant_blocks", c.tenant_blocks);
    }
    o.close();
}

} // namespace

// Each kind's fields are written in byte order of their keys (SortedObject; the order is the canonical JSON's,
// so event_hash covers the very bytes written, and test_sample_hashes pins them).
std::string eventCanonical(const Workload& w, const RunResult& run, const Event& e, ReceiptVersion version) {
    std::string out;
    out.reserve(e.kind == EventKind::Evict ? 2048 : 200);
    SortedObject o(out);
    // kind, then the fields between it and request, then request, seq and the fields between seq and tick.
    const auto kind = [&] { o.string("kind", toString(e.kind)); };
    const auto requestSeq = [&] {
        if (e.request >= 0) {
            o.string("request", w.requests[static_cast<std::size_t>(e.request)].id);
        }
        o.integer("seq", e.seq);
    };
    const auto tick = [&] { o.integer("tick", e.tick); };
    switch (e.kind) {
    case EventKind::Arrive:
        kind();
        requestSeq();
        tick();
        break;
    case EventKind::Admit:
        if (e.prefix) {
            o.integer("cached_tokens", e.cached_tokens);
        }
        o.integer("capacity_blocks", e.capacity_blocks);
        kind();
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        tick();
        break;
    case EventKind::FirstToken:
        o.integer("context_tokens", e.context_tokens);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        requestSeq();
        tick();
        break;
    case EventKind::Pressure:
        o.integer("capacity_blocks", e.capacity_blocks);
        o.integer("free_blocks", e.free_blocks);
        kind();
        o.integer("need_blocks", e.need_blocks);
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        tick();
        o.string("trigger", toString(e.trigger));
        break;
    case EventKind::Evict: {
        // v2 lists what the engine kept (the candidates with the greatest keys) and says how many it left out;
        // under tenant-fair a shortened list gives each its tenant's blocks over the whole list (the key's
        // first figure, which the listed ones alone cannot add up to). v1 listed every candidate.
        const bool v1 = version == ReceiptVersion::V1;
        if (v1 && e.all_candidates_count != e.candidates_total) {
            throw std::logic_error("a v1 receipt needs every candidate (EngineOptions::keep_all_candidates)");
        }
        const auto& list = v1 ? run.ledger.all_candidates : run.ledger.candidates;
        const std::int64_t begin = v1 ? e.all_candidates_begin : e.candidates_begin;
        const std::int64_t count = v1 ? e.all_candidates_count : e.candidates_count;
        const std::int64_t omitted = e.candidates_total - count;
        const bool tenantBlocks = omitted > 0 && w.policy.victim_rule == VictimRule::TenantFair;
        std::string cands;
        cands.reserve(static_cast<std::size_t>(count) * 220 + 2);
        cands += '[';
        for (std::int64_t i = 0; i < count; ++i) {
            if (i > 0) {
                cands += ',';
            }
            appendCandidate(cands, w, run, list[static_cast<std::size_t>(begin + i)], tenantBlocks);
        }
        cands += ']';
        o.raw("candidates", cands);
        if (omitted > 0) {
            o.integer("candidates_omitted", omitted);
        }
        o.integer("capacity_blocks", e.capacity_blocks);
        o.integer("context_tokens", e.context_tokens);
        std::string estimates;
        SortedObject est(estimates);
        est.integer("recompute_ticks", e.est_recompute_ticks);
        est.integer("swap_ticks", e.est_swap_ticks);
        est.close();
        o.raw("estimates", estimates);
        if (e.fallback != Fallback::None) {
            o.string("fallback", fallbackText(w, e));
        }
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("generated_tokens", e.generated_tokens);
        o.integer("host_bytes", e.host_bytes);
        kind();
        o.string("mode", toString(e.mode));
        o.integer("occupied_blocks", e.occupied_blocks);
        o.integer("prompt_tokens", e.prompt_tokens);
        o.integer("queue_position", e.queue_position);
        o.integer("replay_tokens", e.replay_tokens);
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        o.integer("swap_blocks", e.swap_blocks);
        o.integer("swap_out_bytes", e.swap_out_bytes);
        tick();
        break;
    }
    case EventKind::SwapOutDone:
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("host_bytes", e.host_bytes);
        kind();
        o.string("mode", toString(e.mode));
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        o.integer("swap_out_bytes", e.swap_out_bytes);
        tick();
        break;
    case EventKind::Resume:
        if (e.prefix) {
            o.integer("cached_tokens", e.cached_tokens);
        }
        o.integer("capacity_blocks", e.capacity_blocks);
        o.integer("context_tokens", e.context_tokens);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        o.string("mode", toString(e.mode));
        o.integer("occupied_blocks", e.occupied_blocks);
        o.integer("replay_tokens", e.replay_tokens);
        requestSeq();
        o.integer("swap_in_bytes", e.swap_in_bytes);
        tick();
        break;
    case EventKind::SwapInDone:
        o.integer("host_bytes", e.host_bytes);
        kind();
        o.string("mode", toString(e.mode));
        requestSeq();
        o.integer("swap_in_bytes", e.swap_in_bytes);
        tick();
        break;
    case EventKind::ReplayDone:
        kind();
        o.string("mode", toString(e.mode));
        o.integer("replay_tokens", e.replay_tokens);
        requestSeq();
        tick();
        break;
    case EventKind::Complete:
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        o.integer("occupied_blocks", e.occupied_blocks);
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        tick();
        break;
    case EventKind::Censor:
        o.integer("freed_blocks", e.freed_blocks);
        o.integer("generated_tokens", e.generated_tokens);
        kind();
        requestSeq();
        if (e.prefix) {
            o.integer("shared_blocks", e.shared_blocks);
        }
        tick();
        break;
    }
    o.close();
    return out;
}

} // namespace pl
