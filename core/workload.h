#pragma once
// The workload: what is being simulated (Config: the machine), how the scheduler decides (Policy), and the
// requests. Plain value types; parsing and validation live in workload_io.h. Every integer is 0..2^53-1.

#include "core/model.h"
#include "core/prefix_ids.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl {

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
    // Engine profiles (docs/engines.md), optional: written only when set (not 0), so receipts that do not use
    // them keep their bytes. max_num_seqs: running requests at most (0: no cap). max_num_batched_tokens: one
    // step's token budget, decodes included (0: prefill_tokens_per_tick). Used by the vllm-v1 profile.
    std::int64_t max_num_seqs = 0;
    std::int64_t max_num_batched_tokens = 0;
    // vllm-v1 (vLLM's enable_prefix_caching): every full block a request computes (prompt and generated) is
    // cached under the request's own ids, so a preempted request hits what is left of its own blocks when it
    // comes back, and declared prefix_blocks are hit; freed blocks are reused in vLLM's free-queue order.
    // Written only when true (receipts without it keep their bytes).
    bool enable_prefix_caching = false;
    // Optional (issue 26): how long one tick lasts, in microseconds; 0 means not given (the key is absent, not
    // hashed, and latencies are reported in ticks only). In a file it must be at least 1 when present.
    std::int64_t tick_us = 0;
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
// Whose scheduling step the engine follows (docs/engines.md): the lab's teaching model, or an engine's own.
enum class EngineProfile { TickModel1, VllmV1, Sglang, TrtllmMaxUtilization, TrtllmGuaranteedNoEvict };

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
    // Extension (additive key, written only when not tick-model-1): the scheduling step followed.
    EngineProfile engine_profile = EngineProfile::TickModel1;
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

// Some request names prefix_blocks, or vllm-v1 caches its own blocks: the engine's prefix cache is on (issue 6).
bool sharesPrefixes(const Workload& w);
// vllm-v1 with enable_prefix_caching: a request's own full blocks are cached too (docs/engines.md).
bool cachesOwnBlocks(const Workload& w);

// Names used in files and on the command line.
std::string_view toString(Recovery v);
std::string_view toString(VictimRule v);
std::string_view toString(AdaptiveTie v);
std::string_view toString(ResumeGuard v);
std::string_view toString(EngineProfile v);
// The engine code a profile follows (repository, file, commit), written beside the profile in every policy.
std::string_view engineFollows(EngineProfile v);
// The profile writes the sampled token's KV in the next step (every real engine does; tick-model-1 counts it
// resident at once): a decoding request then holds prompt + generated - 1 tokens.
inline bool sampledTokenPending(EngineProfile v) { return v != EngineProfile::TickModel1; }
std::optional<Recovery> parseRecovery(std::string_view s);
std::optional<VictimRule> parseVictimRule(std::string_view s);
std::optional<AdaptiveTie> parseAdaptiveTie(std::string_view s);
std::optional<ResumeGuard> parseResumeGuard(std::string_view s);
std::optional<EngineProfile> parseEngineProfile(std::string_view s);
const std::vector<std::string_view>& allEngineProfiles();
const std::vector<std::string_view>& allRecoveries();
const std::vector<std::string_view>& allVictimRules();

} // namespace pl
