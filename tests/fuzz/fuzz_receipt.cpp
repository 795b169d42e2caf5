// Fuzz target: the receipt reader, the conservation oracle and `verify` (verifyReceiptText).
// Properties: any text yields an InputError or a VerifyOutcome, never a crash; the oracle never crashes on
// any JSON; an outcome that claims `identical` really is the engine's receipt (the oracle passes on it).
// Receipts whose embedded workload is beyond the small caps are only given to the oracle, so every replay
// takes milliseconds (a slow legitimate replay is not a bug).
#include "tests/fuzz/fuzz_common.h"

#include "core/json_reader.h"
#include "core/oracle.h"
#include "core/verify.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace {

// The oracle fed the receipt's events and records one line each (OracleStream::eventLine, recordLine), where
// the stream applies: an events array, a workload and a policy object.
std::optional<pl::OracleReport> fedAsLines(const nlohmann::json& r) {
    const auto events = r.find("events");
    const auto w = r.find("workload");
    const auto p = r.find("policy");
    if (!r.is_object() || events == r.end() || !events->is_array() || w == r.end() || !w->is_object() ||
        p == r.end() || !p->is_object()) {
        return std::nullopt;
    }
    pl::OracleStream oracle;
    nlohmann::json input = *w;
    input["policy"] = *p;
    oracle.begin(pl::workloadFromJson(input, "receipt"));
    for (const auto& e : *events) oracle.eventLine(e.dump());
    nlohmann::json rest = r;
    rest["events"] = nlohmann::json::array();
    if (const auto records = r.find("requests"); records != r.end() && records->is_array()) {
        for (const auto& record : *records) oracle.recordLine(record.dump());
        rest["requests"] = nlohmann::json::array();
    }
    return oracle.end(rest);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pl;
    const std::string file = "fuzz.receipt.json";
    const std::string text(fuzz::asText(data, size));
    auto doc = parseJsonStrict(text, file, kReceiptFormat);
    if (auto* e = std::get_if<InputError>(&doc)) {
        fuzz::checkError(*e, file);
        // verify must refuse the same text the same way (it used to throw on numbers beyond a double).
        auto outcome = verifyReceiptText(text, file);
        if (!std::holds_alternative<InputError>(outcome)) {
            fuzz::bug("verify accepts text the strict reader refuses: " + e->message());
        }
        fuzz::checkError(std::get<InputError>(outcome), file);
        return 0;
    }
    const nlohmann::json& receipt = std::get<nlohmann::json>(doc);
    const OracleReport report = checkReceipt(receipt);
    if (!report.passed && report.violations.empty()) {
        fuzz::bug("the oracle failed a receipt without naming a violation");
    }
    // Fed its events and records as lines of text (as receiptText feeds it: read without a document where
    // they are plain, core/oracle_value.h), the oracle reports what it reports on the document.
    if (const auto fed = fedAsLines(receipt); fed && (fed->passed != report.passed || fed->violations != report.violations)) {
        fuzz::bug("the oracle fed lines differs from checkReceipt: " +
                  (fed->violations.empty() ? std::string("passed") : fed->violations.front()) + " against " +
                  (report.violations.empty() ? std::string("passed") : report.violations.front()));
    }
    // Replay only what fits the small caps.
    if (receipt.is_object() && receipt.contains("workload") && receipt["workload"].is_object()) {
        nlohmann::json input = receipt["workload"];
        if (receipt.contains("policy")) {
            input["policy"] = receipt["policy"];
        }
        if (std::holds_alternative<InputError>(workloadFromJson(input, file, fuzz::smallCaps()))) {
            return 0;
        }
    }
    auto outcome = verifyReceiptText(text, file);
    if (auto* e = std::get_if<InputError>(&outcome)) {
        fuzz::checkError(*e, file);
        return 0;
    }
    const VerifyOutcome& v = std::get<VerifyOutcome>(outcome);
    if (v.identical && !v.conservation_passed) {
        fuzz::bug("verify says identical to the engine's receipt, but the oracle fails it: " + v.first_violation);
    }
    if (!v.identical && v.first_difference.empty()) {
        fuzz::bug("verify says different without naming the first difference");
    }
    return 0;
}
