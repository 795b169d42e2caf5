#include "core/verify.h"

#include "core/engine.h"
#include "core/json_diff.h"
#include "core/json_reader.h"
#include "core/model.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/workload.h"
#include "core/workload_io.h"

#include <limits>
#include <optional>
#include <string_view>
#include <utility>

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

namespace {

// A receipt laid out as the project writes it (keys sorted, "policy" on one line, "workload" last, no "live")
// gives its policy and workload from its own bytes, without parsing the receipt: a workload document for the
// streaming reader (as the receipt writer's own check reads it), and whether it is a v1 receipt. Nothing for
// any other layout. A wrong reading costs nothing but time: the replay's receipt then differs from the text.
std::optional<std::pair<std::string, bool>> writtenWorkload(const std::string& text) {
    constexpr std::string_view kV2 = "\n  \"format\": \"preemptlab.receipt.v2\",\n";
    constexpr std::string_view kV1 = "\n  \"format\": \"preemptlab.receipt.v1\",\n";
    constexpr std::string_view kPolicy = "\n  \"policy\": ";
    constexpr std::string_view kWorkload = ",\n  \"workload\": {";
    constexpr std::string_view kEnd = "\n}\n";
    const bool v1 = text.find(kV2) == std::string::npos;
    if ((v1 && text.find(kV1) == std::string::npos) || text.find("\n  \"live\": ") != std::string::npos ||
        !text.ends_with(kEnd)) {
        return std::nullopt;
    }
    const std::size_t policy = text.find(kPolicy);
    const std::size_t policyEnd = policy == std::string::npos ? policy : text.find(",\n", policy + kPolicy.size());
    const std::size_t workload = text.rfind(kWorkload);
    if (policyEnd == std::string::npos || workload == std::string::npos || workload < policyEnd) {
        return std::nullopt;
    }
    std::string doc = "{\"policy\": ";
    doc.append(text, policy + kPolicy.size(), policyEnd - policy - kPolicy.size());
    doc += ", ";
    const std::size_t from = workload + kWorkload.size(); // past the workload's "{": its keys follow the policy
    doc.append(text, from, text.size() - kEnd.size() + 1 - from); // through the workload's closing brace
    return std::pair{std::move(doc), v1};
}

} // namespace

std::variant<VerifyOutcome, InputError> verifyReceiptText(const std::string& text, const std::string& file) {
    // First the way the project writes receipts: the policy and workload read from the text's own layout, the
    // run replayed, and the replay's receipt compared byte for byte with the text as it is made (its oracle
    // verdict is the one receiptText works out on those same bytes), so no document of the receipt is held.
    // Anything else (edited, re-indented, a live run's, or not a receipt at all) is read whole by the strict
    // reader and compared field by field, below, which names the first difference or what is wrong.
    if (auto written = writtenWorkload(text)) {
        Caps caps; // the receipt's own size was the limit (readTextFile); its workload is part of it
        caps.max_file_bytes = std::numeric_limits<std::int64_t>::max();
        auto parsed = parseWorkload(written->first, file, caps);
        written->first = std::string();
        if (auto* w = std::get_if<Workload>(&parsed)) {
            const bool v1 = written->second;
            auto replayed = replay(*w, file, v1);
            if (auto* err = std::get_if<InputError>(&replayed)) {
                return *err;
            }
            ReceiptFacts facts;
            const RunResult& run = std::get<RunResult>(replayed);
            std::size_t at = 0; // compared piece by piece as the replay's receipt is made: never held whole
            bool same = true;
            streamReceipt(*w, run, [&](std::string_view piece) {
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
    }
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

std::variant<Workload, InputError> receiptWorkload(const std::string& text, const std::string& file) {
    auto doc = parseJsonStrict(text, file, kReceiptFormat);
    if (auto* e = std::get_if<InputError>(&doc)) {
        if (!isEmptyJsonText(text)) e->reason = "not a receipt: " + e->reason;
        return *e;
    }
    bool v1 = false;
    return embeddedWorkload(std::get<nlohmann::json>(doc), file, v1);
}

} // namespace pl
