// The vllm-v1 engine profile: one tick is one step of vLLM V1's synchronous engine, Scheduler.schedule()
// (vllm/v1/core/sched/scheduler.py @ 00024d31) followed by the forward and update_from_output() of the same
// step. docs/engines.md is its prose and says what it leaves out. What differs from tick-model-1:
//   - one token budget per step, max_num_batched_tokens, that decodes spend too (a decode is a 1-token chunk);
//   - the sampled token's KV is written by the next step, so a decoding request holds prompt + generated - 1
//     tokens and crosses block edges one step later than in tick-model-1;
//   - the victim is taken from the whole running list when allocate_slots fails: fcfs `self.running.pop()`
//     (the last admitted, victim_rule last-admitted) or priority `max(self.running, key=(priority,
//     arrival_time))` (victim_rule priority-newest); a victim already scheduled this step gives its tokens
//     back; a requester that preempted itself ends the running loop;
//   - a preempted request goes back to the head of the waiting queue (fcfs) or to its heap place (priority),
//     recomputes prompt + generated tokens, and no waiting request is admitted in a step that preempted;
//   - admission: max_num_seqs running requests at most, strictly head-of-line on blocks, chunked prefill from
//     whatever budget is left; no resume guard and no preempt-ahead (vLLM has neither);
//   - enable_prefix_caching (kv_cache_manager.py get_computed_blocks, block_pool.py): a waiting request first
//     takes the leading blocks still cached (its declared prefix; after a preemption, what is left of its own
//     blocks), and every freed block joins one free queue, reused oldest first (engine_blocks.cpp).
#include "core/engine_impl.h"

#include <algorithm>
#include <iterator>

namespace pl {

// One step. scheduled_ holds what the running loop and the waiting loop scheduled, executed at the end.
void EngineImpl::scheduleVllm() {
    std::int64_t budget = stepTokenBudget();
    scheduled_.clear();
    s_.quiet_decode_only = false;

    // 1. The RUNNING loop, in self.running order (admission order; a resumed request is appended last).
    for (std::size_t i = 0; i < s_.running.size() && budget > 0; ++i) {
        const RequestIndex r = s_.running[i];
        auto& st = rq(r);
        if (!isRunnable(st.phase)) {
            continue; // preempted earlier in this step (removed from self.running in vLLM)
        }
        // num_new_tokens = num_tokens - num_computed_tokens, at most the budget left.
        const std::int64_t tokens = std::min(target(r) - st.computed_tokens, budget);
        if (tokens <= 0) {
            continue;
        }
        // allocate_slots: cdiv(num_computed_tokens + num_new_tokens, block_size) - len(req_blocks) new blocks.
        const std::int64_t need = blocksFor(st.computed_tokens + tokens) - st.blocks;
        bool logged = false;
        bool preemptedItself = false;
        budgetLeft_ = budget;
        bool waits = false;
        while (need > s_.free_blocks) {
            if (need <= blocksComing()) {
                waits = true; // (swap what-if) enough blocks are on their way back from swap-outs: it waits for them
                break;
            }
            // "The request cannot be scheduled. Preempt the lowest-priority request."
            if (!evictOne(r, PressureTrigger::AllocationFailed, logged, need,
                          [](EngineImpl& e, RequestIndex victim) { e.takeBackStep(victim); })) {
                preemptedItself = true; // nobody holds blocks (cannot happen: r itself does)
                break;
            }
            if (!isRunnable(st.phase)) {
                preemptedItself = true; // "if preempted_req == request: break"
                break;
            }
        }
        budget = budgetLeft_;
        if (preemptedItself) {
            break; // new_blocks is None: the running loop ends here
        }
        if (waits) {
            continue;
        }
        takeBlocks(r, need);
        scheduled_.push_back({r, tokens, need});
        budget -= tokens;
    }

    // 2. The WAITING loop, only in a step that preempted nobody ("if not preempted_reqs").
    if (!evictedThisTick_) {
        std::int64_t running = 0;
        for (auto r : s_.running) {
            running += isRunnable(rq(r).phase) || rq(r).phase == Phase::SwapIn ? 1 : 0;
        }
        for (auto it = s_.waiting.begin(); it != s_.waiting.end() && budget > 0;) {
            if (c_.max_num_seqs > 0 && running >= c_.max_num_seqs) {
                break; // len(self.running) == self.max_num_running_reqs
            }
            const RequestIndex r = it->second;
            const auto next = std::next(it); // (a resumed request leaves the queue)
            if (const SwapResume resumed = tryResumeSwapped(r, s_.free_blocks - p_.watermark_blocks);
                resumed != SwapResume::NotSwapped) {
                if (resumed == SwapResume::Blocked) {
                    break;
                }
                running += resumed == SwapResume::Resumed ? 1 : 0;
                it = next;
                continue;
            }
            const VllmAdmission a = vllmAdmission(r, budget);
            if (a.fromFree > s_.free_blocks - p_.watermark_blocks) {
                break; // allocate_slots returned None: head-of-line, nobody behind it is tried
            }
            ++it;
            admitForRecompute(r, a.newBlocks, a.hits);
            ++running;
            scheduled_.push_back({r, a.tokens, a.newBlocks});
            budget -= a.tokens;
        }
    }

    // 3. The forward and update_from_output: every scheduled request's tokens are computed; one that reaches
    // num_tokens samples a token (and finishes at output_tokens, freeing its blocks).
    for (const auto& step : scheduled_) {
        if (isRunnable(rq(step.request).phase)) {
            progress(step.request, step.tokens);
        }
    }

    noteQuietDecodeStep();
}

// Whether the steps of a quiescent stretch would be pure decode steps (skipQuiescentTicks): the budget covers
// a token for every running request, and the waiting loop admits nobody. The head's tokens, its blocks and
// the budget left after the decodes stay as they are while decode steps only shrink the free pool, so a head
// that cannot be admitted now cannot be in the stretch.
bool EngineImpl::vllmStepsAreQuiet() {
    const auto running = static_cast<std::int64_t>(s_.running.size());
    const std::int64_t left = stepTokenBudget() - running;
    if (left < 0) {
        return false; // the budget runs out inside the running loop: not every request decodes
    }
    if (s_.waiting.empty() || left == 0 || (c_.max_num_seqs > 0 && running >= c_.max_num_seqs)) {
        return true;
    }
    return vllmAdmission(s_.waiting.begin()->second, left).fromFree > s_.free_blocks - p_.watermark_blocks;
}

// The waiting loop's view of r (a waiting request holds nothing and has computed nothing): with
// enable_prefix_caching, get_computed_blocks takes the longest run of leading blocks still cached, at most
// num_tokens - 1 tokens (one is always computed; a resumed request hits what is left of its own blocks, a new
// one its declared prefix). num_new_tokens = num_tokens - that, at most `budget`: a resumed request recomputes its
// prompt and every token it generated (the last one's KV was never written). allocate_slots takes the new blocks
// and the hit blocks that sit in the free queue (ref_cnt 0) out of the free blocks.
EngineImpl::VllmAdmission EngineImpl::vllmAdmission(RequestIndex r, std::int64_t budget) {
    VllmAdmission a;
    std::int64_t shared = 0;
    if (c_.enable_prefix_caching) {
        a.hits = prefixHits(r, (target(r) - 1) / c_.block_size_tokens, shared);
    }
    const std::int64_t cached = a.hits * c_.block_size_tokens;
    a.tokens = std::min(target(r) - cached, budget);
    a.newBlocks = blocksFor(cached + a.tokens) - a.hits;
    a.fromFree = a.newBlocks + a.hits - shared;
    return a;
}

// A victim that was already scheduled this step: its tokens go back to the budget and the blocks allocated
// for its step are released before it is evicted (scheduler.py: scheduled_running_reqs.remove(preempted_req),
// token_budget += num_scheduled_tokens.pop(...), req_to_new_blocks.pop(...)).
void EngineImpl::takeBackStep(RequestIndex victim) {
    for (auto it = scheduled_.begin(); it != scheduled_.end(); ++it) {
        if (it->request == victim) {
            budgetLeft_ += it->tokens;
            releaseBlocks(victim, it->new_blocks, true);
            scheduled_.erase(it);
            return;
        }
    }
}

} // namespace pl
