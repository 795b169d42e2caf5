#pragma once
// TimelineModel: the request timeline's lanes, derived from the ledger events alone (arrive, admit,
// first_token, evict, swap_out_done, resume, swap_in_done, replay_done, complete, censor), so the timeline
// shows exactly what the receipt records. Also the starvation markers of seed 003: a triangle where a
// request's queue time passes wait_threshold_ticks, a cross at the eviction that passes preemption_threshold.
// Plain C++ (no widgets), tested on its own.

#include "core/engine.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace plui {

enum class LaneState : std::uint8_t { Waiting, Prefill, Decode, Preempted, SwappedOut, Copying, Replaying, Done,
                                      Censored };
std::string_view toString(LaneState s);
inline constexpr int kLaneStateCount = 9;

struct LaneSegment {
    std::int64_t begin = 0; // first tick in this state
    std::int64_t end = 0;   // one past the last tick
    LaneState state = LaneState::Waiting;
};

enum class MarkerKind : std::uint8_t { ExcessiveWait, RepeatedPreemption };

struct LaneMarker {
    std::int32_t request = -1;
    std::int64_t tick = 0;
    MarkerKind kind = MarkerKind::ExcessiveWait;
};

struct TimelineModel {
    std::vector<std::vector<LaneSegment>> lanes; // per lane: every request in workload order, or some of them
    std::vector<std::int32_t> requests;          // per lane, its request (index into the workload's requests)
    std::vector<LaneMarker> markers;             // `request` is the request's index, not its lane
    std::int64_t endTick = 0;                    // ticks of the run
    std::int64_t keyEnd = 0; // where the last segment ends: past endTick by one where a request was censored
                             // at max_ticks (that tick is drawn)

    static TimelineModel build(const pl::Workload& workload, const pl::RunResult& run);
    // The flagged-only timeline: the lanes of `keep` (request indices, ascending) alone, their markers with them.
    TimelineModel onlyRequests(const std::vector<std::int32_t>& keep) const;
    // The requests with a starvation marker (ExcessiveWait, RepeatedPreemption), ascending.
    std::vector<std::int32_t> flaggedRequests() const;
    // The lane of `request`, or -1 when it has none here (filtered out, or out of range).
    int laneOf(int request) const;
    // The state of lane `lane` at `tick`, or nullptr before its request's arrival.
    const LaneSegment* segmentAt(int lane, std::int64_t tick) const;
    // Whether the request of lane `lane` is in the system at `tick` (arrived, not yet done or censored).
    bool activeAt(int lane, std::int64_t tick) const;
    // The first lane in [from, to) active at `tick`, or -1 (from < 0 and to past the end are clamped).
    int firstActiveLane(std::int64_t tick, int from = 0, int to = -1) const;
};

} // namespace plui
