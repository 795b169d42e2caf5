#pragma once
// Receipts (preemptlab.receipt.v2): the replayable, hashed record of one policy on one workload.
// The text is produced here and only here, so the CLI and the lab write byte-identical receipts.

#include "core/engine.h"
#include "core/workload.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace pl {

// v2 (written by every run): an evict lists at most kListedCandidates candidates. V1: every candidate, as
// receipts were written before 2026-12-03; `verify` re-writes a v1 receipt's run that way to check it (the run
// must keep every candidate: EngineOptions::keep_all_candidates).
enum class ReceiptVersion : std::uint8_t { V1, V2 };

struct ReceiptHashes {
    std::string input_hash;
    std::string policy_hash;
    std::string event_hash;
};

// The model's limitations, listed in every receipt (prefixSharing: the workload has prefix_blocks).
const std::vector<std::string>& receiptLimitations(bool prefixSharing = false);
// The limitations a receipt of `w` lists: tick-model-1's, or those of the engine profile it follows (with its
// what-ifs: settings the followed engine does not have).
std::vector<std::string> receiptLimitations(const Workload& w, bool prefixSharing);

// The receipt text (keys sorted, one event and one request per line, trailing newline), made in two passes
// over the run: the first makes every line, hashes it and has the oracle read it back from its own bytes;
// the second makes the lines again in file order with the checks in place. `stop` (the lab's
// Cancel of an export; the CLI gives none) is read every few thousand events and requests and between the
// steps: once set, pl::Cancelled (stop_check.h) and no text. The text does not depend on it.
// What receiptText works out on the way, for a caller that needs more than the text: the text's
// checks.conservation.passed and its three hashes (receiptHashes's, without parsing the text back or going over
// the events again).
struct ReceiptFacts {
    bool conservation_passed = false;
    std::string first_violation; // the oracle's first sentence, when it did not pass
    ReceiptHashes hashes;
};
// `facts`, where given, is filled once the text is made.
std::string receiptText(const Workload& workload, const RunResult& run, const std::atomic<bool>* stop = nullptr,
                        ReceiptFacts* facts = nullptr, ReceiptVersion version = ReceiptVersion::V2);
ReceiptHashes receiptHashes(const Workload& workload, const RunResult& run);

// Where receipt text goes, a piece at a time (about a megabyte each).
using ReceiptSink = std::function<void(std::string_view)>;
// receiptText's bytes handed to `sink` piece by piece, never held whole (writeReceipt, verify's comparison).
void streamReceipt(const Workload& workload, const RunResult& run, const ReceiptSink& sink,
                   const std::atomic<bool>* stop = nullptr, ReceiptFacts* facts = nullptr,
                   ReceiptVersion version = ReceiptVersion::V2);

// receiptText's bytes written atomically to `path`, a piece at a time (the text is never held whole: two
// passes over the run, one to check and hash, one to write); an error message on failure (nothing written).
std::optional<std::string> writeReceipt(const std::string& path, const Workload& workload, const RunResult& run,
                                        ReceiptFacts* facts = nullptr, const std::atomic<bool>* stop = nullptr);

// The receipt's "totals" object, as the receipt holds it (compare --out repeats it per mode).
std::string receiptTotalsJson(const Totals& totals, bool prefixSharing);

// One event as its canonical JSON object (the form that event_hash covers).
std::string eventCanonical(const Workload& workload, const RunResult& run, const Event& e,
                           ReceiptVersion version = ReceiptVersion::V2);

} // namespace pl
