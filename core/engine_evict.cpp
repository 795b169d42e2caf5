// Allocation under pressure: demand per tick, preempt-ahead, victim choice and the eviction itself.
#include "core/engine_impl.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pl {


void EngineImpl::preemptAhead() {
    bool logged = false;
    while (s_.free_blocks + s_.pending_out_blocks < p_.watermark_blocks + growthThisTick()) {
        if (!evictOne(RequestIndex::none(), PressureTrigger::PreemptAhead, logged, p_.watermark_blocks + growthThisTick())) {
            break;
        }
    }
}


// Make `need` blocks free for r, evicting victims as the rule says. False when r must wait this tick
// (blocks are on their way back from swap-outs, or there is nobody to evict) or r itself was evicted.
bool EngineImpl::allocate(RequestIndex r, std::int64_t need) {
    bool logged = false;
    while (s_.free_blocks < need) {
        if (need <= blocksComing()) {
            return false; // enough blocks are already being copied out: wait for them to land
        }
        if (!evictOne(r, PressureTrigger::AllocationFailed, logged, need)) {
            return false;
        }
        if (!isRunnable(rq(r).phase)) {
            return false; // the requester was the victim
        }
    }
    takeBlocks(r, need);
    return true;
}

// Choose and evict one victim among the running requests that hold blocks. False when there is none.
bool EngineImpl::evictOne(RequestIndex requester, PressureTrigger trigger, bool& pressureLogged, std::int64_t need,
                          void (*takeBack)(EngineImpl&, RequestIndex)) {
    const std::size_t begin = gatherCandidates();
    auto& cands = e_.ledger_.candidates;
    const std::size_t count = cands.size() - begin;
    if (count == 0) {
        return false;
    }
    if (!pressureLogged) {
        pressureLogged = true;
        logPressure(requester, trigger, need);
    }
    const VictimContext ctx = e_.ranks_.context(p_.victim_rule);
    const std::size_t chosen = chooseVictim(ctx, std::span<const Candidate>(cands).subspan(begin, count));
    const RequestIndex victim(cands[begin + chosen].request); // (a candidate carries the receipt's int32)
    if (takeBack != nullptr) {
        takeBack(*this, victim);
    }
    evict(victim, begin, count);
    return true;
}

// The running requests a victim can be chosen among (runnable, holding blocks), appended to the ledger's
// candidates with the figures every victim rule compares; returns where they begin.
std::size_t EngineImpl::gatherCandidates() {
    auto& cands = e_.ledger_.candidates;
    const std::size_t begin = cands.size();
    for (auto r : s_.running) {
        const auto& st = rq(r);
        if (isRunnable(st.phase) && st.blocks > 0) {
            appendCandidate(r);
        }
    }
    return begin;
}

// r as a candidate, with the figures every victim rule compares, appended to the ledger's candidates.
void EngineImpl::appendCandidate(RequestIndex r) {
    const auto& st = rq(r);
    Candidate c;
    c.request = r.value();
    c.tenant = st.tenant;
    c.priority = spec(r).priority;
    c.arrival_tick = spec(r).arrival_tick;
    c.admit_seq = st.admit_seq;
    c.prompt_tokens = spec(r).prompt_tokens;
    c.generated_tokens = st.generated_tokens;
    c.context_tokens = st.computed_tokens;
    c.max_output_tokens = spec(r).max_output_tokens;
    c.blocks = st.blocks;
    e_.ledger_.candidates.push_back(c);
}

// The evict's candidates, gathered at the end of the ledger's list: the whole list copied for the lab
// (keep_all_candidates), then only the listed ones (listedCandidates) kept in place, in the engine's order.
// Returns how many are listed.
std::int64_t EngineImpl::listCandidates(std::size_t begin, std::size_t count, Event& ev) {
    auto& cands = e_.ledger_.candidates;
    if (begin + count != cands.size()) {
        throw std::logic_error("an evict's candidates are not the last ones gathered");
    }
    const auto all = std::span<Candidate>(cands).subspan(begin, count);
    if (p_.victim_rule == VictimRule::TenantFair) {
        fillTenantBlocks(all);
    }
    if (e_.options_.keep_all_candidates) {
        auto& whole = e_.ledger_.all_candidates;
        ev.all_candidates_begin = static_cast<std::int64_t>(whole.size());
        ev.all_candidates_count = static_cast<std::int64_t>(count);
        whole.insert(whole.end(), all.begin(), all.end());
    }
    if (count <= kListedCandidates) {
        return static_cast<std::int64_t>(count);
    }
    const auto keep = listedCandidates(p_, e_.ranks_.context(p_.victim_rule), all);
    for (std::size_t k = 0; k < keep.size(); ++k) {
        cands[begin + k] = cands[begin + keep[k]]; // keep is ascending, so k <= keep[k]
    }
    cands.resize(begin + keep.size());
    return static_cast<std::int64_t>(keep.size());
}

void EngineImpl::logPressure(RequestIndex requester, PressureTrigger trigger, std::int64_t need) {
    s_.totals.pressure_events += 1;
    Event& ev = emit(EventKind::Pressure, requester);
    ev.trigger = trigger;
    ev.need_blocks = need;
    ev.free_blocks = s_.free_blocks;
    ev.occupied_blocks = occupied();
}

void EngineImpl::evict(RequestIndex victim, std::size_t candidatesBegin, std::size_t candidatesCount) {
    auto& st = rq(victim);
    const std::int64_t context = st.computed_tokens;
    const std::int64_t blocks = st.blocks;
    const std::int64_t bs = c_.block_size_tokens;
    const std::int64_t kvb = c_.kv_bytes_per_token;
    const std::int64_t estRecompute = ceilDiv(context, c_.prefill_tokens_per_tick);
    const std::int64_t estSwap = ceilDiv(2 * context * kvb, c_.transfer_bytes_per_tick);
    const std::int64_t hostFree = c_.host_capacity_bytes - s_.host_used;

    // Decide the mode and how many full blocks go to the host.
    Recovery mode = p_.recovery;
    if (mode == Recovery::Adaptive) {
        mode = estRecompute < estSwap   ? Recovery::Recompute
               : estSwap < estRecompute ? Recovery::Swap
               : p_.adaptive_tie == AdaptiveTie::Swap ? Recovery::Swap
                                                      : Recovery::Recompute;
    }
    Fallback fallback = Fallback::None;
    std::int64_t fallbackNeed = 0;
    std::int64_t swapBlocks = 0;
    if (mode == Recovery::Swap) {
        swapBlocks = blocks;
        if (context * kvb > hostFree) {
            fallback = Fallback::HostFull;
            fallbackNeed = context * kvb;
            mode = Recovery::Recompute;
            swapBlocks = 0;
        }
    } else if (mode == Recovery::Hybrid) {
        swapBlocks = (context / bs) * p_.hybrid_swap_percent / 100;
        const std::int64_t fit = hostFree / (bs * kvb);
        if (swapBlocks > fit) {
            fallback = Fallback::HybridHostShrunk;
            fallbackNeed = swapBlocks * bs * kvb;
            swapBlocks = fit;
        }
        if (swapBlocks == 0) {
            if (fallback == Fallback::None) {
                fallback = Fallback::NothingToSwap;
            } else {
                fallback = Fallback::HostFull;
            }
            mode = Recovery::Recompute;
        }
    }
    const std::int64_t swapTokens = mode == Recovery::Swap ? context : swapBlocks * bs;
    const std::int64_t swapBytes = mode == Recovery::Recompute ? 0 : swapTokens * kvb;
    // What the recovery owes: the context up to where it had ever been computed. A request evicted while it
    // replays (after an earlier eviction) still owes the replay it had not finished, beyond its resident
    // context; that remainder is carried into this eviction's replay, whatever the mode, so the next resume
    // rebuilds everything and replay_done means the context is whole again. (The estimates stay those of the
    // resident context: both modes pay the carried replay alike, so it does not change which is cheaper.)
    const std::int64_t carried = st.replay_remaining;
    const std::int64_t replay = context - (mode == Recovery::Recompute ? 0 : swapTokens) + carried;
    // Prefix sharing: only blocks the victim alone holds go back to the pool; a swap still copies its whole
    // logical view (shared blocks included), so the bytes above do not change.
    const std::int64_t keepBlocks = mode == Recovery::Recompute ? 0 : swapBlocks;
    const std::int64_t keptOwn = exclusiveBlocks(victim, keepBlocks);
    const std::int64_t own = exclusiveBlocks(victim, blocks);

    Event& ev = emit(EventKind::Evict, victim);
    ev.mode = mode;
    ev.fallback = fallback;
    ev.fallback_need_bytes = fallbackNeed;
    ev.fallback_free_bytes = hostFree;
    ev.occupied_blocks = occupied();
    ev.prompt_tokens = spec(victim).prompt_tokens;
    ev.generated_tokens = st.generated_tokens;
    ev.context_tokens = context;
    ev.freed_blocks = own;
    ev.shared_blocks = blocks - own;
    ev.replay_tokens = replay;
    ev.swap_out_bytes = swapBytes;
    ev.swap_blocks = mode == Recovery::Recompute ? 0 : swapBlocks;
    ev.est_recompute_ticks = estRecompute;
    ev.est_swap_ticks = estSwap;
    ev.candidates_begin = static_cast<std::int64_t>(candidatesBegin);
    ev.candidates_total = static_cast<std::int64_t>(candidatesCount);
    ev.candidates_count = listCandidates(candidatesBegin, candidatesCount, ev);
    const std::size_t evIndex = e_.ledger_.events.size() - 1;

    evictedThisTick_ = true;
    s_.running_dirty = true;
    st.preemptions += 1;
    s_.totals.evictions += 1;
    s_.totals.queue_reentries += 1;
    s_.totals.freed_blocks += own;
    s_.totals.replay_tokens += replay - carried; // tokens dropped by this eviction (the carried ones were counted when dropped)
    s_.totals.swap_out_bytes += swapBytes;

    if (e_.backend_ != nullptr) {
        const auto seq = e_.ledger_.events[evIndex].seq;
        if (swapBytes > 0) {
            annotate(seq, victim, "swap_out", swapTokens, e_.backend_->swapOut(victim.value(), swapTokens));
        }
        // The replay measured is the tokens this eviction drops (they fit in the blocks it frees); the carried
        // ones were measured at the eviction that dropped them.
        if (replay - carried > 0) {
            annotate(seq, victim, "replay", replay - carried, e_.backend_->dropAndReplay(victim.value(), replay - carried));
        } else if (replay > 0) {
            e_.backend_->drop(victim.value());
        }
    }

    // Dropped tail blocks return at once; swapped blocks when their copy lands.
    releaseBlocks(victim, blocks - keepBlocks, true);
    st.prefix_settled = 0;
    st.replay_remaining = replay;
    st.replay_done_target = replay;
    st.last_mode = mode;
    if (mode == Recovery::Recompute) {
        st.computed_tokens = 0;
        st.phase = Phase::Preempted;
    } else {
        st.computed_tokens = swapTokens; // held on the host, restored by swap-in
        st.swapped_tokens = swapTokens;
        st.copy_remaining = swapBytes;
        st.copy_blocks = keepBlocks;
        st.copy_pending = keptOwn;
        st.host_bytes = swapBytes;
        s_.host_used += swapBytes;
        s_.totals.peak_host_bytes = std::max(s_.totals.peak_host_bytes, s_.host_used);
        s_.pending_out_blocks += keptOwn;
        s_.copies.push_back(victim);
        s_.swapped_waiting += 1;
        st.phase = Phase::SwapOut;
        if (e_.options_.track_block_owners) {
            for (auto b : s_.held[victim]) {
                s_.in_flight[static_cast<std::size_t>(b)] = 1;
            }
        }
    }
    enqueue(victim, true);
    Event& done = e_.ledger_.events[evIndex];
    done.host_bytes = s_.host_used;
    done.queue_position = queuePosition(victim);
}

} // namespace pl
