#include "core/victim.h"

#include "core/request_index.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace pl {

VictimRanks VictimRanks::of(const Workload& workload) {
    const auto& reqs = workload.requests;
    VictimRanks r;
    std::vector<RequestIndex> byId(reqs.size());
    for (const RequestIndex i : RequestIndices(reqs.size())) {
        byId[i.slot()] = i;
    }
    std::sort(byId.begin(), byId.end(),
              [&](RequestIndex a, RequestIndex b) { return reqs[a.slot()].id < reqs[b.slot()].id; });
    r.id_rank.assign(reqs.size(), 0);
    r.arrival_rank.resize(reqs.size());
    std::iota(r.arrival_rank.begin(), r.arrival_rank.end(), 0);
    for (std::size_t rank = 0; rank < byId.size(); ++rank) {
        r.id_rank[byId[rank].slot()] = static_cast<std::int32_t>(rank);
    }
    return r;
}

VictimKey victimKey(const VictimContext& ctx, const Candidate& c, std::int64_t tenant_blocks) {
    // (arrival_tick, id) is encoded by arrival_rank, since requests are ranked in exactly that order.
    const std::int64_t arrivalThenId = ctx.arrival_rank[static_cast<std::size_t>(c.request)];
    const std::int64_t id = ctx.id_rank[static_cast<std::size_t>(c.request)];
    switch (ctx.rule) {
    case VictimRule::PriorityNewest: // (priority, arrival_tick, id)
        return {c.priority, arrivalThenId, 0, 0, 0};
    case VictimRule::LastAdmitted: // (admit_seq)
        return {c.admit_seq, 0, 0, 0, 0};
    case VictimRule::LongestContext: // (context_tokens, arrival_tick, id)
        return {c.context_tokens, arrivalThenId, 0, 0, 0};
    case VictimRule::ShortestContext: // (-context_tokens, arrival_tick, id)
        return {-c.context_tokens, arrivalThenId, 0, 0, 0};
    case VictimRule::FewestDecoded: // (-generated_tokens, prompt_tokens, id)
        return {-c.generated_tokens, c.prompt_tokens, id, 0, 0};
    case VictimRule::MostRemaining: // (max_output_tokens - generated_tokens, arrival_tick, id)
        return {c.max_output_tokens - c.generated_tokens, arrivalThenId, 0, 0, 0};
    case VictimRule::TenantFair: // (tenant_blocks, tenant, priority, arrival_tick, id)
        return {tenant_blocks, c.tenant, c.priority, arrivalThenId, 0};
    }
    return {};
}

namespace {

std::vector<VictimKey> keysOf(const VictimContext& ctx, std::span<const Candidate> candidates) {
    std::map<std::int32_t, std::int64_t> tenantBlocks;
    if (ctx.rule == VictimRule::TenantFair) {
        for (const auto& c : candidates) {
            tenantBlocks[c.tenant] += c.blocks;
        }
    }
    std::vector<VictimKey> keys;
    keys.reserve(candidates.size());
    for (const auto& c : candidates) {
        // A listed candidate carries its tenant's blocks over the whole list (fillTenantBlocks); one being
        // chosen among (tenant_blocks still 0: every candidate holds blocks) is summed here.
        const std::int64_t tb = ctx.rule != VictimRule::TenantFair ? 0
                                : c.tenant_blocks > 0          ? c.tenant_blocks
                                                               : tenantBlocks[c.tenant];
        keys.push_back(victimKey(ctx, c, tb));
    }
    return keys;
}

} // namespace

std::size_t chooseVictim(const VictimContext& ctx, std::span<const Candidate> candidates) {
    const auto keys = keysOf(ctx, candidates);
    return static_cast<std::size_t>(std::max_element(keys.begin(), keys.end()) - keys.begin());
}

std::vector<std::size_t> rankCandidates(const VictimContext& ctx, std::span<const Candidate> candidates) {
    const auto keys = keysOf(ctx, candidates);
    std::vector<std::size_t> order(candidates.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] > keys[b]; });
    return order;
}

void fillTenantBlocks(std::span<Candidate> candidates) {
    std::map<std::int32_t, std::int64_t> sums;
    for (const auto& c : candidates) {
        sums[c.tenant] += c.blocks;
    }
    for (auto& c : candidates) {
        c.tenant_blocks = sums[c.tenant];
    }
}

std::vector<std::size_t> listedCandidates(const Policy& policy, const VictimContext& ctx,
                                          std::span<const Candidate> candidates, std::size_t limit) {
    std::vector<std::size_t> order(candidates.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (candidates.size() <= limit) {
        return order;
    }
    if (limit == 0) {
        return {};
    }
    std::vector<VictimKey> keys;
    if (policy.engine_profile == EngineProfile::Sglang && policy.victim_rule == VictimRule::FewestDecoded) {
        keys.reserve(candidates.size());
        for (const auto& c : candidates) {
            keys.push_back(sglangRetractKey(c));
        }
    } else {
        keys = keysOf(ctx, candidates);
    }
    const auto greater = [&](std::size_t a, std::size_t b) { return keys[a] > keys[b] || (keys[a] == keys[b] && a < b); };
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(limit - 1), order.end(), greater);
    order.resize(limit);
    std::sort(order.begin(), order.end());
    return order;
}

std::string engineVictimRule(const Policy& policy) {
    switch (policy.engine_profile) {
    case EngineProfile::TickModel1: return {};
    case EngineProfile::VllmV1:
        if (policy.victim_rule == VictimRule::LastAdmitted) {
            return "vLLM fcfs: self.running.pop() took the last admitted request (scheduler.py, Scheduler.schedule)";
        }
        if (policy.victim_rule == VictimRule::PriorityNewest) {
            return "vLLM priority: max(self.running, key=(priority, arrival_time)) took the least urgent, latest "
                   "arrival (scheduler.py, Scheduler.schedule)";
        }
        return {};
    case EngineProfile::Sglang:
        if (policy.victim_rule == VictimRule::FewestDecoded) {
            return "SGLang retract_decode: the fewest output tokens, ties to the longest prompt, then the latest in "
                   "the batch (schedule_batch.py)";
        }
        return {};
    case EngineProfile::TrtllmMaxUtilization:
        return "TensorRT-LLM MAX_UTILIZATION: paused the last started request at or after the one that did not fit "
               "(capacityScheduler.cpp)";
    case EngineProfile::TrtllmGuaranteedNoEvict: return {};
    }
    return {};
}

std::string engineRecoveryWhatIf(const Policy& policy, Recovery mode) {
    if (policy.engine_profile == EngineProfile::TickModel1 || mode == Recovery::Recompute) {
        return {};
    }
    return "a what-if: " + std::string(toString(policy.engine_profile)) +
           " recovers by recompute (docs/engines.md, \"Swap as a what-if\")";
}

} // namespace pl
