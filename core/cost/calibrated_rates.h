#pragma once
// CalibratedRates: a calibration.json's measured fits turned into the two rates of the tick model that price
// swap and recompute (transfer_bytes_per_tick, prefill_tokens_per_tick), for a workload's KV size per token
// at a chosen tick length, so the adaptive policy chooses with this GPU's measured costs. Plain C++ in core (no
// CUDA, no Qt); the arithmetic is in docs/live-mode.md ("Using a calibration") and docs/cost-model.md.
// calibrateMachine is the one way from a calibration to a machine's tick rates: the CLI and the lab both call it.
//
// Both rates are priced at one victim length L (`context_tokens`), as `preemptlab-cli rates` prices them at
// --context: a swap of L tokens moves C = L x kv_bytes_per_token bytes each way, and costs the measured
//     t_out = fixed_out + C / B_out,  t_in = fixed_in + C / B_in      (the method's d2h and h2d fits)
// for the round trip the tick model charges as 2C bytes, so
//     transfer_bytes_per_tick = floor(tick_us x 2C / (t_out + t_in));
// a replay of L tokens from position 0 costs the prefill fit p(L) = c0 + c1 L + c2 L^2, so
//     prefill_tokens_per_tick = floor(tick_us x L / p(L)).

#include "core/cost/calibration.h"
#include "core/cost/swap_method.h"
#include "core/workload.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pl::cost {

struct RatesRequest {
    std::int64_t block_size_tokens = 0;  // selects the swap fits measured at this block size
    std::int64_t kv_bytes_per_token = 0; // the workload's KV size: bytes a swap of one token moves each way
    std::int64_t context_tokens = 0;     // L: the victim length priced
    double tick_us = 0.0;                // one tick
    SwapMethod method = SwapMethod::Gather; // live mode swaps with gather
};

struct CalibratedRates {
    std::int64_t transfer_bytes_per_tick = 0;
    std::int64_t prefill_tokens_per_tick = 0;
    // The arithmetic behind them, for the user to see.
    SwapFit out_fit, in_fit;
    double swap_bytes = 0.0;      // C, one direction
    double swap_out_us = 0.0;     // t_out at C
    double swap_in_us = 0.0;      // t_in at C
    double effective_gbps = 0.0;  // 2C / (t_out + t_in)
    QuadraticFit prefill_fit;
    double replay_us = 0.0;       // p(L)
    std::vector<std::string> notes; // extrapolation beyond the measured range, a different model's prefill
};

struct RatesError {
    std::string field; // "tick", "context", "block_size_tokens", "method", "kv_bytes_per_token", "prefill"
    std::string reason;
};

std::variant<CalibratedRates, RatesError> deriveRates(const Calibration& c, const RatesRequest& request);

// A calibration applied to a machine: what was priced, the rates derived, and the machine with them in place.
struct CalibratedMachine {
    RatesRequest request;
    CalibratedRates rates;
    Config config; // the machine given, with transfer_bytes_per_tick and prefill_tokens_per_tick replaced
};

// The one way from a calibration to a machine's tick rates, taken by the CLI (--calibration on run and compare,
// breakeven and rates --calibration) and the lab (Apply Calibration): prices `machine` (a workload's config, whose
// block_size_tokens and kv_bytes_per_token are what a swap moves) at ticks of `tickUs`, victim length
// `contextTokens` (the lab and --calibration take meanRequestContext) and `method` swaps, and writes the two
// derived rates into a copy of it, with config.tick_us = `tickUs` when that is whole microseconds. The error names the RatesRequest field at fault; whether the workload stays
// valid with the new rates is the caller's check (validateWorkload).
std::variant<CalibratedMachine, RatesError> calibrateMachine(const Calibration& c, const Config& machine,
                                                             double tickUs, std::int64_t contextTokens,
                                                             SwapMethod method = SwapMethod::Gather);

// Lines telling what was derived and from which fit ("transfer_bytes_per_tick = 123 = floor(...)"), each
// ending in '\n'; the notes follow, prefixed "note: ".
std::string describeRates(const Calibration& c, const RatesRequest& request, const CalibratedRates& rates);

// The default victim length for a workload: the mean over its requests of prompt_tokens + output_tokens (the
// context each request reaches), rounded down, at least 1.
std::int64_t meanRequestContext(const pl::Workload& workload);

// Per-token costs on the measured curves at context L (for the break-even explorer): the swap round trip
// (t_out + t_in) / L of `method` at `blockSize` with `kvBytesPerToken` per token, and the replay p(L) / L.
// nullopt when the calibration lacks the fits.
std::optional<double> measuredSwapUsPerToken(const Calibration& c, SwapMethod method, std::int64_t blockSize,
                                             std::int64_t kvBytesPerToken, double context);
std::optional<double> measuredRecomputeUsPerToken(const Calibration& c, double context);

// The context lengths L > 0 where the measured swap round trip and the measured replay cost the same:
// the positive roots of  c2 L^2 + (c1 - k) L + (c0 - F) = 0,  with F = fixed_out + fixed_in and
// k = kvBytesPerToken x (1 / B_out + 1 / B_in) (us per token). Ascending; empty when they never cross.
std::vector<double> measuredBreakevenContexts(const Calibration& c, SwapMethod method, std::int64_t blockSize,
                                              std::int64_t kvBytesPerToken);

// The fits of one method at one block size, or nullopt.
std::optional<std::pair<SwapFit, SwapFit>> swapFitsOf(const Calibration& c, SwapMethod method,
                                                      std::int64_t blockSize);

} // namespace pl::cost
