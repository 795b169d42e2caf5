#include "ui/timelinemodel.h"

#include <algorithm>
#include <numeric>

namespace plui {

std::string_view toString(LaneState s) {
    switch (s) {
    case LaneState::Waiting: return "waiting";
    case LaneState::Prefill: return "prefill";
    case LaneState::Decode: return "decode";
    case LaneState::Preempted: return "preempted";
    case LaneState::SwappedOut: return "swapped out";
    case LaneState::Copying: return "copying";
    case LaneState::Replaying: return "replaying";
    case LaneState::Done: return "done";
    case LaneState::Censored: return "censored";
    }
    return "?";
}

namespace {

struct Walker {
    std::vector<LaneSegment> segs;
    bool firstToken = false;
    bool replayPending = false; // hybrid: the copy back is followed by a replay
    // Queue time as core counts it (queue_ticks): from arrival or eviction (a swap-out's copy included) to
    // admission or resume; passAt is the tick where it first passes `threshold`.
    std::int64_t queuedSince = -1, queued = 0, passAt = -1;

    void enqueue(std::int64_t tick) { queuedSince = tick; }
    void dequeue(std::int64_t tick, std::int64_t threshold) {
        if (queuedSince < 0) return;
        const std::int64_t len = tick - queuedSince;
        if (passAt < 0 && queued + len > threshold) passAt = queuedSince + (threshold - queued);
        queued += len;
        queuedSince = -1;
    }

    // The tick a replay finishes in is the replay's (its last chunk ran there), and what follows starts a tick
    // later: a replay that began and finished in one tick was otherwise overwritten and never seen.
    bool deferred = false;

    void enter(std::int64_t tick, LaneState s) {
        if (deferred && !segs.empty() && segs.back().begin == tick + 1) {
            segs.pop_back(); // another event in that tick after all (an eviction, the end): it tells the state
            segs.back().end = tick;
        }
        deferred = false;
        if (!segs.empty() && segs.back().state == LaneState::Replaying &&
            (s == LaneState::Decode || s == LaneState::Prefill)) {
            segs.back().end = tick + 1;
            segs.push_back({tick + 1, tick + 1, s});
            deferred = true;
            return;
        }
        if (!segs.empty() && segs.back().begin == tick) {
            segs.back().state = s; // several events in one tick: the last one tells the state
            return;
        }
        if (!segs.empty()) segs.back().end = tick;
        segs.push_back({tick, tick, s});
    }
    LaneState running() const { return firstToken ? LaneState::Decode : LaneState::Prefill; }
};

} // namespace

TimelineModel TimelineModel::build(const pl::Workload& workload, const pl::RunResult& run) {
    TimelineModel m;
    m.endTick = run.totals.ticks;
    m.keyEnd = m.endTick;
    const std::size_t n = workload.requests.size();
    std::vector<Walker> walkers(n);
    std::vector<std::int64_t> evictions(n, 0);
    const std::int64_t preemptionThreshold = workload.config.preemption_threshold;
    const std::int64_t waitThreshold = workload.config.wait_threshold_ticks;
    for (const pl::Event& e : run.ledger.events) {
        if (e.request < 0 || static_cast<std::size_t>(e.request) >= n) continue;
        Walker& w = walkers[static_cast<std::size_t>(e.request)];
        switch (e.kind) {
        case pl::EventKind::Arrive:
            w.enqueue(e.tick);
            w.enter(e.tick, LaneState::Waiting);
            break;
        case pl::EventKind::Admit:
            w.dequeue(e.tick, waitThreshold);
            w.enter(e.tick, LaneState::Prefill);
            break;
        case pl::EventKind::FirstToken:
            w.firstToken = true;
            w.enter(e.tick, LaneState::Decode);
            break;
        case pl::EventKind::Evict: {
            const bool copies = e.swap_out_bytes > 0;
            w.replayPending = e.replay_tokens > 0;
            w.enqueue(e.tick);
            w.enter(e.tick, copies ? LaneState::Copying : LaneState::Preempted);
            if (++evictions[static_cast<std::size_t>(e.request)] == preemptionThreshold + 1) {
                m.markers.push_back({e.request, e.tick, MarkerKind::RepeatedPreemption});
            }
            break;
        }
        case pl::EventKind::SwapOutDone: w.enter(e.tick, LaneState::SwappedOut); break;
        case pl::EventKind::Resume:
            w.dequeue(e.tick, waitThreshold);
            // What is left to re-prefill is the resume's: the prefix cache can give the whole dropped context
            // back, and then no replay (and no replay_done) follows.
            w.replayPending = e.replay_tokens > 0;
            if (e.swap_in_bytes > 0) w.enter(e.tick, LaneState::Copying);
            else if (w.replayPending) w.enter(e.tick, LaneState::Replaying);
            else w.enter(e.tick, w.running());
            break;
        case pl::EventKind::SwapInDone:
            w.enter(e.tick, w.replayPending ? LaneState::Replaying : w.running());
            break;
        case pl::EventKind::ReplayDone:
            w.replayPending = false;
            w.enter(e.tick, w.running());
            break;
        case pl::EventKind::Complete: w.enter(e.tick, LaneState::Done); break;
        case pl::EventKind::Censor:
            w.dequeue(e.tick, waitThreshold);
            w.enter(e.tick, LaneState::Censored);
            break;
        case pl::EventKind::Pressure: break;
        }
    }
    m.lanes.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
        auto& segs = walkers[r].segs;
        if (!segs.empty()) {
            LaneSegment& last = segs.back();
            const bool terminal = last.state == LaneState::Done || last.state == LaneState::Censored;
            last.end = terminal ? last.begin + 1 : std::max(last.begin + 1, m.endTick);
            m.keyEnd = std::max(m.keyEnd, last.end);
        }
        // Excessive wait: where the time spent queued first passes the threshold (core's flag).
        const bool flagged = r < run.records.size() && run.records[r].excessive_wait;
        if (flagged && walkers[r].passAt >= 0) {
            m.markers.push_back({static_cast<std::int32_t>(r), walkers[r].passAt, MarkerKind::ExcessiveWait});
        }
        m.lanes[r] = std::move(segs);
    }
    m.requests.resize(n);
    std::iota(m.requests.begin(), m.requests.end(), 0);
    return m;
}

TimelineModel TimelineModel::onlyRequests(const std::vector<std::int32_t>& keep) const {
    TimelineModel m;
    m.endTick = endTick;
    m.keyEnd = keyEnd;
    for (const std::int32_t r : keep) {
        const int lane = laneOf(r);
        if (lane < 0) continue;
        m.lanes.push_back(lanes[static_cast<std::size_t>(lane)]);
        m.requests.push_back(r);
    }
    for (const LaneMarker& marker : markers) {
        if (std::binary_search(m.requests.begin(), m.requests.end(), marker.request)) m.markers.push_back(marker);
    }
    return m;
}

std::vector<std::int32_t> TimelineModel::flaggedRequests() const {
    std::vector<std::int32_t> out;
    for (const LaneMarker& marker : markers) out.push_back(marker.request);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int TimelineModel::laneOf(int request) const {
    // Lanes are in request order (every request, or an ascending subset).
    const auto it = std::lower_bound(requests.begin(), requests.end(), request);
    return it != requests.end() && *it == request ? static_cast<int>(it - requests.begin()) : -1;
}

const LaneSegment* TimelineModel::segmentAt(int lane, std::int64_t tick) const {
    if (lane < 0 || static_cast<std::size_t>(lane) >= lanes.size()) return nullptr;
    const auto& segs = lanes[static_cast<std::size_t>(lane)];
    auto it = std::upper_bound(segs.begin(), segs.end(), tick,
                               [](std::int64_t t, const LaneSegment& s) { return t < s.begin; });
    if (it == segs.begin()) return nullptr;
    --it;
    return tick < it->end ? &*it : nullptr;
}

bool TimelineModel::activeAt(int lane, std::int64_t tick) const {
    const LaneSegment* s = segmentAt(lane, tick);
    return s != nullptr && s->state != LaneState::Done && s->state != LaneState::Censored;
}

int TimelineModel::firstActiveLane(std::int64_t tick, int from, int to) const {
    const int n = static_cast<int>(lanes.size());
    to = to < 0 ? n : std::min(to, n);
    for (int r = std::max(0, from); r < to; ++r) {
        if (activeAt(r, tick)) return r;
    }
    return -1;
}

} // namespace plui
