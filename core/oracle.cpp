// The conservation oracle (see oracle.h and docs/receipt.md). One pass over the events keeps a small state
// machine per request (running, evicted, swap copies and replays pending); a second pass compares the request
// records and totals with what the events added up to. Every field is read defensively: a missing or
// non-integer field is itself a violation, and arithmetic on receipt values is overflow-checked.
#include "oracle.h"

#include "model.h"
#include "workload_io.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace pl {
namespace {

using json = nlohmann::json;

// A field the check needs is missing or has the wrong type; the event is reported and skipped.
struct BadField {
    std::string reason;
};

std::int64_t intOf(const json& object, std::string_view key) {
    const auto it = object.find(key);
    if (it == object.end()) {
        throw BadField{"has no '" + std::string(key) + "'"};
    }
    if (it->is_number_unsigned() && it->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxSafeInteger)) {
        return static_cast<std::int64_t>(it->get<std::uint64_t>());
    }
    if (it->is_number_integer() && !it->is_number_unsigned()) {
        return it->get<std::int64_t>();
    }
    throw BadField{"has '" + std::string(key) + "' = " + it->dump() + ", not an integer within 2^53"};
}

std::string strOf(const json& object, std::string_view key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string()) {
        throw BadField{"has no string '" + std::string(key) + "'"};
    }
    return it->get<std::string>();
}

std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) {
        throw BadField{"holds values whose product overflows (" + std::to_string(a) + " x " + std::to_string(b) + ")"};
    }
    return out;
}

std::int64_t ceilOf(std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a - 1) / b + 1; }

std::string n(std::int64_t v) { return std::to_string(v); }

// Per-request state while the events are replayed.
struct Track {
    const RequestSpec* spec = nullptr;
    std::size_t events = 0;
    bool arrived = false;
    bool admitted = false;
    bool running = false; // holds (or is getting) blocks: admitted or resumed, not evicted since
    bool evicted = false; // waiting for a resume
    std::int64_t generated = 0;
    std::int64_t evicts = 0;
    std::optional<std::int64_t> firstTokenTick;
    std::optional<std::int64_t> completionTick;
    std::string ending; // "complete" or "censor"
    std::int64_t endingSeq = -1;
    // The last eviction, for the resume and the copies that follow it.
    Recovery lastMode = Recovery::Recompute;
    std::int64_t evictSeq = -1;
    std::int64_t evictGenerated = 0;
    std::int64_t evictSwapBytes = 0;
    std::int64_t evictSwapBlocks = 0;
    std::int64_t evictReplay = 0;
    bool swapOutPending = false;
    bool swapInPending = false;
    std::int64_t swapInBytes = 0;
    bool replayPending = false;
};

struct Sums {
    std::int64_t evictions = 0, freedBlocks = 0, replayTokens = 0, swapOutBytes = 0, swapInBytes = 0;
    std::int64_t completed = 0, censored = 0, pressure = 0, peakHostSeen = 0, lastNonCensorTick = -1;
};

class Oracle {
  public:
    OracleReport run(const json& receipt) {
        if (!receipt.is_object()) {
            add("the receipt is not a JSON object");
            return finish();
        }
        if (!loadWorkload(receipt)) {
            return finish();
        }
        const auto events = receipt.find("events");
        if (events == receipt.end() || !events->is_array()) {
            add("the receipt has no 'events' array");
            return finish();
        }
        for (std::size_t i = 0; i < events->size(); ++i) {
            checkEvent((*events)[i], static_cast<std::int64_t>(i));
        }
        checkRecords(receipt);
        checkTotals(receipt);
        return finish();
    }

  private:
    bool loadWorkload(const json& receipt) {
        const auto w = receipt.find("workload");
        const auto p = receipt.find("policy");
        if (w == receipt.end() || !w->is_object() || p == receipt.end() || !p->is_object()) {
            add("the receipt has no 'workload' or 'policy' object");
            return false;
        }
        json doc = *w;
        doc["policy"] = *p;
        auto parsed = workloadFromJson(doc, "receipt");
        if (auto* e = std::get_if<InputError>(&parsed)) {
            add("the receipt's workload/policy is invalid: " + e->path + ": " + e->reason);
            return false;
        }
        workload_ = std::get<Workload>(std::move(parsed));
        for (const auto& r : workload_.requests) {
            tracks_[r.id].spec = &r;
        }
        return true;
    }

    void add(std::string sentence) {
        ++violationCount_;
        if (report_.violations.size() < kMaxOracleViolations) {
            report_.violations.push_back(std::move(sentence));
        }
    }

    OracleReport finish() {
        if (violationCount_ > report_.violations.size()) {
            report_.violations.push_back("... and " + n(static_cast<std::int64_t>(violationCount_ - report_.violations.size())) +
                                         " more violations not listed");
        }
        report_.passed = violationCount_ == 0;
        return std::move(report_);
    }

    void checkEvent(const json& e, std::int64_t index) {
        std::string where = "event " + n(index);
        try {
            if (!e.is_object()) {
                throw BadField{"is not an object"};
            }
            const std::int64_t seq = intOf(e, "seq");
            const std::int64_t tick = intOf(e, "tick");
            const std::string kind = strOf(e, "kind");
            where = "event seq " + n(seq) + " (" + kind + ", tick " + n(tick) + ")";
            if (seq != index) {
                add(where + ": seq is " + n(seq) + " but it is event number " + n(index) + " (seq must count 0,1,2,...)");
            }
            if (tick < lastTick_ || tick < 0) {
                add(where + ": tick " + n(tick) + " is earlier than the previous event's tick " + n(lastTick_));
            }
            lastTick_ = std::max(lastTick_, tick);
            if (tick > workload_.config.max_ticks) {
                add(where + ": tick " + n(tick) + " is beyond max_ticks " + n(workload_.config.max_ticks));
            }
            if (kind != "censor") {
                sums_.lastNonCensorTick = std::max(sums_.lastNonCensorTick, tick);
            }
            if (kind == "pressure") {
                checkCommon(e, where);
                checkPressure(e, where);
                return;
            }
            const std::string id = strOf(e, "request");
            const auto it = tracks_.find(id);
            if (it == tracks_.end()) {
                add(where + ": names request " + id + ", which is not in the workload");
                return;
            }
            where = "event seq " + n(seq) + " (" + kind + " of " + id + ", tick " + n(tick) + ")";
            checkCommon(e, where);
            Track& t = it->second;
            if (!t.ending.empty()) {
                add(where + ": " + id + " already ended with '" + t.ending + "' at seq " + n(t.endingSeq));
            }
            checkGenerated(e, where, t);
            dispatch(kind, e, where, t, seq, tick);
            ++t.events;
        } catch (const BadField& bad) {
            add(where + " " + bad.reason);
        }
    }

    void dispatch(const std::string& kind, const json& e, const std::string& where, Track& t, std::int64_t seq,
                  std::int64_t tick) {
        if (kind == "arrive") {
            onArrive(where, t, tick);
        } else if (kind == "admit") {
            onAdmit(where, t);
        } else if (kind == "first_token") {
            onFirstToken(e, where, t, tick);
        } else if (kind == "evict") {
            onEvict(e, where, t, seq);
        } else if (kind == "swap_out_done") {
            onSwapOutDone(e, where, t);
        } else if (kind == "resume") {
            onResume(e, where, t);
        } else if (kind == "swap_in_done") {
            onSwapInDone(e, where, t);
        } else if (kind == "replay_done") {
            onReplayDone(e, where, t);
        } else if (kind == "complete" || kind == "censor") {
            onEnding(kind, e, where, t, seq, tick);
        } else {
            add(where + ": unknown event kind '" + kind + "'");
        }
    }

    // Occupancy, capacity and host memory, wherever an event reports them.
    void checkCommon(const json& e, const std::string& where) {
        const Config& c = workload_.config;
        if (e.contains("capacity_blocks") && intOf(e, "capacity_blocks") != c.capacity_blocks) {
            add(where + ": capacity_blocks is " + n(intOf(e, "capacity_blocks")) + " but the workload's is " +
                n(c.capacity_blocks));
        }
        if (e.contains("occupied_blocks")) {
            const std::int64_t occupied = intOf(e, "occupied_blocks");
            if (occupied < 0 || occupied > c.capacity_blocks) {
                add(where + ": occupied_blocks " + n(occupied) + " is outside 0..capacity_blocks " + n(c.capacity_blocks));
            }
        }
        if (e.contains("host_bytes")) {
            const std::int64_t host = intOf(e, "host_bytes");
            sums_.peakHostSeen = std::max(sums_.peakHostSeen, host);
            if (host < 0 || host > c.host_capacity_bytes) {
                add(where + ": host_bytes " + n(host) + " is outside 0..host_capacity_bytes " + n(c.host_capacity_bytes));
            }
        }
    }

    void checkGenerated(const json& e, const std::string& where, Track& t) {
        if (!e.contains("generated_tokens")) {
            return;
        }
        const std::int64_t g = intOf(e, "generated_tokens");
        if (g < t.generated) {
            add(where + ": generated_tokens fell from " + n(t.generated) + " to " + n(g) + " (generated output was lost)");
        }
        if (g > t.spec->output_tokens) {
            add(where + ": generated_tokens " + n(g) + " exceeds the request's output_tokens " + n(t.spec->output_tokens));
        }
        t.generated = std::max(t.generated, g);
    }

    void checkPressure(const json& e, const std::string& where) {
        ++sums_.pressure;
        const std::string trigger = strOf(e, "trigger");
        if (trigger != "allocation-failed" && trigger != "preempt-ahead") {
            add(where + ": unknown trigger '" + trigger + "'");
        }
        const std::int64_t freeBlocks = intOf(e, "free_blocks");
        const std::int64_t occupied = intOf(e, "occupied_blocks");
        if (freeBlocks < 0 || freeBlocks > workload_.config.capacity_blocks - occupied) {
            add(where + ": free_blocks " + n(freeBlocks) + " + occupied_blocks " + n(occupied) +
                " exceed capacity_blocks " + n(workload_.config.capacity_blocks));
        }
        if (intOf(e, "need_blocks") < 1) {
            add(where + ": need_blocks " + n(intOf(e, "need_blocks")) + " is not positive");
        }
    }

    void onArrive(const std::string& where, Track& t, std::int64_t tick) {
        if (t.events > 0 || t.arrived) {
            add(where + ": arrive is not the request's first event");
        }
        if (tick != t.spec->arrival_tick) {
            add(where + ": arrives at tick " + n(tick) + " but its arrival_tick is " + n(t.spec->arrival_tick));
        }
        t.arrived = true;
    }

    void onAdmit(const std::string& where, Track& t) {
        if (!t.arrived || t.admitted) {
            add(where + (t.admitted ? ": admitted a second time (later admissions are 'resume')" : ": admitted before it arrived"));
        }
        t.admitted = true;
        t.running = true;
    }

    void onFirstToken(const json& e, const std::string& where, Track& t, std::int64_t tick) {
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
        }
    }

    static Recovery modeOf(const json& e) {
        const std::string mode = strOf(e, "mode");
        const auto parsed = parseRecovery(mode);
        if (!parsed || *parsed == Recovery::Adaptive) {
            throw BadField{"has mode '" + mode + "' (a mode used must be recompute, swap or hybrid)"};
        }
        return *parsed;
    }

    void onEvict(const json& e, const std::string& where, Track& t, std::int64_t seq);
    void onSwapOutDone(const json& e, const std::string& where, Track& t);
    void onResume(const json& e, const std::string& where, Track& t);
    void onSwapInDone(const json& e, const std::string& where, Track& t);
    void onReplayDone(const json& e, const std::string& where, Track& t);
    void onEnding(const std::string& kind, const json& e, const std::string& where, Track& t, std::int64_t seq,
                  std::int64_t tick);
    void checkRecords(const json& receipt);
    void checkRecord(const json& record, std::size_t index, std::unordered_map<std::string, std::size_t>& seen);
    void checkTotals(const json& receipt);

    Workload workload_;
    std::unordered_map<std::string, Track> tracks_;
    Sums sums_;
    std::int64_t lastTick_ = 0;
    OracleReport report_;
    std::size_t violationCount_ = 0;
};

void Oracle::onEvict(const json& e, const std::string& where, Track& t, std::int64_t seq) {
    const Config& c = workload_.config;
    const Recovery mode = modeOf(e);
    const std::int64_t prompt = intOf(e, "prompt_tokens");
    const std::int64_t generated = intOf(e, "generated_tokens");
    const std::int64_t context = intOf(e, "context_tokens");
    const std::int64_t freed = intOf(e, "freed_blocks");
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
    if (prompt != t.spec->prompt_tokens) {
        add(where + ": prompt_tokens " + n(prompt) + " differs from the request's " + n(t.spec->prompt_tokens));
    }
    if (context < 0 || context > prompt + generated) {
        add(where + ": context_tokens " + n(context) + " is outside 0..prompt_tokens + generated_tokens (" +
            n(prompt + generated) + ")");
    }
    const std::int64_t residency = ceilOf(context, c.block_size_tokens);
    if (freed != residency) {
        add(where + ": freed_blocks is " + n(freed) + " but ceil(context_tokens " + n(context) + " / block_size_tokens " +
            n(c.block_size_tokens) + ") = " + n(residency));
    }
    if (freed > occupied) {
        add(where + ": freed_blocks " + n(freed) + " exceeds occupied_blocks " + n(occupied) + " before the eviction");
    }
    const std::int64_t kv = c.kv_bytes_per_token;
    if (mode == Recovery::Recompute) {
        if (replay != context || swapBytes != 0 || swapBlocks != 0) {
            add(where + ": recompute must replay all context_tokens (" + n(context) + ") and swap nothing, but replay_tokens=" +
                n(replay) + ", swap_out_bytes=" + n(swapBytes) + ", swap_blocks=" + n(swapBlocks));
        }
    } else if (mode == Recovery::Swap) {
        if (replay != 0 || swapBytes != mul(context, kv) || swapBlocks != freed) {
            add(where + ": swap must move context_tokens x kv_bytes_per_token = " + n(mul(context, kv)) +
                " bytes in freed_blocks (" + n(freed) + ") blocks and replay nothing, but swap_out_bytes=" + n(swapBytes) +
                ", swap_blocks=" + n(swapBlocks) + ", replay_tokens=" + n(replay));
        }
    } else { // hybrid
        const std::int64_t swapTokens = mul(swapBlocks, c.block_size_tokens);
        if (swapBlocks < 0 || swapTokens > context || swapBytes != mul(swapTokens, kv) || replay != context - swapTokens) {
            add(where + ": hybrid with swap_blocks " + n(swapBlocks) + " must swap " + n(swapTokens) + " tokens (<= context_tokens " +
                n(context) + ") = " + n(mul(swapTokens, kv)) + " bytes and replay " + n(context - swapTokens) +
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
    const std::string victim = strOf(e, "request");
    const bool listed = std::any_of(cands->begin(), cands->end(), [&](const json& cand) {
        return cand.is_object() && cand.contains("id") && cand["id"] == victim;
    });
    if (!listed) {
        add(where + ": the victim " + victim + " is not among the " + n(static_cast<std::int64_t>(cands->size())) + " candidates");
    }

    ++t.evicts;
    ++sums_.evictions;
    sums_.freedBlocks += freed;
    sums_.replayTokens += replay;
    sums_.swapOutBytes += swapBytes;
    t.running = false;
    t.evicted = true;
    t.lastMode = mode;
    t.evictSeq = seq;
    t.evictGenerated = generated;
    t.evictSwapBytes = swapBytes;
    t.evictSwapBlocks = mode == Recovery::Recompute ? 0 : swapBlocks;
    t.evictReplay = replay;
    t.swapOutPending = swapBytes > 0;
    t.swapInPending = false;
    t.replayPending = false;
}

void Oracle::onSwapOutDone(const json& e, const std::string& where, Track& t) {
    const std::int64_t bytes = intOf(e, "swap_out_bytes");
    const std::int64_t freed = intOf(e, "freed_blocks");
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

void Oracle::onResume(const json& e, const std::string& where, Track& t) {
    if (!t.evicted) {
        add(where + ": resume without a preceding eviction");
        return;
    }
    const Recovery mode = modeOf(e);
    const std::int64_t swapIn = intOf(e, "swap_in_bytes");
    const std::int64_t replay = intOf(e, "replay_tokens");
    const std::int64_t generated = intOf(e, "generated_tokens");
    intOf(e, "context_tokens");
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
    if (replay != t.evictReplay) {
        add(where + ": replay_tokens " + n(replay) + " differs from the " + n(t.evictReplay) + " tokens dropped at seq " +
            n(t.evictSeq));
    }
    if (generated != t.evictGenerated) {
        add(where + ": generated_tokens " + n(generated) + " differs from " + n(t.evictGenerated) +
            " at its eviction (seq " + n(t.evictSeq) + ")");
    }
    t.evicted = false;
    t.running = true;
    t.swapInPending = swapIn > 0;
    t.swapInBytes = swapIn;
    t.replayPending = replay > 0;
}

void Oracle::onSwapInDone(const json& e, const std::string& where, Track& t) {
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
}

void Oracle::onReplayDone(const json& e, const std::string& where, Track& t) {
    const std::int64_t replay = intOf(e, "replay_tokens");
    if (!t.replayPending) {
        add(where + ": replay_done without a replay in progress");
        return;
    }
    if (replay != t.evictReplay) {
        add(where + ": replay_done replayed " + n(replay) + " tokens but " + n(t.evictReplay) +
            " were dropped at seq " + n(t.evictSeq));
    }
    t.replayPending = false;
}

void Oracle::onEnding(const std::string& kind, const json& e, const std::string& where, Track& t, std::int64_t seq,
                      std::int64_t tick) {
    const std::int64_t generated = intOf(e, "generated_tokens");
    intOf(e, "freed_blocks");
    if (kind == "complete") {
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
}

void Oracle::checkRecords(const json& receipt) {
    const auto records = receipt.find("requests");
    if (records == receipt.end() || !records->is_array()) {
        add("the receipt has no 'requests' array of records");
        return;
    }
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < records->size(); ++i) {
        checkRecord((*records)[i], i, seen);
    }
    for (const auto& r : workload_.requests) {
        const Track& t = tracks_[r.id];
        if (!seen.count(r.id)) {
            add("request " + r.id + ": no record in 'requests'");
        }
        if (t.ending.empty()) {
            add("request " + r.id + ": never completed or censored");
        }
    }
}

void Oracle::checkRecord(const json& record, std::size_t index, std::unordered_map<std::string, std::size_t>& seen) {
    std::string where = "record " + n(static_cast<std::int64_t>(index));
    try {
        const std::string id = strOf(record, "id");
        where = "record of " + id;
        const auto it = tracks_.find(id);
        if (it == tracks_.end()) {
            add(where + ": no request with this id in the workload");
            return;
        }
        if (!seen.emplace(id, index).second) {
            add(where + ": listed twice (records " + n(static_cast<std::int64_t>(seen[id])) + " and " +
                n(static_cast<std::int64_t>(index)) + ")");
            return;
        }
        const Track& t = it->second;
        const std::string status = strOf(record, "status");
        const std::string expected = t.ending == "complete" ? "completed" : t.ending == "censor" ? "censored" : "";
        if (status != expected) {
            add(where + ": status '" + status + "' but its events " +
                (expected.empty() ? std::string("never end it") : "end with '" + t.ending + "'"));
        }
        const std::int64_t generated = intOf(record, "generated_tokens");
        if (generated != t.generated) {
            add(where + ": generated_tokens " + n(generated) + " differs from the last seen in its events (" + n(t.generated) + ")");
        }
        if (status == "completed" && generated != t.spec->output_tokens) {
            add(where + ": completed with " + n(generated) + " tokens, not output_tokens " + n(t.spec->output_tokens));
        }
        const std::int64_t preemptions = intOf(record, "preemptions");
        if (preemptions != t.evicts) {
            add(where + ": preemptions " + n(preemptions) + " but it was evicted " + n(t.evicts) + " times");
        }
        const auto tickMatches = [&](std::string_view key, const std::optional<std::int64_t>& fromEvents) {
            const auto f = record.find(key);
            const bool isNull = f == record.end() || f->is_null();
            if (isNull ? fromEvents.has_value() : (!fromEvents || intOf(record, key) != *fromEvents)) {
                add(where + ": " + std::string(key) + " is " + (isNull ? "null" : f->dump()) + " but its events say " +
                    (fromEvents ? n(*fromEvents) : std::string("null")));
            }
        };
        tickMatches("first_token_tick", t.firstTokenTick);
        tickMatches("completion_tick", t.completionTick);
        const std::int64_t queueTicks = intOf(record, "queue_ticks");
        const auto flags = record.find("flags");
        if (flags == record.end() || !flags->is_array()) {
            throw BadField{"has no 'flags' array"};
        }
        bool wait = false;
        bool repeated = false;
        for (const auto& f : *flags) {
            if (f == "excessive_wait" && !wait) {
                wait = true;
            } else if (f == "repeated_preemption" && !repeated) {
                repeated = true;
            } else {
                add(where + ": unknown or repeated flag " + f.dump());
            }
        }
        const Config& c = workload_.config;
        if (wait != (queueTicks > c.wait_threshold_ticks)) {
            add(where + ": excessive_wait is " + (wait ? "set" : "missing") + " but queue_ticks " + n(queueTicks) +
                (wait ? " <= " : " > ") + "wait_threshold_ticks " + n(c.wait_threshold_ticks));
        }
        if (repeated != (preemptions > c.preemption_threshold)) {
            add(where + ": repeated_preemption is " + (repeated ? "set" : "missing") + " but preemptions " + n(preemptions) +
                (repeated ? " <= " : " > ") + "preemption_threshold " + n(c.preemption_threshold));
        }
    } catch (const BadField& bad) {
        add(where + " " + bad.reason);
    }
}

void Oracle::checkTotals(const json& receipt) {
    const auto totals = receipt.find("totals");
    if (totals == receipt.end() || !totals->is_object()) {
        add("the receipt has no 'totals' object");
        return;
    }
    const std::pair<std::string_view, std::int64_t> sums[] = {
        {"evictions", sums_.evictions},       {"queue_reentries", sums_.evictions}, {"freed_blocks", sums_.freedBlocks},
        {"replay_tokens", sums_.replayTokens}, {"swap_out_bytes", sums_.swapOutBytes}, {"swap_in_bytes", sums_.swapInBytes},
        {"completed", sums_.completed},       {"censored", sums_.censored},         {"pressure_events", sums_.pressure},
    };
    try {
        for (const auto& [key, fromEvents] : sums) {
            const std::int64_t stated = intOf(*totals, key);
            if (stated != fromEvents) {
                add("totals." + std::string(key) + " is " + n(stated) + " but the events add up to " + n(fromEvents));
            }
        }
        const std::int64_t peak = intOf(*totals, "peak_host_bytes");
        if (peak < sums_.peakHostSeen || peak > workload_.config.host_capacity_bytes) {
            add("totals.peak_host_bytes " + n(peak) + " is below an event's host_bytes (" + n(sums_.peakHostSeen) +
                ") or above host_capacity_bytes " + n(workload_.config.host_capacity_bytes));
        }
        const std::int64_t ticks = intOf(*totals, "ticks");
        if (ticks > workload_.config.max_ticks || ticks <= sums_.lastNonCensorTick) {
            add("totals.ticks " + n(ticks) + " must exceed the last event tick " + n(sums_.lastNonCensorTick) +
                " and be at most max_ticks " + n(workload_.config.max_ticks));
        }
    } catch (const BadField& bad) {
        add("totals " + bad.reason);
    }
}

} // namespace

OracleReport checkReceipt(const nlohmann::json& receipt) { return Oracle().run(receipt); }

} // namespace pl
