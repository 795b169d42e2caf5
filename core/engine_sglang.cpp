// The sglang engine profile: one tick is one iteration of SGLang's scheduler with the overlap scheduler and
// mixed chunks off (python/sglang/srt/managers/scheduler.py @ 000eaffa, get_next_batch_to_run). docs/engines.md
// is its prose. An iteration runs EITHER a prefill batch OR a decode batch:
//   - get_new_batch_prefill: the request in chunked prefill first, then the waiting queue in order (fcfs),
//     each admitted while PrefillAdder's budget allows: its prompt (+ generated tokens after a retraction) plus
//     min(max_new_tokens, 4096) must stay below the free tokens less what the running batch reserves
//     (each running request's remaining output x new_token_ratio); the chunked-prefill size caps the tokens
//     prefilled in one batch; --max-running-requests caps the batch. If anything is prefilled, nobody decodes.
//   - otherwise update_running_batch: if the batch's next decode step does not fit (check_decode_mem),
//     retract_decode retracts over the whole batch, fewest output tokens first (ties: the longest prompt), at
//     least one, until the rest fits; the retracted go to the tail of the waiting queue and new_token_ratio is
//     re-estimated from the survivors; else the ratio decays by (0.7 - 0.098) / 600 toward 0.098. The
//     survivors decode one token each.
// The sampled token's KV is written by the next step (as in every engine profile); a retracted request
// re-prefills its prompt and every generated token.
#include "core/engine_impl.h"

#include <algorithm>
#include <iterator>
#include <span>
#include <vector>

namespace pl {

namespace {

constexpr std::int64_t kPpm = 1000000;
constexpr std::int64_t kInitRatioPpm = 700000;                                   // default_init_new_token_ratio
constexpr std::int64_t kMinRatioPpm = kInitRatioPpm * 14 / 100;                   // x default_min_new_token_ratio_factor
constexpr std::int64_t kRatioDecayPpm = (kInitRatioPpm - kMinRatioPpm) / 600;     // / default_new_token_ratio_decay_steps
constexpr std::int64_t kRetractDecodeSteps = 20;                                  // global_config.retract_decode_steps
constexpr std::int64_t kClipMaxNewTokens = 4096;                                  // CLIP_MAX_NEW_TOKENS_ESTIMATION

} // namespace

void EngineImpl::scheduleSglang() {
    const std::int64_t bs = c_.block_size_tokens;
    const std::int64_t chunkSize = stepTokenBudget();
    s_.quiet_decode_only = false;
    scheduled_.clear();

    // 1. get_new_batch_prefill. PrefillAdder: rem_total_tokens = available - the running batch's reservation.
    std::int64_t runningBs = 0;
    std::int64_t reservedPpm = 0;
    for (auto r : s_.running) {
        const auto& st = rq(r);
        if (st.phase == Phase::Decode) {
            ++runningBs;
            reservedPpm += std::min(spec(r).max_output_tokens - st.generated_tokens, kClipMaxNewTokens) * s_.new_token_ratio_ppm;
        }
    }
    std::int64_t remTotal = s_.free_blocks * bs - reservedPpm / kPpm;
    std::int64_t remInput = chunkSize; // rem_input_tokens and rem_chunk_tokens (max_prefill_tokens = chunk size)
    // The chunked request (a prefill or re-prefill not finished) goes first: adder.add_chunked_req.
    for (auto r : s_.running) {
        auto& st = rq(r);
        if ((st.phase != Phase::Prefill && st.phase != Phase::Replay) || remInput <= 0) {
            continue;
        }
        const std::int64_t tokens = std::min(target(r) - st.computed_tokens, remInput);
        const std::int64_t need = blocksFor(st.computed_tokens + tokens) - st.blocks;
        if (tokens <= 0 || need > s_.free_blocks) {
            continue;
        }
        takeBlocks(r, need);
        scheduled_.push_back({r, tokens, need});
        remInput -= tokens;
        remTotal -= tokens;
    }
    std::int64_t batch = runningBs + static_cast<std::int64_t>(scheduled_.size());
    for (auto r : s_.running) {
        batch += rq(r).phase == Phase::SwapIn ? 1 : 0; // (swap what-if) copying back in: in the batch
    }
    for (auto it = s_.waiting.begin(); it != s_.waiting.end() && remInput > 0;) {
        if (c_.max_num_seqs > 0 && batch >= c_.max_num_seqs) {
            break; // get_num_allocatable_reqs <= 0: batch_is_full
        }
        const RequestIndex r = it->second;
        auto& st = rq(r);
        const auto next = std::next(it); // (a resumed request leaves the queue)
        if (const SwapResume resumed = tryResumeSwapped(r, s_.free_blocks); resumed != SwapResume::NotSwapped) {
            if (resumed == SwapResume::Blocked) {
                break;
            }
            batch += resumed == SwapResume::Resumed ? 1 : 0;
            it = next;
            continue;
        }
        // extend_input_len: fill_ids = origin_input_ids + output_ids (a retracted request re-prefills its outputs).
        const std::int64_t extend = target(r) - st.computed_tokens;
        const std::int64_t maxNew = std::min(spec(r).max_output_tokens, kClipMaxNewTokens);
        if (extend + maxNew >= remTotal) {
            break; // AddReqResult.NO_TOKEN
        }
        if (extend > remInput && !scheduled_.empty()) {
            break; // AddReqResult.OTHER: the batch's prefill budget is spent
        }
        const std::int64_t tokens = std::min(extend, remInput);
        const std::int64_t need = blocksFor(st.computed_tokens + tokens) - st.blocks;
        if (need > s_.free_blocks) {
            break;
        }
        ++it;
        admitForRecompute(r, need);
        scheduled_.push_back({r, tokens, need});
        ++batch;
        remInput -= tokens;
        remTotal -= tokens < extend ? tokens : extend + maxNew; // _prefill_one_req (a chunk reserves no output)
        if (tokens < extend) {
            break; // it becomes the chunked request
        }
    }
    if (!scheduled_.empty()) {
        for (const auto& step : scheduled_) {
            progress(step.request, step.tokens); // a prefill batch: the running batch does not decode
        }
        return;
    }

    // 2. update_running_batch: a decode batch.
    std::vector<RequestIndex> decoders;
    for (auto r : s_.running) {
        if (rq(r).phase == Phase::Decode) decoders.push_back(r);
    }
    if (decoders.empty()) {
        return;
    }
    // check_decode_mem: the blocks the batch's next step takes (the pending token's KV crossing a block edge).
    auto stepBlocks = [&](const std::vector<RequestIndex>& batchNow) {
        std::int64_t n = 0;
        for (auto r : batchNow) n += rq(r).computed_tokens >= rq(r).blocks * bs ? 1 : 0;
        return n;
    };
    // (Swap what-if: blocks on their way back from swap-outs count as coming; a decode that does not fit waits.)
    if (stepBlocks(decoders) > blocksComing()) {
        logPressure(RequestIndex::none(), PressureTrigger::RetractDecode, stepBlocks(decoders));
        bool firstIter = true;
        while (firstIter || stepBlocks(decoders) > blocksComing()) {
            if (decoders.size() == 1) {
                break; // "Corner case: only one request left"
            }
            firstIter = false;
            // The candidates are the decode batch (a request in chunked prefill is not in it).
            const std::size_t begin = e_.ledger_.candidates.size();
            for (auto r : decoders) {
                appendCandidate(r);
            }
            const std::size_t count = decoders.size();
            const RequestIndex victim = retractionVictim(begin, count);
            evict(victim, begin, count);
            std::erase(decoders, victim);
        }
        std::int64_t decoded = 0;
        std::int64_t maxNew = 0;
        for (auto r : decoders) {
            decoded += rq(r).generated_tokens;
            maxNew += spec(r).max_output_tokens;
        }
        const auto survivors = static_cast<std::int64_t>(decoders.size());
        s_.new_token_ratio_ppm = std::min(kPpm, (decoded + kRetractDecodeSteps * survivors) * kPpm / std::max<std::int64_t>(1, maxNew));
    } else {
        s_.new_token_ratio_ppm = std::max(s_.new_token_ratio_ppm - kRatioDecayPpm, kMinRatioPpm);
    }
    for (auto r : decoders) {
        const std::int64_t need = blocksFor(rq(r).computed_tokens + 1) - rq(r).blocks;
        if (need > s_.free_blocks) {
            continue; // the one request left does not fit: it waits (SGLang asserts there is room)
        }
        takeBlocks(r, need);
        progress(r, 1);
    }
    noteQuietDecodeStep();
}

// Whether the next d iterations would all be decode batches without a retraction, given that the free pool
// covers their block edges (skipQuiescentTicks checks that): the waiting queue's head is not admitted in any of
// them. Free blocks only shrink in the stretch, so a head whose first chunk's blocks are not free now never
// fits. Else PrefillAdder's rem_total_tokens is at most the free tokens now less the reservation of the last
// iteration, whose remaining outputs and ratio are the smallest of the stretch (both only shrink: each decode
// generates a token, and without a retraction the ratio decays), so a head that is NO_TOKEN against that
// bound is NO_TOKEN in every iteration.
bool EngineImpl::sglangStepsAreQuiet(std::int64_t d) const {
    if (s_.waiting.empty()) {
        return true;
    }
    if (c_.max_num_seqs > 0 && static_cast<std::int64_t>(s_.running.size()) >= c_.max_num_seqs) {
        return true; // batch_is_full
    }
    const RequestIndex head = s_.waiting.begin()->second;
    const auto& st = s_.req[head];
    const std::int64_t chunkSize = stepTokenBudget();
    const std::int64_t extend = target(head) - st.computed_tokens;
    if (blocksFor(st.computed_tokens + std::min(extend, chunkSize)) - st.blocks > s_.free_blocks) {
        return true;
    }
    std::int64_t remaining = 0; // sum of min(max_new_tokens - output, 4096) at the last iteration
    for (auto r : s_.running) {
        remaining += std::min(spec(r).max_output_tokens - s_.req[r].generated_tokens - (d - 1),
                              kClipMaxNewTokens);
    }
    const std::int64_t ratio = std::max(s_.new_token_ratio_ppm - (d - 1) * kRatioDecayPpm, kMinRatioPpm);
    const std::int64_t bound = s_.free_blocks * c_.block_size_tokens - remaining * ratio / kPpm;
    return extend + std::min(spec(head).max_output_tokens, kClipMaxNewTokens) >= bound;
}

// new_token_ratio after `steps` decode iterations without a retraction (each decays it, down to the floor).
void EngineImpl::sglangDecayRatio(std::int64_t steps) {
    s_.new_token_ratio_ppm = std::max(s_.new_token_ratio_ppm - steps * kRatioDecayPpm, kMinRatioPpm);
}

// retract_decode's order: sorted by (len(output_ids), -len(origin_input_ids)) descending and popped from the
// end, so the fewest output tokens go first, ties to the longest prompt; Python's stable sort leaves equal keys
// in batch order, so the last of them in the batch (the latest admitted) is popped. Under another victim_rule
// (a what-if) that rule chooses.
RequestIndex EngineImpl::retractionVictim(std::size_t begin, std::size_t count) const {
    const auto cands = std::span<const Candidate>(e_.ledger_.candidates).subspan(begin, count);
    if (p_.victim_rule != VictimRule::FewestDecoded) {
        return RequestIndex(cands[chooseVictim(e_.ranks_.context(p_.victim_rule), cands)].request);
    }
    const Candidate* best = &cands.front();
    for (const auto& c : cands) {
        if (sglangRetractKey(c) > sglangRetractKey(*best)) best = &c;
    }
    return RequestIndex(best->request); // (a candidate carries the receipt's int32)
}

} // namespace pl
