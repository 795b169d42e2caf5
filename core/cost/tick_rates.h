#pragma once
// TickRates: turn a model, a GPU, a link and a tick length into the integer rates of a workload's `config`
// (prefill_tokens_per_tick, transfer_bytes_per_tick, kv_bytes_per_token, block_size_tokens and, when the
// GPU's memory is known, capacity_blocks), so a simulation runs on physical numbers. The mapping and its
// limits are in docs/cost-model.md. The rates are integers (they enter hashed workloads); the arithmetic
// behind them is floating point and rounds down.

#include "core/cost/cost_model.h"
#include "core/workload.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pl::cost {

struct TickRatesInputs {
    CostInputs cost;          // model, GPU, link, copy path, TP; cost.context is the replay length priced
    double tick_us = 0.0;     // one tick; <= 0: the memory-bound decode step at cost.batch x cost.decode_context
    double memory_utilization = 0.9; // share of device memory given to weights + KV (vLLM's gpu_memory_utilization)
    bool tick_given_in_ms = false; // the user gave the tick as --tick-ms: errors name that flag and its unit
};

struct TickRates {
    double tick_us = 0.0;
    std::int64_t block_size_tokens = 0;
    std::int64_t kv_bytes_per_token = 0;      // per GPU (the shard the simulated pool holds)
    std::int64_t prefill_tokens_per_tick = 0; // floor(tick / recompute time per token at cost.context)
    std::int64_t transfer_bytes_per_tick = 0; // floor(tick x effective link bandwidth)
    std::optional<std::int64_t> capacity_blocks; // floor((memory x utilization - weights/tp) / block bytes)
    // Host memory for swapped KV, per GPU: vLLM's --swap-space default (4 GiB per GPU; vllm/config.py CacheConfig
    // swap_space), so that a machine made from a model and a GPU can swap (the workload default, 1 MiB, is the seed
    // example's and holds 8 tokens of an 8B model's KV).
    std::int64_t host_capacity_bytes = kDefaultSwapSpaceBytes;
    static constexpr std::int64_t kDefaultSwapSpaceBytes = std::int64_t{4} << 30;
};

std::variant<TickRates, CostInputError> computeTickRates(const TickRatesInputs& in);

// The rates of named presets at one tick of `tickUs` (import-trace and generate's --model M --gpu G, the lab's
// import dialog): no name is the default preset (kDefaultModelPreset, kDefaultHardwarePreset); a name that is
// no preset (the empty one too) is an error on field "model" or "gpu" that lists the known names. Its callers
// take the tick as --tick-ms, so a tick error is on field "tick-ms", in milliseconds.
std::variant<TickRates, CostInputError> presetTickRates(std::optional<std::string_view> model,
                                                        std::optional<std::string_view> gpu, double tickUs);

// Writes the rates into a workload's config (block size, KV bytes per token, prefill and transfer rates, and
// capacity where the GPU's memory is known); returns the keys it set.
std::vector<std::string> applyTickRates(const TickRates& rates, Config& config);

} // namespace pl::cost
