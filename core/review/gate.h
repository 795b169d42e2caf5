#pragma once
// The rollout gate (issue 26): a baseline and a candidate receipt of the same input, held to criteria a
// reviewer names, each with both figures, its threshold and a verdict. The CLI parses flags and prints; the
// criteria, the arithmetic and the text/JSON forms live here so they can be tested without a process.
//
// Criteria (docs/review.md): no erased progress (the conservation oracle passes on both receipts: every
// eviction's owed tokens rebuilt, generated output never lost) and each receipt replays identically (verify),
// always; goodput within the SLOs at least
// --min-goodput; queue delay at the chosen percentile at most --max-queue-delay-regression above the baseline's;
// at most --max-preemptions preemptions of any one request.

#include "core/errors.h"
#include "core/review/goodput.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pl::review {

struct GateCriteria {
    Slos slos;
    std::optional<std::int64_t> min_goodput_bp;            // hundredths of a percent: 95.5% is 9550
    std::optional<std::int64_t> max_queue_regression_bp;   // hundredths of a percent over the baseline
    int percentile = 90;                                   // 50, 90 or 99: the queue delay compared
    std::optional<std::int64_t> max_preemptions;           // per request
};

struct GateRow {
    std::string criterion; // "no erased progress", "goodput", "queue delay p90", "preemptions per request"
    std::string baseline;
    std::string candidate;
    std::string threshold;
    bool passed = false;
    // The same figures as numbers where the criterion has them (goodput: percent; queue delay: ticks;
    // preemptions: count), for --json; absent for the pass/fail checks.
    std::optional<double> baseline_value;
    std::optional<double> candidate_value;
    std::optional<double> threshold_value;
};

struct GateResult {
    std::string input_hash;
    std::int64_t tick_us = 0;
    std::vector<GateRow> rows;
    bool passed() const;
};

// "95.5" (percent) as basis points (9550); nullopt when not a non-negative decimal with at most 2 decimals.
std::optional<std::int64_t> parsePercentBp(std::string_view text);

// The gate over two parsed receipts. An InputError (exit 2) when either is not a receipt (naming its file,
// JSON path and reason), when they are not of the same input (different input_hash), or when the SLOs need a
// tick length the receipts lack.
std::variant<GateResult, InputError> runGate(const nlohmann::json& baseline, const std::string& baselineFile,
                                             const nlohmann::json& candidate, const std::string& candidateFile,
                                             const GateCriteria& criteria);
// The same from files (read and parsed here; errors name the file).
std::variant<GateResult, InputError> runGateFiles(const std::string& baselineFile, const std::string& candidateFile,
                                                  const GateCriteria& criteria);

// A table, one criterion a line, then "gate: PASS" or "gate: FAIL (n of m criteria failed)".
std::string gateTableText(const GateResult& result);
// preemptlab.gate.v1: {format, input_hash, tick_us (when known), passed, criteria: [{criterion, baseline,
// candidate, threshold, passed, and where numeric baseline_value, candidate_value, threshold_value}]}.
std::string gateJsonText(const GateResult& result);

} // namespace pl::review
