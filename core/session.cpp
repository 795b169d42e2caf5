#include "session.h"

#include "engine_state.h"
#include "live_backend.h"

#include <algorithm>

namespace pl {

struct Session::Snapshot {
    Engine::State state;
    std::size_t ledgerEvents = 0;
};

namespace {
constexpr std::size_t kMaxSnapshots = 128;
}

Session::Session(Workload workload, const RunControl& control) : Session(std::move(workload), nullptr, control) {}

Session::Session(Workload workload, LiveBackend* backend, const RunControl& control)
    : workload_(std::move(workload)) {
    // One full run that records the series and takes snapshots as it goes; snapshots are thinned (every other
    // one dropped, interval doubled) whenever there are too many, so memory stays bounded and a seek replays at
    // most `interval_` ticks.
    {
        Engine full(workload_, full_.ledger, EngineOptions{true, true});
        full.setLiveBackend(backend);
        snapshots_.push_back({full.state(), 0});
        RunCheck check(control);
        while (!full.finished()) {
            full.step();
            const Tick next = full.nextTick();
            check.afterStep(next, static_cast<std::int64_t>(full_.ledger.events.size()));
            if (!full.finished() && next >= snapshots_.back().state.next_tick + interval_) {
                snapshots_.push_back({full.state(), full_.ledger.events.size()});
                if (snapshots_.size() > kMaxSnapshots) {
                    std::vector<Snapshot> kept;
                    for (std::size_t i = 0; i < snapshots_.size(); i += 2) {
                        kept.push_back(std::move(snapshots_[i]));
                    }
                    snapshots_ = std::move(kept);
                    interval_ *= 2;
                }
            }
        }
        collectResult(full, backend, full_);
        fullSeries_ = full.series();
    }
    for (const auto& e : full_.ledger.events) {
        if (e.kind == EventKind::Pressure && (pressureTicks_.empty() || pressureTicks_.back() != e.tick)) {
            pressureTicks_.push_back(e.tick);
        }
    }
    cursor_ = std::make_unique<Engine>(workload_, cursorLedger_, EngineOptions{false, true});
    cursor_->restore(snapshots_.front().state);
    cursorTick_ = -1;
}

Session::~Session() = default;

std::size_t Session::snapshotCount() const { return snapshots_.size(); }

void Session::seek(Tick t) {
    t = std::clamp<Tick>(t, -1, std::max<Tick>(-1, lastTick()));
    // Forward from where the cursor is when that is cheaper than restoring a snapshot.
    const Engine::State& now = cursor_->state();
    auto it = std::upper_bound(snapshots_.begin(), snapshots_.end(), t + 1,
                               [](Tick v, const Snapshot& s) { return v < s.state.next_tick; });
    const Snapshot& best = *std::prev(it); // the first snapshot has next_tick 0 <= t + 1
    const bool forwardFromHere = now.next_tick <= t + 1 && now.next_tick >= best.state.next_tick;
    if (!forwardFromHere) {
        cursor_->restore(best.state);
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
