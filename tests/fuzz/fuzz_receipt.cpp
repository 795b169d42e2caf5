// Fuzz target: the receipt reader, the conservation oracle and `verify` (verifyReceiptText).
// Properties: any text yields an InputError or a VerifyOutcome, never a crash; the oracle never crashes on
// any JSON; an outcome that claims `identical` really is the engine's receipt (the oracle passes on it).
// Receipts whose embedded workload is beyond the small caps are only given to the oracle, so every replay
// takes milliseconds (a slow legitimate replay is not a bug).
#include "fuzz_common.h"

#include "json_reader.h"
#include "oracle.h"
#include "verify.h"

#include <nlohmann/json.hpp>

#include <cstdint>

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
