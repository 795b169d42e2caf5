// The tick loop. docs/tick-model.md is the prose version of this file; keep them in step.
//
// One tick, in order:
//   1. arrivals join the waiting queue;
//   2. the link moves swap copies (FIFO, transfer_bytes_per_tick shared by both directions); a landed
//      swap-out returns its device blocks, a landed swap-in lets the request run again;
//   3. preempt_ahead: if free blocks (plus those already on their way back) fall below watermark + this
//      tick's growth, victims are evicted until they do not;
//   4. running requests, oldest admission first, take their step: a decode token (a new block when the
//      context crosses a block edge) or a prefill chunk from the shared prefill_tokens_per_tick; when an
//      allocation fails a victim is evicted (possibly the requester itself);
//   5. if nothing was evicted this tick, waiting requests are admitted or resumed in queue order while the
//      resume guard and the watermark allow (head-of-line: the first refusal stops admission);
//      with prefix sharing (some request has prefix_blocks) an admission or recompute resume first attaches
//      the leading prefix blocks the cache holds (engine_blocks.cpp), and evictions free only unshared blocks;
//   6. bookkeeping: request_ticks, the series, completion.
// At max_ticks every unfinished request is censored.

#include "core/engine_impl.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pl {

void EngineImpl::step() {
    if (s_.finished) {
        return;
    }
    t_ = s_.next_tick;
    if (t_ >= c_.max_ticks) {
        censorAll();
        return;
    }
    if (s_.quiet_decode_only && skipQuiescentTicks()) { // the flag first: most ticks cannot be skipped
        return;
    }
    evictedThisTick_ = false;
    s_.released_this_tick = 0;
    prefillBudget_ = c_.prefill_tokens_per_tick;
    if (arrivalDue()) {
        arrivals(); // most ticks nobody arrives and nothing copies: no call
    }
    if (!s_.copies.empty()) {
        link();
    }
    if (p_.engine_profile == EngineProfile::VllmV1) {
        scheduleVllm();
    } else if (p_.engine_profile == EngineProfile::Sglang) {
        scheduleSglang();
    } else if (p_.engine_profile != EngineProfile::TickModel1) {
        scheduleTrtllm();
    } else {
        if (p_.preempt_ahead) {
            preemptAhead();
        }
        runRequests();
        if (!evictedThisTick_) {
            admit();
        }
    }
    compactRunning();

    // (request, tick) pairs that held device blocks at any point of this tick.
    s_.totals.request_ticks += s_.holders + s_.released_this_tick;
    s_.totals.ticks = t_ + 1;
    if (e_.options_.record_series) {
        TickStats st;
        st.tick = t_;
        st.occupied_blocks = occupied();
        st.in_flight_blocks = s_.pending_out_blocks;
        for (auto r : s_.copies) {
            if (rq(r).phase == Phase::SwapIn) {
                st.in_flight_blocks += rq(r).blocks;
            }
        }
        st.waiting = static_cast<std::int64_t>(s_.waiting.size());
        st.running = static_cast<std::int64_t>(s_.running.size());
        st.host_bytes = s_.host_used;
        st.replay_tokens_total = s_.totals.replay_tokens;
        st.swap_out_bytes_total = s_.totals.swap_out_bytes;
        st.swap_in_bytes_total = s_.totals.swap_in_bytes;
        st.completed = s_.totals.completed;
        e_.series_.push_back(st);
    }
    if (s_.unfinished == 0) {
        s_.finished = true;
        s_.next_tick = t_ + 1;
        return;
    }
    // Nothing can change until the next arrival when nothing holds blocks, nothing is copying and the queue
    // could not admit: skip the idle ticks (their request_ticks are zero).
    Tick next = t_ + 1;
    // (Under vllm-v1 the waiting loop runs before the step's completions free their blocks, so a waiting queue
    // may be admitted next tick: no skip then.)
    if (s_.running.empty() && s_.copies.empty() && !evictedThisTick_ &&
        (p_.engine_profile == EngineProfile::TickModel1 || s_.waiting.empty())) {
        const Tick arrival = s_.next_arrival < w_.requests.size() ? w_.requests[s_.next_arrival].arrival_tick
                                                                  : c_.max_ticks;
        next = std::max(next, std::min(arrival, c_.max_ticks));
    }
    s_.next_tick = next;
}

void EngineImpl::arrivals() {
    while (arrivalDue()) {
        const auto r = RequestIndex::fromSlot(s_.next_arrival++);
        rq(r).phase = Phase::Waiting;
        enqueue(r);
        emit(EventKind::Arrive, r);
    }
}

void EngineImpl::enqueue(RequestIndex r, bool preempted) {
    auto& st = rq(r);
    st.queued_since = t_;
    st.queue_key = spec(r).priority;
    if (p_.engine_profile == EngineProfile::Sglang) {
        st.queue_key = s_.fcfs_back++; // waiting_queue.append / extend: new and retracted requests at the tail
    } else if (p_.engine_profile == EngineProfile::VllmV1 && vllmFcfs()) {
        // vLLM's FCFSRequestQueue: add_request appends; _preempt_request prepend_request()s (appendleft).
        st.queue_key = preempted ? --s_.fcfs_front : s_.fcfs_back++;
    }
    s_.waiting.insert({st.queue_key, r});
}

std::int64_t EngineImpl::queuePosition(RequestIndex r) const {
    return static_cast<std::int64_t>(s_.waiting.order_of_key({s_.req[r].queue_key, r}));
}

void EngineImpl::link() {
    std::int64_t budget = c_.transfer_bytes_per_tick;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < s_.copies.size(); ++i) {
        const auto r = s_.copies[i];
        auto& st = rq(r);
        const std::int64_t moved = std::min(budget, st.copy_remaining);
        st.copy_remaining -= moved;
        budget -= moved;
        if (st.copy_remaining > 0) {
            s_.copies[kept++] = r;
            continue;
        }
        if (st.phase == Phase::SwapOut) {
            const std::int64_t bytes = st.swapped_tokens * c_.kv_bytes_per_token;
            const std::int64_t blocks = st.copy_blocks;
            const std::int64_t freed = releaseBlocks(r, blocks, false);
            s_.pending_out_blocks -= st.copy_pending;
            st.copy_blocks = 0;
            st.copy_pending = 0;
            st.phase = Phase::SwappedOut;
            Event& ev = emit(EventKind::SwapOutDone, r);
            ev.swap_out_bytes = bytes;
            ev.freed_blocks = freed;
            ev.shared_blocks = blocks - freed;
            ev.occupied_blocks = occupied();
            ev.mode = st.last_mode;
        } else { // SwapIn landed
            const std::int64_t bytes = st.swapped_tokens * c_.kv_bytes_per_token;
            s_.host_used -= bytes;
            st.host_bytes = 0;
            s_.totals.swap_in_bytes += bytes;
            st.phase = st.replay_remaining > 0 ? Phase::Replay
                       : st.computed_tokens < target(r) ? Phase::Prefill
                                                         : Phase::Decode;
            Event& ev = emit(EventKind::SwapInDone, r);
            ev.swap_in_bytes = bytes;
            ev.mode = st.last_mode;
            if (e_.options_.track_block_owners) {
                for (auto b : s_.held[r]) {
                    s_.in_flight[static_cast<std::size_t>(b)] = 0;
                }
            }
            st.swapped_tokens = 0;
            if (e_.prefix_) {
                registerPrefix(r); // the copied-back blocks hold its prefix again
            }
        }
    }
    s_.copies.resize(kept);
}

// Blocks request r would allocate for its step this tick; `budget` is the prefill budget left, reduced by
// the chunk r would take.
std::int64_t EngineImpl::demandOf(RequestIndex r, std::int64_t& budget) const {
    const auto& st = s_.req[r];
    if (st.phase == Phase::Decode) {
        return st.computed_tokens >= st.blocks * c_.block_size_tokens ? 1 : 0;
    }
    if (st.phase != Phase::Prefill && st.phase != Phase::Replay) {
        return 0;
    }
    const std::int64_t tgt = target(r);
    const std::int64_t chunk = std::min(tgt - st.computed_tokens, budget);
    if (chunk <= 0) {
        return 0;
    }
    budget -= chunk;
    const std::int64_t after = st.computed_tokens + chunk + (st.computed_tokens + chunk == tgt ? 1 : 0);
    return std::max<std::int64_t>(0, blocksFor(after) - st.blocks);
}

std::int64_t EngineImpl::growthThisTick() const {
    std::int64_t budget = c_.prefill_tokens_per_tick;
    std::int64_t growth = 0;
    for (auto r : s_.running) {
        growth += demandOf(r, budget);
    }
    return growth;
}

void EngineImpl::runRequests() {
    // While stepping, note whether every running request ends the tick decoding, and the fewest tokens any
    // of them still has to generate: skipQuiescentTicks() starts from these figures next tick.
    bool decodeOnly = true;
    std::int64_t minRemaining = kMaxSafeInteger;
    auto note = [&](const RequestState& st) {
        if (st.phase == Phase::Decode) {
            minRemaining = std::min(minRemaining, st.output_tokens - st.generated_tokens);
        } else if (isRunnable(st.phase) || st.phase == Phase::SwapIn) {
            decodeOnly = false;
        }
    };
    // Index loop: evictions change phases but never reorder or shrink `running` during the loop.
    // (r lives across the iterations: GCC 12 then keeps `running`'s bounds in registers on the fast path, as it
    // did for the raw int32; scoped to one iteration, it reloaded them there, 1% of the reference bench.)
    RequestIndex r;
    for (std::size_t i = 0; i < s_.running.size(); ++i) {
        r = s_.running[i];
        auto& st = rq(r);
        // Fast path: a decode step that fits in the request's last block (most request-ticks).
        if (st.phase == Phase::Decode && st.computed_tokens < st.blocks * c_.block_size_tokens &&
            e_.backend_ == nullptr) {
            st.computed_tokens += 1;
            st.generated_tokens += 1;
            if (st.generated_tokens == st.output_tokens) {
                complete(r);
            } else {
                minRemaining = std::min(minRemaining, st.output_tokens - st.generated_tokens);
            }
            continue;
        }
        if (isRunnable(st.phase)) {
            std::int64_t budget = prefillBudget_;
            const std::int64_t need = demandOf(r, budget);
            const std::int64_t chunk = prefillBudget_ - budget;
            // No prefill budget left this tick; or stalled, or evicted itself.
            if ((st.phase == Phase::Decode || chunk > 0) && (need == 0 || allocate(r, need))) {
                prefillBudget_ = budget;
                progress(r, st.phase == Phase::Decode ? 0 : chunk);
            }
        }
        note(st);
    }
    s_.quiet_decode_only = decodeOnly;
    s_.quiet_min_remaining = minRemaining;
}

// Advance r by one step: a decode token (chunk == 0) or a prefill/replay chunk. Blocks are already allocated.
void EngineImpl::progress(RequestIndex r, std::int64_t chunk) {
    auto& st = rq(r);
    // tick-model-1 counts the sampled token's KV resident at once, so a decode step samples without a chunk;
    // the engine profiles write it in the next step: a decode step is a 1-token chunk that completes the context.
    const bool pending = sampledTokenPending(p_.engine_profile);
    bool sample = st.phase == Phase::Decode && !pending;
    if (!sample) {
        st.computed_tokens += chunk;
        if (e_.prefix_ && st.prefix_settled < static_cast<std::int64_t>(prefixIds(r).size())) {
            registerPrefix(r);
        }
        if (st.replay_remaining > 0) {
            st.replay_remaining -= std::min(chunk, st.replay_remaining);
            if (st.replay_remaining == 0) {
                Event& ev = emit(EventKind::ReplayDone, r);
                ev.replay_tokens = st.replay_done_target;
                ev.mode = st.last_mode;
                st.replay_done_target = 0;
                st.phase = Phase::Prefill;
            }
        }
        sample = st.computed_tokens == target(r);
    }
    if (!sample) {
        if (e_.backend_ != nullptr && chunk > 0) {
            e_.backend_->onContextGrown(r.value(), st.computed_tokens); // a prefill or replay chunk, context not complete
        }
        return;
    }
    // A step that completes the context (a decode step, or the last prefill chunk) samples one token.
    st.generated_tokens += 1;
    if (!pending) {
        st.computed_tokens += 1;
    }
    st.phase = Phase::Decode;
    if (st.first_token_tick < 0) {
        st.first_token_tick = t_;
        Event& ev = emit(EventKind::FirstToken, r);
        ev.generated_tokens = st.generated_tokens;
        ev.context_tokens = st.computed_tokens;
    }
    if (st.generated_tokens == st.output_tokens) {
        complete(r); // tells the backend r finished (onFinished): it holds nothing more to grow
        return;
    }
    if (e_.backend_ != nullptr) {
        e_.backend_->onContextGrown(r.value(), st.computed_tokens);
    }
}

void EngineImpl::complete(RequestIndex r) {
    auto& st = rq(r);
    const std::int64_t blocks = st.blocks;
    const std::int64_t freed = releaseBlocks(r, blocks, false);
    st.phase = Phase::Done;
    s_.running_dirty = true;
    st.completion_tick = t_;
    s_.totals.completed += 1;
    emitFinal(EventKind::Complete, r, blocks, freed);
    if (e_.backend_ != nullptr) {
        e_.backend_->onFinished(r.value());
    }
}

// The last event of a request (complete or censor), once it let go of `blocks`, `freed` of them to the pool.
void EngineImpl::emitFinal(EventKind kind, RequestIndex r, std::int64_t blocks, std::int64_t freed) {
    s_.unfinished -= 1;
    Event& ev = emit(kind, r);
    ev.generated_tokens = rq(r).generated_tokens;
    ev.freed_blocks = freed;
    ev.shared_blocks = blocks - freed;
    ev.occupied_blocks = occupied();
}

void EngineImpl::admit() {
    for (auto it = s_.waiting.begin(); it != s_.waiting.end();) {
        const auto r = it->second;
        auto& st = rq(r);
        if (st.phase == Phase::SwapOut) {
            ++it; // its copy has not landed yet: it cannot come back before it has left
            continue;
        }
        const bool swapped = st.phase == Phase::SwappedOut;
        if (!swapped && prefillBudget_ == 0) {
            break;
        }
        std::int64_t needNow = 0;
        std::int64_t chunk = 0;
        // Prefix sharing: the leading prefix blocks the cache holds are attached, not prefilled (at least one
        // token is left to compute); those another request holds take nothing from the free pool.
        std::int64_t hits = 0;
        std::int64_t sharedHits = 0;
        if (e_.prefix_ && !swapped) {
            hits = prefixHits(r, (target(r) - 1) / c_.block_size_tokens, sharedHits);
        }
        const std::int64_t cached = hits * c_.block_size_tokens;
        if (admissionGate(r, prefillBudget_, cached, needNow, chunk) - sharedHits >
            s_.free_blocks - p_.watermark_blocks) {
            break; // head-of-line: later requests wait behind this one
        }
        it = s_.waiting.erase(it); // (by its iterator: no second walk down the queue)
        s_.quiet_decode_only = false; // it prefills or copies first
        if (swapped) {
            resumeBySwapIn(r, true);
            continue;
        }
        const bool first = joinRunning(r, true);
        attachPrefix(r, hits);
        st.cached_tokens = cached;
        takeBlocks(r, needNow - st.blocks);
        Event& ev = emit(first ? EventKind::Admit : EventKind::Resume, r);
        ev.occupied_blocks = occupied();
        ev.cached_tokens = cached;
        if (!first) {
            ev.mode = Recovery::Recompute;
            ev.replay_tokens = st.replay_remaining;
            ev.generated_tokens = st.generated_tokens;
            ev.context_tokens = cached;
        }
        st.phase = st.replay_remaining > 0 ? Phase::Replay : Phase::Prefill;
        prefillBudget_ -= chunk;
        progress(r, chunk);
    }
}

// r leaves the waiting queue (unless the caller `erased` it already) and joins the running list (last), as every
// admission and resume does; true when it is admitted for the first time.
bool EngineImpl::joinRunning(RequestIndex r, bool erased) {
    auto& st = rq(r);
    if (!erased) {
        s_.waiting.erase({st.queue_key, r});
    }
    st.queue_ticks += t_ - st.queued_since;
    st.admit_seq = s_.admit_counter++;
    s_.running.push_back(r);
    const bool first = !st.ever_admitted;
    st.ever_admitted = true;
    return first;
}

// A swapped-out request resumes: it takes the blocks of what it holds on the host and its swap-in joins the
// link's FIFO; it runs again when the copy lands (link()). The tick model's admission and, as a what-if, the
// engine profiles' waiting loops (a swapped request resumes where the profile puts a preempted request).
void EngineImpl::resumeBySwapIn(RequestIndex r, bool erased) {
    auto& st = rq(r);
    joinRunning(r, erased);
    s_.swapped_waiting -= 1;
    takeBlocks(r, blocksFor(st.swapped_tokens));
    st.copy_remaining = st.swapped_tokens * c_.kv_bytes_per_token;
    st.phase = Phase::SwapIn;
    s_.copies.push_back(r);
    if (e_.options_.track_block_owners) {
        for (auto b : s_.held[r]) {
            s_.in_flight[static_cast<std::size_t>(b)] = 1;
        }
    }
    Event& ev = emit(EventKind::Resume, r);
    ev.mode = st.last_mode;
    ev.swap_in_bytes = st.copy_remaining;
    ev.replay_tokens = st.replay_remaining;
    ev.generated_tokens = st.generated_tokens;
    ev.context_tokens = st.swapped_tokens;
    ev.occupied_blocks = occupied();
    st.cached_tokens = 0;
    if (e_.backend_ != nullptr) {
        annotate(ev.seq, r, "swap_in", st.swapped_tokens, e_.backend_->swapIn(r.value(), st.swapped_tokens));
    }
}

// Blocks that must be free (beyond the watermark) to admit or resume r now. needNow: blocks it allocates at
// once; chunk: the prefill tokens it would take from `budget`.
std::int64_t EngineImpl::admissionGate(RequestIndex r, std::int64_t budget, std::int64_t cached,
                                       std::int64_t& needNow, std::int64_t& chunk) const {
    const auto& st = s_.req[r];
    if (st.phase == Phase::SwappedOut) {
        chunk = 0;
        needNow = blocksFor(st.swapped_tokens);
    } else {
        const std::int64_t tgt = target(r);
        const std::int64_t base = st.computed_tokens + cached; // cached: tokens attached from the prefix cache
        chunk = std::min(tgt - base, budget);
        needNow = blocksFor(base + chunk + (base + chunk == tgt ? 1 : 0));
    }
    return p_.resume_guard == ResumeGuard::FullReservation
               ? std::max(needNow, blocksFor(spec(r).prompt_tokens + spec(r).max_output_tokens))
               : needNow;
}

// Prefix sharing, inside a quiescent stretch: decode takes the id-less free blocks first, then cached free blocks
// from the least recently freed on, each taking its id out of the cache. Which ids leave is fixed by that order
// alone, whichever request takes the block, so a skip evicts the same ids as ticking one by one. The one
// lookup that could then answer differently is the queue head's (fewer hits can mean fewer blocks to admit it),
// so a stretch may use cached blocks only up to the first one in the head's hit chain. Returns how many of the
// first `wanted` cached free blocks (beyond the id-less ones) that allows.
std::int64_t EngineImpl::reusableCachedBlocks(RequestIndex head, std::int64_t wanted) {
    const std::int64_t steps = wanted - (s_.free_blocks - s_.extents.cachedFree());
    if (head.isNone()) {
        return s_.extents.reusableBefore({}, 0, steps);
    }
    std::int64_t shared = 0;
    const std::int64_t hits = prefixHits(head, (target(head) - 1) / c_.block_size_tokens, shared);
    return s_.extents.reusableBefore(prefixIds(head).runs(), hits, steps);
}

// Quiescent ticks: nothing arrives, nothing is copying or prefilling, every running request decodes, and the
// queue's head cannot be admitted. Such ticks only add one token to each running request and take blocks at
// block edges; if the free pool covers every edge up to the tick before the next completion or arrival, no
// event can happen in between, so the engine advances them in one pass (same state, same ledger as ticking
// one by one; tests compare both). Off when the lab records per-tick series or the pool map, with a live
// backend (it sees every token) and with preempt_ahead (its trigger depends on per-tick growth). Under vllm-v1
// the same stretch is a run of pure decode steps (scheduleVllm notes the figures; vllmStepsAreQuiet checks the
// budget and the waiting loop), and so is it under the TensorRT-LLM profiles (trtllmStepsAreQuiet) and SGLang's
// decode batches (sglangStepsAreQuiet, for a stretch of d steps; new_token_ratio decays by d steps); a decoding
// request holds prompt + generated - 1 tokens there, and the blocks after d steps are blocksFor(computed + d)
// under every profile.
bool EngineImpl::skipQuiescentTicks() {
    if (e_.options_.record_series || e_.options_.track_block_owners || e_.backend_ != nullptr || p_.preempt_ahead ||
        s_.running.empty() || !s_.copies.empty()) {
        return false;
    }
    Tick limit = std::min(c_.max_ticks, skipHorizon_);
    if (s_.next_arrival < w_.requests.size()) {
        limit = std::min(limit, w_.requests[s_.next_arrival].arrival_tick);
    }
    // Stop before the next completion tick (figures noted by the last tick's runRequests and admit).
    const std::int64_t d0 = std::min(limit - t_, s_.quiet_min_remaining - 1);
    if (!s_.quiet_decode_only || d0 < 2) {
        return false;
    }
    std::int64_t d = d0;
    if (d < 2) {
        return false;
    }
    RequestIndex head = RequestIndex::none(); // the queue's head, when its admission depends on the prefix cache
    if (p_.engine_profile != EngineProfile::TickModel1) {
        // A profile's step (engine_vllm.cpp, engine_trtllm.cpp); declared prefixes are not hit under the
        // profiles, but their ids are still registered as blocks fill, so a prefix workload ticks one by one.
        // sglang's admission changes every step with new_token_ratio: it is checked below, per stretch length.
        const bool quiet = p_.engine_profile == EngineProfile::VllmV1 ? vllmStepsAreQuiet()
                           : p_.engine_profile == EngineProfile::Sglang ? true
                                                                          : trtllmStepsAreQuiet();
        // Declared prefixes are not hit under the profiles (but for vllm-v1 with enable_prefix_caching), yet
        // their ids are still registered as blocks fill, so such a workload ticks one by one.
        // (A swapped request waiting to resume, a what-if under the profiles, ticks one by one.)
        if ((e_.prefix_ && !oneFreeQueue()) || !quiet || s_.swapped_waiting > 0) {
            return false;
        }
    } else if (!s_.waiting.empty()) {
        std::int64_t needNow = 0;
        std::int64_t chunk = 0;
        head = s_.waiting.begin()->second;
        std::int64_t hits = 0;
        std::int64_t shared = 0;
        if (e_.prefix_ && rq(head).phase != Phase::SwappedOut) {
            hits = prefixHits(head, (target(head) - 1) / c_.block_size_tokens, shared);
        }
        // Decode ticks only shrink the free pool, so a head that cannot be admitted now cannot be later (with
        // prefix sharing: as long as they leave its cached blocks alone, see below).
        if (admissionGate(head, c_.prefill_tokens_per_tick, hits * c_.block_size_tokens, needNow, chunk) - shared <=
            s_.free_blocks - p_.watermark_blocks) {
            return false;
        }
        if (hits == 0) {
            head = RequestIndex::none();
        }
    }
    auto blocksNeeded = [&](std::int64_t ticks) {
        std::int64_t need = 0;
        for (auto r : s_.running) {
            const auto& st = s_.req[r];
            need += blocksFor(st.computed_tokens + ticks) - st.blocks;
        }
        return need;
    };
    std::int64_t usable = s_.free_blocks;
    // (vllm-v1 with enable_prefix_caching keeps one free queue: decode steps take its head, whichever blocks carry
    // ids, so every free block is usable; a head whose hits they take needs more, never fewer, blocks.)
    if (e_.prefix_ && !oneFreeQueue()) { // the skip is off with the pool map, so the cache is kept by runs here
        const std::int64_t idless = s_.free_blocks - s_.extents.cachedFree();
        if (const std::int64_t wanted = blocksNeeded(d); wanted > idless) {
            usable = idless + reusableCachedBlocks(head, wanted);
        }
    }
    while (d >= 2 && blocksNeeded(d) > usable) {
        d /= 2;
    }
    if (p_.engine_profile == EngineProfile::Sglang) {
        while (d >= 2 && !sglangStepsAreQuiet(d)) {
            d /= 2;
        }
    }
    if (d < 2) {
        return false;
    }
    // Under vLLM's free queue the stretch takes the queue's first blocks, as its steps would, so the same ids leave
    // the cache (which request holds which of those blocks differs, and only the pool map, which ticks every
    // step, would show it); each request's own blocks filled in the stretch are registered.
    for (auto r : s_.running) {
        auto& st = rq(r);
        st.computed_tokens += d;
        st.generated_tokens += d;
        takeBlocks(r, blocksFor(st.computed_tokens) - st.blocks);
        if (e_.prefix_ && st.prefix_settled < static_cast<std::int64_t>(prefixIds(r).size())) {
            registerPrefix(r);
        }
    }
    if (p_.engine_profile == EngineProfile::Sglang) {
        sglangDecayRatio(d);
    }
    s_.totals.request_ticks += s_.holders * d;
    s_.totals.ticks = t_ + d;
    s_.next_tick = t_ + d;
    s_.quiet_min_remaining -= d;
    return true;
}

void EngineImpl::compactRunning() {
    if (!s_.running_dirty) {
        return;
    }
    s_.running_dirty = false;
    std::erase_if(s_.running, [&](RequestIndex r) {
        const Phase ph = rq(r).phase;
        return !(isRunnable(ph) || ph == Phase::SwapIn);
    });
}

void EngineImpl::censorAll() {
    t_ = c_.max_ticks;
    for (const RequestIndex r : s_.req.indices()) {
        auto& st = rq(r);
        if (st.phase == Phase::Done || st.phase == Phase::Censored) {
            continue;
        }
        if (st.phase == Phase::NotArrived) {
            // Arrives at or after max_ticks: it never entered the system, but it is accounted for.
            st.queued_since = t_;
        } else if (s_.waiting.find({st.queue_key, r}) != s_.waiting.end()) {
            st.queue_ticks += t_ - st.queued_since;
        }
        const std::int64_t blocks = st.blocks;
        const std::int64_t freed = releaseBlocks(r, blocks, false);
        if (st.phase == Phase::SwapOut) {
            s_.pending_out_blocks -= st.copy_pending;
        }
        s_.host_used -= st.host_bytes;
        st.host_bytes = 0;
        st.phase = Phase::Censored;
        s_.totals.censored += 1;
        emitFinal(EventKind::Censor, r, blocks, freed);
        if (e_.backend_ != nullptr) {
            e_.backend_->onFinished(r.value()); // everything it holds on the device or in the pool is freed
        }
    }
    s_.waiting.clear();
    s_.running.clear();
    s_.copies.clear();
    s_.swapped_waiting = 0;
    s_.totals.ticks = c_.max_ticks;
    s_.next_tick = c_.max_ticks;
    s_.finished = true;
}

} // namespace pl
