// Command-line overrides of config and policy keys (`--capacity-blocks 64`, `--recovery swap`). Each value is
// parsed strictly and range-checked on its own here; rules that relate two keys (watermark < capacity, every
// request still fits) are left to validateWorkload, which the caller runs afterwards.
#include "core/workload_overrides.h"

#include "core/number_text.h"
#include "core/workload_rules.h"

#include <algorithm>
#include <charconv>

namespace pl {
namespace {

InputError overrideError(std::string_view key, std::string reason) { return InputError{"", settingFlag(key), std::move(reason)}; }

std::optional<std::int64_t> parseInteger(std::string_view text) {
    std::int64_t value = 0;
    if (text.empty() || text.front() < '0' || text.front() > '9') {
        return std::nullopt; // no sign, no spaces
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value > kMaxSafeInteger) {
        return std::nullopt;
    }
    return value;
}

template <typename E>
std::optional<InputError> setEnum(std::string_view key, std::string_view value, E& target,
                                  std::optional<E> (*parse)(std::string_view), std::initializer_list<E> all) {
    if (auto parsed = parse(value)) {
        target = *parsed;
        return std::nullopt;
    }
    std::string choices;
    for (E v : all) {
        choices += (choices.empty() ? "" : ", ") + std::string(toString(v));
    }
    return overrideError(key, "unknown value \"" + std::string(value) + "\" (expected one of: " + choices + ")");
}

std::optional<InputError> setInteger(std::string_view key, std::string_view value, std::int64_t& target,
                                     std::int64_t min, std::int64_t max = kMaxSafeInteger, bool bytes = false) {
    const auto parsed = bytes ? parseByteSize(value) : parseInteger(value);
    if (!parsed) {
        return overrideError(key, "expected " + std::string(bytes ? "bytes" : "an integer") + " from " +
                                      std::to_string(min) + " to " + std::to_string(max) + ", got \"" +
                                      std::string(value) + "\"" +
                                      (bytes ? std::string("; write ") + kByteSizeForms : std::string()));
    }
    if (auto problem = integerRangeProblem(*parsed, min, max)) {
        return overrideError(key, *problem);
    }
    target = *parsed;
    return std::nullopt;
}

} // namespace

const std::vector<std::string_view>& configKeys() {
    static const std::vector<std::string_view> keys = [] {
        std::vector<std::string_view> out;
        for (const auto& field : configFields()) {
            out.push_back(field.key);
        }
        out.push_back("enable_prefix_caching");
        return out;
    }();
    return keys;
}

const std::vector<std::string_view>& policyKeys() {
    static const std::vector<std::string_view> keys{"recovery",         "victim_rule",   "adaptive_tie",
                                                    "resume_guard",     "watermark_blocks", "preempt_ahead",
                                                    "hybrid_swap_percent", "engine_profile"};
    return keys;
}

std::string settingFlag(std::string_view key) {
    std::string flag = "--" + std::string(key);
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

SettingHelp settingHelp(std::string_view key) {
    static const struct {
        std::string_view key;
        SettingHelp help;
    } table[] = {
        {"block_size_tokens", {"tokens", "Tokens per KV block: a request holds ceil(context / block size) blocks."}},
        {"capacity_blocks", {"blocks", "Blocks in the device pool; a step that needs more than are free preempts."}},
        {"kv_bytes_per_token", {"B", "KV cache bytes one token holds (all layers, K and V): what a swap moves."}},
        {"prefill_tokens_per_tick",
         {"tokens/tick", "Prefill budget a tick shares among new prompts and recompute replays."}},
        {"transfer_bytes_per_tick",
         {"B/tick", "Host link budget a tick shares among swap-outs and swap-ins, first started first."}},
        {"host_capacity_bytes", {"B", "Host memory for swapped KV; a swap that does not fit is recomputed instead."}},
        {"max_ticks", {"ticks", "The run stops here; requests still unfinished are censored."}},
        {"wait_threshold_ticks", {"ticks", "A request that queued longer than this is flagged excessive_wait."}},
        {"preemption_threshold",
         {"preemptions", "A request preempted more often than this is flagged repeated_preemption."}},
        {"recovery",
         {"", "How a victim gets its KV back: recompute (replay), swap (copy out and back), adaptive (the cheaper "
              "estimate) or hybrid (swap a prefix, replay the rest)."}},
        {"victim_rule",
         {"", "Which running request is preempted when the blocks a step needs are not free: priority-newest, "
              "last-admitted, longest-context, shortest-context, fewest-decoded, most-remaining or tenant-fair."}},
        {"adaptive_tie", {"", "What adaptive does when both estimates are equal: recompute or swap."}},
        {"resume_guard",
         {"", "What a waiting request needs free to be admitted: its whole reservation (full-reservation) or only "
              "the blocks it takes now (next-block, which can thrash)."}},
        {"watermark_blocks", {"blocks", "Free blocks kept in reserve: admission leaves them, preempt_ahead defends them."}},
        {"preempt_ahead", {"", "Evict before a step fails, whenever free blocks would fall below the watermark."}},
        {"hybrid_swap_percent", {"%", "Share of a hybrid victim's full blocks that is swapped; the rest is replayed."}},
        {"engine_profile",
         {"", "Whose scheduling step to follow: tick-model-1 (the lab's teaching model), vllm-v1 (vLLM V1's "
              "Scheduler.schedule), sglang (SGLang's prefill-or-decode step with retract_decode), "
              "trtllm-max-utilization or trtllm-guaranteed-no-evict (TensorRT-LLM's capacity schedulers); "
              "docs/engines.md."}},
        {"max_num_seqs", {"requests", "Engine profiles: running requests at most (vLLM max_num_seqs); 0 = no cap."}},
        {"max_num_batched_tokens",
         {"tokens/tick", "Engine profiles: one step's token budget, decodes included (vLLM max_num_batched_tokens); "
                         "0 = prefill_tokens_per_tick."}},
        {"enable_prefix_caching",
         {"", "vllm-v1: cache every full block (prompt and generated) so a preempted request hits its own surviving "
              "blocks when it comes back, and declared prefix_blocks are hit (vLLM --enable-prefix-caching)."}},
        {"tick_us", {"us", "Optional: how long one tick lasts; latencies are then also reported in ms and SLOs may be "
                           "given in ms (hashed with the input when given)."}},
    };
    for (const auto& row : table) {
        if (row.key == key) {
            return row.help;
        }
    }
    return {};
}

std::optional<InputError> applyOverride(Workload& w, std::string_view rawKey, std::string_view value) {
    std::string key(rawKey);
    std::replace(key.begin(), key.end(), '-', '_'); // accept the flag spelling too
    for (const auto& field : configFields()) {
        if (field.key == key) {
            // --tick-us given on the command line is a tick length, so at least 1 (0 is "not given" only by absence).
            const std::int64_t least = field.key == "tick_us" ? 1 : field.min;
            return setInteger(key, value, w.config.*(field.member), least, kMaxSafeInteger, field.bytes);
        }
    }
    if (key == "enable_prefix_caching") {
        if (value == "true" || value == "false") {
            w.config.enable_prefix_caching = value == "true";
            return std::nullopt;
        }
        return overrideError(key, "expected true or false, got \"" + std::string(value) + "\"");
    }
    Policy& p = w.policy;
    if (key == "recovery") {
        return setEnum(key, value, p.recovery, parseRecovery,
                       {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid});
    }
    if (key == "victim_rule") {
        return setEnum(key, value, p.victim_rule, parseVictimRule,
                       {VictimRule::PriorityNewest, VictimRule::LastAdmitted, VictimRule::LongestContext,
                        VictimRule::ShortestContext, VictimRule::FewestDecoded, VictimRule::MostRemaining,
                        VictimRule::TenantFair});
    }
    if (key == "adaptive_tie") {
        return setEnum(key, value, p.adaptive_tie, parseAdaptiveTie, {AdaptiveTie::Recompute, AdaptiveTie::Swap});
    }
    if (key == "resume_guard") {
        return setEnum(key, value, p.resume_guard, parseResumeGuard,
                       {ResumeGuard::FullReservation, ResumeGuard::NextBlock});
    }
    if (key == "watermark_blocks") {
        return setInteger(key, value, p.watermark_blocks, 0);
    }
    if (key == "hybrid_swap_percent") {
        return setInteger(key, value, p.hybrid_swap_percent, 0, 100);
    }
    if (key == "engine_profile") {
        return setEnum(key, value, p.engine_profile, parseEngineProfile,
                       {EngineProfile::TickModel1, EngineProfile::VllmV1, EngineProfile::Sglang,
                        EngineProfile::TrtllmMaxUtilization, EngineProfile::TrtllmGuaranteedNoEvict});
    }
    if (key == "preempt_ahead") {
        if (value == "true" || value == "false") {
            p.preempt_ahead = value == "true";
            return std::nullopt;
        }
        return overrideError(key, "expected true or false, got \"" + std::string(value) + "\"");
    }
    return overrideError(key, "unknown option: not a config or policy key");
}

} // namespace pl
