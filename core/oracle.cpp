// The conservation oracle (see oracle.h and docs/receipt.md). One pass over the events keeps a small state
// machine per request (running, evicted, swap copies and replays pending); a second pass compares the request
// records and totals with what the events added up to. Every field is read defensively: a missing or
// non-integer field is itself a violation, and arithmetic on receipt values is overflow-checked.
// Here: the oracle's face (checkReceipt, OracleStream) and the walk over the events with the checks every event
// gets. The shared types are in oracle_impl.h; the checks per event kind in oracle_events.cpp and
// oracle_evict.cpp, records and totals in oracle_records.cpp.
#include "core/oracle_impl.h"

namespace pl::oracle_detail {

OracleReport Oracle::run(const json& receipt) {
    if (!receipt.is_object()) {
        add("the receipt is not a JSON object");
        return finish();
    }
    const auto w = receipt.find("workload");
    const auto p = receipt.find("policy");
    if (!begin(w == receipt.end() ? nullptr : &*w, p == receipt.end() ? nullptr : &*p)) {
        return finish();
    }
    const auto events = receipt.find("events");
    if (events == receipt.end() || !events->is_array()) {
        return end(receipt); // which says so, and checks nothing more
    }
    for (const json& e : *events) {
        event(e);
    }
    const auto records = receipt.find("requests");
    if (records != receipt.end() && records->is_array()) {
        for (const json& r : *records) {
            record(r);
        }
    }
    return end(receipt);
}

bool Oracle::begin(const json* workload, const json* policy) {
    if (workload == nullptr || !workload->is_object() || policy == nullptr || !policy->is_object()) {
        add("the receipt has no 'workload' or 'policy' object");
        return false;
    }
    json doc = *workload;
    doc["policy"] = *policy;
    return begin(workloadFromJson(doc, "receipt"));
}

bool Oracle::begin(Result<Workload> parsed) {
    if (auto* e = std::get_if<InputError>(&parsed)) {
        add("the receipt's workload/policy is invalid: " + e->path + ": " + e->reason);
        return false;
    }
    workload_ = std::get<Workload>(std::move(parsed));
    pending_ = sampledTokenPending(workload_.policy.engine_profile) ? 1 : 0;
    // vllm-v1 with enable_prefix_caching caches every full block a request computes, under ids of its own.
    ownCache_ = workload_.config.enable_prefix_caching && workload_.policy.engine_profile == EngineProfile::VllmV1;
    prefix_ = ownCache_;
    tracks_.assign(workload_.requests);
    for (const auto& r : workload_.requests) {
        prefix_ = prefix_ || !r.prefix_blocks.empty();
    }
    return true;
}

void Oracle::event(const json& e) {
    stop_.step();
    checkEvent(reader_.view(e), eventCount_++);
}

void Oracle::record(const json& r) {
    stop_.step();
    checkRecord(reader_.view(r), recordCount_++);
}

void Oracle::eventLine(std::string_view line) {
    if (const Value* v = reader_.readLine(line)) {
        stop_.step();
        checkEvent(*v, eventCount_++);
    } else {
        event(json::parse(line));
    }
}

void Oracle::recordLine(std::string_view line) {
    if (const Value* v = reader_.readLine(line)) {
        stop_.step();
        checkRecord(*v, recordCount_++);
    } else {
        record(json::parse(line));
    }
}

OracleReport Oracle::end(const json& receipt) {
    const auto events = receipt.find("events");
    if (events == receipt.end() || !events->is_array()) {
        add("the receipt has no 'events' array");
        return finish();
    }
    endRecords(receipt);
    checkTotals(receipt);
    return finish();
}

OracleReport Oracle::finish() {
    if (violationCount_ > report_.violations.size()) {
        report_.violations.push_back("... and " + n(static_cast<std::int64_t>(violationCount_ - report_.violations.size())) +
                                     " more violations not listed");
    }
    report_.passed = violationCount_ == 0;
    return std::move(report_);
}

void Oracle::add(std::string sentence) {
    ++violationCount_;
    if (report_.violations.size() < kMaxOracleViolations) {
        report_.violations.push_back(std::move(sentence));
    }
}

void Oracle::checkEvent(const Value& e, std::int64_t index) {
    std::string kind, id; // named by `where` (in the catch too)
    EventWhere where{index};
    try {
        if (!e.is_object()) {
            throw BadField{"is not an object"};
        }
        const std::int64_t seq = intOf(e, "seq");
        const std::int64_t tick = intOf(e, "tick");
        kind = strOf(e, "kind");
        where.at(seq, tick, kind);
        if (seq != index) {
            add(where + ": seq is " + n(seq) + " but it is event number " + n(index) + " (seq must count 0,1,2,...)");
        }
        if (tick < lastTick_ || tick < 0) {
            add(where + ": tick " + n(tick) + " is earlier than the previous event's tick " + n(lastTick_));
        }
        lastTick_ = std::max(lastTick_, tick);
        if (tick > workload_.config.max_ticks) {
            add(where + ": tick " + n(tick) + " is beyond max_ticks " + n(workload_.config.max_ticks));
        }
        if (kind != "censor") {
            sums_.lastNonCensorTick = std::max(sums_.lastNonCensorTick, tick);
        }
        if (kind == "pressure") {
            checkCommon(e, where);
            checkPressure(e, where);
            return;
        }
        id = strOf(e, "request");
        Track* track = tracks_.find(id);
        if (track == nullptr) {
            add(where + ": names request " + id + ", which is not in the workload");
            return;
        }
        where.of(id);
        checkCommon(e, where);
        Track& t = *track;
        if (!t.ending.empty()) {
            add(where + ": " + id + " already ended with '" + t.ending + "' at seq " + n(t.endingSeq));
        }
        checkGenerated(e, where, t);
        dispatch(kind, e, where, t, seq, tick);
        ++t.events;
    } catch (const BadField& bad) {
        add(where + " " + bad.reason);
    }
}

void Oracle::dispatch(const std::string& kind, const Value& e, const EventWhere& where, Track& t,
                      std::int64_t seq, std::int64_t tick) {
    if (kind == "arrive") {
        onArrive(where, t, tick);
    } else if (kind == "admit") {
        onAdmit(e, where, t);
    } else if (kind == "first_token") {
        onFirstToken(e, where, t, tick);
    } else if (kind == "evict") {
        onEvict(e, where, t, seq);
    } else if (kind == "swap_out_done") {
        onSwapOutDone(e, where, t);
    } else if (kind == "resume") {
        onResume(e, where, t);
    } else if (kind == "swap_in_done") {
        onSwapInDone(e, where, t);
    } else if (kind == "replay_done") {
        onReplayDone(e, where, t);
    } else if (kind == "complete" || kind == "censor") {
        onEnding(kind, e, where, t, seq, tick);
    } else {
        add(where + ": unknown event kind '" + kind + "'");
    }
}

void Oracle::checkCommon(const Value& e, const EventWhere& where) {
    const Config& c = workload_.config;
    if (e.contains("capacity_blocks") && intOf(e, "capacity_blocks") != c.capacity_blocks) {
        add(where + ": capacity_blocks is " + n(intOf(e, "capacity_blocks")) + " but the workload's is " +
            n(c.capacity_blocks));
    }
    if (e.contains("occupied_blocks")) {
        const std::int64_t occupied = intOf(e, "occupied_blocks");
        if (occupied < 0 || occupied > c.capacity_blocks) {
            add(where + ": occupied_blocks " + n(occupied) + " is outside 0..capacity_blocks " + n(c.capacity_blocks));
        }
    }
    if (e.contains("host_bytes")) {
        const std::int64_t host = intOf(e, "host_bytes");
        sums_.peakHostSeen = std::max(sums_.peakHostSeen, host);
        if (host < 0 || host > c.host_capacity_bytes) {
            add(where + ": host_bytes " + n(host) + " is outside 0..host_capacity_bytes " + n(c.host_capacity_bytes));
        }
    }
}

void Oracle::checkGenerated(const Value& e, const EventWhere& where, Track& t) {
    if (!e.contains("generated_tokens")) {
        return;
    }
    const std::int64_t g = intOf(e, "generated_tokens");
    if (g < t.generated) {
        add(where + ": generated_tokens fell from " + n(t.generated) + " to " + n(g) + " (generated output was lost)");
    }
    if (g > t.spec->output_tokens) {
        add(where + ": generated_tokens " + n(g) + " exceeds the request's output_tokens " + n(t.spec->output_tokens));
    }
    t.generated = std::max(t.generated, g);
}

} // namespace pl::oracle_detail

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
