#pragma once
// RunControl: a cooperative stop, and a progress report, for the lab's long run (Session's full run, live or
// not), so that a caller on another thread (the lab's Cancel) can end a run early instead of waiting for it.
// The loop consults it every RunCheck::kStepsPerCheck engine steps; a run that is not stopped executes exactly
// the same steps as without a control, so its ledger and receipt are the same bytes.

#include "core/model.h"
#include "core/stop_check.h"

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>

namespace pl {

struct RunControl {
    // Set (from any thread) to stop the run at its next check.
    const std::atomic<bool>* cancel = nullptr;
    // Called on the running thread at each check with the next tick to execute, before the flag is read (so it
    // may set the flag itself).
    std::function<void(Tick nextTick)> progress;
    // Stop with RunTooLarge once the ledger holds more events than this (0: no limit). The CLI sets it from
    // the machine's memory (eventBudget), so a run that thrashes for a billion ticks ends with a figure
    // instead of being killed by the kernel. A run under the limit is the same run as without it.
    std::int64_t max_events = 0;
    // The lab's Session keeps snapshots of the run for seeking; past this many bytes of them it keeps fewer
    // (every other one dropped, seeks replaying further), down to two. Snapshots share unchanged requests, so
    // only a very large pool (its per-block map is copied into each) reaches the default.
    std::size_t max_snapshot_bytes = std::size_t{1} << 30;
};

// Thrown by a run that found its cancel flag set: the caller gets no half-built result.
class RunCancelled : public Cancelled {
  public:
    explicit RunCancelled(Tick nextTick);
    Tick nextTick() const { return nextTick_; } // the first tick the run did not execute

  private:
    Tick nextTick_;
};

// Thrown by a run whose ledger outgrew RunControl::max_events: nothing is written, the message has the figures.
class RunTooLarge : public std::runtime_error {
  public:
    // `evictions` so far picks the advice (thrashing or a large workload); -1: unknown.
    RunTooLarge(Tick tick, std::int64_t events, std::int64_t budget, std::int64_t evictions = -1);
};

// How many ledger events this machine can hold for one run: half of its available memory (MemAvailable in
// /proc/meminfo) at kBytesPerEvent each; 0 (no limit) where that cannot be read. PREEMPTLAB_MAX_EVENTS, a
// positive integer, sets it instead (a smaller limit for a shared machine, and the tests).
// kBytesPerEvent is measured (docs/performance.md, "Memory per event"): peak resident memory of a whole `run`,
// the receipt written, grows by 1,031 B per event over 1,000,000 of the smallest requests and by 1,091 B over
// the livelock sample's thrashing; 1,152 B leaves about 6% above the larger. (It was 4,096 B, four times too
// high: a million smallest requests, 4,000,000 events in 4.2 GB, stopped on a 22 GB machine at "about 11 GiB".)
inline constexpr std::int64_t kBytesPerEvent = 1152;
std::int64_t eventBudget();
// MemAvailable from /proc/meminfo in bytes; 0 where it cannot be read.
std::int64_t availableMemoryBytes();
// The arithmetic behind eventBudget(): the events that half of `availableBytes` holds at kBytesPerEvent.
constexpr std::int64_t eventBudgetFor(std::int64_t availableBytes) { return availableBytes / 2 / kBytesPerEvent; }
// Why PREEMPTLAB_MAX_EVENTS, when set, is not a positive integer (eventBudget then ignores it); empty when it
// is unset, empty (`PREEMPTLAB_MAX_EVENTS= cmd`) or good. The CLI refuses to run with such a value and the lab says so at start.
std::string eventBudgetProblem();

// What the CLI and the lab's headless path print when an allocation failed (std::bad_alloc, caught at their top
// level instead of aborting): "out of memory: ..." with this process's peak resident memory and, where one is set,
// its address-space limit (ulimit -v), and what to try. `what` names the work ("validate"); no file was written.
std::string outOfMemoryMessage(const std::string& what);

// A control bounded by this machine's memory (max_events = eventBudget(), split evenly among `sharers` runs
// that hold their ledgers at once, never rounded down to 0, which would mean no limit), stopped by `cancel`
// where given. Every run the CLI and the lab start on a user's workload is made with it.
RunControl memoryBounded(const std::atomic<bool>* cancel = nullptr, unsigned sharers = 1);

// Counts a loop's engine steps and consults the control every kStepsPerCheck of them (a StopCheck's count): a
// counter per step, the callback, the atomic load and the event limit only at checks.
class RunCheck {
  public:
    static constexpr int kStepsPerCheck = 64;
    explicit RunCheck(const RunControl& control) : control_(control), every_(control.cancel, kStepsPerCheck) {}
    // Call after each engine step with the ledger's event count (and the evictions so far, for RunTooLarge's
    // advice; -1 unknown); throws RunCancelled when the control asks to stop, RunTooLarge when the events
    // outgrow the control's limit.
    void afterStep(Tick nextTick, std::int64_t events = 0, std::int64_t evictions = -1) {
        if (every_.due()) {
            check(nextTick, events, evictions);
        }
    }

  private:
    void check(Tick nextTick, std::int64_t events, std::int64_t evictions) const;
    const RunControl& control_;
    StopCheck every_;
};

} // namespace pl
