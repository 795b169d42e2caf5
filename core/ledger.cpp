#include "core/ledger.h"

#include <algorithm>

namespace pl {

std::string_view toString(EventKind k) {
    switch (k) {
    case EventKind::Arrive: return "arrive";
    case EventKind::Admit: return "admit";
    case EventKind::FirstToken: return "first_token";
    case EventKind::Pressure: return "pressure";
    case EventKind::Evict: return "evict";
    case EventKind::SwapOutDone: return "swap_out_done";
    case EventKind::Resume: return "resume";
    case EventKind::SwapInDone: return "swap_in_done";
    case EventKind::ReplayDone: return "replay_done";
    case EventKind::Complete: return "complete";
    case EventKind::Censor: return "censor";
    }
    return "?";
}

std::string_view toString(PressureTrigger t) {
    switch (t) {
    case PressureTrigger::AllocationFailed: return "allocation-failed";
    case PressureTrigger::PreemptAhead: return "preempt-ahead";
    case PressureTrigger::RetractDecode: return "retract-decode";
    case PressureTrigger::RequestCap: return "request-cap";
    }
    return "?";
}

void Ledger::truncate(std::size_t eventCount) {
    if (eventCount >= events.size()) {
        return;
    }
    std::size_t firstCandidate = candidates.size();
    std::size_t firstOfAll = all_candidates.size();
    for (std::size_t i = eventCount; i < events.size(); ++i) {
        if (events[i].candidates_count > 0) {
            firstCandidate = std::min(firstCandidate, static_cast<std::size_t>(events[i].candidates_begin));
        }
        if (events[i].all_candidates_count > 0) {
            firstOfAll = std::min(firstOfAll, static_cast<std::size_t>(events[i].all_candidates_begin));
        }
        if (firstCandidate < candidates.size() && (firstOfAll < all_candidates.size() || all_candidates.empty())) {
            break;
        }
    }
    events.resize(eventCount);
    candidates.resize(std::min(firstCandidate, candidates.size()));
    all_candidates.resize(std::min(firstOfAll, all_candidates.size()));
}

std::int64_t droppedReplayTokens(const Event& evict, std::int64_t blockSizeTokens) {
    const std::int64_t kept = evict.mode == Recovery::Swap     ? evict.context_tokens
                              : evict.mode == Recovery::Hybrid ? evict.swap_blocks * blockSizeTokens
                                                               : 0;
    return evict.context_tokens - kept;
}

std::int64_t carriedReplayTokens(const Event& evict, std::int64_t blockSizeTokens) {
    return evict.replay_tokens - droppedReplayTokens(evict, blockSizeTokens);
}

EvictionCause evictionCause(const Ledger& ledger, std::size_t evictIndex) {
    EvictionCause cause;
    const auto& ev = ledger.events;
    if (evictIndex >= ev.size() || ev[evictIndex].kind != EventKind::Evict) return cause;
    const Tick tick = ev[evictIndex].tick;
    std::size_t i = evictIndex;
    while (i > 0 && ev[i - 1].tick == tick && ev[i - 1].kind != EventKind::Pressure) --i;
    if (i == 0 || ev[i - 1].tick != tick) return cause;
    cause.pressure = static_cast<std::int64_t>(i - 1);
    const Event& pressure = ev[i - 1];
    if (pressure.trigger == PressureTrigger::AllocationFailed || pressure.trigger == PressureTrigger::RequestCap) {
        cause.requester = pressure.request;
    }
    // The pressure's evicts: from it to the next pressure of the tick (or the tick's end).
    for (std::size_t k = i; k < ev.size() && ev[k].tick == tick && ev[k].kind != EventKind::Pressure; ++k) {
        if (ev[k].kind != EventKind::Evict) continue;
        cause.evictions += 1;
        if (k == evictIndex) cause.nth = cause.evictions;
    }
    return cause;
}

EvictionOutcome evictionOutcome(const Ledger& ledger, std::size_t evictIndex) {
    EvictionOutcome out;
    const auto& ev = ledger.events;
    if (evictIndex >= ev.size() || ev[evictIndex].kind != EventKind::Evict) return out;
    const std::int32_t r = ev[evictIndex].request;
    for (std::size_t k = evictIndex + 1; k < ev.size(); ++k) {
        if (ev[k].request != r) continue;
        const auto at = static_cast<std::int64_t>(k);
        if (ev[k].kind == EventKind::Resume && out.resume < 0) {
            out.resume = at;
        } else if (ev[k].kind == EventKind::Evict && out.next_evict < 0) {
            out.next_evict = at;
        } else if (ev[k].kind == EventKind::Complete || ev[k].kind == EventKind::Censor) {
            out.end = at;
            break;
        }
    }
    return out;
}

VictimsAtTick victimsAtTick(const Ledger& ledger, Tick tick) {
    VictimsAtTick out;
    const auto& events = ledger.events;
    const auto first = std::lower_bound(events.begin(), events.end(), tick,
                                        [](const Event& e, Tick t) { return e.tick < t; });
    const auto addOnce = [](std::vector<std::int32_t>& list, std::int32_t r) {
        if (std::find(list.begin(), list.end(), r) == list.end()) list.push_back(r);
    };
    for (auto it = first; it != events.end() && it->tick == tick; ++it) {
        if (it->kind != EventKind::Evict && it->kind != EventKind::SwapOutDone) continue;
        if (it->kind == EventKind::Evict) {
            const std::int32_t requester = evictionCause(ledger, static_cast<std::size_t>(it - events.begin())).requester;
            if (requester >= 0) addOnce(out.requesters, requester);
            if (requester >= 0 && requester == it->request) addOnce(out.self_evicted, requester);
        }
        const auto known = std::find(out.victims.begin(), out.victims.end(), it->request);
        const std::uint8_t landed = it->kind == EventKind::SwapOutDone ? 1 : 0;
        if (known == out.victims.end()) {
            out.victims.push_back(it->request);
            out.landed.push_back(landed);
        } else if (!landed) {
            out.landed[static_cast<std::size_t>(known - out.victims.begin())] = 0; // evicted here too
        }
    }
    out.evicted_at.assign(out.victims.size(), tick);
    for (std::size_t i = 0; i < out.victims.size(); ++i) {
        if (!out.landed[i]) continue;
        for (auto back = first; back != events.begin();) {
            --back;
            if (back->kind == EventKind::Evict && back->request == out.victims[i]) {
                out.evicted_at[i] = back->tick;
                break;
            }
        }
    }
    return out;
}

} // namespace pl
