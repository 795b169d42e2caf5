#include "core/cost/tick_rates.h"

#include "core/cost/hardware_preset.h"
#include "core/cost/model_preset.h"
#include "core/number_text.h"

#include <cmath>
#include <string>

namespace pl::cost {

namespace {

constexpr double kMaxRate = 9007199254740991.0; // 2^53 - 1, the workload format's integer ceiling

} // namespace

std::variant<TickRates, CostInputError> computeTickRates(const TickRatesInputs& in) {
    if (auto err = validateCostInputs(in.cost)) {
        return *err;
    }
    // Errors name the flag the tick was given with, in its unit (rates --tick-ms said "--tick-us").
    const std::string tickField = in.tick_given_in_ms ? "tick-ms" : "tick-us";
    const auto tickText = [&](double us) {
        return in.tick_given_in_ms ? formatGeneral(us / 1000.0) + " ms" : formatGeneral(us) + " us";
    };
    if (!std::isfinite(in.tick_us) || in.tick_us > 1e12) {
        return CostInputError{tickField, in.tick_given_in_ms
                                             ? "out of range: must be a finite number of milliseconds, at most 1e9"
                                             : "out of range: must be a finite number of microseconds, at most 1e12"};
    }
    if (!std::isfinite(in.memory_utilization) || in.memory_utilization <= 0.0 || in.memory_utilization > 1.0) {
        return CostInputError{"mem-util", "must be above 0 and at most 1"};
    }
    const CostOutputs c = computeCost(in.cost);
    TickRates r;
    r.tick_us = in.tick_us > 0.0 ? in.tick_us : c.decode_step_us;
    r.block_size_tokens = in.cost.block_size;
    r.kv_bytes_per_token = c.kv_bytes_per_token_per_gpu;

    const double prefill = std::floor(r.tick_us / c.recompute_us_per_token);
    const double transfer = std::floor(r.tick_us * 1e-6 * c.effective_link_gbps * 1e9);
    if (prefill < 1.0) {
        return CostInputError{tickField, "a tick of " + tickText(r.tick_us) +
                                             " prefills less than one token (one costs " +
                                             formatGeneral(c.recompute_us_per_token) + " us)"};
    }
    if (transfer < 1.0) {
        return CostInputError{tickField, "a tick of " + tickText(r.tick_us) + " moves less than one byte"};
    }
    if (prefill > kMaxRate || transfer > kMaxRate) {
        return CostInputError{tickField, "the rates exceed 2^53-1; use a shorter tick"};
    }
    r.prefill_tokens_per_tick = static_cast<std::int64_t>(prefill);
    r.transfer_bytes_per_tick = static_cast<std::int64_t>(transfer);

    if (in.cost.hardware.memory_gb > 0.0) {
        const double weights = in.cost.model.params * static_cast<double>(in.cost.model.weight_dtype_bytes) /
                               static_cast<double>(in.cost.tp);
        const double budget = in.cost.hardware.memory_gb * 1e9 * in.memory_utilization - weights;
        const double blockBytes =
            static_cast<double>(in.cost.block_size) * static_cast<double>(c.kv_bytes_per_token_per_gpu);
        const double blocks = std::floor(budget / blockBytes);
        if (blocks < 1.0) {
            return CostInputError{"hbm-gb", "the weights leave no room for one KV block on a GPU (" +
                                                std::to_string(weights / 1e9) + " GB of weights per GPU)"};
        }
        r.capacity_blocks = static_cast<std::int64_t>(std::min(blocks, kMaxRate));
    }
    return r;
}

std::variant<TickRates, CostInputError> presetTickRates(std::optional<std::string_view> model,
                                                        std::optional<std::string_view> gpu, double tickUs) {
    TickRatesInputs in;
    const auto m = findModelPreset(model.value_or(kDefaultModelPreset));
    if (!m) {
        return CostInputError{"model", "unknown preset '" + std::string(*model) + "' (known: " + modelPresetNames() + ")"};
    }
    const auto h = findHardwarePreset(gpu.value_or(kDefaultHardwarePreset));
    if (!h) {
        return CostInputError{"gpu", "unknown preset '" + std::string(*gpu) + "' (known: " + hardwarePresetNames() + ")"};
    }
    in.cost.model = *m;
    in.cost.hardware = *h;
    in.tick_us = tickUs;
    in.tick_given_in_ms = true;
    return computeTickRates(in);
}

std::vector<std::string> applyTickRates(const TickRates& r, Config& c) {
    c.block_size_tokens = r.block_size_tokens;
    c.kv_bytes_per_token = r.kv_bytes_per_token;
    c.prefill_tokens_per_tick = r.prefill_tokens_per_tick;
    c.transfer_bytes_per_tick = r.transfer_bytes_per_tick;
    c.host_capacity_bytes = r.host_capacity_bytes;
    std::vector<std::string> keys = {"block_size_tokens", "kv_bytes_per_token", "prefill_tokens_per_tick",
                                     "transfer_bytes_per_tick", "host_capacity_bytes"};
    if (r.capacity_blocks) {
        c.capacity_blocks = *r.capacity_blocks;
        keys.push_back("capacity_blocks");
    }
    return keys;
}

} // namespace pl::cost
