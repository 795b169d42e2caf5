#pragma once
// The conservation oracle's internals (oracle.h is its face), shared by its .cpp files: field readers, the
// per-request state machine and the Oracle class's declaration (where each part is defined: above the class).

#include "core/oracle.h"
#include "core/oracle_value.h"

#include "core/model.h"
#include "core/stop_check.h"
#include "core/workload.h"
#include "core/workload_io.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <functional>
#include <vector>
#include <utility>

namespace pl::oracle_detail {

using json = nlohmann::json;

// A field the check needs is missing or has the wrong type; the event is reported and skipped.
struct BadField {
    std::string reason;
};

// Object: nlohmann::json (the receipt's top level, its totals) or Value (each event and record).
template <typename Object>
std::int64_t intOf(const Object& object, std::string_view key) {
    const auto it = object.find(key);
    if (it == object.end()) {
        throw BadField{"has no '" + std::string(key) + "'"};
    }
    if (it->is_number_unsigned() && it->template get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxSafeInteger)) {
        return static_cast<std::int64_t>(it->template get<std::uint64_t>());
    }
    if (it->is_number_integer() && !it->is_number_unsigned()) {
        return it->template get<std::int64_t>();
    }
    throw BadField{"has '" + std::string(key) + "' = " + it->dump() + ", not an integer within 2^53"};
}

template <typename Object>
std::string strOf(const Object& object, std::string_view key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string()) {
        throw BadField{"has no string '" + std::string(key) + "'"};
    }
    return it->template get<std::string>();
}

inline std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) {
        throw BadField{"holds values whose product overflows (" + std::to_string(a) + " x " + std::to_string(b) + ")"};
    }
    return out;
}

inline std::int64_t ceilOf(std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a - 1) / b + 1; }

inline std::string n(std::int64_t v) { return std::to_string(v); }

// The event a violation is in, as its sentence names it: "event 3" before its seq, tick and kind are read,
// "event seq 7 (pressure, tick 1)", "event seq 7 (evict of r2, tick 1)". The text is made only when a violation
// is reported (`where + ": ..."`); making it for every event cost more than most checks. The kind and id
// viewed must outlive it.
class EventWhere {
  public:
    explicit EventWhere(std::int64_t index) : index_(index) {}
    void at(std::int64_t seq, std::int64_t tick, std::string_view kind) {
        seq_ = seq;
        tick_ = tick;
        kind_ = kind;
        read_ = true;
    }
    void of(std::string_view id) {
        id_ = id;
        named_ = true;
    }
    std::string text() const {
        if (!read_) {
            return "event " + n(index_);
        }
        std::string out = "event seq " + n(seq_) + " (";
        out += kind_;
        if (named_) {
            out += " of ";
            out += id_;
        }
        out += ", tick " + n(tick_) + ")";
        return out;
    }
    friend std::string operator+(const EventWhere& where, std::string_view rest) {
        std::string out = where.text();
        out += rest;
        return out;
    }

  private:
    std::int64_t index_, seq_ = 0, tick_ = 0;
    std::string_view kind_, id_;
    bool read_ = false, named_ = false;
};

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
    std::int64_t evictKept = 0;    // tokens the eviction kept (swapped to the host): the resume's copy restores them
    std::int64_t evictOwed = 0;    // the context the recovery owes: resident at the eviction + replay still pending
    std::int64_t resumeReplay = 0; // what the resume said is left to replay (prefix cache hits shorten it)
    // Where the running recovery's replay ends: the tokens the resume starts from (cached or copied back) plus
    // its replay. While the replay is pending the resident context is below it; an eviction then carries the
    // difference into its own replay.
    std::int64_t recoveryEnd = 0;
    bool swapOutPending = false;
    bool swapInPending = false;
    std::int64_t swapInBytes = 0;
    bool replayPending = false;
};

// The per-request states by request id: the tracks in workload order and an open-addressing table of their
// indices, at most half full (a std::unordered_map of a million ids was a tenth of a million-request receipt's
// time), and the record seen for each request.
class Tracks {
  public:
    void assign(const std::vector<RequestSpec>& requests) {
        tracks_.assign(requests.size(), Track{});
        records_.assign(requests.size(), kNone);
        std::size_t size = 16;
        while (size < requests.size() * 2) {
            size *= 2;
        }
        slots_.assign(size, kNone);
        for (std::size_t i = 0; i < requests.size(); ++i) {
            tracks_[i].spec = &requests[i];
            std::size_t s = slotOf(requests[i].id);
            if (slots_[s] != kNone) { // the same id again (a valid workload has none): it names the later one
                tracks_[slots_[s]].spec = &requests[i];
            } else {
                slots_[s] = i;
            }
        }
    }
    // The request's state, or nullptr when the workload has no request with this id.
    Track* find(std::string_view id) {
        const std::size_t s = slotOf(id);
        return slots_.empty() || slots_[s] == kNone ? nullptr : &tracks_[slots_[s]];
    }
    // The index of the record that named this request first, or kNone; `record` when it is the first.
    std::size_t firstRecord(const Track& t, std::size_t record) {
        std::size_t& first = records_[static_cast<std::size_t>(&t - tracks_.data())];
        if (first == kNone) {
            first = record;
        }
        return first;
    }
    bool hasRecord(const Track& t) const { return records_[static_cast<std::size_t>(&t - tracks_.data())] != kNone; }
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  private:
    // The slot holding `id`, or the empty one where it would go.
    std::size_t slotOf(std::string_view id) const {
        if (slots_.empty()) {
            return 0;
        }
        const std::size_t mask = slots_.size() - 1;
        std::size_t s = std::hash<std::string_view>{}(id) & mask;
        while (slots_[s] != kNone && tracks_[slots_[s]].spec->id != id) {
            s = (s + 1) & mask;
        }
        return s;
    }
    std::vector<Track> tracks_;
    std::vector<std::size_t> records_;
    std::vector<std::size_t> slots_;
};

struct Sums {
    std::int64_t evictions = 0, freedBlocks = 0, replayTokens = 0, swapOutBytes = 0, swapInBytes = 0;
    std::int64_t completed = 0, censored = 0, pressure = 0, peakHostSeen = 0, lastNonCensorTick = -1;
    std::int64_t cachedTokens = 0;
};

// Replays a receipt's events and checks its records and totals. The walk over the events and the common
// checks are in oracle.cpp, the checks per event kind in oracle_events.cpp (evictions, their candidates and
// victims in oracle_evict.cpp), records and totals in oracle_records.cpp.
class Oracle {
  public:
    explicit Oracle(const std::atomic<bool>* stop = nullptr) : stop_(stop, 4096) {}

    OracleReport run(const json& receipt);
    // The same checks fed piece by piece (OracleStream): the workload and policy (false: invalid, the report
    // says why, and nothing more is checked), every event in order, every record in order, then end() with the
    // rest of the receipt, whose "events" and "requests" (read already) only need to be arrays.
    bool begin(const json* workload, const json* policy);
    // The receipt's workload with its policy, read already (as workloadFromJson reads them, file "receipt").
    bool begin(Result<Workload> parsed);
    void event(const json& e);
    void record(const json& r);
    // One line of receipt text: read without a document where it is plain JSON (oracle_value.h), else parsed
    // by nlohmann_json as event() is given it (a line that is not JSON throws its parse_error).
    void eventLine(std::string_view line);
    void recordLine(std::string_view line);
    OracleReport end(const json& receipt);
    OracleReport finish();

  private:
    // oracle.cpp: the walk and what every event is checked for.
    void add(std::string sentence);
    void checkEvent(const Value& e, std::int64_t index);
    void dispatch(const std::string& kind, const Value& e, const EventWhere& where, Track& t, std::int64_t seq,
                  std::int64_t tick);
    // Occupancy, capacity and host memory, wherever an event reports them.
    void checkCommon(const Value& e, const EventWhere& where);
    void checkGenerated(const Value& e, const EventWhere& where, Track& t);

    // oracle_events.cpp: one check per event kind.
    void checkPressure(const Value& e, const EventWhere& where);
    void onArrive(const EventWhere& where, Track& t, std::int64_t tick);
    void onAdmit(const Value& e, const EventWhere& where, Track& t);
    void onFirstToken(const Value& e, const EventWhere& where, Track& t, std::int64_t tick);
    void onSwapOutDone(const Value& e, const EventWhere& where, Track& t);
    void onResume(const Value& e, const EventWhere& where, Track& t);
    void onSwapInDone(const Value& e, const EventWhere& where, Track& t);
    void onReplayDone(const Value& e, const EventWhere& where, Track& t);
    void recoveryEnded(const EventWhere& where, Track& t);
    void onEnding(const std::string& kind, const Value& e, const EventWhere& where, Track& t, std::int64_t seq,
                  std::int64_t tick);
    // An evict's or resume's mode: recompute, swap or hybrid (BadField otherwise).
    static Recovery modeOf(const Value& e);
    // Prefix sharing (the workload has prefix_blocks): cached_tokens on an admit or resume is whole blocks
    // of the request's declared prefix, and leaves at least one token of `context` to compute. With vLLM's
    // enable_prefix_caching a resume may also hit its own blocks: at most the full blocks of what it owed
    // (`owned` tokens; it never computed more of its own before).
    void checkCached(std::int64_t cached, std::int64_t context, const EventWhere& where, const Track& t,
                     std::int64_t owned = 0);
    // shared_blocks of an event, which exists only in receipts of workloads with prefix_blocks.
    std::int64_t sharedOf(const Value& e, const EventWhere& where);

    // oracle_evict.cpp: an eviction, its candidates and its victim.
    void onEvict(const Value& e, const EventWhere& where, Track& t, std::int64_t seq);
    void checkNoAdmissionAfterEviction(const Value& e, const EventWhere& where);
    void checkCandidates(const Value& e, const Value& cands, const EventWhere& where);
    void checkVictim(const Value& e, const Value& cands, const EventWhere& where);

    // oracle_records.cpp: the records and totals against what the events added up to.
    void endRecords(const json& receipt);
    void checkRecord(const Value& record, std::size_t index);
    void checkTotals(const json& receipt);

    // Keeps running_ (how many requests could be candidates at most) in step with the tracks.
    void setRunning(Track& t, bool on) {
        if (t.running != on) {
            running_ += on ? 1 : -1;
        }
        t.running = on;
    }

    bool prefix_ = false;
    bool ownCache_ = false;
    // 1 under an engine profile: the sampled token's KV is written in the next step, so a request that has
    // sampled g tokens holds prompt + g - 1 of them (docs/engines.md).
    std::int64_t pending_ = 0;
    std::int64_t running_ = 0; // requests running now (admitted or resumed, not evicted or ended since)
    std::int64_t lastEvictTick_ = -1; // vllm-v1: no admission or resume in a step that preempted
    // The whole context of a request that has sampled `generated` tokens.
    std::int64_t wholeContext(const Track& t, std::int64_t generated) const {
        return t.spec->prompt_tokens + generated - (generated > 0 ? pending_ : 0);
    }
    StopCheck stop_; // read per event and per record
    ValueReader reader_; // the event or record being checked
    std::int64_t eventCount_ = 0;
    std::size_t recordCount_ = 0;
    Workload workload_;
    Tracks tracks_; // with the records seen
    Sums sums_;
    std::int64_t lastTick_ = 0;
    OracleReport report_;
    std::size_t violationCount_ = 0;
};

} // namespace pl::oracle_detail
