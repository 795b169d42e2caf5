#pragma once
// EngineImpl: all of the engine's behaviour (internal to core). Engine (engine.h) is its public face and
// owns the state; an EngineImpl is a short-lived view over one Engine while it steps. The member functions
// are spread over engine.cpp (the tick loop), engine_evict.cpp (allocation under pressure and eviction),
// engine_blocks.cpp (the block pool and the prefix cache) and engine_api.cpp (Engine itself).

#include "core/engine.h"

#include "core/engine_state.h"
#include "core/ledger.h"
#include "core/live_backend.h"
#include "core/request_index.h"
#include "core/victim.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace pl {

inline bool isRunnable(Phase p) { return p == Phase::Prefill || p == Phase::Decode || p == Phase::Replay; }

// All of the engine's behaviour; Engine is its public face.
class EngineImpl {
  public:
    explicit EngineImpl(Engine& e)
        : e_(e), s_(*e.s_), w_(e.workload_), c_(e.workload_.config), p_(e.workload_.policy) {}

    static void init(Engine& e);
    void step();
    // A quiescent skip never carries next_tick past `t` (runToTick stops exactly after its tick).
    void stopSkipsAt(Tick t) { skipHorizon_ = t; }

  private:
    Engine& e_;
    Engine::State& s_;
    const Workload& w_;
    const Config& c_;
    const Policy& p_;
    Tick t_ = 0;
    Tick skipHorizon_ = std::numeric_limits<Tick>::max();
    bool evictedThisTick_ = false;
    std::int64_t prefillBudget_ = 0;
    std::vector<Candidate> scratch_;

    std::int64_t blocksFor(std::int64_t tokens) const { return ceilDiv(tokens, c_.block_size_tokens); }
    std::int64_t occupied() const { return c_.capacity_blocks - s_.free_blocks; }
    // Free blocks and those on their way back from swap-outs in flight: a need within it waits for the copies to
    // land instead of evicting (tick-model-1, and the profiles' swap what-if).
    std::int64_t blocksComing() const { return s_.free_blocks + s_.pending_out_blocks; }
    std::int64_t target(RequestIndex r) const { return spec(r).prompt_tokens + s_.req[r].generated_tokens; }
    RequestState& rq(RequestIndex r) { return s_.req[r]; }
    // Workload::requests is a plain vector (model.h): the one place the engine subscripts it.
    const RequestSpec& spec(RequestIndex r) const { return w_.requests[r.slot()]; }
    // The prefix ids r's blocks are cached under: its declared prefix_blocks, and under vllm-v1 with
    // enable_prefix_caching ids of its own for every block after them.
    const PrefixIds& prefixIds(RequestIndex r) const {
        return e_.own_ids_.empty() ? spec(r).prefix_blocks : e_.own_ids_[r.slot()]; // (per request, as spec's)
    }
    // vLLM's free queue (with enable_prefix_caching): every freed block joins the queue of cached free blocks.
    bool oneFreeQueue() const { return !e_.own_ids_.empty(); }

    Event& emit(EventKind kind, RequestIndex request);
    void annotate(std::int64_t seq, RequestIndex r, const char* kind, std::int64_t tokens, const LiveMeasurement& m);
    // A request arrives at this tick (arrivals() has work).
    bool arrivalDue() const {
        return s_.next_arrival < w_.requests.size() && w_.requests[s_.next_arrival].arrival_tick <= t_;
    }
    void arrivals();
    void link();
    void preemptAhead();
    void runRequests();
    void admit();
    bool joinRunning(RequestIndex r, bool erased = false);
    void resumeBySwapIn(RequestIndex r, bool erased = false);
    // The engine profiles' waiting loops meet a swapped request (a what-if: recovery swap, hybrid or adaptive
    // under a profile): Skip one still copying out, Resumed one whose blocks were free (its swap-in started),
    // Blocked one whose blocks are not (head-of-line), NotSwapped a request that recomputes.
    enum class SwapResume { NotSwapped, Skip, Resumed, Blocked };
    SwapResume tryResumeSwapped(RequestIndex r, std::int64_t freeBlocks);
    std::int64_t admissionGate(RequestIndex r, std::int64_t budget, std::int64_t cached, std::int64_t& needNow,
                               std::int64_t& chunk) const;
    bool skipQuiescentTicks();
    void emitFinal(EventKind kind, RequestIndex r, std::int64_t blocks, std::int64_t freed);
    std::int64_t reusableCachedBlocks(RequestIndex head, std::int64_t wanted);
    void censorAll();

    std::int64_t demandOf(RequestIndex r, std::int64_t& budget) const;
    std::int64_t growthThisTick() const;
    bool allocate(RequestIndex r, std::int64_t need);
    void takeBlocks(RequestIndex r, std::int64_t n);
    std::int64_t releaseBlocks(RequestIndex r, std::int64_t n, bool fromTail);
    void holdMore(RequestIndex r, std::int64_t n);
    std::int32_t popFreeBlock();
    void lruUnlink(std::int32_t b);
    void lruPushBack(std::int32_t b);
    RequestIndex otherHolder(std::int32_t b, RequestIndex leaving, std::size_t pos) const;
    // The pool map keeps each block's owner as the int32 the lab reads (Engine::blockOwners), kFreeBlock for none:
    // the one place a request index goes into it and comes out.
    static_assert(RequestIndex::none().value() == kFreeBlock);
    RequestIndex ownerOf(std::int32_t b) const { return RequestIndex(s_.owner[static_cast<std::size_t>(b)]); }
    void setOwner(std::int32_t b, RequestIndex r) { s_.owner[static_cast<std::size_t>(b)] = r.value(); }
    std::int64_t exclusiveBlocks(RequestIndex r, std::int64_t n) const;
    std::int64_t prefixHits(RequestIndex r, std::int64_t limit, std::int64_t& shared);
    void attachPrefix(RequestIndex r, std::int64_t h);
    void registerPrefix(RequestIndex r);
    // takeBack (vllm-v1): called with the victim before it is evicted, to give back a step already scheduled.
    bool evictOne(RequestIndex requester, PressureTrigger trigger, bool& pressureLogged, std::int64_t need,
                  void (*takeBack)(EngineImpl&, RequestIndex) = nullptr);
    void evict(RequestIndex victim, std::size_t candidatesBegin, std::size_t candidatesCount);
    std::int64_t listCandidates(std::size_t begin, std::size_t count, Event& ev);
    std::size_t gatherCandidates();
    void appendCandidate(RequestIndex r);
    void logPressure(RequestIndex requester, PressureTrigger trigger, std::int64_t need);
    void progress(RequestIndex r, std::int64_t chunk);
    void complete(RequestIndex r);
    void enqueue(RequestIndex r, bool preempted = false);
    std::int64_t queuePosition(RequestIndex r) const;
    void compactRunning();
    // vllm-v1 (engine_vllm.cpp): Scheduler.schedule() and the step it schedules.
    void scheduleVllm();
    // The profiles' tokens per step: max_num_batched_tokens (vLLM's budget, SGLang's chunked-prefill size,
    // TensorRT-LLM's max_num_tokens), 0 meaning prefill_tokens_per_tick.
    std::int64_t stepTokenBudget() const {
        return c_.max_num_batched_tokens > 0 ? c_.max_num_batched_tokens : c_.prefill_tokens_per_tick;
    }
    bool vllmStepsAreQuiet(); // (looks up the head's prefix hits, memoised)
    // What admitting waiting request r under vllm-v1 would take with `budget` tokens left (engine_vllm.cpp).
    struct VllmAdmission {
        std::int64_t hits = 0;      // leading blocks from the prefix cache
        std::int64_t tokens = 0;    // tokens it computes this step
        std::int64_t newBlocks = 0; // blocks allocated for them
        std::int64_t fromFree = 0;  // blocks that must be free: the new ones and the hits no one else holds
    };
    VllmAdmission vllmAdmission(RequestIndex r, std::int64_t budget);
    bool trtllmStepsAreQuiet() const;
    bool sglangStepsAreQuiet(std::int64_t d) const;
    void sglangDecayRatio(std::int64_t steps);
    void noteQuietDecodeStep(); // engine_profiles.cpp
    // sglang (engine_sglang.cpp): Scheduler.get_next_batch_to_run() and the batch it runs.
    void scheduleSglang();
    RequestIndex retractionVictim(std::size_t begin, std::size_t count) const;
    // trtllm-* (engine_trtllm.cpp): the capacity scheduler, the micro-batch token limit and the step.
    void scheduleTrtllm();
    // engine_profiles.cpp: a waiting request joins the running list to (re)compute its context.
    void admitForRecompute(RequestIndex r, std::int64_t newBlocks, std::int64_t hits = 0);
    bool vllmFcfs() const { return p_.victim_rule != VictimRule::PriorityNewest; }
    struct ScheduledStep {
        RequestIndex request;
        std::int64_t tokens;
        std::int64_t new_blocks;
    };
    std::vector<ScheduledStep> scheduled_;
    std::int64_t budgetLeft_ = 0; // the running loop's token budget while victims are taken back
    std::vector<RequestIndex> trtRunning_; // trtllm: the running requests in activeRequests order (reused)

  public:
    void takeBackStep(RequestIndex victim); // (evictOne's takeBack under vllm-v1)
};

} // namespace pl
