#pragma once
// Engine: the tick-by-tick model of one serving engine's KV block pool (docs/tick-model.md).
// It owns the run state; the ledger it appends to is owned by the caller, so a Session can snapshot the
// state cheaply and truncate the ledger when it seeks back. All arithmetic is integer: a run is identical
// on every machine.

#include "core/ledger.h"
#include "core/model.h"
#include "core/results.h"
#include "core/run_control.h"
#include "core/victim.h"
#include "core/workload.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace pl {

class LiveBackend;

// Where a request is, as the lab draws it.
enum class Phase : std::uint8_t {
    NotArrived,
    Waiting,    // in the queue, never admitted
    Prefill,    // prefilling its prompt (chunked)
    Decode,     // generating one token a tick
    Preempted,  // in the queue after a recompute/hybrid eviction (KV dropped)
    SwapOut,    // its blocks are being copied to the host
    SwappedOut, // in the queue, KV on the host
    SwapIn,     // its blocks are being copied back
    Replay,     // re-prefilling tokens whose KV was dropped
    Done,
    Censored,
};
std::string_view toString(Phase p);

// Per-request run state. Public so the lab can draw it; only the engine writes it.
struct RequestState {
    Phase phase = Phase::NotArrived;
    std::int64_t output_tokens = 0;    // copy of the spec's, kept beside the hot counters
    std::int64_t computed_tokens = 0;  // context tokens whose KV is resident (device or in flight)
    std::int64_t generated_tokens = 0; // never decreases
    std::int64_t replay_remaining = 0; // dropped tokens still to re-prefill
    std::int64_t blocks = 0;           // device blocks held
    std::int64_t host_bytes = 0;       // bytes held in the host pool
    std::int64_t admit_seq = -1;       // admissions and resumes so far across the run when last admitted
    std::int64_t preemptions = 0;
    std::int64_t queue_ticks = 0;
    std::int64_t first_token_tick = -1;
    std::int64_t completion_tick = -1;
    std::int64_t queued_since = -1;    // tick it last entered the waiting queue
    std::int64_t copy_remaining = 0;   // bytes of its current swap copy still to move
    std::int64_t copy_blocks = 0;      // device blocks covered by the current swap-out (freed when it lands)
    std::int64_t copy_pending = 0;     // of those, the ones expected back in the pool (not shared) when it lands
    std::int64_t swapped_tokens = 0;   // tokens whose KV sits on the host
    std::int32_t tenant = 0;
    std::int64_t released_tick = -1;     // last tick it let go of its last device block
    std::int64_t replay_done_target = 0; // the evict's replay_tokens, reported by replay_done
    Recovery last_mode = Recovery::Recompute; // mode of its last eviction
    std::int64_t prefix_settled = 0;     // leading prefix blocks whose cache registration is settled
    std::int64_t cached_tokens = 0;      // tokens attached from the prefix cache at its last admission/resume
    std::int64_t queue_key = 0;          // its key in the waiting queue (priority; vllm-v1 fcfs: its place)
    bool ever_admitted = false;

    bool operator==(const RequestState&) const = default;
};

struct EngineOptions {
    bool record_series = false;   // keep one TickStats per executed tick (the lab's plots)
    bool track_block_owners = false; // keep the block -> request map (the lab's pool grid)
    bool keep_all_candidates = false; // keep every evict's whole candidate list (the lab's "why" panel), not
                                      // only the kListedCandidates a receipt lists (Ledger::all_candidates)
};

// Block owner marks in the pool map.
inline constexpr std::int32_t kFreeBlock = -1;

class Engine {
  public:
    // `workload` must be validated (validateWorkload) and must outlive the engine.
    Engine(const Workload& workload, Ledger& ledger, EngineOptions options = {});

    // The whole mutable run state: copy it to snapshot, assign it back to restore.
    struct State;
    const State& state() const;
    void restore(State s); // taken by value: a caller with a state to spare moves it in
    // A copy of the state without its per-request vectors (RequestState and held block ids, left empty), for
    // snapshots that keep those apart. With the pool map tracked the rest is per block or per queue entry;
    // without it the prefix cache by runs (`extents`) is per request too and is copied whole.
    State stateWithoutRequests();

    bool finished() const;           // every request completed or censored
    Tick nextTick() const;           // the tick step() will execute
    void step();                     // execute one tick (no-op once finished)
    void runToTick(Tick t);          // execute ticks until nextTick() > t or finished
    void runToEnd();
    // Execute ticks until one with a pressure event has run; false if the run ended first.
    bool runToNextPressure();

    const Workload& workload() const { return workload_; }
    std::span<const RequestState> requests() const;
    // The pool map (with EngineOptions::track_block_owners). Each per-block span covers the blocks taken at
    // least once so far, [0, n) with n <= capacity_blocks: blocks past its end have never been used (free, not
    // in flight, no holder, no prefix id). A 50,000,000-block pool that a run never fills costs what it touched.
    std::span<const std::int32_t> blockOwners() const; // request index per block, kFreeBlock when free
    std::span<const std::uint8_t> blockInFlight() const; // 1 when the block is being copied
    // Holders per block (a shared prefix block has several; blockOwners shows one of them). Empty unless the
    // pool map is tracked (without it, a prefix-sharing run keeps its cache by runs of ids, not per block).
    std::span<const std::int32_t> blockRefCount() const;
    // The prefix id each block is registered under in the prefix cache, or -1; a free block that keeps its id
    // can still be hit (attached instead of prefilled) until it is reused. Empty unless blockRefCount is.
    std::span<const std::int64_t> blockPrefixId() const;
    // The device block ids request `r` holds, in logical order. Empty unless blockRefCount is.
    std::span<const std::int32_t> heldBlocks(std::int32_t r) const;
    bool prefixSharing() const { return prefix_; } // some request has prefix_blocks (issue 6)
    const std::vector<TickStats>& series() const;
    const std::vector<std::string>& tenants() const;
    const Totals& totals() const;
    std::int64_t freeBlocks() const;
    std::int64_t hostBytes() const;
    std::int64_t waitingCount() const;
    // Requests in the waiting queue, in queue order (head first).
    std::vector<std::int32_t> waitingQueue() const;

    void setLiveBackend(LiveBackend* backend) { backend_ = backend; }
    // Measurements the backend returned, in event order (empty without a backend).
    const std::vector<LiveAnnotation>& liveAnnotations() const { return live_; }

    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

  private:
    const Workload& workload_;
    Ledger& ledger_;
    EngineOptions options_;
    std::unique_ptr<State> s_;
    LiveBackend* backend_ = nullptr;
    std::vector<LiveAnnotation> live_;
    bool prefix_ = false;  // the workload shares prefixes: the prefix cache is on
    bool tracked_ = false; // block identities are kept (the pool map)
    bool runs_ = false;    // prefix sharing without the pool map: the cache keeps runs of ids, not blocks
    // vllm-v1 with enable_prefix_caching (cachesOwnBlocks): each request's prefix ids are its declared ones, then
    // ids of its own for every later block, so its full blocks stay hittable after it lets them go; and every
    // freed block joins one free queue in the order freed (vLLM's FreeKVCacheBlockQueue), keyed or not.
    std::vector<PrefixIds> own_ids_;
    std::vector<TickStats> series_;
    std::vector<std::string> tenants_;      // byte order; RequestState::tenant indexes it
    VictimRanks ranks_;                     // id and (arrival, id) ranks the victim rules compare
    friend class EngineImpl;
};

std::vector<RequestRecord> requestRecords(const Engine& engine);
// Fills `result` (whose ledger the engine wrote) from a finished engine: records, tenants, totals and, when a
// backend drove the run, its device and measurements. runWorkload, the Session and the tests all end this way.
void collectResult(const Engine& engine, const LiveBackend* backend, RunResult& result);
// With a control, the run checks it every RunCheck::kStepsPerCheck steps and throws RunCancelled when told to
// stop (the lab's compare); a run that is not stopped is the same run as without one.
// `series`, where given, receives the run's per-tick figures (recorded when options.record_series is set; the
// timeline export's counters).
RunResult runWorkload(const Workload& workload, LiveBackend* backend = nullptr, const RunControl& control = {},
                      EngineOptions options = {}, std::vector<TickStats>* series = nullptr);

} // namespace pl
