#include "verify.h"

#include "engine.h"
#include "json_diff.h"
#include "json_reader.h"
#include "model.h"
#include "oracle.h"
#include "receipt.h"
#include "workload_io.h"

namespace pl {

namespace {

// The receipt's format, workload and policy, checked and read back as a workload (a v1 receipt says so).
std::variant<Workload, InputError> embeddedWorkload(const nlohmann::json& doc, const std::string& file, bool& v1) {
    // v1 receipts (every candidate listed) are checked by re-writing the run the way they were written.
    v1 = doc.is_object() && doc.contains("format") && doc["format"] == kReceiptFormatV1;
    if (!doc.is_object() || !doc.contains("format") || (doc["format"] != kReceiptFormat && !v1)) {
        return InputError{file, "/format", "not a " + std::string(kReceiptFormat) + " (or " +
                                               std::string(kReceiptFormatV1) + ") file"};
    }
    for (const char* key : {"workload", "policy"}) {
        if (!doc.contains(key) || !doc[key].is_object()) {
            return InputError{file, std::string("/") + key, "missing or not an object"};
        }
    }
    // The embedded workload plus the policy is a workload document again.
    nlohmann::json input = doc["workload"];
    input["policy"] = doc["policy"];
    auto parsed = workloadFromJson(input, file);
    if (auto* err = std::get_if<InputError>(&parsed)) {
        InputError e = *err;
        e.path = (e.path.rfind("/policy", 0) == 0 ? "" : "/workload") + e.path;
        return e;
    }
    return std::get<Workload>(std::move(parsed));
}

// The replay, bounded like any run (a hand-made receipt can claim a billion ticks of thrashing).
std::variant<RunResult, InputError> replay(const Workload& w, const std::string& file, bool v1) {
    EngineOptions options;
    options.keep_all_candidates = v1;
    try {
        return runWorkload(w, nullptr, memoryBounded(), options);
    } catch (const RunTooLarge& e) {
        return InputError{file, "/workload", std::string("cannot replay: ") + e.what()};
    }
}

ReceiptVersion versionOf(bool v1) { return v1 ? ReceiptVersion::V1 : ReceiptVersion::V2; }

} // namespace

std::variant<VerifyOutcome, InputError> verifyReceipt(const nlohmann::json& doc, const std::string& file) {
    bool v1 = false;
    auto parsed = embeddedWorkload(doc, file, v1);
    if (auto* err = std::get_if<InputError>(&parsed)) {
        return *err;
    }
    const Workload& w = std::get<Workload>(parsed);
    auto replayed = replay(w, file, v1);
    if (auto* err = std::get_if<InputError>(&replayed)) {
        return *err;
    }
    const RunResult& run = std::get<RunResult>(replayed);
    const nlohmann::json expected = nlohmann::json::parse(receiptText(w, run, nullptr, nullptr, versionOf(v1)));
    VerifyOutcome out;
    out.events = run.ledger.events.size();
    // A live run's measurements ("live") annotate the simulation and are not replayable: compare the rest.
    nlohmann::json simulated = doc;
    simulated.erase("live");
    // The hashes last: a field changed and its hash recomputed is named by the field (or, for a changed
    // policy, by the first event that does not follow from it), not by "/event_hash".
    if (auto diff = firstJsonDifference(expected, simulated, "", {"input_hash", "policy_hash", "event_hash"})) {
        out.first_difference = *diff;
    } else {
        out.identical = true;
    }
    const OracleReport oracle = checkReceipt(doc);
    out.conservation_passed = oracle.passed;
    if (!oracle.violations.empty()) {
        out.first_violation = oracle.violations.front();
    }
    return out;
}

std::variant<VerifyOutcome, InputError> verifyReceiptText(const std::string& text, const std::string& file) {
    // The strict reader: errors as "line L, column C", duplicate keys refused, nesting bounded, and numbers
    // too large for a double reported instead of thrown (nlohmann::json::parse throws out_of_range for them).
    // First without holding the events and records (each is parsed and let go): a receipt as the project
    // writes it is byte-identical to the replay's receipt, whose oracle verdict receiptText works out on its
    // own text, so no document of the receipt is ever held. Anything else (edited, re-indented, a live run's)
    // is compared as JSON, field by field, below.
    const auto drop = [](nlohmann::json&&, std::size_t) {};
    auto head = parseJsonStrict(text, file, kReceiptFormat, {}, nullptr, {{"/events", drop}, {"/requests", drop}});
    if (auto* e = std::get_if<InputError>(&head)) {
        if (!isEmptyJsonText(text)) { // an empty file's message names the receipt format already
            e->reason = "not a receipt: " + e->reason;
        }
        return *e;
    }
    bool v1 = false;
    auto parsed = embeddedWorkload(std::get<nlohmann::json>(head), file, v1);
    if (auto* err = std::get_if<InputError>(&parsed)) {
        return *err;
    }
    if (!std::get<nlohmann::json>(head).contains("live")) {
        const Workload& w = std::get<Workload>(parsed);
        auto replayed = replay(w, file, v1);
        if (auto* err = std::get_if<InputError>(&replayed)) {
            return *err;
        }
        ReceiptFacts facts;
        const RunResult& run = std::get<RunResult>(replayed);
        std::size_t at = 0; // compared piece by piece as the replay's receipt is made: never held whole
        bool same = true;
        streamReceipt(w, run, [&](std::string_view piece) {
            same = same && text.compare(at, piece.size(), piece) == 0;
            at += piece.size();
        }, nullptr, &facts, versionOf(v1));
        if (same && at == text.size()) {
            VerifyOutcome out;
            out.identical = true;
            out.events = run.ledger.events.size();
            out.conservation_passed = facts.conservation_passed;
            out.first_violation = facts.first_violation;
            return out;
        }
    }
    head = nlohmann::json(); // the receipt differs from its replay: read it whole to say where
    auto doc = parseJsonStrict(text, file, kReceiptFormat);
    if (auto* e = std::get_if<InputError>(&doc)) {
        return *e; // not reached: the same text parsed above
    }
    return verifyReceipt(std::get<nlohmann::json>(doc), file);
}

} // namespace pl
