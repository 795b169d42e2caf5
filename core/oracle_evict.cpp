// The oracle's checks of an eviction (see oracle_impl.h and docs/receipt.md): the evict event itself, its
// candidates, and its victim recomputed from the candidates and the workload.
#include "core/oracle_impl.h"

#include "core/ledger.h" // kListedCandidates: the receipt format's list length

#include <map>
#include <tuple>

namespace pl::oracle_detail {

void Oracle::onEvict(const Value& e, const EventWhere& where, Track& t, std::int64_t seq) {
    const Config& c = workload_.config;
    const Recovery mode = modeOf(e);
    const std::int64_t prompt = intOf(e, "prompt_tokens");
    const std::int64_t generated = intOf(e, "generated_tokens");
    const std::int64_t context = intOf(e, "context_tokens");
    const std::int64_t freed = intOf(e, "freed_blocks");
    const std::int64_t shared = sharedOf(e, where);
    const std::int64_t replay = intOf(e, "replay_tokens");
    const std::int64_t swapBytes = intOf(e, "swap_out_bytes");
    const std::int64_t swapBlocks = intOf(e, "swap_blocks");
    const std::int64_t occupied = intOf(e, "occupied_blocks");
    intOf(e, "queue_position");
    intOf(e, "host_bytes");
    if (!t.running) {
        add(where + ": evicted while not running (" +
            (t.evicted ? "already evicted at seq " + n(t.evictSeq) + " and not resumed" : std::string("never admitted")) + ")");
    }
    // The replay still owed from an earlier eviction: a request evicted again before its replay finished
    // carries the rest into this eviction's replay_tokens, whatever the mode (docs/receipt.md, "evict").
    std::int64_t carried = 0;
    if (t.running && t.swapInPending) {
        add(where + ": evicted while its copy back (resume after seq " + n(t.evictSeq) +
            ") was in flight (a request whose swap-in has not landed is not a candidate)");
    }
    if (t.running && t.replayPending) {
        carried = t.recoveryEnd - context;
        if (carried < 0) {
            add(where + ": context_tokens " + n(context) + " exceeds the " + n(t.recoveryEnd) +
                " tokens its unfinished recovery rebuilds");
            carried = 0;
        }
        if (generated != t.evictGenerated) {
            add(where + ": generated_tokens " + n(generated) + " grew from " + n(t.evictGenerated) +
                " while its replay was unfinished (no request decodes on a partial context)");
        }
    } else if (t.running && !t.swapInPending && generated > 0 && context != wholeContext(t, generated)) {
        add(where + ": context_tokens " + n(context) + " is not the whole context " +
            (pending_ ? "prompt_tokens + generated_tokens - 1 (" : "prompt_tokens + generated_tokens (") +
            n(wholeContext(t, generated)) + ") of a request that was decoding with no recovery pending");
    }
    if (prompt != t.spec->prompt_tokens) {
        add(where + ": prompt_tokens " + n(prompt) + " differs from the request's " + n(t.spec->prompt_tokens));
    }
    if (context < 0 || context > prompt + generated) {
        add(where + ": context_tokens " + n(context) + " is outside 0..prompt_tokens + generated_tokens (" +
            n(prompt + generated) + ")");
    }
    const std::int64_t residency = ceilOf(context, c.block_size_tokens);
    if (freed + shared != residency) {
        add(where + ": freed_blocks " + (prefix_ ? "+ shared_blocks " : "") + "is " + n(freed + shared) +
            " but ceil(context_tokens " + n(context) + " / block_size_tokens " + n(c.block_size_tokens) + ") = " +
            n(residency));
    }
    if (freed > occupied) {
        add(where + ": freed_blocks " + n(freed) + " exceeds occupied_blocks " + n(occupied) + " before the eviction");
    }
    const std::int64_t kv = c.kv_bytes_per_token;
    const std::string plusCarried =
        carried > 0 ? " plus the " + n(carried) + " tokens its unfinished replay still owed" : std::string();
    std::int64_t kept = 0; // tokens that go to the host
    if (mode == Recovery::Recompute) {
        if (replay != context + carried || swapBytes != 0 || swapBlocks != 0) {
            add(where + ": recompute must replay all context_tokens (" + n(context) + ")" + plusCarried +
                " and swap nothing, but replay_tokens=" + n(replay) + ", swap_out_bytes=" + n(swapBytes) +
                ", swap_blocks=" + n(swapBlocks));
        }
    } else if (mode == Recovery::Swap) {
        kept = context;
        if (replay != carried || swapBytes != mul(context, kv) || swapBlocks != freed + shared) {
            add(where + ": swap must move context_tokens x kv_bytes_per_token = " + n(mul(context, kv)) +
                " bytes in its " + n(freed + shared) + " blocks (shared ones included) and replay " +
                (carried > 0 ? "only the " + n(carried) + " tokens its unfinished replay still owed" : std::string("nothing")) +
                ", but swap_out_bytes=" + n(swapBytes) + ", swap_blocks=" + n(swapBlocks) + ", replay_tokens=" + n(replay));
        }
    } else { // hybrid
        const std::int64_t swapTokens = mul(swapBlocks, c.block_size_tokens);
        kept = swapTokens;
        if (swapBlocks < 0 || swapTokens > context || swapBytes != mul(swapTokens, kv) ||
            replay != context - swapTokens + carried) {
            add(where + ": hybrid with swap_blocks " + n(swapBlocks) + " must swap " + n(swapTokens) + " tokens (<= context_tokens " +
                n(context) + ") = " + n(mul(swapTokens, kv)) + " bytes and replay " + n(context - swapTokens) + plusCarried +
                ", but swap_out_bytes=" + n(swapBytes) + ", replay_tokens=" + n(replay));
        }
    }
    const auto est = e.find("estimates");
    if (est == e.end() || !est->is_object()) {
        throw BadField{"has no 'estimates' object"};
    }
    const std::int64_t estRecompute = intOf(*est, "recompute_ticks");
    const std::int64_t estSwap = intOf(*est, "swap_ticks");
    const std::int64_t wantRecompute = ceilOf(context, c.prefill_tokens_per_tick);
    const std::int64_t wantSwap = ceilOf(mul(2, mul(context, kv)), c.transfer_bytes_per_tick);
    if (estRecompute != wantRecompute || estSwap != wantSwap) {
        add(where + ": estimates are recompute " + n(estRecompute) + ", swap " + n(estSwap) + " ticks but the declared rates give " +
            n(wantRecompute) + " and " + n(wantSwap));
    }
    Recovery asked = workload_.policy.recovery;
    if (asked == Recovery::Adaptive) {
        asked = estRecompute < estSwap   ? Recovery::Recompute
                : estSwap < estRecompute ? Recovery::Swap
                : workload_.policy.adaptive_tie == AdaptiveTie::Swap ? Recovery::Swap
                                                                     : Recovery::Recompute;
    }
    const auto fallback = e.find("fallback");
    if (fallback != e.end() && (!fallback->is_string() || fallback->get<std::string>().empty())) {
        add(where + ": fallback must be a non-empty string");
    } else if (mode != asked && fallback == e.end()) {
        add(where + ": mode " + std::string(toString(mode)) + " differs from the policy's " + std::string(toString(asked)) +
            " but no fallback says why");
    }
    const auto cands = e.find("candidates");
    if (cands == e.end() || !cands->is_array()) {
        throw BadField{"has no 'candidates' array"};
    }
    checkCandidates(e, *cands, where);
    const std::string victim = strOf(e, "request");
    const bool listed = std::any_of(cands->begin(), cands->end(), [&](const Value& cand) {
        return cand.is_object() && cand.contains("id") && cand["id"] == victim;
    });
    if (!listed) {
        add(where + ": the victim " + victim + " is not among the " + n(static_cast<std::int64_t>(cands->size())) + " candidates");
    } else {
        checkVictim(e, *cands, where);
    }
    lastEvictTick_ = intOf(e, "tick");

    ++t.evicts;
    ++sums_.evictions;
    sums_.freedBlocks += freed;
    sums_.replayTokens += std::max<std::int64_t>(0, replay - carried); // what this eviction dropped
    sums_.swapOutBytes += swapBytes;
    setRunning(t, false);
    t.evicted = true;
    t.lastMode = mode;
    t.evictSeq = seq;
    t.evictGenerated = generated;
    t.evictSwapBytes = swapBytes;
    t.evictSwapBlocks = mode == Recovery::Recompute ? 0 : swapBlocks;
    t.evictReplay = replay;
    t.evictKept = kept;
    t.evictOwed = context + carried;
    t.swapOutPending = swapBytes > 0;
    t.swapInPending = false;
    t.replayPending = false;
}

// Engine profiles: vllm-v1 admits nobody in a step that preempted ("if not preempted_reqs"); sglang retracts
// only in a decode step, which admits nobody.
void Oracle::checkNoAdmissionAfterEviction(const Value& e, const EventWhere& where) {
    const EngineProfile profile = workload_.policy.engine_profile;
    if ((profile == EngineProfile::VllmV1 || profile == EngineProfile::Sglang) && intOf(e, "tick") == lastEvictTick_) {
        add(where + ": admitted in a step that preempted (" + std::string(toString(workload_.policy.engine_profile)) +
            " admits only in a step that preempted nobody)");
    }
}


// The listed candidates are requests running at the eviction, with their workload's figures. A shortened list
// (v2, docs/receipt.md "evict") lists kListedCandidates and says how many it left out, and the listed and the
// left out together are no more than were running; which ones are listed (the greatest keys) follows from the
// victim check below, since the victim is the greatest of all.
void Oracle::checkCandidates(const Value& e, const Value& cands, const EventWhere& where) {
    std::int64_t omitted = 0;
    const auto listed = static_cast<std::int64_t>(cands.size());
    if (e.contains("candidates_omitted")) {
        omitted = intOf(e, "candidates_omitted");
        if (omitted < 1) {
            add(where + ": candidates_omitted is " + n(omitted) + " (absent when every candidate is listed)");
        }
        if (listed != static_cast<std::int64_t>(kListedCandidates)) {
            add(where + ": lists " + n(listed) + " candidates and leaves " + n(omitted) + " out; a shortened list has " +
                n(static_cast<std::int64_t>(kListedCandidates)));
        }
    }
    if (listed + std::max<std::int64_t>(omitted, 0) > running_) {
        add(where + ": " + n(listed + omitted) + " candidates (" + n(listed) + " listed, " + n(omitted) +
            " left out) but only " + n(running_) + " requests were running");
    }
    std::vector<std::string_view> ids;
    ids.reserve(cands.size());
    for (const Value& c : cands) {
        if (!c.is_object()) {
            add(where + ": a candidate is not an object");
            continue;
        }
        const std::string id = strOf(c, "id");
        const Track* track = tracks_.find(id);
        if (track == nullptr) {
            add(where + ": candidate " + id + " is not a workload request");
            continue;
        }
        const Track& ct = *track;
        ids.push_back(ct.spec->id);
        if (!ct.running) {
            add(where + ": candidate " + id + " was not running");
        } else if (ct.swapInPending) {
            add(where + ": candidate " + id + " had its copy back in flight (its blocks are the copy's target)");
        }
        const RequestSpec& spec = *ct.spec;
        if (intOf(c, "priority") != spec.priority || intOf(c, "arrival_tick") != spec.arrival_tick ||
            intOf(c, "prompt_tokens") != spec.prompt_tokens || intOf(c, "max_output_tokens") != spec.max_output_tokens ||
            strOf(c, "tenant") != spec.tenant) {
            add(where + ": candidate " + id +
                "'s priority, arrival_tick, prompt_tokens, max_output_tokens or tenant differ from its workload request's");
        }
    }
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) {
        add(where + ": candidate " + std::string(*std::adjacent_find(ids.begin(), ids.end())) + " is listed twice");
    }
}

namespace {

// A victim rule's key over a candidate's figures, maximised left to right (docs/contracts.md, "Victim rules"):
// ids and tenants compare as byte strings.
using RuleKey = std::tuple<std::int64_t, std::string, std::int64_t, std::int64_t, std::string>;

// Blocks per tenant over the listed candidates (tenant-fair's first figure when every candidate is listed).
std::map<std::string, std::int64_t> tenantSums(const Value& cands) {
    std::map<std::string, std::int64_t> sums;
    for (const Value& c : cands) {
        if (c.is_object()) {
            sums[strOf(c, "tenant")] += intOf(c, "blocks");
        }
    }
    return sums;
}

// `sums`: tenantSums of the candidates, or nullptr for a shortened list (each candidate gives tenant_blocks).
RuleKey ruleKey(VictimRule rule, const Value& c, const std::map<std::string, std::int64_t>* sums) {
    const std::int64_t arrival = intOf(c, "arrival_tick");
    switch (rule) {
    case VictimRule::PriorityNewest: return {intOf(c, "priority"), "", arrival, 0, strOf(c, "id")};
    case VictimRule::LastAdmitted: return {intOf(c, "admit_seq"), "", 0, 0, ""};
    case VictimRule::LongestContext: return {intOf(c, "context_tokens"), "", arrival, 0, strOf(c, "id")};
    case VictimRule::ShortestContext: return {-intOf(c, "context_tokens"), "", arrival, 0, strOf(c, "id")};
    case VictimRule::FewestDecoded: return {-intOf(c, "generated_tokens"), "", intOf(c, "prompt_tokens"), 0, strOf(c, "id")};
    case VictimRule::MostRemaining:
        return {intOf(c, "max_output_tokens") - intOf(c, "generated_tokens"), "", arrival, 0, strOf(c, "id")};
    case VictimRule::TenantFair:
        return {sums != nullptr ? sums->at(strOf(c, "tenant")) : intOf(c, "tenant_blocks"), strOf(c, "tenant"),
                intOf(c, "priority"), arrival, strOf(c, "id")};
    }
    return {};
}

// The candidate with the greatest key (the first of equals), or nullptr when there is none.
template <typename Key>
const Value* greatestCandidate(const Value& cands, Key key) {
    const Value* best = nullptr;
    for (const auto& c : cands) {
        if (c.is_object() && (best == nullptr || key(c) > key(*best))) best = &c;
    }
    return best;
}

} // namespace

// The victim is the greatest candidate under what chose it, computed from the candidates and the workload,
// never from the engine. Engine profiles: vllm-v1 fcfs (last-admitted): self.running.pop(), the candidate
// admitted last; vllm-v1 priority (priority-newest): max(self.running, key=(priority, arrival_time)), arrival
// order being the workload's (arrival_tick, id); trtllm-max-utilization: the last started request at or after
// the one that did not fit in activeRequests order, (priority, arrival), that is the same greatest (priority,
// arrival_tick, id); sglang (fewest-decoded): retract_decode's fewest output tokens, then the longest prompt,
// then the latest in the batch. Otherwise (tick-model-1, or a what-if rule under vllm-v1 or sglang) the
// policy's victim rule.
void Oracle::checkVictim(const Value& e, const Value& cands, const EventWhere& where) {
    const EngineProfile profile = workload_.policy.engine_profile;
    const VictimRule rule = workload_.policy.victim_rule;
    if (profile == EngineProfile::TrtllmGuaranteedNoEvict) {
        add(where + ": trtllm-guaranteed-no-evict never pauses a request (its reservations cover every started "
                    "request to completion)");
        return;
    }
    const auto byArrival = [&](const Value& c) {
        const Track* track = tracks_.find(strOf(c, "id"));
        return std::make_tuple(intOf(c, "priority"), track == nullptr ? 0 : track->spec->arrival_tick,
                               strOf(c, "id"));
    };
    const Value* expected = nullptr;
    std::string why;
    if (profile == EngineProfile::Sglang && rule == VictimRule::FewestDecoded) {
        expected = greatestCandidate(cands, [&](const Value& c) {
            return std::make_tuple(-intOf(c, "generated_tokens"), intOf(c, "prompt_tokens"), intOf(c, "admit_seq"));
        });
        why = "sglang retract_decode takes the fewest output tokens, then the longest prompt: ";
    } else if (profile == EngineProfile::TrtllmMaxUtilization) {
        expected = greatestCandidate(cands, byArrival);
        why = "trtllm-max-utilization pauses the last started request in activeRequests, ";
    } else if (profile == EngineProfile::VllmV1 && rule == VictimRule::LastAdmitted) {
        expected = greatestCandidate(cands, [&](const Value& c) { return intOf(c, "admit_seq"); });
        why = "vllm-v1 fcfs takes running.pop(), the last admitted, ";
    } else if (profile == EngineProfile::VllmV1 && rule == VictimRule::PriorityNewest) {
        expected = greatestCandidate(cands, byArrival);
        why = "vllm-v1 priority takes max(running, (priority, arrival)), ";
    } else {
        const auto sums = tenantSums(cands);
        const bool shortened = rule == VictimRule::TenantFair && e.contains("candidates_omitted");
        if (shortened) {
            // Each gives its tenant's blocks over the whole list: no fewer than the listed ones of that tenant hold.
            for (const Value& c : cands) {
                if (!c.is_object()) {
                    continue;
                }
                if (!c.contains("tenant_blocks")) {
                    add(where + ": a shortened tenant-fair list must give each candidate's tenant_blocks");
                    return;
                }
                const std::int64_t given = intOf(c, "tenant_blocks");
                const std::int64_t listedSum = sums.at(strOf(c, "tenant"));
                if (given < listedSum) {
                    add(where + ": candidate " + strOf(c, "id") + " gives tenant_blocks " + n(given) + " but the listed " +
                        "candidates of tenant " + strOf(c, "tenant") + " alone hold " + n(listedSum));
                }
            }
        }
        expected = greatestCandidate(cands, [&](const Value& c) { return ruleKey(rule, c, shortened ? nullptr : &sums); });
        why = "victim_rule " + std::string(toString(rule)) + " takes the greatest key, ";
    }
    const std::string victim = strOf(e, "request");
    if (expected != nullptr && strOf(*expected, "id") != victim) {
        add(where + ": " + why + strOf(*expected, "id") + ", not " + victim);
    }
}

} // namespace pl::oracle_detail
