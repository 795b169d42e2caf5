#pragma once
// verify: replay a receipt's embedded workload and policy and compare the result with the receipt.

#include "core/errors.h"
#include "core/model.h"
#include "core/workload.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <variant>

namespace pl {

struct VerifyOutcome {
    bool identical = false;
    std::string first_difference;  // JSON path and values, when not identical
    bool conservation_passed = false;
    std::string first_violation;
    std::size_t events = 0;
};

// Bad input (not a receipt, embedded workload invalid) is an InputError naming `file` and the JSON path.
std::variant<VerifyOutcome, InputError> verifyReceipt(const nlohmann::json& receipt, const std::string& file);
std::variant<VerifyOutcome, InputError> verifyReceiptText(const std::string& text, const std::string& file);

// The workload and policy a receipt embeds (v2 or v1), read back as the workload verify replays: what the lab
// shows when it opens a receipt read-only. The strict reader reads `text`; bad input is an InputError naming
// `file` and the JSON path (/format, /workload/..., /policy/...).
std::variant<Workload, InputError> receiptWorkload(const std::string& text, const std::string& file);

} // namespace pl
