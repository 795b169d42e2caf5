#pragma once
// The conservation oracle: checks a finished run from its receipt JSON alone, independently of the engine's
// bookkeeping. It replays the event stream against the receipt's own workload and policy and verifies that
// nothing was lost or invented: generated tokens never decrease, every freed block, swapped byte and replayed
// token is accounted for, every request ends exactly once, and the records and totals equal what the events
// say. docs/receipt.md lists every check. A malformed receipt yields violations, never a crash.

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace pl {

struct OracleReport {
    bool passed = true;
    std::vector<std::string> violations; // one precise sentence each, naming the event seq and/or request id
};

// At most this many violations are listed; one more line says how many were left out.
inline constexpr std::size_t kMaxOracleViolations = 1000;

// `stop`, when given, is read every 4,096 events and records (pl::Cancelled once set: core/stop_check.h).
OracleReport checkReceipt(const nlohmann::json& receipt, const std::atomic<bool>* stop = nullptr);

} // namespace pl
