#include "verify.h"

#include "engine.h"
#include "json_diff.h"
#include "json_reader.h"
#include "model.h"
#include "oracle.h"
#include "receipt.h"
#include "workload_io.h"

namespace pl {

std::variant<VerifyOutcome, InputError> verifyReceipt(const nlohmann::json& doc, const std::string& file) {
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kReceiptFormat) {
        return InputError{file, "/format", "not a " + std::string(kReceiptFormat) + " file"};
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
    const Workload& w = std::get<Workload>(parsed);
    // The replay is bounded like any run (a hand-made receipt can claim a billion ticks of thrashing).
    RunResult run;
    try {
        run = runWorkload(w, nullptr, memoryBounded());
    } catch (const RunTooLarge& e) {
        return InputError{file, "/workload", std::string("cannot replay: ") + e.what()};
    }
    const nlohmann::json expected = nlohmann::json::parse(receiptText(w, run));
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
    auto doc = parseJsonStrict(text, file, kReceiptFormat);
    if (auto* e = std::get_if<InputError>(&doc)) {
        if (!isEmptyJsonText(text)) { // an empty file's message names the receipt format already
            e->reason = "not a receipt: " + e->reason;
        }
        return *e;
    }
    return verifyReceipt(std::get<nlohmann::json>(doc), file);
}

} // namespace pl
