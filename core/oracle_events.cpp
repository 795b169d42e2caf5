// The oracle's checks per event kind (see oracle_impl.h and docs/receipt.md), but for evictions
// (oracle_evict.cpp): in the order a request meets them.
#include "core/oracle_impl.h"

namespace pl::oracle_detail {

void Oracle::checkPressure(const Value& e, const EventWhere& where) {
    ++sums_.pressure;
    const std::string trigger = strOf(e, "trigger");
    const bool requestCap =
        trigger == "request-cap" && workload_.policy.engine_profile == EngineProfile::TrtllmMaxUtilization;
    if (trigger != "allocation-failed" && trigger != "preempt-ahead" && !requestCap &&
        !(trigger == "retract-decode" && workload_.policy.engine_profile == EngineProfile::Sglang)) {
        add(where + ": unknown trigger '" + trigger + "'");
    }
    const std::int64_t freeBlocks = intOf(e, "free_blocks");
    const std::int64_t occupied = intOf(e, "occupied_blocks");
    if (freeBlocks < 0 || freeBlocks > workload_.config.capacity_blocks - occupied) {
        add(where + ": free_blocks " + n(freeBlocks) + " + occupied_blocks " + n(occupied) +
            " exceed capacity_blocks " + n(workload_.config.capacity_blocks));
    }
    if (intOf(e, "need_blocks") < (requestCap ? 0 : 1)) {
        add(where + ": need_blocks " + n(intOf(e, "need_blocks")) + " is not positive");
    }
}

void Oracle::onArrive(const EventWhere& where, Track& t, std::int64_t tick) {
    if (t.events > 0 || t.arrived) {
        add(where + ": arrive is not the request's first event");
    }
    if (tick != t.spec->arrival_tick) {
        add(where + ": arrives at tick " + n(tick) + " but its arrival_tick is " + n(t.spec->arrival_tick));
    }
    t.arrived = true;
}

void Oracle::onAdmit(const Value& e, const EventWhere& where, Track& t) {
    checkNoAdmissionAfterEviction(e, where);
    if (prefix_) {
        const std::int64_t cached = intOf(e, "cached_tokens");
        checkCached(cached, t.spec->prompt_tokens, where, t);
        sums_.cachedTokens += cached;
    }
    if (!t.arrived || t.admitted) {
        add(where + (t.admitted ? ": admitted a second time (later admissions are 'resume')" : ": admitted before it arrived"));
    }
    t.admitted = true;
    setRunning(t, true);
}

void Oracle::onFirstToken(const Value& e, const EventWhere& where, Track& t, std::int64_t tick) {
    if (intOf(e, "generated_tokens") != 1) {
        add(where + ": first_token has generated_tokens " + n(intOf(e, "generated_tokens")) + ", not 1");
    }
    if (t.firstTokenTick) {
        add(where + ": a second first_token (the first was at tick " + n(*t.firstTokenTick) + ")");
    } else {
        t.firstTokenTick = tick;
    }
    if (!t.running) {
        add(where + ": first token while the request was not running");
    } else if (t.swapInPending || t.replayPending) {
        add(where + ": first token before its recovery finished (" +
            std::string(t.swapInPending ? "its swap-in was in flight" : "its replay was unfinished") +
            "): no request samples on a partial context");
    }
}

Recovery Oracle::modeOf(const Value& e) {
    const std::string mode = strOf(e, "mode");
    const auto parsed = parseRecovery(mode);
    if (!parsed || *parsed == Recovery::Adaptive) {
        throw BadField{"has mode '" + mode + "' (a mode used must be recompute, swap or hybrid)"};
    }
    return *parsed;
}

void Oracle::checkCached(std::int64_t cached, std::int64_t context, const EventWhere& where, const Track& t,
                         std::int64_t owned) {
    const std::int64_t bs = workload_.config.block_size_tokens;
    const auto declared = static_cast<std::int64_t>(t.spec->prefix_blocks.size());
    const std::int64_t cachable = ownCache_ ? std::max(declared, owned / bs) : declared;
    if (cached < 0 || cached % bs != 0 || cached / bs > cachable || (cached > 0 && cached >= context)) {
        add(where + ": cached_tokens " + n(cached) + " is not a whole number of its " + n(cachable) +
            (ownCache_ ? " cachable" : " declared prefix") + " blocks of " + n(bs) +
            " tokens below its context of " + n(context) + " tokens");
    }
}

std::int64_t Oracle::sharedOf(const Value& e, const EventWhere& where) {
    if (!prefix_) {
        return 0;
    }
    const std::int64_t shared = intOf(e, "shared_blocks");
    if (shared < 0) {
        add(where + ": shared_blocks " + n(shared) + " is negative");
    }
    return shared;
}

void Oracle::onSwapOutDone(const Value& e, const EventWhere& where, Track& t) {
    const std::int64_t bytes = intOf(e, "swap_out_bytes");
    const std::int64_t freed = intOf(e, "freed_blocks") + sharedOf(e, where);
    if (!t.swapOutPending) {
        add(where + ": swap_out_done without a swap-out in flight");
        return;
    }
    if (bytes != t.evictSwapBytes) {
        add(where + ": swap_out_done moved " + n(bytes) + " bytes but the evict at seq " + n(t.evictSeq) + " swapped out " +
            n(t.evictSwapBytes));
    }
    if (freed != t.evictSwapBlocks) {
        add(where + ": swap_out_done returned " + n(freed) + " blocks but the evict at seq " + n(t.evictSeq) + " swapped " +
            n(t.evictSwapBlocks));
    }
    t.swapOutPending = false;
}

void Oracle::onResume(const Value& e, const EventWhere& where, Track& t) {
    checkNoAdmissionAfterEviction(e, where);
    if (!t.evicted) {
        add(where + ": resume without a preceding eviction");
        return;
    }
    const Recovery mode = modeOf(e);
    const std::int64_t swapIn = intOf(e, "swap_in_bytes");
    const std::int64_t replay = intOf(e, "replay_tokens");
    const std::int64_t generated = intOf(e, "generated_tokens");
    const std::int64_t context = intOf(e, "context_tokens");
    const std::int64_t cached = prefix_ ? intOf(e, "cached_tokens") : 0;
    if (t.swapOutPending) {
        add(where + ": resumed before its swap-out (evict at seq " + n(t.evictSeq) + ") landed");
    }
    if (mode != t.lastMode) {
        add(where + ": resumes in mode " + std::string(toString(mode)) + " but was evicted in " +
            std::string(toString(t.lastMode)));
    }
    if (swapIn != t.evictSwapBytes) {
        add(where + ": swap_in_bytes " + n(swapIn) + " differs from the " + n(t.evictSwapBytes) +
            " bytes swapped out at seq " + n(t.evictSeq) + " (restored bytes must equal saved bytes)");
    }
    if (cached != 0 && mode != Recovery::Recompute) {
        add(where + ": a " + std::string(toString(mode)) + " resume attached " + n(cached) +
            " cached tokens (only recompute resumes use the prefix cache)");
    }
    checkCached(cached, t.spec->prompt_tokens + generated, where, t, t.evictOwed);
    // Replay covers the dropped context from its start; blocks still in the prefix cache are not replayed.
    const std::int64_t expectReplay = t.evictReplay - std::min(cached, t.evictReplay);
    if (replay != expectReplay) {
        add(where + ": replay_tokens " + n(replay) + " but " + n(t.evictReplay) + " tokens were dropped at seq " +
            n(t.evictSeq) + (cached > 0 ? " and " + n(cached) + " are cached, leaving " + n(expectReplay) : std::string()));
    }
    if (mode == Recovery::Recompute && context != cached) {
        add(where + ": a recompute resume starts from context_tokens " + n(cached) + " (its cached tokens), not " +
            n(context));
    }
    sums_.cachedTokens += cached;
    if (generated != t.evictGenerated) {
        add(where + ": generated_tokens " + n(generated) + " differs from " + n(t.evictGenerated) +
            " at its eviction (seq " + n(t.evictSeq) + ")");
    }
    // Globally: the resume rebuilds what the recovery owes, from what it starts with (its cached tokens, or
    // the tokens its copy back restores) plus its replay, whatever the events before it said.
    const std::int64_t base = mode == Recovery::Recompute ? cached : t.evictKept;
    const std::int64_t rebuilt = base + replay;
    if (rebuilt != std::max(t.evictOwed, base)) {
        add(where + ": the resume rebuilds " + n(rebuilt) + " tokens (" + n(base) + " " +
            (mode == Recovery::Recompute ? "cached" : "copied back") + " + " + n(replay) + " replayed) but its recovery owes " +
            n(t.evictOwed) + " (the context resident at the eviction at seq " + n(t.evictSeq) +
            " plus any replay still pending then)");
    }
    t.evicted = false;
    setRunning(t, true);
    t.swapInPending = swapIn > 0;
    t.swapInBytes = swapIn;
    t.replayPending = replay > 0;
    t.resumeReplay = replay;
    t.recoveryEnd = rebuilt;
    if (!t.swapInPending && !t.replayPending) {
        recoveryEnded(where, t);
    }
}

// The recovery finished (its copy back landed and its replay is done): the context is whole again, that is
// prompt + generated for a request that had sampled a token, and no more than its prompt otherwise (a request
// evicted during its first prefill owes what it had prefilled, and goes on to prefill the rest).
void Oracle::recoveryEnded(const EventWhere& where, Track& t) {
    const std::int64_t whole = wholeContext(t, t.evictGenerated);
    if (t.evictGenerated > 0 ? t.recoveryEnd != whole : t.recoveryEnd > whole) {
        add(where + ": the recovery from the eviction at seq " + n(t.evictSeq) + " ends with a context of " +
            n(t.recoveryEnd) + " tokens, but the request's context is prompt_tokens + generated_tokens" +
            (pending_ && t.evictGenerated > 0 ? " - 1" : "") + " = " + n(whole));
    }
}

void Oracle::onSwapInDone(const Value& e, const EventWhere& where, Track& t) {
    const std::int64_t bytes = intOf(e, "swap_in_bytes");
    if (!t.swapInPending) {
        add(where + ": swap_in_done without a swap-in in flight");
        return;
    }
    if (bytes != t.swapInBytes) {
        add(where + ": swap_in_done restored " + n(bytes) + " bytes but " + n(t.swapInBytes) + " were to be copied back");
    }
    sums_.swapInBytes += bytes;
    t.swapInPending = false;
    if (!t.replayPending) {
        recoveryEnded(where, t);
    }
}

void Oracle::onReplayDone(const Value& e, const EventWhere& where, Track& t) {
    const std::int64_t replay = intOf(e, "replay_tokens");
    if (!t.replayPending) {
        add(where + ": replay_done without a replay in progress");
        return;
    }
    if (replay != t.resumeReplay) {
        add(where + ": replay_done replayed " + n(replay) + " tokens but its resume had " + n(t.resumeReplay) +
            " to replay (" + n(t.evictReplay) + " dropped at seq " + n(t.evictSeq) + ")");
    }
    if (t.swapInPending) {
        add(where + ": replay_done before its copy back landed (the replay continues after the restored prefix)");
    }
    t.replayPending = false;
    recoveryEnded(where, t);
}

void Oracle::onEnding(const std::string& kind, const Value& e, const EventWhere& where, Track& t, std::int64_t seq,
                      std::int64_t tick) {
    const std::int64_t generated = intOf(e, "generated_tokens");
    const std::int64_t released = intOf(e, "freed_blocks") + sharedOf(e, where);
    if (kind == "complete") {
        const std::int64_t whole = wholeContext(t, generated);
        const std::int64_t residency = ceilOf(whole, workload_.config.block_size_tokens);
        if (released != residency) {
            add(where + ": let go of " + n(released) + " blocks (freed_blocks" + (prefix_ ? " + shared_blocks" : "") +
                ") but its context of " + n(whole) + " tokens held " + n(residency));
        }
        ++sums_.completed;
        if (generated != t.spec->output_tokens) {
            add(where + ": completed with " + n(generated) + " generated tokens, not output_tokens " + n(t.spec->output_tokens));
        }
        if (!t.running || t.swapInPending || t.replayPending) {
            add(where + ": completed while " +
                std::string(!t.running ? "not running" : t.swapInPending ? "its swap-in was in flight" : "its replay was unfinished"));
        }
        intOf(e, "occupied_blocks");
        t.completionTick = tick;
    } else {
        ++sums_.censored;
        if (generated >= t.spec->output_tokens) {
            add(where + ": censored with all " + n(generated) + " output tokens generated (it should have completed)");
        }
    }
    if (t.ending.empty()) {
        t.ending = kind;
        t.endingSeq = seq;
    }
    setRunning(t, false);
}

} // namespace pl::oracle_detail
