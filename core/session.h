#pragma once
// Session: what the lab drives. It runs the workload once to the end (the full ledger, series and records
// that the timeline, ledger table and plots draw) and keeps a cursor engine positioned at any tick for the
// pool view (and, for a live session, drives the device in that same run). Only the cursor keeps the pool map
// (block identities, which change no event): a simulated full run does without it, and a scout engine with
// the map takes the snapshots as seeks first reach each part of the run or as fillSnapshots asks (a live run,
// which needs block ids, takes them all in its one run).
// Seeking back restores the nearest snapshot at or before the target and replays forward; the snapshot spacing
// bounds the replay (docs/tick-model.md, "Seeking"), and a seek past the furthest tick reached runs there once.
// Snapshots share their unchanged requests, so they cost about the requests active around them, not the whole
// workload each.

#include "core/engine.h"
#include "core/model.h"
#include "core/run_control.h"

#include <memory>
#include <vector>

namespace pl {

class LiveBackend;

// Up to this many requests the session keeps every evict's whole candidate list (Ledger::all_candidates) for
// the "why" panel; above it, the kListedCandidates a receipt lists (memory grows with evictions x batch).
inline constexpr std::size_t kWholeCandidateListRequests = 5000;

class Session {
  public:
    // Runs the workload to the end; `control` can stop that run early (RunCancelled is thrown then). Its
    // max_snapshot_bytes also bounds the snapshots that later seeks take.
    explicit Session(Workload workload, const RunControl& control = {});
    // A live session: the one full run also drives `backend` (the engine's evictions and resumes run on the
    // device), and result() carries its measurements (RunResult::live). The backend is used only inside the
    // constructor; the cursor engine never touches it.
    Session(Workload workload, LiveBackend* backend, const RunControl& control = {});
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    const Workload& workload() const { return workload_; }

    // The complete run (computed in the constructor).
    const RunResult& result() const { return full_; }
    const std::vector<TickStats>& series() const { return fullSeries_; }
    Tick lastTick() const { return full_.totals.ticks - 1; } // last executed tick of the full run

    // The cursor: the pool state after tick `currentTick()` has executed (-1: before the first tick).
    Tick currentTick() const { return cursorTick_; }
    void seek(Tick t);        // clamps to [-1, lastTick()]
    void stepForward() { seek(currentTick() + 1); }
    void stepBack() { seek(currentTick() - 1); }
    // Ticks holding a pressure event, ascending (from the full ledger).
    const std::vector<Tick>& pressureTicks() const { return pressureTicks_; }
    bool seekNextPressure();     // false if none after the cursor
    bool seekPreviousPressure(); // false if none before the cursor
    const Engine& cursor() const { return *cursor_; }

    // Snapshots held: of a simulated session, those taken so far (up to the furthest tick a seek or
    // fillSnapshots has reached).
    // Takes the snapshots of up to `ticks` more ticks of a simulated session (the lab calls it while idle, so that
    // a first seek far ahead finds them taken); false once every snapshot is taken.
    bool fillSnapshots(Tick ticks);
    bool snapshotsComplete() const { return scout_ == nullptr; }
    std::size_t snapshotCount() const; // defined in session.cpp (Snapshot is incomplete here)
    Tick snapshotInterval() const { return interval_; }
    // Snapshots taken over the run, thinned ones included: each copied the per-block state.
    std::size_t snapshotsTaken() const { return snapshotsTaken_; }
    // What the snapshots hold in memory, about (shared request chunks counted once); kept under the control's
    // max_snapshot_bytes where two snapshots fit in it.
    std::size_t snapshotBytes() const;

  private:
    struct Snapshot;
    Snapshot takeSnapshot(Engine& engine);
    void keepSnapshot(Engine& engine); // takes one and thins them to the limits
    void thinSnapshots();
    void extendSnapshots(Tick t); // runs the scout on to tick t, taking snapshots
    Workload workload_;
    RunResult full_;
    std::vector<TickStats> fullSeries_;
    std::vector<Tick> pressureTicks_;
    Ledger cursorLedger_;
    std::unique_ptr<Engine> cursor_;
    Ledger scoutLedger_;
    std::unique_ptr<Engine> scout_; // a simulated session's snapshot taker, at frontier_; gone at the run's end
    std::vector<Snapshot> snapshots_;
    Tick interval_ = 64;
    std::size_t snapshotsTaken_ = 0;
    std::size_t snapshotBytes_ = 0; // a running total, recounted when thinning
    std::size_t maxSnapshotBytes_ = 0;
    Tick frontier_ = 0; // snapshots are taken up to here (the next tick of the furthest state reached)
    Tick cursorTick_ = -1;
};

} // namespace pl
