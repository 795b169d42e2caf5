#pragma once
// CostModel: swap versus recompute per token, from a model, a GPU, a host link and the copy path
// (docs/cost-model.md; the arithmetic of seed 004). Everything is computed from one CostInputs value by
// computeCost(); sampleCurves() gives the per-token curves the lab's break-even explorer draws.
// Floating point is fine here: nothing in this file is hashed. Times are microseconds, bandwidths GB/s
// (10^9 bytes/s), compute TFLOP/s.
//
// Tensor parallelism: each of the tp GPUs holds ceil(kv_heads / tp) KV heads and ceil(heads / tp) query
// heads (the slowest shard), 1/tp of the weights, moves its shard over its own host link and recomputes its
// share; the slowest shard sets the time, so every per-token figure below is per GPU.

#include "core/cost/hardware_preset.h"
#include "core/cost/model_preset.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pl::cost {

// How the engine lays out and copies KV blocks.
enum class CopyLayout {
    Separate, // K and V of each layer in separate tensors: 2 x layers copies per block (vLLM; seed 004)
    Together, // K and V of a layer in one tensor: layers copies per block
    Batched,  // one gather copy moves the whole request (per direction, per GPU)
};
std::string_view toString(CopyLayout l);
std::optional<CopyLayout> parseCopyLayout(std::string_view s);

struct CostInputs {
    ModelSpec model;
    HardwareSpec hardware;
    double mfu = 0.5;              // share of the BF16 peak that prefill reaches (0, 1]
    double link_gbps = 0.0;        // achieved host link bandwidth per direction; <= 0: the hardware's paper figure
    std::int64_t tp = 1;           // tensor-parallel degree
    std::int64_t block_size = 16;  // tokens per KV block
    CopyLayout layout = CopyLayout::Separate;
    double copy_overhead_us = 0.0; // fixed cost of one copy call (launch, sync, pinning), microseconds
    std::int64_t context = 4096;   // L: tokens to swap or recompute
    std::int64_t batch = 64;       // decode batch for the spare-compute figure
    std::int64_t decode_context = 2048; // context of each decoding request for the spare-compute figure
};

// A problem with the inputs: `field` is the CLI flag name without dashes ("kv-heads").
struct CostInputError {
    std::string field;
    std::string reason;
};
std::optional<CostInputError> validateCostInputs(const CostInputs& in);

struct CostOutputs {
    // Sizes.
    std::int64_t kv_bytes_per_token = 0;         // whole model, all GPUs
    std::int64_t kv_bytes_per_token_per_gpu = 0; // slowest shard
    std::int64_t copy_bytes = 0;                 // one copy call at `context` (per GPU)
    std::int64_t copies_per_block = 0;           // per direction (0 for Batched: one copy per request)
    std::int64_t copies_per_swap = 0;            // per direction per GPU for a request of `context` tokens
    double link_gbps = 0.0;                      // raw link used (achieved, per direction)
    double effective_link_gbps = 0.0;            // after per-copy overhead
    // Per-token costs at `context`, per GPU.
    double swap_us_per_token = 0.0;              // round trip: out and back in
    double recompute_us_per_token = 0.0;         // (2N/tp + a_gpu L / 2) / F_eff
    double recompute_weights_us_per_token = 0.0; // the 2N/tp term alone
    double effective_tflops = 0.0;               // peak x MFU
    // Break-even.
    std::optional<double> breakeven_effective_gbps; // effective bandwidth at which they tie at `context`
    std::optional<double> breakeven_link_gbps;      // raw link needed for that, given the per-copy overhead;
                                                    // none when even an infinite link cannot reach it
    std::optional<double> breakeven_context_tokens; // recompute cheaper below, swap above; none: swap wins always
    std::optional<double> breakeven_mfu;            // MFU at which they tie; none when above 1
    // Spare compute in a memory-bound decode step (at peak, as seed 004 counts it).
    double decode_step_us = 0.0;                 // (weights + batch x decode_context x KV) / HBM, per GPU
    double compute_capacity_tokens = 0.0;        // step time x peak / (2N/tp)
    double spare_compute_tokens = 0.0;           // capacity - batch, at least 0
    double spare_compute_tokens_at_mfu = 0.0;    // the same at peak x MFU
    // Verdict at `context` and the effective link.
    std::string verdict;                         // "swap", "recompute" or "tie"
    std::string reason;                          // one line
};

CostOutputs computeCost(const CostInputs& in);

// The break-even context as the report and the verdict both write it: one decimal below 100 tokens, else whole
// tokens rounded down ("99,535": recompute is cheaper up to it, swap from the next token on).
std::string formatBreakevenContext(double tokens);

// Lower-level pieces (exposed for tests and the lab).
double effectiveBandwidthGbps(double copyBytes, double linkGbps, double overheadUs);
double swapUsPerToken(const CostInputs& in, double context);
double recomputeUsPerToken(const CostInputs& in, double context);
// Context at which swap and recompute tie when the copy path reaches `effectiveGbps` (a constant per-byte
// bandwidth); none when swap is already cheaper at every length.
std::optional<double> breakevenContextAt(const CostInputs& in, double effectiveGbps);

struct CurvePoint {
    std::int64_t context = 0;
    double swap_us_per_token = 0.0;
    double recompute_us_per_token = 0.0;
};
// `points` samples from `from` to `to` (inclusive, evenly spaced, rounded to whole tokens, at least 1).
std::vector<CurvePoint> sampleCurves(const CostInputs& in, std::int64_t from, std::int64_t to, int points);

} // namespace pl::cost
