#include "core/review/gate.h"

#include "core/number_text.h"
#include "core/oracle.h"
#include "core/review/text_table.h"
#include "core/trace/fixed_point.h"
#include "core/verify.h"

#include <algorithm>

namespace pl::review {
namespace {

std::string percentText(std::int64_t bp) { return formatGeneral(static_cast<double>(bp) / 100.0) + "%"; }

std::int64_t queueAt(const LatencyFigures& f, int percentile) {
    return percentile == 50 ? f.queue_ticks.p50 : percentile == 99 ? f.queue_ticks.p99 : f.queue_ticks.p90;
}

std::string ticksText(std::int64_t ticks, std::int64_t tickUs) {
    std::string s = std::to_string(ticks) + " ticks";
    if (tickUs > 0) {
        s += std::string(" (") + ticksAsMs(ticks, tickUs) + " ms)";
    }
    return s;
}

std::string oracleText(const OracleReport& r) {
    if (r.passed) {
        return "passed";
    }
    return std::string("FAILED: ") + (r.violations.empty() ? std::string("(no reason given)") : r.violations.front()) +
           (r.violations.size() > 1 ? std::string(" (+") + std::to_string(r.violations.size() - 1) + " more)" : "");
}

std::string goodputText(const Goodput& g) {
    return formatFixed(g.percent(), 2) + std::string("% (") + std::to_string(g.good) + std::string("/") + std::to_string(g.requests) + std::string(", ") +
           std::to_string(g.censored) + std::string(" censored), ") + g.rateText();
}

std::int64_t maxPreemptions(const RunOutcomes& run) {
    std::int64_t most = 0;
    for (const auto& r : run.requests) {
        most = std::max(most, r.preemptions);
    }
    return most;
}

std::string sloLabel(const Slos& slos) {
    std::string s;
    if (slos.ttft) {
        s += std::string("TTFT <= ") + sloText(*slos.ttft);
    }
    if (slos.tpot) {
        s += std::string(s.empty() ? "" : ", ") + std::string("TPOT <= ") + sloText(*slos.tpot);
    }
    return s.empty() ? "completed, no SLO" : s;
}

} // namespace

bool GateResult::passed() const {
    return std::all_of(rows.begin(), rows.end(), [](const GateRow& r) { return r.passed; });
}

std::optional<std::int64_t> parsePercentBp(std::string_view text) {
    if (text.empty()) {
        return std::nullopt;
    }
    const auto dot = text.find('.');
    if (dot != std::string_view::npos && text.size() - dot - 1 > 2) {
        return std::nullopt; // finer than a hundredth of a percent would be truncated silently
    }
    return trace::parseScaledDecimal(text, 2);
}

std::variant<GateResult, InputError> runGate(const nlohmann::json& baseline, const std::string& baselineFile,
                                             const nlohmann::json& candidate, const std::string& candidateFile,
                                             const GateCriteria& criteria) {
    auto baseParsed = outcomesFromReceipt(baseline, baselineFile);
    if (auto* e = std::get_if<InputError>(&baseParsed)) {
        return *e;
    }
    auto candParsed = outcomesFromReceipt(candidate, candidateFile);
    if (auto* e = std::get_if<InputError>(&candParsed)) {
        return *e;
    }
    const RunOutcomes& base = std::get<RunOutcomes>(baseParsed);
    const RunOutcomes& cand = std::get<RunOutcomes>(candParsed);
    if (base.input_hash != cand.input_hash) {
        return InputError{candidateFile, "/input_hash",
                          std::string("not of the same input as ") + baselineFile + std::string(" (") + cand.input_hash + std::string(" vs ") +
                              base.input_hash + "): a gate compares two policies on one workload"};
    }
    if (auto problem = sloProblem(criteria.slos, base.tick_us)) {
        return InputError{baselineFile, "/workload/config/tick_us", *problem};
    }
    if (criteria.percentile != 50 && criteria.percentile != 90 && criteria.percentile != 99) {
        return InputError{"", "--percentile", std::string("expected 50, 90 or 99, got ") + std::to_string(criteria.percentile)};
    }
    GateResult result;
    result.input_hash = base.input_hash;
    result.tick_us = base.tick_us;

    // No erased progress: the project's conservation oracle, run here on each receipt's own bytes.
    const OracleReport baseOracle = checkReceipt(baseline);
    const OracleReport candOracle = checkReceipt(candidate);
    result.rows.push_back({"no erased progress (conservation)", oracleText(baseOracle), oracleText(candOracle),
                           "both pass", baseOracle.passed && candOracle.passed, std::nullopt, std::nullopt, std::nullopt});
    // And each receipt is what its own workload and policy produce (verify's replay): figures that were edited
    // consistently enough to satisfy the oracle still differ from the replay.
    std::vector<std::string> replayed;
    bool identical = true;
    for (const auto& [doc, file] : {std::pair{&baseline, &baselineFile}, std::pair{&candidate, &candidateFile}}) {
        auto outcome = verifyReceipt(*doc, *file);
        if (auto* e = std::get_if<InputError>(&outcome)) {
            return *e;
        }
        const auto& v = std::get<VerifyOutcome>(outcome);
        identical = identical && v.identical;
        replayed.push_back(v.identical ? std::string("identical (") + std::to_string(v.events) + " events)"
                                       : std::string("DIFFERS at ") + v.first_difference);
    }
    result.rows.push_back({"replays identically (verify)", replayed[0], replayed[1], "both identical", identical,
                           std::nullopt, std::nullopt, std::nullopt});

    if (criteria.min_goodput_bp) {
        const Goodput b = goodput(base, criteria.slos);
        const Goodput c = goodput(cand, criteria.slos);
        result.rows.push_back({std::string("goodput (") + sloLabel(criteria.slos) + ")", goodputText(b), goodputText(c),
                               std::string(">= ") + percentText(*criteria.min_goodput_bp), c.atLeast(*criteria.min_goodput_bp),
                               b.percent(), c.percent(), static_cast<double>(*criteria.min_goodput_bp) / 100.0});
    }
    if (criteria.max_queue_regression_bp) {
        const std::int64_t b = queueAt(latencyFigures(base), criteria.percentile);
        const std::int64_t c = queueAt(latencyFigures(cand), criteria.percentile);
        const std::int64_t bp = *criteria.max_queue_regression_bp;
        // c <= b x (1 + bp/10000), exactly: c x 10000 <= b x (10000 + bp).
        const std::int64_t allowed = mulSaturated(b, 10000 + bp);
        const bool ok = mulSaturated(c, 10000) <= allowed;
        const std::int64_t limit = allowed / 10000;
        result.rows.push_back({std::string("queue delay p") + std::to_string(criteria.percentile) + " (ticks)",
                               ticksText(b, base.tick_us),
                               ticksText(c, cand.tick_us),
                               std::string("<= baseline +") + percentText(bp) + std::string(" (") + std::to_string(limit) + " ticks)", ok,
                               static_cast<double>(b), static_cast<double>(c), static_cast<double>(limit)});
    }
    if (criteria.max_preemptions) {
        const std::int64_t b = maxPreemptions(base);
        const std::int64_t c = maxPreemptions(cand);
        result.rows.push_back({"preemptions of any one request", std::to_string(b), std::to_string(c),
                               std::string("<= ") + std::to_string(*criteria.max_preemptions), c <= *criteria.max_preemptions,
                               static_cast<double>(b), static_cast<double>(c),
                               static_cast<double>(*criteria.max_preemptions)});
    }
    return result;
}

std::variant<GateResult, InputError> runGateFiles(const std::string& baselineFile, const std::string& candidateFile,
                                                  const GateCriteria& criteria) {
    nlohmann::json base;
    nlohmann::json cand;
    if (auto parsed = outcomesFromReceiptFile(baselineFile, &base); std::holds_alternative<InputError>(parsed)) {
        return std::get<InputError>(parsed);
    }
    if (auto parsed = outcomesFromReceiptFile(candidateFile, &cand); std::holds_alternative<InputError>(parsed)) {
        return std::get<InputError>(parsed);
    }
    return runGate(base, baselineFile, cand, candidateFile, criteria);
}

std::string gateTableText(const GateResult& result) {
    const std::vector<std::string> head = {"criterion", "baseline", "candidate", "threshold", "verdict"};
    std::vector<std::vector<std::string>> lines = {head};
    for (const auto& r : result.rows) {
        lines.push_back({r.criterion, r.baseline, r.candidate, r.threshold, r.passed ? "pass" : "FAIL"});
    }
    std::string out = alignedColumns(lines);
    const auto failed = std::count_if(result.rows.begin(), result.rows.end(), [](const GateRow& r) { return !r.passed; });
    out += failed == 0 ? std::string("gate: PASS (") + std::to_string(result.rows.size()) + " criteria)\n"
                       : std::string("gate: FAIL (") + std::to_string(failed) + std::string(" of ") + std::to_string(result.rows.size()) +
                             " criteria failed)\n";
    return out;
}

std::string gateJsonText(const GateResult& result) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : result.rows) {
        nlohmann::json row = {{"criterion", r.criterion},
                              {"baseline", r.baseline},
                              {"candidate", r.candidate},
                              {"threshold", r.threshold},
                              {"passed", r.passed}};
        if (r.baseline_value && r.candidate_value && r.threshold_value) {
            row["baseline_value"] = *r.baseline_value;
            row["candidate_value"] = *r.candidate_value;
            row["threshold_value"] = *r.threshold_value;
        }
        rows.push_back(std::move(row));
    }
    nlohmann::json j = {{"format", "preemptlab.gate.v1"},
                        {"input_hash", result.input_hash},
                        {"passed", result.passed()},
                        {"criteria", std::move(rows)}};
    if (result.tick_us > 0) {
        j["tick_us"] = result.tick_us;
    }
    return j.dump(2) + "\n";
}

} // namespace pl::review
