// The conservation oracle (see oracle.h and docs/receipt.md). One pass over the events keeps a small state
// machine per request (running, evicted, swap copies and replays pending); a second pass compares the request
// records and totals with what the events added up to. Every field is read defensively: a missing or
// non-integer field is itself a violation, and arithmetic on receipt values is overflow-checked.
// The Oracle class (event walk, common checks) is in oracle_impl.h; per-kind checks in oracle_events.cpp,
// records and totals in oracle_records.cpp.
#include "oracle_impl.h"

namespace pl {

OracleReport checkReceipt(const nlohmann::json& receipt, const std::atomic<bool>* stop) {
    return oracle_detail::Oracle(stop).run(receipt);
}

OracleStream::OracleStream(const std::atomic<bool>* stop) : oracle_(std::make_unique<oracle_detail::Oracle>(stop)) {}

OracleStream::~OracleStream() = default;

bool OracleStream::begin(Result<Workload> workload) {
    begun_ = true;
    ok_ = oracle_->begin(std::move(workload));
    return ok_;
}

void OracleStream::event(const nlohmann::json& e) {
    if (ok_) oracle_->event(e);
}

void OracleStream::record(const nlohmann::json& r) {
    if (ok_) oracle_->record(r);
}

void OracleStream::eventLine(std::string_view line) {
    if (ok_) oracle_->eventLine(line);
}

void OracleStream::recordLine(std::string_view line) {
    if (ok_) oracle_->recordLine(line);
}

OracleReport OracleStream::end(const nlohmann::json& rest) {
    if (!begun_) {
        oracle_->begin(nullptr, nullptr); // says the receipt has no workload: nothing was checked
    }
    return ok_ ? oracle_->end(rest) : oracle_->finish();
}

} // namespace pl
