#include "core/workload.h"

#include <algorithm>
#include <array>
#include <utility>

namespace pl {
namespace {

template <typename E, std::size_t N>
std::optional<E> lookup(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view s) {
    for (const auto& [value, name] : table) {
        if (name == s) {
            return value;
        }
    }
    return std::nullopt;
}

template <typename E, std::size_t N>
std::string_view nameOf(const std::array<std::pair<E, std::string_view>, N>& table, E v) {
    for (const auto& [value, name] : table) {
        if (value == v) {
            return name;
        }
    }
    return "?";
}

constexpr std::array<std::pair<Recovery, std::string_view>, 4> kRecoveries{{
    {Recovery::Recompute, "recompute"},
    {Recovery::Swap, "swap"},
    {Recovery::Adaptive, "adaptive"},
    {Recovery::Hybrid, "hybrid"},
}};
constexpr std::array<std::pair<VictimRule, std::string_view>, 7> kVictimRules{{
    {VictimRule::PriorityNewest, "priority-newest"},
    {VictimRule::LastAdmitted, "last-admitted"},
    {VictimRule::LongestContext, "longest-context"},
    {VictimRule::ShortestContext, "shortest-context"},
    {VictimRule::FewestDecoded, "fewest-decoded"},
    {VictimRule::MostRemaining, "most-remaining"},
    {VictimRule::TenantFair, "tenant-fair"},
}};
constexpr std::array<std::pair<AdaptiveTie, std::string_view>, 2> kTies{{
    {AdaptiveTie::Recompute, "recompute"},
    {AdaptiveTie::Swap, "swap"},
}};
constexpr std::array<std::pair<ResumeGuard, std::string_view>, 2> kGuards{{
    {ResumeGuard::FullReservation, "full-reservation"},
    {ResumeGuard::NextBlock, "next-block"},
}};

constexpr std::array<std::pair<EngineProfile, std::string_view>, 5> kProfiles{{
    {EngineProfile::TickModel1, "tick-model-1"},
    {EngineProfile::VllmV1, "vllm-v1"},
    {EngineProfile::Sglang, "sglang"},
    {EngineProfile::TrtllmMaxUtilization, "trtllm-max-utilization"},
    {EngineProfile::TrtllmGuaranteedNoEvict, "trtllm-guaranteed-no-evict"},
}};

} // namespace

std::string_view toString(EngineProfile v) { return nameOf(kProfiles, v); }
std::optional<EngineProfile> parseEngineProfile(std::string_view s) { return lookup(kProfiles, s); }

std::string_view engineFollows(EngineProfile v) {
    switch (v) {
    case EngineProfile::TickModel1: return "preemptlab tick-model-1 (docs/tick-model.md)";
    case EngineProfile::VllmV1:
        return "vllm-project/vllm vllm/v1/core/sched/scheduler.py Scheduler.schedule @ 00024d314514900f361ad072af6931e403b7f589";
    case EngineProfile::Sglang:
        return "sgl-project/sglang python/sglang/srt/managers/scheduler.py get_next_batch_to_run, schedule_batch.py "
               "retract_decode @ 000eaffacf048e51b64d4d72985ef8f0b7054b39";
    case EngineProfile::TrtllmMaxUtilization:
        return "NVIDIA/TensorRT-LLM cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp MaxUtilizationScheduler @ "
               "02a10fed0dbf5db74c7da035be9c5fbef6d2df7a";
    case EngineProfile::TrtllmGuaranteedNoEvict:
        return "NVIDIA/TensorRT-LLM cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp GuaranteedNoEvictScheduler @ "
               "02a10fed0dbf5db74c7da035be9c5fbef6d2df7a";
    }
    return "?";
}

const std::vector<std::string_view>& allEngineProfiles() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> v;
        for (const auto& entry : kProfiles) {
            v.push_back(entry.second);
        }
        return v;
    }();
    return names;
}

std::string_view toString(Recovery v) { return nameOf(kRecoveries, v); }
std::string_view toString(VictimRule v) { return nameOf(kVictimRules, v); }
std::string_view toString(AdaptiveTie v) { return nameOf(kTies, v); }
std::string_view toString(ResumeGuard v) { return nameOf(kGuards, v); }
std::optional<Recovery> parseRecovery(std::string_view s) { return lookup(kRecoveries, s); }
std::optional<VictimRule> parseVictimRule(std::string_view s) { return lookup(kVictimRules, s); }
std::optional<AdaptiveTie> parseAdaptiveTie(std::string_view s) { return lookup(kTies, s); }
std::optional<ResumeGuard> parseResumeGuard(std::string_view s) { return lookup(kGuards, s); }

const std::vector<std::string_view>& allRecoveries() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> v;
        for (const auto& entry : kRecoveries) {
            v.push_back(entry.second);
        }
        return v;
    }();
    return names;
}

const std::vector<std::string_view>& allVictimRules() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> v;
        for (const auto& entry : kVictimRules) {
            v.push_back(entry.second);
        }
        return v;
    }();
    return names;
}

bool cachesOwnBlocks(const Workload& w) {
    return w.config.enable_prefix_caching && w.policy.engine_profile == EngineProfile::VllmV1;
}

bool sharesPrefixes(const Workload& w) {
    return cachesOwnBlocks(w) || std::any_of(w.requests.begin(), w.requests.end(),
                                             [](const RequestSpec& r) { return !r.prefix_blocks.empty(); });
}

} // namespace pl
