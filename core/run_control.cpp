#include "run_control.h"

#include <string>

namespace pl {

RunCancelled::RunCancelled(Tick nextTick)
    : std::runtime_error("the run was cancelled before tick " + std::to_string(nextTick)), nextTick_(nextTick) {}

void RunCheck::check(Tick nextTick) const {
    if (control_.progress) {
        control_.progress(nextTick);
    }
    if (control_.cancel != nullptr && control_.cancel->load(std::memory_order_relaxed)) {
        throw RunCancelled(nextTick);
    }
}

} // namespace pl
