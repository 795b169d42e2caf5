#pragma once
// Receipts (preemptlab.receipt.v1): the replayable, hashed record of one policy on one workload.
// The text is produced here and only here, so the CLI and the lab write byte-identical receipts.

#include "engine.h"
#include "model.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <optional>
#include <string>

namespace pl {

struct ReceiptHashes {
    std::string input_hash;
    std::string policy_hash;
    std::string event_hash;
};

// The model's limitations, listed in every receipt (prefixSharing: the workload has prefix_blocks).
const std::vector<std::string>& receiptLimitations(bool prefixSharing = false);

// The receipt text (keys sorted, one event and one request per line, trailing newline). `stop` (the lab's
// Cancel of an export; the CLI gives none) is read every few thousand events and requests and between the
// steps: once set, pl::Cancelled (stop_check.h) and no text. The text does not depend on it.
// `conservationPassed`, where given, gets the text's checks.conservation.passed (no need to parse it back).
std::string receiptText(const Workload& workload, const RunResult& run, const std::atomic<bool>* stop = nullptr,
                        bool* conservationPassed = nullptr);
ReceiptHashes receiptHashes(const Workload& workload, const RunResult& run);

// Run and write atomically; returns an error message on failure (nothing written).
std::optional<std::string> writeReceipt(const std::string& path, const Workload& workload, const RunResult& run);

// The receipt's "totals" object, as the receipt holds it (compare --out repeats it per mode).
std::string receiptTotalsJson(const Totals& totals, bool prefixSharing);

// One event as its canonical JSON object (the form that event_hash covers).
std::string eventCanonical(const Workload& workload, const RunResult& run, const Event& e);

} // namespace pl
