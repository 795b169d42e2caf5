#pragma once
// Generator: synthetic workloads with named, seeded randomness (docs/traces.md, "Generators"). Every
// parameter lives in GeneratorParams so that the CLI's flags and the lab's generator dialog fill the same
// struct. Each aspect (arrivals, lengths, priorities, tenants, prefix groups) draws from its own Rng stream
// derived from the seed, so changing the tenant mix does not move a single arrival.

#include "core/workload.h"
#include "core/workload_io.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pl::trace {

struct LengthPair {
    std::int64_t prompt_tokens = 1;
    std::int64_t output_tokens = 1;
    friend bool operator==(const LengthPair&, const LengthPair&) = default;
};

// The gamma arrivals' coefficient of variation: below 0.001 the shape 1/cv^2 passes 10^6, where the sampler's
// acceptance test loses its precision (and a cv whose square is 0 made the shape infinite: it never returned).
inline constexpr double kMinBurstCv = 0.001;
inline constexpr double kMaxBurstCv = 100.0;

struct GeneratorParams {
    std::uint64_t seed = 1;
    std::int64_t count = 200;
    std::string name = "generated";

    // Arrivals: Poisson (exponential gaps) or bursty (gamma gaps with the same mean and the given coefficient
    // of variation; cv > 1 is burstier than Poisson). arrival_tick = floor(running sum of gaps).
    enum class Arrivals { Poisson, Gamma } arrivals = Arrivals::Poisson;
    double rate_per_tick = 0.2;
    double burst_cv = 3.0; // from kMinBurstCv to kMaxBurstCv

    // Lengths: lognormal (median, sigma) or trace-fitted (resampling (prompt, output) pairs, kept together,
    // from `empirical`). Both are clamped to [min, max].
    enum class Lengths { Lognormal, Empirical } lengths = Lengths::Lognormal;
    double prompt_median = 512.0;
    double prompt_sigma = 0.9;
    double output_median = 128.0;
    double output_sigma = 0.9;
    std::int64_t prompt_min = 1;
    std::int64_t prompt_max = 4096;
    std::int64_t output_min = 1;
    std::int64_t output_max = 1024;
    std::vector<LengthPair> empirical;

    // Mixes: (value, integer weight); each request draws one entry with probability weight / total.
    std::vector<std::pair<std::int64_t, std::int64_t>> priority_mix{{0, 1}};
    std::vector<std::pair<std::string, std::int64_t>> tenant_mix{{"default", 1}};

    // Shared-prefix groups: prefix_share_percent of requests join one of prefix_groups groups (uniformly);
    // their first prefix_tokens prompt tokens are the group's (the prompt is raised to at least that), so
    // their first floor(prefix_tokens / block_size_tokens) blocks carry the group's prefix_blocks ids.
    std::int64_t prefix_groups = 0;
    std::int64_t prefix_tokens = 0;
    std::int64_t prefix_share_percent = 0;

    Config config = defaultConfig();
    Policy policy;

    // The generator's machine: 1024 blocks of 16 tokens (16K tokens), 512 prefill tokens a tick.
    static Config defaultConfig() {
        Config c;
        c.block_size_tokens = 16;
        c.capacity_blocks = 1024;
        c.prefill_tokens_per_tick = 512;
        c.kv_bytes_per_token = 131072;
        c.transfer_bytes_per_tick = 256 * 1024 * 1024; // ~13 GB/s at 20 ms a tick
        c.host_capacity_bytes = std::int64_t{8} << 30;
        c.max_ticks = 200000;
        return c;
    }
};

// What `generate` holds per request at its peak (the workload and its text; measured: 746 B a request over
// 1,000,000 requests, docs/performance.md "Memory per event"), and the check made before generating: `count`
// requests must fit in `availableBytes` (0: unknown, nothing refused). A refusal names --count and the figures.
inline constexpr std::int64_t kGeneratedBytesPerRequest = 768;
std::optional<InputError> checkGeneratedFits(std::int64_t count, std::int64_t availableBytes);

// Checks the parameters (errors name the CLI flag, e.g. "--rate") and generates the workload: ids g-000000..,
// requests ordered by (arrival_tick, id), notes stating the seed and parameters.
Result<Workload> generateWorkload(const GeneratorParams& params);

} // namespace pl::trace
