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
//   6. bookkeeping: request_ticks, the series, completion.
// At max_ticks every unfinished request is censored.

#include "engine.h"

#include "engine_state.h"
#include "live_backend.h"
#include "victim.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pl {

std::string_view toString(Phase p) {
    switch (p) {
    case Phase::NotArrived: return "not-arrived";
    case Phase::Waiting: return "waiting";
    case Phase::Prefill: return "prefill";
    case Phase::Decode: return "decode";
    case Phase::Preempted: return "preempted";
    case Phase::SwapOut: return "swap-out";
    case Phase::SwappedOut: return "swapped-out";
    case Phase::SwapIn: return "swap-in";
    case Phase::Replay: return "replay";
    case Phase::Done: return "done";
    case Phase::Censored: return "censored";
    }
    return "?";
}

namespace {
bool isRunnable(Phase p) { return p == Phase::Prefill || p == Phase::Decode || p == Phase::Replay; }
} // namespace

// All of the engine's behaviour; Engine is its public face.
class EngineImpl {
  public:
    explicit EngineImpl(Engine& e)
        : e_(e), s_(*e.s_), w_(e.workload_), c_(e.workload_.config), p_(e.workload_.policy) {}

    static void init(Engine& e);
    void step();

  private:
    Engine& e_;
    Engine::State& s_;
    const Workload& w_;
    const Config& c_;
    const Policy& p_;
    Tick t_ = 0;
    bool evictedThisTick_ = false;
    std::int64_t prefillBudget_ = 0;
    std::vector<Candidate> scratch_;

    std::int64_t blocksFor(std::int64_t tokens) const { return ceilDiv(tokens, c_.block_size_tokens); }
    std::int64_t occupied() const { return c_.capacity_blocks - s_.free_blocks; }
    std::int64_t target(std::int32_t r) const {
        return w_.requests[static_cast<std::size_t>(r)].prompt_tokens + s_.req[static_cast<std::size_t>(r)].generated_tokens;
    }
    RequestState& rq(std::int32_t r) { return s_.req[static_cast<std::size_t>(r)]; }
    const RequestSpec& spec(std::int32_t r) const { return w_.requests[static_cast<std::size_t>(r)]; }

    Event& emit(EventKind kind, std::int32_t request);
    void annotate(std::int64_t seq, std::int32_t r, const char* kind, std::int64_t tokens, const LiveMeasurement& m);
    void arrivals();
    void link();
    void preemptAhead();
    void runRequests();
    void admit();
    std::int64_t admissionGate(std::int32_t r, std::int64_t budget, std::int64_t& needNow,
                               std::int64_t& chunk) const;
    bool skipQuiescentTicks();
    void censorAll();

    std::int64_t demandOf(std::int32_t r, std::int64_t& budget) const;
    std::int64_t growthThisTick() const;
    bool allocate(std::int32_t r, std::int64_t need);
    void takeBlocks(std::int32_t r, std::int64_t n);
    void releaseBlocks(std::int32_t r, std::int64_t n, bool fromTail);
    bool evictOne(std::int32_t requester, PressureTrigger trigger, bool& pressureLogged, std::int64_t need);
    void evict(std::int32_t victim, std::size_t candidatesBegin, std::size_t candidatesCount);
    void progress(std::int32_t r, std::int64_t chunk);
    void complete(std::int32_t r);
    void enqueue(std::int32_t r);
    std::int64_t queuePosition(std::int32_t r) const;
    void compactRunning();
};

Event& EngineImpl::emit(EventKind kind, std::int32_t request) {
    auto& events = e_.ledger_.events;
    Event& ev = events.emplace_back();
    ev.seq = static_cast<std::int64_t>(events.size()) - 1;
    ev.tick = t_;
    ev.kind = kind;
    ev.request = request;
    ev.capacity_blocks = c_.capacity_blocks;
    ev.host_bytes = s_.host_used;
    return ev;
}

// Keep what the live backend measured, beside (never inside) the hashed event.
void EngineImpl::annotate(std::int64_t seq, std::int32_t r, const char* kind, std::int64_t tokens,
                          const LiveMeasurement& m) {
    LiveAnnotation a;
    a.seq = seq;
    a.request = r;
    a.kind = kind;
    a.tokens = tokens;
    a.measured_us = m.measured_us;
    a.modelled_us = m.modelled_us;
    a.bytes_moved = m.bytes_moved;
    a.tokens_computed = m.tokens_computed;
    a.ok = m.ok;
    a.error = m.error;
    e_.live_.push_back(std::move(a));
}

void EngineImpl::init(Engine& e) {
    auto& s = *e.s_;
    const auto& w = e.workload_;
    const auto n = w.requests.size();
    s.req.assign(n, RequestState{});
    for (std::size_t i = 0; i < n; ++i) {
        s.req[i].output_tokens = w.requests[i].output_tokens;
    }
    s.free_blocks = w.config.capacity_blocks;
    s.unfinished = static_cast<std::int64_t>(n);
    // Tenants, ranked in byte order so that index comparison is byte-string comparison.
    std::vector<std::string> tenants;
    for (const auto& r : w.requests) {
        tenants.push_back(r.tenant);
    }
    std::sort(tenants.begin(), tenants.end());
    tenants.erase(std::unique(tenants.begin(), tenants.end()), tenants.end());
    e.tenants_ = tenants;
    for (std::size_t i = 0; i < n; ++i) {
        s.req[i].tenant = static_cast<std::int32_t>(
            std::lower_bound(tenants.begin(), tenants.end(), w.requests[i].tenant) - tenants.begin());
    }
    std::vector<std::int32_t> byId(n);
    std::iota(byId.begin(), byId.end(), 0);
    std::sort(byId.begin(), byId.end(), [&](std::int32_t a, std::int32_t b) {
        return w.requests[static_cast<std::size_t>(a)].id < w.requests[static_cast<std::size_t>(b)].id;
    });
    e.idRank_.assign(n, 0);
    e.arrivalRank_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        e.idRank_[static_cast<std::size_t>(byId[i])] = static_cast<std::int32_t>(i);
        e.arrivalRank_[i] = static_cast<std::int32_t>(i); // the workload is normalised: index order is (arrival, id)
    }
    if (e.options_.track_block_owners) {
        const auto cap = static_cast<std::size_t>(w.config.capacity_blocks);
        s.owner.assign(cap, kFreeBlock);
        s.in_flight.assign(cap, 0);
        s.free_list.resize(cap);
        // Stack with block 0 on top, so a fresh pool fills from the first cell.
        for (std::size_t i = 0; i < cap; ++i) {
            s.free_list[i] = static_cast<std::int32_t>(cap - 1 - i);
        }
        s.held.assign(n, {});
    }
    if (n == 0) {
        s.finished = true;
    }
}

void EngineImpl::step() {
    if (s_.finished) {
        return;
    }
    t_ = s_.next_tick;
    if (t_ >= c_.max_ticks) {
        censorAll();
        return;
    }
    if (skipQuiescentTicks()) {
        return;
    }
    evictedThisTick_ = false;
    s_.released_this_tick = 0;
    prefillBudget_ = c_.prefill_tokens_per_tick;
    arrivals();
    link();
    if (p_.preempt_ahead) {
        preemptAhead();
    }
    runRequests();
    if (!evictedThisTick_) {
        admit();
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
    if (s_.running.empty() && s_.copies.empty() && !evictedThisTick_) {
        const Tick arrival = s_.next_arrival < w_.requests.size() ? w_.requests[s_.next_arrival].arrival_tick
                                                                  : c_.max_ticks;
        next = std::max(next, std::min(arrival, c_.max_ticks));
    }
    s_.next_tick = next;
}

void EngineImpl::arrivals() {
    while (s_.next_arrival < w_.requests.size() && w_.requests[s_.next_arrival].arrival_tick <= t_) {
        const auto r = static_cast<std::int32_t>(s_.next_arrival++);
        rq(r).phase = Phase::Waiting;
        enqueue(r);
        emit(EventKind::Arrive, r);
    }
}

void EngineImpl::enqueue(std::int32_t r) {
    rq(r).queued_since = t_;
    s_.waiting.emplace(spec(r).priority, r);
}

std::int64_t EngineImpl::queuePosition(std::int32_t r) const {
    const auto it = s_.waiting.find({w_.requests[static_cast<std::size_t>(r)].priority, r});
    return static_cast<std::int64_t>(std::distance(s_.waiting.begin(), it));
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
            releaseBlocks(r, blocks, false);
            s_.pending_out_blocks -= blocks;
            st.copy_blocks = 0;
            st.phase = Phase::SwappedOut;
            Event& ev = emit(EventKind::SwapOutDone, r);
            ev.swap_out_bytes = bytes;
            ev.freed_blocks = blocks;
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
                for (auto b : s_.held[static_cast<std::size_t>(r)]) {
                    s_.in_flight[static_cast<std::size_t>(b)] = 0;
                }
            }
            st.swapped_tokens = 0;
        }
    }
    s_.copies.resize(kept);
}

// Blocks request r would allocate for its step this tick; `budget` is the prefill budget left, reduced by
// the chunk r would take.
std::int64_t EngineImpl::demandOf(std::int32_t r, std::int64_t& budget) const {
    const auto& st = s_.req[static_cast<std::size_t>(r)];
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

void EngineImpl::preemptAhead() {
    bool logged = false;
    while (s_.free_blocks + s_.pending_out_blocks < p_.watermark_blocks + growthThisTick()) {
        if (!evictOne(-1, PressureTrigger::PreemptAhead, logged, p_.watermark_blocks + growthThisTick())) {
            break;
        }
    }
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
    for (std::size_t i = 0; i < s_.running.size(); ++i) {
        const auto r = s_.running[i];
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
void EngineImpl::progress(std::int32_t r, std::int64_t chunk) {
    auto& st = rq(r);
    bool sample = st.phase == Phase::Decode;
    if (!sample) {
        st.computed_tokens += chunk;
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
        return;
    }
    // A step that completes the context (a decode step, or the last prefill chunk) samples one token.
    st.generated_tokens += 1;
    st.computed_tokens += 1;
    st.phase = Phase::Decode;
    if (st.first_token_tick < 0) {
        st.first_token_tick = t_;
        Event& ev = emit(EventKind::FirstToken, r);
        ev.generated_tokens = st.generated_tokens;
        ev.context_tokens = st.computed_tokens;
    }
    if (st.generated_tokens == st.output_tokens) {
        complete(r);
    }
    if (e_.backend_ != nullptr) {
        e_.backend_->onContextGrown(r, st.computed_tokens);
    }
}

void EngineImpl::complete(std::int32_t r) {
    auto& st = rq(r);
    const std::int64_t blocks = st.blocks;
    releaseBlocks(r, blocks, false);
    st.phase = Phase::Done;
    s_.running_dirty = true;
    st.completion_tick = t_;
    s_.totals.completed += 1;
    s_.unfinished -= 1;
    Event& ev = emit(EventKind::Complete, r);
    ev.generated_tokens = st.generated_tokens;
    ev.freed_blocks = blocks;
    ev.occupied_blocks = occupied();
    if (e_.backend_ != nullptr) {
        e_.backend_->onFinished(r);
    }
}

void EngineImpl::takeBlocks(std::int32_t r, std::int64_t n) {
    auto& st = rq(r);
    if (n <= 0) {
        return;
    }
    if (st.blocks == 0) {
        s_.holders += 1;
        if (st.released_tick == t_) {
            s_.released_this_tick -= 1; // it held blocks earlier this tick: count the pair once
        }
    }
    st.blocks += n;
    s_.free_blocks -= n;
    if (e_.options_.track_block_owners) {
        auto& mine = s_.held[static_cast<std::size_t>(r)];
        for (std::int64_t i = 0; i < n; ++i) {
            const auto b = s_.free_list.back();
            s_.free_list.pop_back();
            s_.owner[static_cast<std::size_t>(b)] = r;
            mine.push_back(b);
        }
    }
}

// Return n of r's blocks to the pool: the first n (a landed swap-out prefix) or the last n (dropped tail).
void EngineImpl::releaseBlocks(std::int32_t r, std::int64_t n, bool fromTail) {
    auto& st = rq(r);
    if (n <= 0) {
        return;
    }
    st.blocks -= n;
    s_.free_blocks += n;
    if (st.blocks == 0) {
        s_.holders -= 1;
        s_.released_this_tick += 1;
        st.released_tick = t_;
    }
    if (e_.options_.track_block_owners) {
        auto& mine = s_.held[static_cast<std::size_t>(r)];
        const auto count = static_cast<std::ptrdiff_t>(n);
        auto first = fromTail ? mine.end() - count : mine.begin();
        for (auto it = first; it != first + count; ++it) {
            s_.owner[static_cast<std::size_t>(*it)] = kFreeBlock;
            s_.in_flight[static_cast<std::size_t>(*it)] = 0;
        }
        // Freed blocks go back in reverse so the next allocation reuses the lowest-numbered recently freed.
        for (auto it = first + count; it != first;) {
            --it;
            s_.free_list.push_back(*it);
        }
        mine.erase(first, first + count);
    }
}

// Make `need` blocks free for r, evicting victims as the rule says. False when r must wait this tick
// (blocks are on their way back from swap-outs, or there is nobody to evict) or r itself was evicted.
bool EngineImpl::allocate(std::int32_t r, std::int64_t need) {
    bool logged = false;
    while (s_.free_blocks < need) {
        if (s_.pending_out_blocks >= need - s_.free_blocks) {
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
bool EngineImpl::evictOne(std::int32_t requester, PressureTrigger trigger, bool& pressureLogged, std::int64_t need) {
    auto& cands = e_.ledger_.candidates;
    const std::size_t begin = cands.size();
    for (auto r : s_.running) {
        const auto& st = rq(r);
        if (!isRunnable(st.phase) || st.blocks == 0) {
            continue;
        }
        Candidate c;
        c.request = r;
        c.tenant = st.tenant;
        c.priority = spec(r).priority;
        c.arrival_tick = spec(r).arrival_tick;
        c.admit_seq = st.admit_seq;
        c.prompt_tokens = spec(r).prompt_tokens;
        c.generated_tokens = st.generated_tokens;
        c.context_tokens = st.computed_tokens;
        c.max_output_tokens = spec(r).max_output_tokens;
        c.blocks = st.blocks;
        cands.push_back(c);
    }
    const std::size_t count = cands.size() - begin;
    if (count == 0) {
        return false;
    }
    if (!pressureLogged) {
        pressureLogged = true;
        s_.totals.pressure_events += 1;
        Event& ev = emit(EventKind::Pressure, requester);
        ev.trigger = trigger;
        ev.need_blocks = need;
        ev.free_blocks = s_.free_blocks;
        ev.occupied_blocks = occupied();
    }
    const VictimContext ctx{p_.victim_rule, e_.idRank_, e_.arrivalRank_};
    const std::size_t chosen = chooseVictim(ctx, std::span<const Candidate>(cands).subspan(begin, count));
    evict(cands[begin + chosen].request, begin, count);
    return true;
}

void EngineImpl::evict(std::int32_t victim, std::size_t candidatesBegin, std::size_t candidatesCount) {
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
    const std::int64_t replay = context - (mode == Recovery::Recompute ? 0 : swapTokens);

    Event& ev = emit(EventKind::Evict, victim);
    ev.mode = mode;
    ev.fallback = fallback;
    ev.fallback_need_bytes = fallbackNeed;
    ev.fallback_free_bytes = hostFree;
    ev.occupied_blocks = occupied();
    ev.prompt_tokens = spec(victim).prompt_tokens;
    ev.generated_tokens = st.generated_tokens;
    ev.context_tokens = context;
    ev.freed_blocks = blocks;
    ev.replay_tokens = replay;
    ev.swap_out_bytes = swapBytes;
    ev.swap_blocks = mode == Recovery::Recompute ? 0 : swapBlocks;
    ev.est_recompute_ticks = estRecompute;
    ev.est_swap_ticks = estSwap;
    ev.candidates_begin = static_cast<std::int64_t>(candidatesBegin);
    ev.candidates_count = static_cast<std::int64_t>(candidatesCount);
    const std::size_t evIndex = e_.ledger_.events.size() - 1;

    evictedThisTick_ = true;
    s_.running_dirty = true;
    st.preemptions += 1;
    s_.totals.evictions += 1;
    s_.totals.queue_reentries += 1;
    s_.totals.freed_blocks += blocks;
    s_.totals.replay_tokens += replay;
    s_.totals.swap_out_bytes += swapBytes;

    if (e_.backend_ != nullptr) {
        const auto seq = e_.ledger_.events[evIndex].seq;
        if (swapBytes > 0) {
            annotate(seq, victim, "swap_out", swapTokens, e_.backend_->swapOut(victim, swapTokens));
        }
        if (replay > 0) {
            annotate(seq, victim, "replay", replay, e_.backend_->dropAndReplay(victim, replay));
        }
    }

    // Dropped tail blocks return at once; swapped blocks when their copy lands.
    const std::int64_t keepBlocks = mode == Recovery::Recompute ? 0 : swapBlocks;
    releaseBlocks(victim, blocks - keepBlocks, true);
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
        st.host_bytes = swapBytes;
        s_.host_used += swapBytes;
        s_.totals.peak_host_bytes = std::max(s_.totals.peak_host_bytes, s_.host_used);
        s_.pending_out_blocks += keepBlocks;
        s_.copies.push_back(victim);
        st.phase = Phase::SwapOut;
        if (e_.options_.track_block_owners) {
            for (auto b : s_.held[static_cast<std::size_t>(victim)]) {
                s_.in_flight[static_cast<std::size_t>(b)] = 1;
            }
        }
    }
    enqueue(victim);
    Event& done = e_.ledger_.events[evIndex];
    done.host_bytes = s_.host_used;
    done.queue_position = queuePosition(victim);
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
        if (admissionGate(r, prefillBudget_, needNow, chunk) > s_.free_blocks - p_.watermark_blocks) {
            break; // head-of-line: later requests wait behind this one
        }
        it = s_.waiting.erase(it);
        s_.quiet_decode_only = false; // it prefills or copies first
        st.queue_ticks += t_ - st.queued_since;
        st.admit_seq = s_.admit_counter++;
        s_.running.push_back(r);
        const bool first = !st.ever_admitted;
        st.ever_admitted = true;
        if (swapped) {
            takeBlocks(r, needNow);
            st.copy_remaining = st.swapped_tokens * c_.kv_bytes_per_token;
            st.phase = Phase::SwapIn;
            s_.copies.push_back(r);
            if (e_.options_.track_block_owners) {
                for (auto b : s_.held[static_cast<std::size_t>(r)]) {
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
            if (e_.backend_ != nullptr) {
                annotate(ev.seq, r, "swap_in", st.swapped_tokens, e_.backend_->swapIn(r, st.swapped_tokens));
            }
            continue;
        }
        takeBlocks(r, needNow - st.blocks);
        Event& ev = emit(first ? EventKind::Admit : EventKind::Resume, r);
        ev.occupied_blocks = occupied();
        if (!first) {
            ev.mode = Recovery::Recompute;
            ev.replay_tokens = st.replay_remaining;
            ev.generated_tokens = st.generated_tokens;
            ev.context_tokens = 0;
        }
        st.phase = st.replay_remaining > 0 ? Phase::Replay : Phase::Prefill;
        prefillBudget_ -= chunk;
        progress(r, chunk);
    }
}

// Blocks that must be free (beyond the watermark) to admit or resume r now. needNow: blocks it allocates at
// once; chunk: the prefill tokens it would take from `budget`.
std::int64_t EngineImpl::admissionGate(std::int32_t r, std::int64_t budget, std::int64_t& needNow,
                                       std::int64_t& chunk) const {
    const auto& st = s_.req[static_cast<std::size_t>(r)];
    if (st.phase == Phase::SwappedOut) {
        chunk = 0;
        needNow = blocksFor(st.swapped_tokens);
    } else {
        const std::int64_t tgt = target(r);
        chunk = std::min(tgt - st.computed_tokens, budget);
        needNow = blocksFor(st.computed_tokens + chunk + (st.computed_tokens + chunk == tgt ? 1 : 0));
    }
    return p_.resume_guard == ResumeGuard::FullReservation
               ? std::max(needNow, blocksFor(spec(r).prompt_tokens + spec(r).max_output_tokens))
               : needNow;
}

// Quiescent ticks: nothing arrives, nothing is copying or prefilling, every running request decodes, and the
// queue's head cannot be admitted. Such ticks only add one token to each running request and take blocks at
// block edges; if the free pool covers every edge up to the tick before the next completion or arrival, no
// event can happen in between, so the engine advances them in one pass (same state, same ledger as ticking
// one by one; tests compare both). Off when the lab records per-tick series or the pool map, with a live
// backend (it sees every token) and with preempt_ahead (its trigger depends on per-tick growth).
bool EngineImpl::skipQuiescentTicks() {
    if (e_.options_.record_series || e_.options_.track_block_owners || e_.backend_ != nullptr || p_.preempt_ahead ||
        s_.running.empty() || !s_.copies.empty()) {
        return false;
    }
    Tick limit = c_.max_ticks;
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
    if (!s_.waiting.empty()) {
        std::int64_t needNow = 0;
        std::int64_t chunk = 0;
        // Decode ticks only shrink the free pool, so a head that cannot be admitted now cannot be later.
        if (admissionGate(s_.waiting.begin()->second, c_.prefill_tokens_per_tick, needNow, chunk) <=
            s_.free_blocks - p_.watermark_blocks) {
            return false;
        }
    }
    auto blocksNeeded = [&](std::int64_t ticks) {
        std::int64_t need = 0;
        for (auto r : s_.running) {
            const auto& st = s_.req[static_cast<std::size_t>(r)];
            need += blocksFor(st.computed_tokens + ticks) - st.blocks;
        }
        return need;
    };
    while (d >= 2 && blocksNeeded(d) > s_.free_blocks) {
        d /= 2;
    }
    if (d < 2) {
        return false;
    }
    for (auto r : s_.running) {
        auto& st = rq(r);
        st.computed_tokens += d;
        st.generated_tokens += d;
        takeBlocks(r, blocksFor(st.computed_tokens) - st.blocks);
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
    std::erase_if(s_.running, [&](std::int32_t r) {
        const Phase ph = rq(r).phase;
        return !(isRunnable(ph) || ph == Phase::SwapIn);
    });
}

void EngineImpl::censorAll() {
    t_ = c_.max_ticks;
    for (std::int32_t r = 0; r < static_cast<std::int32_t>(s_.req.size()); ++r) {
        auto& st = rq(r);
        if (st.phase == Phase::Done || st.phase == Phase::Censored) {
            continue;
        }
        if (st.phase == Phase::NotArrived) {
            // Arrives at or after max_ticks: it never entered the system, but it is accounted for.
            st.queued_since = t_;
        } else if (s_.waiting.count({spec(r).priority, r}) != 0) {
            st.queue_ticks += t_ - st.queued_since;
        }
        const std::int64_t blocks = st.blocks;
        releaseBlocks(r, blocks, false);
        if (st.phase == Phase::SwapOut) {
            s_.pending_out_blocks -= blocks;
        }
        s_.host_used -= st.host_bytes;
        st.host_bytes = 0;
        st.phase = Phase::Censored;
        s_.totals.censored += 1;
        s_.unfinished -= 1;
        Event& ev = emit(EventKind::Censor, r);
        ev.generated_tokens = st.generated_tokens;
        ev.freed_blocks = blocks;
        ev.occupied_blocks = occupied();
    }
    s_.waiting.clear();
    s_.running.clear();
    s_.copies.clear();
    s_.totals.ticks = c_.max_ticks;
    s_.next_tick = c_.max_ticks;
    s_.finished = true;
}

// ---- Engine ----

Engine::Engine(const Workload& workload, Ledger& ledger, EngineOptions options)
    : workload_(workload), ledger_(ledger), options_(options), s_(std::make_unique<State>()) {
    EngineImpl::init(*this);
}

Engine::~Engine() = default;

const Engine::State& Engine::state() const { return *s_; }

void Engine::restore(const State& s) {
    *s_ = s;
    live_.clear(); // a live run is never seeked: its measurements belong to one pass
    std::erase_if(series_, [&](const TickStats& st) { return st.tick >= s.next_tick; });
}

bool Engine::finished() const { return s_->finished; }
Tick Engine::nextTick() const { return s_->next_tick; }

void Engine::step() {
    EngineImpl impl(*this);
    impl.step();
}

void Engine::runToTick(Tick t) {
    EngineImpl impl(*this);
    while (!s_->finished && s_->next_tick <= t) {
        impl.step();
    }
}

void Engine::runToEnd() {
    EngineImpl impl(*this);
    while (!s_->finished) {
        impl.step();
    }
}

bool Engine::runToNextPressure() {
    EngineImpl impl(*this);
    const auto before = s_->totals.pressure_events;
    while (!s_->finished) {
        impl.step();
        if (s_->totals.pressure_events != before) {
            return true;
        }
    }
    return false;
}

std::span<const RequestState> Engine::requests() const { return s_->req; }
std::span<const std::int32_t> Engine::blockOwners() const { return s_->owner; }
std::span<const std::uint8_t> Engine::blockInFlight() const { return s_->in_flight; }
const std::vector<TickStats>& Engine::series() const { return series_; }
const std::vector<std::string>& Engine::tenants() const { return tenants_; }
const Totals& Engine::totals() const { return s_->totals; }
std::int64_t Engine::freeBlocks() const { return s_->free_blocks; }
std::int64_t Engine::hostBytes() const { return s_->host_used; }
std::int64_t Engine::waitingCount() const { return static_cast<std::int64_t>(s_->waiting.size()); }

std::vector<std::int32_t> Engine::waitingQueue() const {
    std::vector<std::int32_t> q;
    q.reserve(s_->waiting.size());
    for (const auto& entry : s_->waiting) {
        q.push_back(entry.second);
    }
    return q;
}

std::vector<RequestRecord> requestRecords(const Engine& engine) {
    const auto& cfg = engine.workload().config;
    std::vector<RequestRecord> out;
    const auto reqs = engine.requests();
    out.reserve(reqs.size());
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        const auto& st = reqs[i];
        RequestRecord rec;
        rec.request = static_cast<std::int32_t>(i);
        rec.completed = st.phase == Phase::Done;
        rec.generated_tokens = st.generated_tokens;
        rec.first_token_tick = st.first_token_tick;
        rec.completion_tick = st.completion_tick;
        rec.preemptions = st.preemptions;
        rec.queue_ticks = st.queue_ticks;
        rec.excessive_wait = st.queue_ticks > cfg.wait_threshold_ticks;
        rec.repeated_preemption = st.preemptions > cfg.preemption_threshold;
        out.push_back(rec);
    }
    return out;
}

RunResult runWorkload(const Workload& workload, LiveBackend* backend) {
    RunResult result;
    Engine engine(workload, result.ledger);
    engine.setLiveBackend(backend);
    engine.runToEnd();
    if (backend != nullptr) {
        result.live_run = true;
        result.live_device = backend->deviceName();
        result.live = engine.liveAnnotations();
        result.live_error = backend->lastError();
    }
    result.records = requestRecords(engine);
    result.tenants = engine.tenants();
    result.totals = engine.totals();
    return result;
}

} // namespace pl
