#pragma once
// The workload model: what is being simulated (Config: the machine), how the scheduler decides (Policy), and
// the requests. Plain value types; parsing and validation live in workload_io.h. Every integer is 0..2^53-1.

#include "prefix_ids.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl {

using Tick = std::int64_t;
inline constexpr std::int64_t kMaxSafeInteger = (std::int64_t{1} << 53) - 1;
inline constexpr std::string_view kWorkloadFormat = "preemptlab.workload.v1";
inline constexpr std::string_view kReceiptFormat = "preemptlab.receipt.v1";
inline constexpr std::string_view kEngineName = "preemptlab";
inline constexpr std::string_view kEngineVersion = "0.1.0";
inline constexpr std::string_view kTickModel = "tick-model-1";

// The machine being modelled. Defaults are the contract's example values.
struct Config {
    std::int64_t block_size_tokens = 8;
    std::int64_t capacity_blocks = 16;
    std::int64_t kv_bytes_per_token = 512;
    std::int64_t prefill_tokens_per_tick = 64;
    std::int64_t transfer_bytes_per_tick = 16384;
    std::int64_t host_capacity_bytes = 1048576;
    std::int64_t max_ticks = 20000;
    std::int64_t wait_threshold_ticks = 50;
    std::int64_t preemption_threshold = 3;
    friend bool operator==(const Config&, const Config&) = default;
};

enum class Recovery { Recompute, Swap, Adaptive, Hybrid };
enum class VictimRule {
    PriorityNewest,
    LastAdmitted,
    LongestContext,
    ShortestContext,
    FewestDecoded,
    MostRemaining,
    TenantFair
};
enum class AdaptiveTie { Recompute, Swap };
enum class ResumeGuard { FullReservation, NextBlock };

// The scheduler's choices. Defaults are the contract's.
struct Policy {
    Recovery recovery = Recovery::Recompute;
    VictimRule victim_rule = VictimRule::PriorityNewest;
    AdaptiveTie adaptive_tie = AdaptiveTie::Recompute;
    ResumeGuard resume_guard = ResumeGuard::FullReservation;
    std::int64_t watermark_blocks = 0;
    bool preempt_ahead = false;
    // Extension (additive key): share of a hybrid victim's full blocks that is swapped, in percent (0..100).
    std::int64_t hybrid_swap_percent = 50;
    friend bool operator==(const Policy&, const Policy&) = default;
};

struct RequestSpec {
    std::string id;
    Tick arrival_tick = 0;
    std::int64_t prompt_tokens = 1;
    std::int64_t output_tokens = 1;
    std::int64_t max_output_tokens = 1; // defaults to output_tokens when absent in the file
    std::int64_t priority = 0;          // smaller is more urgent
    std::string tenant = "default";
    // Optional (additive key `prefix_blocks`): ids of the prompt's full prefix blocks, in order; equal ids in
    // two requests mean a shared prefix block (Mooncake's hash_ids). Empty: nothing shared. Kept as runs of
    // consecutive ids (prefix_ids.h).
    PrefixIds prefix_blocks;
    friend bool operator==(const RequestSpec&, const RequestSpec&) = default;
};

// A validated, normalised workload: requests ordered by (arrival_tick, id).
struct Workload {
    std::string name;
    std::string notes;
    Config config;
    Policy policy;
    std::vector<RequestSpec> requests;
    friend bool operator==(const Workload&, const Workload&) = default;
};

// Some request names prefix_blocks: the engine's prefix cache is on (issue 6).
bool sharesPrefixes(const Workload& w);

// Names used in files and on the command line.
std::string_view toString(Recovery v);
std::string_view toString(VictimRule v);
std::string_view toString(AdaptiveTie v);
std::string_view toString(ResumeGuard v);
std::optional<Recovery> parseRecovery(std::string_view s);
std::optional<VictimRule> parseVictimRule(std::string_view s);
std::optional<AdaptiveTie> parseAdaptiveTie(std::string_view s);
std::optional<ResumeGuard> parseResumeGuard(std::string_view s);
const std::vector<std::string_view>& allRecoveries();
const std::vector<std::string_view>& allVictimRules();

// Integer ceil division for non-negative a and positive b.
constexpr std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

} // namespace pl
