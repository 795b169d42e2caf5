// Engine's public face, run setup (init), emit/annotate, and the whole-run helpers (requestRecords, runWorkload).
#include "core/engine_impl.h"
#include "core/victim.h"

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


// The ledger's events carry the request as the int32 the receipt writes (none: -1, a pressure no one request caused).
Event& EngineImpl::emit(EventKind kind, RequestIndex request) {
    auto& events = e_.ledger_.events;
    Event& ev = events.emplace_back();
    ev.seq = static_cast<std::int64_t>(events.size()) - 1;
    ev.tick = t_;
    ev.kind = kind;
    ev.request = request.value();
    ev.capacity_blocks = c_.capacity_blocks;
    ev.host_bytes = s_.host_used;
    ev.prefix = e_.prefix_;
    return ev;
}

// Keep what the live backend measured, beside (never inside) the hashed event.
void EngineImpl::annotate(std::int64_t seq, RequestIndex r, const char* kind, std::int64_t tokens,
                          const LiveMeasurement& m) {
    LiveAnnotation a;
    a.seq = seq;
    a.request = r.value();
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
    for (const RequestIndex r : s.req.indices()) {
        s.req[r].output_tokens = w.requests[r.slot()].output_tokens;
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
    for (const RequestIndex r : s.req.indices()) {
        s.req[r].tenant = static_cast<std::int32_t>(
            std::lower_bound(tenants.begin(), tenants.end(), w.requests[r.slot()].tenant) - tenants.begin());
    }
    e.ranks_ = VictimRanks::of(w);
    e.prefix_ = sharesPrefixes(w);
    e.own_ids_.clear();
    if (cachesOwnBlocks(w)) {
        // Own ids start past every declared id; request i's run is as long as its blocks can get.
        std::int64_t next = 0;
        for (const auto& r : w.requests) {
            for (const auto& run : r.prefix_blocks.runs()) {
                next = std::max(next, run.id + run.len);
            }
        }
        e.own_ids_.reserve(n);
        for (const auto& r : w.requests) {
            PrefixIds ids = r.prefix_blocks;
            const std::int64_t blocks = ceilDiv(r.prompt_tokens + r.output_tokens, w.config.block_size_tokens);
            for (auto b = static_cast<std::int64_t>(ids.size()); b < blocks; ++b) {
                ids.push_back(next + b);
            }
            next += blocks;
            e.own_ids_.push_back(std::move(ids));
        }
    }
    // vLLM's free queue needs block identities: the cache is kept per block, never by runs.
    e.tracked_ = e.options_.track_block_owners || !e.own_ids_.empty();
    e.runs_ = e.prefix_ && !e.tracked_;
    if (e.runs_) {
        s.extents.reset(n);
    }
    // The pool map is lazy: it covers the blocks taken at least once (popFreeBlock grows it), so a pool of
    // 50,000,000 blocks that a run never fills costs what the run touches, in the engine and in every seek
    // snapshot (issue 21).
    if (e.tracked_) {
        s.held.assign(n, {});
    }
    if (n == 0) {
        s.finished = true;
    }
}


// ---- Engine ----

Engine::Engine(const Workload& workload, Ledger& ledger, EngineOptions options)
    : workload_(workload), ledger_(ledger), options_(options), s_(std::make_unique<State>()) {
    EngineImpl::init(*this);
}

Engine::~Engine() = default;

const Engine::State& Engine::state() const { return *s_; }

Engine::State Engine::stateWithoutRequests() {
    // Set aside while the rest is copied, and put back whatever happens (a copy can throw bad_alloc).
    struct Aside {
        State& s;
        PerRequest<RequestState> req;
        PerRequest<std::vector<std::int32_t>> held;
        explicit Aside(State& state) : s(state), req(std::move(state.req)), held(std::move(state.held)) {}
        ~Aside() {
            s.req = std::move(req);
            s.held = std::move(held);
        }
    } aside(*s_);
    return *s_;
}

void Engine::restore(State s) {
    *s_ = std::move(s);
    live_.clear(); // a live run is never seeked: its measurements belong to one pass
    std::erase_if(series_, [&](const TickStats& st) { return st.tick >= s_->next_tick; });
}

bool Engine::finished() const { return s_->finished; }
Tick Engine::nextTick() const { return s_->next_tick; }

void Engine::step() {
    EngineImpl impl(*this);
    impl.step();
}

void Engine::runToTick(Tick t) {
    EngineImpl impl(*this);
    if (t < std::numeric_limits<Tick>::max()) {
        impl.stopSkipsAt(t + 1);
    }
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

std::span<const RequestState> Engine::requests() const { return s_->req.values(); }
std::span<const std::int32_t> Engine::blockOwners() const { return s_->owner; }
std::span<const std::uint8_t> Engine::blockInFlight() const { return s_->in_flight; }
std::span<const std::int32_t> Engine::blockRefCount() const { return s_->ref; }
std::span<const std::int64_t> Engine::blockPrefixId() const { return s_->block_key; }
std::span<const std::int32_t> Engine::heldBlocks(std::int32_t r) const {
    const RequestIndex i(r); // the lab's int32 (an event's request): -1 or past the end holds nothing
    return s_->held.contains(i) ? std::span<const std::int32_t>(s_->held[i]) : std::span<const std::int32_t>();
}
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
        q.push_back(entry.second.value());
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

RunResult runWorkload(const Workload& workload, LiveBackend* backend, const RunControl& control,
                      EngineOptions options, std::vector<TickStats>* series) {
    RunResult result;
    Engine engine(workload, result.ledger, options);
    engine.setLiveBackend(backend);
    if (control.cancel == nullptr && !control.progress && control.max_events == 0) {
        engine.runToEnd();
    } else {
        RunCheck check(control);
        while (!engine.finished()) {
            engine.step();
            check.afterStep(engine.nextTick(), static_cast<std::int64_t>(result.ledger.events.size()),
                            engine.totals().evictions);
        }
    }
    collectResult(engine, backend, result);
    if (series != nullptr) {
        *series = engine.series();
    }
    return result;
}

void collectResult(const Engine& engine, const LiveBackend* backend, RunResult& result) {
    if (backend != nullptr) {
        result.live_run = true;
        result.live_device = backend->deviceName();
        result.live = engine.liveAnnotations();
        result.live_error = backend->lastError();
    }
    result.records = requestRecords(engine);
    result.tenants = engine.tenants();
    result.totals = engine.totals();
}

} // namespace pl
