// The trtllm-max-utilization and trtllm-guaranteed-no-evict engine profiles: one tick is one iteration of
// TensorRT-LLM's batch manager, the capacity scheduler (cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp @
// 02a10fed) then the micro-batch scheduler's token limit (microBatchScheduler.cpp @ 0a949d31) and the forward.
// docs/engines.md is its prose; capacitySchedulerTest.cpp is what it is proven on.
//   - activeRequests: every arrived, unfinished request in priority order, FIFO among equals
//     (insertRequestInOrder); a paused request keeps its place.
//   - MAX_UTILIZATION (MaxUtilizationScheduler): in that order, a request is scheduled when its blocks for one
//     step (getNeededBlocksOneStep: a new context its whole prompt, a generation step a block at an edge) are
//     free and fewer than max_num_seqs are scheduled; otherwise the last *started* request at or after it is
//     paused (its blocks freed, it recomputes prompt + generated later) and the same request is tried again;
//     with none started, the loop stops.
//   - GUARANTEED_NO_EVICT (GuaranteedNoEvictScheduler): the generating requests are scheduled first, each
//     reserving the blocks it still needs to finish (getRemainingBlocksToCompletion: prompt + max new tokens,
//     less what it holds); then new context requests while their whole reservation fits (head-of-line).
//     Nothing is ever paused.
//   - The micro-batch scheduler runs them in that order until max_num_batched_tokens (max_num_tokens) would be
//     exceeded: a generation step is one token, a context its remaining prompt (a chunk, in multiples of the
//     block size, only when the whole does not fit and nothing else is scheduled yet).
#include "engine_impl.h"

#include <algorithm>
#include <limits>

namespace pl {

void EngineImpl::scheduleTrtllm() {
    const bool noEvict = p_.engine_profile == EngineProfile::TrtllmGuaranteedNoEvict;
    std::int64_t budget = c_.max_num_batched_tokens > 0 ? c_.max_num_batched_tokens : c_.prefill_tokens_per_tick;
    const std::int64_t maxRequests = c_.max_num_seqs > 0 ? c_.max_num_seqs : std::numeric_limits<std::int64_t>::max();
    s_.quiet_decode_only = false;
    scheduled_.clear();

    // activeRequests, in (priority, arrival) order: the waiting queue's key order.
    std::vector<std::int32_t> active;
    for (auto r : s_.running) {
        if (isRunnable(rq(r).phase)) active.push_back(r);
    }
    for (const auto& entry : s_.waiting) active.push_back(entry.second);
    std::sort(active.begin(), active.end(), [&](std::int32_t a, std::int32_t b) {
        return std::pair(spec(a).priority, a) < std::pair(spec(b).priority, b);
    });
    // Started: it holds blocks (generating, or part of its context computed); a paused request has none.
    const auto started = [&](std::int32_t r) { return isRunnable(rq(r).phase) && rq(r).blocks > 0; };
    std::int64_t count = 0;
    bool budgetSpent = false;
    // Schedule r's step now (its blocks are taken at once, so `free_blocks` is what is left for the rest).
    // False when the token limit stops the micro batch here.
    const auto schedule = [&](std::int32_t r) {
        auto& st = rq(r);
        const std::int64_t left = target(r) - st.computed_tokens;
        std::int64_t tokens = std::min(left, budget);
        if (tokens < left) {
            tokens = scheduled_.empty() ? tokens / c_.block_size_tokens * c_.block_size_tokens : 0;
        }
        if (tokens <= 0) {
            budgetSpent = true;
            return false;
        }
        const std::int64_t need = blocksFor(st.computed_tokens + tokens) - st.blocks;
        if (started(r)) {
            takeBlocks(r, need);
        } else {
            admitForRecompute(r, need);
        }
        scheduled_.push_back({r, tokens, need});
        budget -= tokens;
        ++count;
        return true;
    };

    if (noEvict) {
        std::int64_t available = s_.free_blocks;
        const auto remaining = [&](std::int32_t r) {
            return std::max<std::int64_t>(0, blocksFor(spec(r).prompt_tokens + spec(r).max_output_tokens) - rq(r).blocks);
        };
        std::vector<std::int32_t> pending;
        for (auto r : active) { // generation in progress first
            if (count >= maxRequests || budgetSpent) break;
            if (started(r) && rq(r).phase == Phase::Decode) {
                if (!schedule(r)) break;
                available -= remaining(r) + scheduled_.back().new_blocks; // reserved to completion (taken now included)
            } else {
                pending.push_back(r);
            }
        }
        for (auto r : pending) { // then context requests, head-of-line
            if (count >= maxRequests || budgetSpent) break;
            const std::int64_t reserve = remaining(r);
            if (reserve > available) break;
            if (!schedule(r)) break;
            available -= reserve;
        }
    } else {
        std::size_t end = active.size();
        for (std::size_t i = 0; i < end && !budgetSpent;) {
            const std::int32_t r = active[i];
            const auto& st = rq(r);
            // getNeededBlocksOneStep: a context not started needs its whole prompt's blocks; one part-way needs
            // none more than its next chunk; a generation step one block at an edge.
            const std::int64_t need = started(r) ? blocksFor(std::min(target(r), st.computed_tokens + 1)) - st.blocks
                                                 : blocksFor(target(r));
            if (count < maxRequests && need <= s_.free_blocks) {
                if (!schedule(r)) break;
                ++i;
                continue;
            }
            // Pause the last started request in [i, end).
            std::size_t j = end;
            while (j > i && !started(active[j - 1])) --j;
            if (j == i) break;
            const std::int32_t victim = active[j - 1];
            logPressure(r, need <= s_.free_blocks ? PressureTrigger::RequestCap : PressureTrigger::AllocationFailed, need);
            const std::size_t begin = e_.ledger_.candidates.size();
            gatherCandidates();
            // The candidates are the started requests at or after r in activeRequests (the search range).
            auto& cands = e_.ledger_.candidates;
            cands.erase(std::remove_if(cands.begin() + static_cast<std::ptrdiff_t>(begin), cands.end(),
                                       [&](const Candidate& c) {
                                           const auto pos = std::find(active.begin(), active.end(), c.request) - active.begin();
                                           return static_cast<std::size_t>(pos) < i || static_cast<std::size_t>(pos) >= end;
                                       }),
                        cands.end());
            evict(victim, begin, cands.size() - begin);
            end = j - 1;
        }
    }

    for (const auto& step : scheduled_) {
        if (isRunnable(rq(step.request).phase)) {
            progress(step.request, step.tokens);
        }
    }
}

} // namespace pl
