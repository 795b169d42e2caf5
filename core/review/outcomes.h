#pragma once
// RequestOutcome: what a review (gate, report, goodput) needs of one request of a finished run, read either
// from a receipt file's JSON or from a run in memory, so `gate`/`report` (receipts) and `run`/`compare` (runs)
// compute the same figures the same way. All in ticks; the tick's length, where the workload gives it
// (config.tick_us), converts them to milliseconds for display and for SLOs given in ms.

#include "core/engine.h"
#include "core/errors.h"
#include "core/workload.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace pl::review {

// A request's inter-token gaps in ticks (itlGaps below), kept compactly: how many are exactly one tick (a
// decoding request's usual gap) and the others, in order. A million-request trace keeps a few numbers per
// eviction, not one per token.
struct ItlGaps {
    std::int64_t one_tick = 0;
    std::vector<std::int64_t> longer; // gaps other than one tick, in order
    std::int64_t count() const { return static_cast<std::int64_t>(longer.size()) + one_tick; }
    std::int64_t sum() const;
};

struct RequestOutcome {
    std::string id;
    std::string tenant;
    std::int64_t arrival_tick = 0;
    std::int64_t prompt_tokens = 0;
    std::int64_t output_tokens = 0;
    std::int64_t priority = 0;
    bool completed = false;
    std::int64_t generated_tokens = 0;
    std::int64_t first_token_tick = -1; // -1: no token yet
    std::int64_t completion_tick = -1;  // -1: censored
    std::int64_t preemptions = 0;
    std::int64_t queue_ticks = 0;
    // Inter-token gaps (itlGaps below): generated_tokens - 1 of them for a completed request.
    ItlGaps itl;

    bool hasFirstToken() const { return first_token_tick >= 0; }
    std::int64_t ttftTicks() const { return first_token_tick - arrival_tick; }
    std::int64_t completionTicks() const { return completion_tick - arrival_tick; }
};

// A finished run as a review sees it.
struct RunOutcomes {
    std::string input_hash; // receipts only ("" for a run in memory)
    std::int64_t ticks = 0; // totals.ticks: the run's length
    std::int64_t tick_us = 0; // config.tick_us, 0 when the workload does not give it
    std::vector<RequestOutcome> requests; // workload order
};

// The events of one request that place its output tokens in time, in order.
enum class TokenEvent : std::uint8_t {
    FirstToken, // token 1 at `tick`
    Evict,      // `tokens` generated when evicted at `tick`
    Restart,    // replay_done or swap_in_done: running again, a token sampled at `tick`
    Complete,   // the last token, `tokens` in all, at `tick`
};
struct TokenPoint {
    TokenEvent kind = TokenEvent::FirstToken;
    std::int64_t tick = 0;
    std::int64_t tokens = 0; // Evict, Complete
};

// The inter-token gaps the tick model gives (docs/receipt.md, "Latency figures"). A running request samples one
// token a tick (tick-model-1); the first token is at first_token's tick; after an eviction the next token is
// sampled at the tick of the last replay_done/swap_in_done that follows it (the step that completes the
// context samples). So: tokens follow one a tick from the first token and from each restart; the gap across
// an eviction is the restart's tick minus the tick of the last token before it (first token or restart, plus
// the tokens since); the last gap closes on complete's tick. The gaps add up to completion - first_token
// (their mean is TPOT). An eviction without a restart event in the receipt (not written by this engine) puts
// the stall on the first token after it.
ItlGaps itlGaps(const std::vector<TokenPoint>& points);

// From a receipt's JSON (preemptlab.receipt.v1 or v2). Bad input (not a receipt, a field missing or of the
// wrong type) is an InputError naming `file`, the JSON path and the reason.
std::variant<RunOutcomes, InputError> outcomesFromReceipt(const nlohmann::json& receipt, const std::string& file);
// Reads and parses the file first (errors name it).
std::variant<RunOutcomes, InputError> outcomesFromReceiptFile(const std::string& file, nlohmann::json* keep = nullptr);
// From a finished run of `workload`.
RunOutcomes outcomesFromRun(const Workload& workload, const RunResult& run);

} // namespace pl::review
