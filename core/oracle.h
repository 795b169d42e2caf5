#pragma once
// The conservation oracle: checks a finished run from its receipt JSON alone, independently of the engine's
// bookkeeping. It replays the event stream against the receipt's own workload and policy and verifies that
// nothing was lost or invented: generated tokens never decrease, every freed block, swapped byte and replayed
// token is accounted for, every request ends exactly once, and the records and totals equal what the events
// say. docs/receipt.md lists every check. A malformed receipt yields violations, never a crash.

#include "core/workload_io.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
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

namespace oracle_detail {
class Oracle;
}

// The same oracle fed piece by piece, so a receipt's events and records can be checked while it is parsed and
// never held as JSON all at once (the receipt writer's own draft: receiptText). begin() with the receipt's
// workload and policy, read as one workload (its "workload" object with "policy" added, file "receipt"), then
// every event in order, every record in order, then end() with the rest of the receipt (its "events" and
// "requests" arrays may be empty there: they were fed already). For a receipt whose events array exists and
// comes before its records, the report is checkReceipt's on the whole document.
class OracleStream {
  public:
    explicit OracleStream(const std::atomic<bool>* stop = nullptr);
    ~OracleStream();
    OracleStream(const OracleStream&) = delete;
    OracleStream& operator=(const OracleStream&) = delete;
    // False when they are missing or invalid (the report says why): what is fed after is not checked.
    bool begin(Result<Workload> workload);
    void event(const nlohmann::json& e);
    void record(const nlohmann::json& r);
    // One event or record as its line of receipt text: the same checks as event(json::parse(line)) and
    // record(json::parse(line)), reading a plainly written line without building its JSON document
    // (core/oracle_value.h); any other line is parsed as before (one that is not JSON throws its parse_error).
    void eventLine(std::string_view line);
    void recordLine(std::string_view line);
    OracleReport end(const nlohmann::json& rest);

  private:
    std::unique_ptr<oracle_detail::Oracle> oracle_;
    bool begun_ = false;
    bool ok_ = false;
};

} // namespace pl
