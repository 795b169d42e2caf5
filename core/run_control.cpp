#include "core/run_control.h"

#include "core/errors.h"
#include "core/summary.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <sys/resource.h>

namespace pl {

RunCancelled::RunCancelled(Tick nextTick)
    : Cancelled("the run was cancelled before tick " + std::to_string(nextTick)), nextTick_(nextTick) {}

namespace {
// What to do about a run that outgrew its events, by cause: a policy that thrashes (evictions), or a workload
// that is simply that large (none).
std::string tooLargeAdvice(std::int64_t evictions) {
    if (evictions > 0) {
        return "lower max_ticks or let the policy stop thrashing (evictions so far: " + std::to_string(evictions) +
               ")";
    }
    if (evictions == 0) {
        return "no request was evicted, so the workload itself is this large: take fewer requests or lower "
               "max_ticks, or allow more events (PREEMPTLAB_MAX_EVENTS, where the machine has the memory)";
    }
    return "lower max_ticks, take fewer requests, or let the policy stop thrashing";
}
} // namespace

RunTooLarge::RunTooLarge(Tick tick, std::int64_t events, std::int64_t budget, std::int64_t evictions)
    : std::runtime_error("the run stopped at tick " + std::to_string(tick) + ": its ledger holds " +
                         std::to_string(events) + " events, over the " + std::to_string(budget) +
                         " this run may hold (about " +
                         formatBytes(budget * kBytesPerEvent) +
                         " with its receipt; the limit follows the machine's available memory, or "
                         "PREEMPTLAB_MAX_EVENTS); " +
                         tooLargeAdvice(evictions)) {}

namespace {
// PREEMPTLAB_MAX_EVENTS as a positive integer; 0 when unset or not one.
std::int64_t fixedBudget() {
    const char* fixed = std::getenv("PREEMPTLAB_MAX_EVENTS");
    if (fixed == nullptr) return 0;
    std::int64_t v = 0;
    const char* end = fixed + std::strlen(fixed);
    const auto [ptr, ec] = std::from_chars(fixed, end, v);
    return ec == std::errc{} && ptr == end && v > 0 ? v : 0;
}
} // namespace

std::string eventBudgetProblem() {
    const char* fixed = std::getenv("PREEMPTLAB_MAX_EVENTS");
    if (fixed == nullptr || *fixed == '\0' || fixedBudget() > 0) return {}; // set empty: as unset
    return "PREEMPTLAB_MAX_EVENTS: \"" + printable(fixed, 40) +
           "\" is not a positive integer (the most ledger events one run may hold; unset it to follow the "
           "machine's memory)";
}

std::int64_t availableMemoryBytes() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        long long kib = 0;
        if (std::sscanf(line.c_str(), "MemAvailable: %lld kB", &kib) == 1) {
            return static_cast<std::int64_t>(kib) * 1024;
        }
    }
    return 0;
}

std::int64_t eventBudget() {
    if (const std::int64_t fixed = fixedBudget()) {
        return fixed;
    }
    return eventBudgetFor(availableMemoryBytes());
}

std::string outOfMemoryMessage(const std::string& what) {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    std::string m = what + ": out of memory: an allocation failed with " +
                    formatBytes(static_cast<std::int64_t>(usage.ru_maxrss) * 1024) + " resident at the peak";
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        m += ", under an address-space limit of " + formatBytes(static_cast<std::int64_t>(limit.rlim_cur)) +
             " (ulimit -v)";
    }
    return m + "; nothing was written. Give it more memory, or a smaller input (fewer requests, lower max_ticks)";
}

RunControl memoryBounded(const std::atomic<bool>* cancel, unsigned sharers) {
    RunControl control;
    control.cancel = cancel;
    const std::int64_t budget = eventBudget();
    control.max_events = budget > 0 ? std::max<std::int64_t>(1, budget / std::max(1u, sharers)) : 0;
    return control;
}

void RunCheck::check(Tick nextTick, std::int64_t events, std::int64_t evictions) const {
    if (control_.progress) {
        control_.progress(nextTick);
    }
    if (every_.stopRequested()) {
        throw RunCancelled(nextTick);
    }
    if (control_.max_events > 0 && events > control_.max_events) {
        throw RunTooLarge(nextTick, events, control_.max_events, evictions);
    }
}

} // namespace pl
