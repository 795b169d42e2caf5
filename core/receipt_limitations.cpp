// The limitations every receipt lists (receipt.h): what tick-model-1 does not model, or, under an engine
// profile, what that profile leaves out of the engine it follows and which policy keys are what-ifs there.
// Apart from receipt.cpp, which writes the text, because this is the model's own account of itself.
#include "core/receipt.h"

#include <string>
#include <vector>

namespace pl {

const std::vector<std::string>& receiptLimitations(bool prefixSharing) {
    static const std::vector<std::string> items = {
        "All ticks, rates and bytes are declared synthetic arithmetic (tick-model-1), not GPU timings: one tick is "
        "one engine step with the declared prefill_tokens_per_tick and transfer_bytes_per_tick.",
        "Requests are independent: no beam groups, speculative branches or distributed (tensor/pipeline-parallel) "
        "cache ownership.",
        "Decode is modelled as one token per running request per tick whatever the batch size; prefill and decode "
        "do not compete for compute, only prefill chunks share prefill_tokens_per_tick.",
        "A context of prompt + generated tokens occupies ceil(context / block_size_tokens) blocks; the KV of the "
        "newest sampled token is counted as resident.",
        "Swap copies share one link FIFO in both directions; a copy's device blocks return to the pool only when it "
        "lands; swap-out and swap-in each take at least one tick.",
        "When host memory cannot hold a swap, the victim is recomputed instead and the evict event says so "
        "(fallback); hybrid shrinks its swapped prefix to what fits first.",
        "No waiting request is admitted in a tick that evicted (as in vLLM); admission is head-of-line in "
        "(priority, arrival_tick, id) order.",
        "Recompute replays the dropped context through the prefill budget; prefix caching is not modelled.",
        "Fairness flags observe; the scheduler never promotes a flagged request.",
    };
    // A workload with prefix_blocks: the prefix-cache sentences replace "prefix caching is not modelled"
    // (receipts of other workloads keep their bytes).
    static const std::vector<std::string> sharing = [] {
        std::vector<std::string> copy = items;
        for (auto& item : copy) {
            if (item.find("prefix caching is not modelled") != std::string::npos) {
                item = "Recompute replays the dropped context through the prefill budget, less what the prefix cache "
                       "still holds. Prefix sharing (prefix_blocks) is a reference-counted cache of full prompt "
                       "blocks matched by id alone (equal ids are taken to hold equal KV); attaching a cached block "
                       "costs no prefill and no time, and at least one token of every context is computed.";
            }
        }
        // emplace_back: g++ 12 -O3 warns (-Warray-bounds, a false positive) on push_back of this literal where
        // nlohmann_json's headers come first (the precompiled headers of PREEMPTLAB_PCH).
        copy.emplace_back("Only recompute benefits from the prefix cache: a swap copies the victim's whole logical "
                          "view, shared blocks included, and swap-in copies it all back into fresh blocks.");
        return copy;
    }();
    return prefixSharing ? sharing : items;
}

std::vector<std::string> receiptLimitations(const Workload& w, bool prefixSharing) {
    if (w.policy.engine_profile == EngineProfile::TickModel1) {
        return receiptLimitations(prefixSharing);
    }
    const std::string name(toString(w.policy.engine_profile));
    const bool vllm = w.policy.engine_profile == EngineProfile::VllmV1;
    const bool sglang = w.policy.engine_profile == EngineProfile::Sglang;
    const std::string trtStep =
        "activeRequests in (priority, arrival) order; the capacity scheduler (" +
        std::string(w.policy.engine_profile == EngineProfile::TrtllmMaxUtilization
                        ? "MAX_UTILIZATION: one step's blocks, pausing the last started request"
                        : "GUARANTEED_NO_EVICT: blocks to completion reserved, never pausing") +
        ") then the micro-batch token limit max_num_batched_tokens (max_num_tokens, else prefill_tokens_per_tick); "
        "max_num_seqs is the request cap (0: none); a context is chunked (block multiples) only when it alone does "
        "not fit the token limit; victim_rule is not used.";
    std::vector<std::string> out = {
        "engine_profile " + name + " follows " + std::string(engineFollows(w.policy.engine_profile)) +
            " step for step as a synchronous engine (docs/engines.md): one tick is one scheduler step with its "
            "forward; ticks are steps, not seconds.",
        vllm ? "One token budget per step (max_num_batched_tokens, else prefill_tokens_per_tick) that decodes spend "
               "too; chunked prefill always on; max_num_seqs caps running requests (0: no cap)."
        : !sglang ? trtStep
             : "A step runs a prefill batch (chunked-prefill size max_num_batched_tokens, else prefill_tokens_per_tick) "
               "or else a decode batch, never both (no mixed chunks, no overlap scheduler); max_num_seqs is "
               "--max-running-requests (0: no cap); new_token_ratio is kept in parts per million.",
        "The sampled token's KV is written in the next step: a decoding request holds prompt + generated - 1 tokens.",
        "Requests stop only at output_tokens (no EOS, stop strings or max_model_len); no speculative decoding, "
        "no async scheduling or pipeline parallelism (one batch in flight), no KV connector.",
        "Arrival order within a tick is the workload's (arrival_tick, id) order.",
        cachesOwnBlocks(w)
            ? "enable_prefix_caching: every full block a request computes is cached under ids of its own (for "
              "vLLM's block hashes of its tokens), so a preempted request hits what is left of its own blocks and "
              "declared prefix_blocks are hit; blocks are registered once computed (vLLM caches them when they are "
              "allocated), and every freed block joins one free queue, reused oldest first."
            : "Prefix caching (vLLM's block hashes, SGLang's radix cache) is not modelled yet: declared prefix_blocks "
              "are not hit under this profile.",
        "Fairness flags observe; the scheduler never promotes a flagged request.",
    };
    if (sglang && w.policy.victim_rule != VictimRule::FewestDecoded) {
        out.push_back("What-if: victim_rule " + std::string(toString(w.policy.victim_rule)) +
                      " retracts instead of SGLang's order (fewest-decoded: fewest output tokens, then longest prompt).");
    }
    if (vllm && w.policy.victim_rule != VictimRule::LastAdmitted && w.policy.victim_rule != VictimRule::PriorityNewest) {
        out.push_back("What-if: victim_rule " + std::string(toString(w.policy.victim_rule)) +
                      " is not a vLLM policy (fcfs = last-admitted, priority = priority-newest); the waiting queue "
                      "is fcfs.");
    }
    if (w.policy.watermark_blocks > 0) {
        out.push_back("What-if: watermark_blocks " + std::to_string(w.policy.watermark_blocks) +
                      (vllm ? " holds blocks back from admission (vLLM at the followed commit has no watermark)."
                            : " is not used by this profile."));
    }
    if (w.policy.recovery != Recovery::Recompute) {
        out.push_back("What-if: recovery " + std::string(toString(w.policy.recovery)) + " (" + name +
                      " preempts by recompute only): a victim's blocks are copied to the host as in tick-model-1 (the "
                      "link, transfer_bytes_per_tick and host_capacity_bytes; its device blocks return when the copy "
                      "lands), it waits where the profile puts a preempted request and resumes, when the blocks it "
                      "copies back into are free, by a swap-in that takes no tokens from the step's budget; a "
                      "request whose blocks are on their way back from a swap-out waits for them.");
    }
    if (!vllm && !sglang && w.policy.resume_guard != ResumeGuard::FullReservation) {
        out.push_back("resume_guard is not used: the capacity scheduler decides admission.");
    }
    return out;
}

} // namespace pl
