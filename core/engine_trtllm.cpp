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
#include "core/engine_impl.h"

#include <algorithm>
#include <limits>

namespace pl {

void EngineImpl::scheduleTrtllm() {
    const bool noEvict = p_.engine_profile == EngineProfile::TrtllmGuaranteedNoEvict;
    std::int64_t budget = stepTokenBudget();
    const std::int64_t maxRequests = c_.max_num_seqs > 0 ? c_.max_num_seqs : std::numeric_limits<std::int64_t>::max();
    scheduled_.clear();

    // activeRequests, in (priority, arrival) order: the running requests (sorted here; a few hundred at most)
    // merged on the fly with the waiting queue, whose key is the same (priority, index) order. Every pass below
    // stops at the first request it cannot take, so a long queue costs nothing beyond its head.
    std::vector<RequestIndex>& running = trtRunning_;
    running.clear();
    for (auto r : s_.running) {
        if (isRunnable(rq(r).phase)) running.push_back(r);
    }
    const auto key = [&](RequestIndex r) { return std::pair(spec(r).priority, r); };
    std::sort(running.begin(), running.end(), [&](RequestIndex a, RequestIndex b) { return key(a) < key(b); });
    // Started: it holds blocks (generating, or part of its context computed); a paused request has none.
    const auto started = [&](RequestIndex r) { return isRunnable(rq(r).phase) && rq(r).blocks > 0; };
    std::int64_t count = 0;
    bool budgetSpent = false;
    // Schedule r's step now (its blocks are taken at once, so `free_blocks` is what is left for the rest).
    // False when the token limit stops the micro batch here.
    const auto schedule = [&](RequestIndex r) {
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
        const auto remaining = [&](RequestIndex r) {
            return std::max<std::int64_t>(0, blocksFor(spec(r).prompt_tokens + spec(r).max_output_tokens) - rq(r).blocks);
        };
        std::vector<RequestIndex> pending; // started but still in their context (chunked)
        for (auto r : running) { // generation in progress first
            if (count >= maxRequests || budgetSpent) break;
            if (rq(r).phase == Phase::Decode) {
                if (!schedule(r)) break;
                available -= remaining(r) + scheduled_.back().new_blocks; // reserved to completion (taken now included)
            } else {
                pending.push_back(r);
            }
        }
        // Then context requests, head-of-line: the started ones and the waiting queue, in activeRequests order.
        auto w = s_.waiting.begin();
        std::size_t p = 0;
        while (count < maxRequests && !budgetSpent && (p < pending.size() || w != s_.waiting.end())) {
            const bool fromPending = w == s_.waiting.end() || (p < pending.size() && key(pending[p]) < *w);
            const RequestIndex r = fromPending ? pending[p] : w->second;
            const std::int64_t reserve = remaining(r);
            if (reserve > available) break;
            if (fromPending) {
                ++p;
            } else {
                ++w; // admitForRecompute takes it out of the queue
            }
            if (!schedule(r)) break;
            available -= reserve;
        }
    } else {
        // The search range [current, end): `hi` running requests may still be paused (those after it are, or
        // lie beyond `end`); a waiting request past `endKey` is out of range.
        std::size_t ri = 0;
        std::size_t hi = running.size();
        auto w = s_.waiting.begin();
        std::pair<std::int64_t, RequestIndex> endKey{std::numeric_limits<std::int64_t>::max(), RequestIndex(0)};
        while (!budgetSpent) {
            const bool haveRunning = ri < hi;
            const bool haveWaiting = w != s_.waiting.end() && *w < endKey;
            if (!haveRunning && !haveWaiting) break;
            const bool fromRunning = haveRunning && (!haveWaiting || key(running[ri]) < *w);
            const RequestIndex r = fromRunning ? running[ri] : w->second;
            const auto& st = rq(r);
            // (Swap what-if) a swapped request resumes in its activeRequests place when the blocks it copies back
            // into are free; one still copying out is passed over.
            const bool swapped = st.phase == Phase::SwapOut || st.phase == Phase::SwappedOut;
            // getNeededBlocksOneStep: a context not started needs its whole prompt's blocks; one part-way needs
            // none more than its next chunk (at most what is left, at most the token limit left: schedule() takes
            // no more); a generation step one block at an edge.
            const std::int64_t next = st.phase == Phase::Decode ? 1 : std::min(target(r) - st.computed_tokens, budget);
            const std::int64_t need = swapped    ? blocksFor(st.swapped_tokens)
                                      : started(r) ? blocksFor(std::min(target(r), st.computed_tokens + std::max<std::int64_t>(1, next))) - st.blocks
                                                   : blocksFor(target(r));
            const auto passOver = [&] { fromRunning ? (void)++ri : (void)++w; };
            if (st.phase == Phase::SwapOut || (need > s_.free_blocks && need <= blocksComing())) {
                passOver(); // still copying out, or the blocks it needs are on their way back from swap-outs: it waits
                continue;
            }
            if (count < maxRequests && need <= s_.free_blocks) {
                passOver();
                if (swapped) {
                    resumeBySwapIn(r); // no step this iteration: it computes once its copy lands
                    continue;
                }
                if (!schedule(r)) break;
                continue;
            }
            // Pause the last started request in [current, end): the last running one not yet scheduled.
            if (ri >= hi) break; // none started at or after it
            const RequestIndex victim = running[hi - 1];
            logPressure(r, need <= s_.free_blocks ? PressureTrigger::RequestCap : PressureTrigger::AllocationFailed, need);
            const std::size_t begin = e_.ledger_.candidates.size();
            for (std::size_t k = ri; k < hi; ++k) {
                appendCandidate(running[k]); // the started requests in the search range
            }
            evict(victim, begin, hi - ri);
            --hi;
            endKey = key(victim);
            if (victim == r) break; // it paused itself: the range is empty
        }
    }

    for (const auto& step : scheduled_) {
        if (isRunnable(rq(step.request).phase)) {
            progress(step.request, step.tokens);
        }
    }
    noteQuietDecodeStep();
}

// Whether the iterations of a quiescent stretch (skipQuiescentTicks: every running request decoding, the free
// pool covering every block edge) would be pure generation steps: the token limit and max_num_seqs cover the
// batch, and the waiting queue's head is not taken (also when its context is longer than the token limit the
// decodes leave: a context is chunked only in an otherwise empty micro batch).
//   MAX_UTILIZATION: the head must come after every running request in activeRequests order (one before them
//     is either scheduled or makes the scheduler pause a running request), and its whole prompt's blocks must
//     not be free; free blocks only shrink in the stretch, so it is not taken later either.
//   GUARANTEED_NO_EVICT: its reservation to completion must exceed what the running requests' reservations
//     leave; each decode moves blocks from the free pool into the reservation it came from, so what is left
//     does not change in the stretch.
bool EngineImpl::trtllmStepsAreQuiet() const {
    const auto running = static_cast<std::int64_t>(s_.running.size());
    const std::int64_t budget = stepTokenBudget();
    if (running > budget || (c_.max_num_seqs > 0 && running > c_.max_num_seqs)) {
        return false;
    }
    if (s_.waiting.empty()) {
        return true;
    }
    const RequestIndex head = s_.waiting.begin()->second;
    if (p_.engine_profile == EngineProfile::TrtllmMaxUtilization) {
        const auto key = [&](RequestIndex r) { return std::pair(spec(r).priority, r); };
        for (auto r : s_.running) {
            if (key(r) > key(head)) {
                return false;
            }
        }
    }
    if ((c_.max_num_seqs > 0 && running == c_.max_num_seqs) || running == budget) {
        return true; // nobody else can be scheduled
    }
    const auto& st = s_.req[head];
    if (running > 0 && target(head) - st.computed_tokens > budget - running) {
        return true; // its context does not fit the token limit left after the decodes, and only a micro batch
                     // with nothing else in it takes a chunk: the batch stops at it, every iteration
    }
    const auto reservation = [&](RequestIndex r) {
        return blocksFor(spec(r).prompt_tokens + spec(r).max_output_tokens) - s_.req[r].blocks;
    };
    if (p_.engine_profile == EngineProfile::TrtllmGuaranteedNoEvict) {
        std::int64_t available = s_.free_blocks;
        for (auto r : s_.running) {
            available -= std::max<std::int64_t>(0, reservation(r));
        }
        return std::max<std::int64_t>(0, reservation(head)) > available;
    }
    return blocksFor(target(head)) > s_.free_blocks;
}

} // namespace pl
