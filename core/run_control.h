#pragma once
// RunControl: a cooperative stop, and a progress report, for the lab's long run (Session's full run, live or
// not), so that a caller on another thread (the lab's Cancel) can end a run early instead of waiting for it.
// The loop consults it every RunCheck::kStepsPerCheck engine steps; a run that is not stopped executes exactly
// the same steps as without a control, so its ledger and receipt are the same bytes.

#include "model.h"

#include <atomic>
#include <functional>
#include <stdexcept>

namespace pl {

struct RunControl {
    // Set (from any thread) to stop the run at its next check.
    const std::atomic<bool>* cancel = nullptr;
    // Called on the running thread at each check with the next tick to execute, before the flag is read (so it
    // may set the flag itself).
    std::function<void(Tick nextTick)> progress;
};

// Thrown by a run that found its cancel flag set: the caller gets no half-built result.
class RunCancelled : public std::runtime_error {
  public:
    explicit RunCancelled(Tick nextTick);
    Tick nextTick() const { return nextTick_; } // the first tick the run did not execute

  private:
    Tick nextTick_;
};

// Counts a loop's engine steps and consults the control every kStepsPerCheck of them: a counter per step, the
// atomic load and the callback only at checks.
class RunCheck {
  public:
    static constexpr int kStepsPerCheck = 64;
    explicit RunCheck(const RunControl& control) : control_(control) {}
    // Call after each engine step; throws RunCancelled when the control asks to stop.
    void afterStep(Tick nextTick) {
        if (++steps_ < kStepsPerCheck) {
            return;
        }
        steps_ = 0;
        check(nextTick);
    }

  private:
    void check(Tick nextTick) const;
    const RunControl& control_;
    int steps_ = 0;
};

} // namespace pl
