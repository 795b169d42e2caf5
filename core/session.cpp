#include "core/session.h"

#include "core/engine_state.h"
#include "core/live_backend.h"

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <utility>

namespace pl {

namespace {

constexpr std::size_t kMaxSnapshots = 128;
constexpr std::size_t kRequestsPerChunk = 256;

// The per-request part of a snapshot (RequestState and held block ids), kRequestsPerChunk requests at a time.
// Requests are in arrival order, so at any tick most chunks hold requests not yet arrived or long finished,
// which do not change between snapshots: consecutive snapshots share those chunks. 128 whole copies of a
// 300,000-request run's state were 7 GB; shared, the snapshots cost about the requests active around them.
struct RequestChunk {
    std::vector<RequestState> req;
    std::vector<std::vector<std::int32_t>> held; // empty without the pool map

    std::size_t bytes() const {
        std::size_t b = sizeof(RequestChunk) + req.capacity() * sizeof(RequestState) +
                        held.capacity() * sizeof(held[0]);
        for (const auto& h : held) b += h.capacity() * sizeof(std::int32_t);
        return b;
    }
};

// The held block ids of requests [begin, end) of `s` (none without the pool map).
std::pair<std::size_t, std::size_t> heldRange(const Engine::State& s, std::size_t begin, std::size_t end) {
    const std::size_t heldEnd = std::min(end, s.held.size());
    return {std::min(begin, heldEnd), heldEnd};
}

// Requests [begin, end) of `s` equal `chunk`'s.
bool sameRequests(const Engine::State& s, std::size_t begin, std::size_t end, const RequestChunk& chunk) {
    if (chunk.req.size() != end - begin || !std::equal(chunk.req.begin(), chunk.req.end(), s.req.begin() + begin)) {
        return false;
    }
    const auto [heldBegin, heldEnd] = heldRange(s, begin, end);
    return chunk.held.size() == heldEnd - heldBegin &&
           std::equal(chunk.held.begin(), chunk.held.end(), s.held.begin() + heldBegin);
}

// What a state without its requests holds: the per-block map, the prefix cache and the queues. (The session
// tracks the pool map, so the prefix cache by runs, `extents`, which is per request, stays empty.)
std::size_t shellBytes(const Engine::State& s) {
    return sizeof(Engine::State) + s.prefix_cache.bytes() + s.owner.capacity() * sizeof(std::int32_t) +
           s.in_flight.capacity() +
           (s.running.capacity() + s.copies.capacity() + s.free_list.capacity() + s.ref.capacity() +
            s.lru_prev.capacity() + s.lru_next.capacity()) * sizeof(std::int32_t) +
           s.block_key.capacity() * sizeof(std::int64_t) + s.waiting.size() * 48; // a std::set node, about
}

// The tick a run reaches at least: its last arrival (or max_ticks).
Tick lastArrivalOrEnd(const Workload& w) {
    Tick lastArrival = 0;
    for (const auto& r : w.requests) lastArrival = std::max(lastArrival, r.arrival_tick);
    return std::min(lastArrival, w.config.max_ticks);
}

// The interval that keeps at most kMaxSnapshots snapshots up to tick `lasts`: a power-of-two multiple of 64, as
// doubling from 64 gives. Starting lower only takes snapshots that thinning drops (each copies the per-block
// state: the whole Mooncake trace at 26,674 blocks, about 1.5 MB; starting at 64 took about 480 to keep 92).
Tick snapshotIntervalFor(Tick lasts) {
    Tick interval = 64;
    while (lasts / interval >= static_cast<Tick>(kMaxSnapshots)) interval *= 2;
    return interval;
}

} // namespace

struct Session::Snapshot {
    // Move-only: the state's move may throw (its waiting queue allocates), and a copyable snapshot would then
    // be copied whole each time the vector of snapshots grows.
    Snapshot() = default;
    Snapshot(Snapshot&&) = default;
    Snapshot& operator=(Snapshot&&) = default;
    Snapshot(const Snapshot&) = delete;
    Snapshot& operator=(const Snapshot&) = delete;
    ~Snapshot() = default;

    Engine::State shell; // the state without req and held, which are in `chunks`
    std::vector<std::shared_ptr<const RequestChunk>> chunks;
    std::size_t newBytes = 0; // the shell and the chunks this snapshot did not share with the previous one

    Engine::State state() const { // every seek back: sized once, not grown chunk by chunk
        Engine::State s = shell;
        std::size_t requests = 0;
        std::size_t held = 0;
        for (const auto& chunk : chunks) {
            requests += chunk->req.size();
            held += chunk->held.size();
        }
        s.req.reserve(requests);
        s.held.reserve(held);
        for (const auto& chunk : chunks) {
            s.req.insert(s.req.end(), chunk->req.begin(), chunk->req.end());
            s.held.insert(s.held.end(), chunk->held.begin(), chunk->held.end());
        }
        return s;
    }
    Tick nextTick() const { return shell.next_tick; }
};

Session::Snapshot Session::takeSnapshot(Engine& engine) {
    ++snapshotsTaken_;
    const Engine::State& state = engine.state();
    const Snapshot* previous = snapshots_.empty() ? nullptr : &snapshots_.back();
    Snapshot snap;
    const std::size_t n = state.req.size();
    for (std::size_t begin = 0, c = 0; begin < n; begin += kRequestsPerChunk, ++c) {
        const std::size_t end = std::min(n, begin + kRequestsPerChunk);
        if (previous != nullptr && c < previous->chunks.size() &&
            // Requests not yet arrived are as the engine made them (it touches a request first at its
            // arrival), so they need no comparison; the rest are compared.
            (begin >= state.next_arrival || sameRequests(state, begin, end, *previous->chunks[c]))) {
            snap.chunks.push_back(previous->chunks[c]);
            continue;
        }
        auto chunk = std::make_shared<RequestChunk>();
        chunk->req.assign(state.req.begin() + static_cast<std::ptrdiff_t>(begin),
                          state.req.begin() + static_cast<std::ptrdiff_t>(end));
        const auto [heldBegin, heldEnd] = heldRange(state, begin, end);
        chunk->held.assign(state.held.begin() + static_cast<std::ptrdiff_t>(heldBegin),
                           state.held.begin() + static_cast<std::ptrdiff_t>(heldEnd));
        snap.newBytes += chunk->bytes();
        snap.chunks.push_back(std::move(chunk));
    }
    snap.shell = engine.stateWithoutRequests();
    snap.newBytes += shellBytes(snap.shell) + snap.chunks.capacity() * sizeof(snap.chunks[0]);
    return snap;
}

void Session::thinSnapshots() {
    std::vector<Snapshot> kept;
    kept.reserve(snapshots_.size() / 2 + 1);
    for (std::size_t i = 0; i < snapshots_.size(); i += 2) {
        kept.push_back(std::move(snapshots_[i]));
    }
    snapshots_ = std::move(kept);
    interval_ *= 2;
    snapshotBytes_ = snapshotBytes();
}

Session::Session(Workload workload, const RunControl& control) : Session(std::move(workload), nullptr, control) {}

Session::Session(Workload workload, LiveBackend* backend, const RunControl& control)
    : workload_(std::move(workload)), maxSnapshotBytes_(control.max_snapshot_bytes) {
    snapshots_.reserve(kMaxSnapshots + 1);
    EngineOptions options{true, false};
    // The "why" panel ranks every candidate of a teaching-sized run; a large one keeps what receipts list.
    options.keep_all_candidates = workload_.requests.size() <= kWholeCandidateListRequests;
    if (backend != nullptr) {
        // A live run drives the device by block ids: the one full run keeps the pool map, and it takes every
        // snapshot as it goes (the run is never repeated: its measurements belong to one pass).
        options.track_block_owners = true;
        interval_ = snapshotIntervalFor(lastArrivalOrEnd(workload_));
    }
    {
        Engine full(workload_, full_.ledger, options);
        full.setLiveBackend(backend);
        if (backend != nullptr) keepSnapshot(full);
        RunCheck check(control);
        while (!full.finished()) {
            full.step();
            const Tick next = full.nextTick();
            check.afterStep(next, static_cast<std::int64_t>(full_.ledger.events.size()), full.totals().evictions);
            if (backend != nullptr && !full.finished() && next >= snapshots_.back().nextTick() + interval_) {
                keepSnapshot(full);
            }
        }
        collectResult(full, backend, full_);
        fullSeries_ = full.series();
        if (backend != nullptr) frontier_ = full.nextTick();
    }
    for (const auto& e : full_.ledger.events) {
        if (e.kind == EventKind::Pressure && (pressureTicks_.empty() || pressureTicks_.back() != e.tick)) {
            pressureTicks_.push_back(e.tick);
        }
    }
    cursor_ = std::make_unique<Engine>(workload_, cursorLedger_, EngineOptions{false, true});
    if (snapshots_.empty()) {
        // A simulated run: the snapshots with the pool map come from a scout engine as seeks first reach each
        // part of the run or fillSnapshots asks, at the interval that keeps at most kMaxSnapshots over the
        // run's known length.
        interval_ = snapshotIntervalFor(full_.totals.ticks - 1);
        scout_ = std::make_unique<Engine>(workload_, scoutLedger_, EngineOptions{false, true});
        keepSnapshot(*scout_);
        frontier_ = 0;
        if (scout_->finished()) scout_.reset();
    }
    cursor_->restore(snapshots_.front().state());
    cursorTick_ = -1;
}

void Session::keepSnapshot(Engine& engine) {
    snapshots_.push_back(takeSnapshot(engine));
    snapshotBytes_ += snapshots_.back().newBytes;
    while (snapshots_.size() > kMaxSnapshots || (snapshotBytes_ > maxSnapshotBytes_ && snapshots_.size() > 2)) {
        thinSnapshots();
    }
}

void Session::extendSnapshots(Tick t) {
    while (scout_ && !scout_->finished() && scout_->nextTick() <= t) {
        scout_->step();
        if (!scout_->finished() && scout_->nextTick() >= snapshots_.back().nextTick() + interval_) {
            keepSnapshot(*scout_);
            // Its events are never read: keep none, as the cursor after a restore (the engine reads only the
            // events of the tick it is in).
            scoutLedger_ = Ledger{};
        }
    }
    if (!scout_) return;
    frontier_ = scout_->nextTick();
    if (scout_->finished()) {
        scout_.reset(); // every snapshot is taken
        scoutLedger_ = Ledger{};
    }
}

bool Session::fillSnapshots(Tick ticks) {
    if (scout_) extendSnapshots(scout_->nextTick() + std::max<Tick>(ticks, 1) - 1);
    return scout_ != nullptr;
}

Session::~Session() = default;

std::size_t Session::snapshotCount() const { return snapshots_.size(); }

std::size_t Session::snapshotBytes() const {
    std::unordered_set<const RequestChunk*> counted;
    std::size_t bytes = 0;
    for (const auto& snap : snapshots_) {
        bytes += shellBytes(snap.shell) + snap.chunks.capacity() * sizeof(snap.chunks[0]);
        for (const auto& chunk : snap.chunks) {
            if (counted.insert(chunk.get()).second) bytes += chunk->bytes();
        }
    }
    return bytes;
}

void Session::seek(Tick t) {
    t = std::clamp<Tick>(t, -1, std::max<Tick>(-1, lastTick()));
    if (t + 1 > frontier_) extendSnapshots(t); // past every snapshot taken so far
    // Forward from where the cursor is when that is cheaper than restoring a snapshot.
    const Engine::State& now = cursor_->state();
    auto it = std::upper_bound(snapshots_.begin(), snapshots_.end(), t + 1,
                               [](Tick v, const Snapshot& s) { return v < s.nextTick(); });
    const Snapshot& best = *std::prev(it); // the first snapshot has next_tick 0 <= t + 1
    const bool forwardFromHere = now.next_tick <= t + 1 && now.next_tick >= best.nextTick();
    if (!forwardFromHere) {
        cursor_->restore(best.state());
        cursorLedger_.truncate(0);
    }
    cursor_->runToTick(t);
    cursorTick_ = t;
}

bool Session::seekNextPressure() {
    auto it = std::upper_bound(pressureTicks_.begin(), pressureTicks_.end(), cursorTick_);
    if (it == pressureTicks_.end()) {
        return false;
    }
    seek(*it);
    return true;
}

bool Session::seekPreviousPressure() {
    auto it = std::lower_bound(pressureTicks_.begin(), pressureTicks_.end(), cursorTick_);
    if (it == pressureTicks_.begin()) {
        return false;
    }
    seek(*std::prev(it));
    return true;
}

} // namespace pl
