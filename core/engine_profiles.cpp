// What the engine profiles (engine_vllm.cpp, engine_sglang.cpp, engine_trtllm.cpp) share: taking a waiting
// request into the running batch to compute (or recompute) its context, as every engine's admission does.
#include "core/engine_impl.h"
#include "core/engine_profiles.h"

#include <algorithm>

namespace pl {

// r leaves the waiting queue and joins the running list (last); its admit (first time) or resume (after a
// preemption: it recomputes prompt + generated, replaying what it owes) is logged. Its first `hits` blocks come
// from the prefix cache (vllm-v1 with enable_prefix_caching; 0 otherwise); the caller allocates the blocks of
// its first chunk (`newBlocks`, taken here before the event so occupancy includes them).
void EngineImpl::admitForRecompute(RequestIndex r, std::int64_t newBlocks, std::int64_t hits) {
    auto& st = rq(r);
    const bool first = joinRunning(r);
    const std::int64_t cached = hits * c_.block_size_tokens;
    attachPrefix(r, hits);
    takeBlocks(r, newBlocks);
    Event& ev = emit(first ? EventKind::Admit : EventKind::Resume, r);
    ev.occupied_blocks = occupied();
    ev.cached_tokens = cached;
    st.cached_tokens = cached;
    if (!first) {
        ev.mode = Recovery::Recompute;
        ev.replay_tokens = st.replay_remaining;
        ev.generated_tokens = st.generated_tokens;
        ev.context_tokens = cached;
    }
    st.phase = st.replay_remaining > 0 ? Phase::Replay : Phase::Prefill;
}

// A profile's waiting loop meets r (engine_vllm.cpp, engine_sglang.cpp, engine_trtllm.cpp). Recovery by swap is a
// what-if under every profile (no engine followed has it): a swapped request waits where the profile puts a
// preempted one and resumes as in tick-model-1 (resumeBySwapIn), its blocks from `freeBlocks`, no tokens from
// the step's budget (the copy runs on the link; it computes again once the copy lands). One still copying out
// is passed over, as tick-model-1 does. The caller has moved its queue iterator past r.
EngineImpl::SwapResume EngineImpl::tryResumeSwapped(RequestIndex r, std::int64_t freeBlocks) {
    const auto& st = rq(r);
    if (st.phase == Phase::SwapOut) {
        return SwapResume::Skip;
    }
    if (st.phase != Phase::SwappedOut) {
        return SwapResume::NotSwapped;
    }
    if (blocksFor(st.swapped_tokens) > freeBlocks) {
        return SwapResume::Blocked;
    }
    resumeBySwapIn(r);
    return SwapResume::Resumed;
}

std::vector<std::string> unusedSettings(const Workload& w) {
    const EngineProfile profile = w.policy.engine_profile;
    if (profile == EngineProfile::TickModel1) {
        std::vector<std::string> out;
        if (w.config.max_num_seqs != 0) out.emplace_back("max_num_seqs");
        if (w.config.max_num_batched_tokens != 0) out.emplace_back("max_num_batched_tokens");
        if (w.config.enable_prefix_caching) out.emplace_back("enable_prefix_caching");
        return out;
    }
    // The engines recover by recompute: the swap settings do nothing unless recovery is a swap what-if; the tick
    // model's admission guard never does.
    const Recovery recovery = w.policy.recovery;
    std::vector<std::string> out;
    if (recovery == Recovery::Recompute) {
        out = {"kv_bytes_per_token", "transfer_bytes_per_tick", "host_capacity_bytes"};
    }
    if (w.config.max_num_batched_tokens != 0 && recovery != Recovery::Adaptive) {
        out.emplace_back("prefill_tokens_per_tick"); // (adaptive's recompute estimate still reads it)
    }
    if (recovery != Recovery::Adaptive) {
        out.emplace_back("adaptive_tie");
    }
    out.emplace_back("resume_guard");
    if (profile == EngineProfile::TrtllmMaxUtilization || profile == EngineProfile::TrtllmGuaranteedNoEvict) {
        out.emplace_back("victim_rule");
    }
    if (profile != EngineProfile::VllmV1) {
        out.emplace_back("watermark_blocks");
        if (w.config.enable_prefix_caching) {
            out.emplace_back("enable_prefix_caching"); // vLLM's flag; SGLang's radix cache is not modelled
        }
    }
    if (recovery != Recovery::Hybrid) {
        out.emplace_back("hybrid_swap_percent");
    }
    return out;
}

// After a profile's step: what skipQuiescentTicks starts from next step. Quiet when nobody was preempted and
// every running request is decoding, its context whole but for the sampled token (whose KV the next step
// writes); the fewest tokens any of them still has to generate bounds the stretch.
void EngineImpl::noteQuietDecodeStep() {
    bool decodeOnly = !evictedThisTick_;
    std::int64_t minRemaining = kMaxSafeInteger;
    for (std::size_t i = 0; i < s_.running.size() && decodeOnly; ++i) {
        const RequestIndex r = s_.running[i];
        const auto& st = rq(r);
        if (st.phase == Phase::Decode && st.computed_tokens + 1 == target(r)) {
            minRemaining = std::min(minRemaining, st.output_tokens - st.generated_tokens);
        } else if (st.phase != Phase::Done) {
            decodeOnly = false;
        }
    }
    s_.quiet_decode_only = decodeOnly;
    s_.quiet_min_remaining = minRemaining;
}

} // namespace pl
