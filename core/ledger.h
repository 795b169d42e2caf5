#pragma once
// The ledger: every event of a run, in order. Events are flat value records; which fields a receipt writes
// for each kind is decided in receipt.cpp (see docs/receipt.md). Request and tenant fields are indices into
// the workload's request list (normalised order) and the run's tenant table.

#include "core/model.h"
#include "core/workload.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pl {

enum class EventKind : std::uint8_t {
    Arrive,      // the request joined the waiting queue
    Admit,       // first admission: prefill starts
    FirstToken,  // prefill finished and the first output token was generated
    Pressure,    // the pool could not serve next tick's (or this tick's) demand: victims follow
    Evict,       // a victim was chosen and its blocks taken back (recompute: at once; swap: when the copy lands)
    SwapOutDone, // the victim's swapped blocks landed on the host; its device blocks return to the pool
    Resume,      // a preempted request was admitted again (recompute/hybrid: replay starts; swap: copy back starts)
    SwapInDone,  // the copy back landed; the request runs again
    ReplayDone,  // the replay of discarded tokens finished
    Complete,    // all output tokens generated; blocks freed
    Censor,      // still unfinished at max_ticks
};
std::string_view toString(EventKind k);

// RetractDecode (sglang): the decode batch's next step does not fit, retraction runs over the whole batch.
// RequestCap (trtllm-max-utilization): max_num_seqs requests are scheduled already, which pauses too
// (need_blocks 0 when the blocks were there).
enum class PressureTrigger : std::uint8_t { AllocationFailed, PreemptAhead, RetractDecode, RequestCap };
std::string_view toString(PressureTrigger t);

// Why an evict ran in another mode than the policy asked for.
enum class Fallback : std::uint8_t { None, HostFull, HybridHostShrunk, NothingToSwap };

// One candidate of an eviction decision, as it stood when the victim was chosen.
struct Candidate {
    std::int32_t request = -1;
    std::int32_t tenant = -1;
    std::int64_t priority = 0;
    std::int64_t arrival_tick = 0;
    std::int64_t admit_seq = 0;
    std::int64_t prompt_tokens = 0;
    std::int64_t generated_tokens = 0;
    std::int64_t context_tokens = 0;
    std::int64_t max_output_tokens = 0;
    std::int64_t blocks = 0;
    std::int64_t tenant_blocks = 0; // tenant-fair: blocks held by its tenant's candidates, all of them (0 otherwise)
};

// An evict keeps at most this many candidates (docs/receipt.md, "evict"): all of them when there are no more,
// else the ones with the greatest keys under the rule that chose the victim. The receipt grows with evictions,
// not with evictions x running requests; the lab keeps the whole list too (EngineOptions::keep_all_candidates).
inline constexpr std::size_t kListedCandidates = 8;

struct Event {
    std::int64_t seq = 0;
    Tick tick = 0;
    EventKind kind = EventKind::Arrive;
    std::int32_t request = -1;
    // mode actually used (evict, resume, swap_*_done, replay_done)
    Recovery mode = Recovery::Recompute;
    Fallback fallback = Fallback::None;
    PressureTrigger trigger = PressureTrigger::AllocationFailed;
    std::int64_t capacity_blocks = 0;
    std::int64_t occupied_blocks = 0; // device blocks in use (evict: before the victim's blocks are taken back)
    std::int64_t prompt_tokens = 0;
    std::int64_t generated_tokens = 0;
    std::int64_t context_tokens = 0;
    std::int64_t freed_blocks = 0;     // evict: blocks the victim gives back (swap: when the copy lands)
    std::int64_t replay_tokens = 0;    // evict: tokens to re-prefill (dropped now + carried); replay_done: tokens replayed
    std::int64_t swap_out_bytes = 0;   // evict, swap_out_done
    std::int64_t swap_in_bytes = 0;    // resume, swap_in_done
    std::int64_t swap_blocks = 0;      // hybrid: full blocks swapped; swap: all blocks
    std::int64_t est_recompute_ticks = 0;
    std::int64_t est_swap_ticks = 0;
    std::int64_t queue_position = 0;   // evict: position in the waiting queue after re-entry (0 = head)
    std::int64_t host_bytes = 0;       // host memory in use after the event
    std::int64_t need_blocks = 0;      // pressure: blocks wanted
    std::int64_t free_blocks = 0;      // pressure: blocks free when it was noticed
    std::int64_t fallback_need_bytes = 0;
    std::int64_t fallback_free_bytes = 0;
    std::int64_t candidates_begin = 0;  // evict: range in Ledger::candidates (the listed ones)
    std::int64_t candidates_count = 0;
    std::int64_t candidates_total = 0;  // evict: how many the victim was chosen among (>= candidates_count)
    std::int64_t all_candidates_begin = 0; // evict, with keep_all_candidates: range in Ledger::all_candidates
    std::int64_t all_candidates_count = 0;
    // Prefix sharing (written only when the workload has prefix_blocks, so other receipts keep their bytes).
    bool prefix = false;
    std::int64_t cached_tokens = 0; // admit, resume: tokens attached from the prefix cache (not prefilled)
    std::int64_t shared_blocks = 0; // evict, swap_out_done, complete, censor: blocks let go that others still hold
};

// An evict's replay, split (docs/receipt.md, "evict"): the tokens it dropped from the resident context, and the
// tokens it carried over from an earlier eviction's replay that had not finished (evicted while replaying).
// Both follow from the event alone: kept = context (swap), swap_blocks x block size (hybrid), 0 (recompute).
std::int64_t droppedReplayTokens(const Event& evict, std::int64_t blockSizeTokens);
std::int64_t carriedReplayTokens(const Event& evict, std::int64_t blockSizeTokens);

struct Ledger {
    std::vector<Event> events;
    std::vector<Candidate> candidates;     // what each evict lists (at most kListedCandidates each)
    std::vector<Candidate> all_candidates; // every candidate of each evict (EngineOptions::keep_all_candidates)
    void truncate(std::size_t eventCount); // drop events (and their candidates) from eventCount on
};

// What caused the evict at events[evictIndex]: the pressure event it answers (the one the engine logged before
// the first victim it chose for that need, in the same tick), where it stands in that pressure's evictions, and
// how many that pressure took, and the requester: the request whose need caused it (allocation-failed,
// request-cap; the victim itself when it evicted itself), or -1 when no one request's need did (preempt-ahead,
// SGLang's retract-decode). pressure < 0 when events[evictIndex] is no evict or none precedes it.
struct EvictionCause {
    std::int64_t pressure = -1; // index into events
    std::int32_t requester = -1; // request index, -1 for none
    std::int64_t nth = 0;       // this evict is the nth (1-based) of the pressure's
    std::int64_t evictions = 0; // evicts that answered the same pressure
};
EvictionCause evictionCause(const Ledger& ledger, std::size_t evictIndex);

// What became of the request the evict at events[evictIndex] took, from the events after it: its next resume
// (how it came back: mode, cached and replayed tokens), the evict that took it again before it finished, if any,
// and its complete or censor event. Each is an index into events, or -1 when the run has none.
struct EvictionOutcome {
    std::int64_t resume = -1;
    std::int64_t next_evict = -1;
    std::int64_t end = -1;
};
EvictionOutcome evictionOutcome(const Ledger& ledger, std::size_t evictIndex);

// Who was evicted at one tick, as the lab's "why" panel shows it: the victims of the tick's evict and
// swap_out_done events, each once, in event order; per victim, whether only its swap-out landed here (its evict
// was earlier: landed 1; evicted here too: 0) and the tick it was evicted at (this one, or a landed swap-out's
// last evict before it); the requesters whose need caused the tick's evictions (evictionCause), each once, and
// those among them that evicted themselves.
struct VictimsAtTick {
    std::vector<std::int32_t> victims;   // request indices
    std::vector<std::uint8_t> landed;    // per victim
    std::vector<Tick> evicted_at;        // per victim
    std::vector<std::int32_t> requesters;
    std::vector<std::int32_t> self_evicted;
};
VictimsAtTick victimsAtTick(const Ledger& ledger, Tick tick);

} // namespace pl
