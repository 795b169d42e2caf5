// What the engine profiles (engine_vllm.cpp, engine_sglang.cpp, engine_trtllm.cpp) share: taking a waiting
// request into the running batch to compute (or recompute) its context, as every engine's admission does.
#include "engine_impl.h"
#include "engine_profiles.h"

#include <algorithm>

namespace pl {

// r leaves the waiting queue and joins the running list (last); its admit (first time) or resume (after a
// preemption: it recomputes prompt + generated, replaying what it owes) is logged. Its first `hits` blocks come
// from the prefix cache (vllm-v1 with enable_prefix_caching; 0 otherwise); the caller allocates the blocks of
// its first chunk (`newBlocks`, taken here before the event so occupancy includes them).
void EngineImpl::admitForRecompute(std::int32_t r, std::int64_t newBlocks, std::int64_t hits) {
    auto& st = rq(r);
    s_.waiting.erase({st.queue_key, r});
    st.queue_ticks += t_ - st.queued_since;
    st.admit_seq = s_.admit_counter++;
    s_.running.push_back(r);
    const bool first = !st.ever_admitted;
    st.ever_admitted = true;
    const std::int64_t cached = hits * c_.block_size_tokens;
    if (hits > 0) {
        attachPrefix(r, hits);
        st.computed_tokens = cached;
        // The replay covers the dropped context from its start: cached blocks shorten it.
        st.replay_remaining -= std::min(cached, st.replay_remaining);
        st.replay_done_target = st.replay_remaining;
        s_.totals.cached_tokens += cached;
    }
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

std::vector<std::string> unusedSettings(const Workload& w) {
    const EngineProfile profile = w.policy.engine_profile;
    if (profile == EngineProfile::TickModel1) {
        std::vector<std::string> out;
        if (w.config.max_num_seqs != 0) out.emplace_back("max_num_seqs");
        if (w.config.max_num_batched_tokens != 0) out.emplace_back("max_num_batched_tokens");
        if (w.config.enable_prefix_caching) out.emplace_back("enable_prefix_caching");
        return out;
    }
    // Every profile recovers by recompute: the swap settings and the tick model's admission guard do nothing.
    std::vector<std::string> out = {"kv_bytes_per_token", "transfer_bytes_per_tick", "host_capacity_bytes"};
    if (w.config.max_num_batched_tokens != 0) {
        out.emplace_back("prefill_tokens_per_tick");
    }
    out.insert(out.end(), {"adaptive_tie", "resume_guard"});
    if (profile == EngineProfile::TrtllmMaxUtilization || profile == EngineProfile::TrtllmGuaranteedNoEvict) {
        out.emplace_back("victim_rule");
    }
    if (profile != EngineProfile::VllmV1) {
        out.emplace_back("watermark_blocks");
        if (w.config.enable_prefix_caching) {
            out.emplace_back("enable_prefix_caching"); // vLLM's flag; SGLang's radix cache is not modelled
        }
    }
    out.emplace_back("hybrid_swap_percent");
    return out;
}

// After a profile's step: what skipQuiescentTicks starts from next step. Quiet when nobody was preempted and
// every running request is decoding, its context whole but for the sampled token (whose KV the next step
// writes); the fewest tokens any of them still has to generate bounds the stretch.
void EngineImpl::noteQuietDecodeStep() {
    bool decodeOnly = !evictedThisTick_;
    std::int64_t minRemaining = kMaxSafeInteger;
    for (std::size_t i = 0; i < s_.running.size() && decodeOnly; ++i) {
        const std::int32_t r = s_.running[i];
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
