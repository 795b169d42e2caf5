#pragma once
// StopCheck: the cooperative stop every long piece of work shares (a run, reading a trace, slicing it, reading
// a workload file), so that the lab's Cancel, on another thread, ends it early. The loop calls step() once per
// unit of work (an engine step, a row, a JSON value, a 64 KiB read); every `stepsPerCheck` units the flag is
// read with one relaxed atomic load. Work that is not stopped does exactly what it does without a flag, so its
// results are the same bytes; the CLI passes no flag.

#include <atomic>
#include <stdexcept>
#include <string>

namespace pl {

// Thrown by work that found its stop flag set: the caller gets no half-read file, no half-built workload and no
// half-run ledger. RunCancelled (run_control.h) is the run's kind, with the tick it stopped before.
class Cancelled : public std::runtime_error {
  public:
    explicit Cancelled(const std::string& what = "cancelled") : std::runtime_error(what) {}
};

class StopCheck {
  public:
    // A null `stop` never stops; due() counts all the same, for loops that do more at each check (RunCheck).
    StopCheck(const std::atomic<bool>* stop, int stepsPerCheck) : stop_(stop), every_(stepsPerCheck) {}

    // Once per unit of work: true on every `stepsPerCheck`-th call, when a check is due.
    bool due() noexcept {
        if (++steps_ < every_) {
            return false;
        }
        steps_ = 0;
        return true;
    }

    // Whether the flag is set now (false without one).
    bool stopRequested() const noexcept { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

    // Once per unit of work: throws Cancelled at a check that finds the flag set.
    void step() {
        if (stop_ != nullptr && due() && stopRequested()) {
            throw Cancelled();
        }
    }

    // Throws Cancelled if the flag is set, without waiting for a check (between the steps of a job).
    void now() const {
        if (stopRequested()) {
            throw Cancelled();
        }
    }

  private:
    const std::atomic<bool>* stop_;
    int every_;
    int steps_ = 0;
};

} // namespace pl
