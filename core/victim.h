#pragma once
// Victim selection: the contract's rules, each a key maximised left to right (docs/contracts.md, "Victim
// rules"). Ids and tenants compare as byte strings; the engine passes their ranks in byte order, so integer
// comparison of ranks is byte-string comparison.

#include "core/ledger.h"
#include "core/model.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pl {

using VictimKey = std::array<std::int64_t, 5>;

struct VictimContext {
    VictimRule rule = VictimRule::PriorityNewest;
    std::span<const std::int32_t> id_rank;     // per request: rank of its id in byte order
    std::span<const std::int32_t> arrival_rank; // per request: rank in (arrival_tick, id) order
};

// The key of one candidate under the rule. `tenant_blocks` is the sum of blocks over that candidate's tenant
// among all candidates (only tenant-fair uses it).
VictimKey victimKey(const VictimContext& ctx, const Candidate& c, std::int64_t tenant_blocks);

// The ranks a VictimContext points into, for a normalised workload: ids in byte order, and (arrival_tick, id)
// order, which is the workload's own index order. The engine and the lab's "why this victim" both use it.
struct VictimRanks {
    std::vector<std::int32_t> id_rank;
    std::vector<std::int32_t> arrival_rank;
    static VictimRanks of(const Workload& workload);
    VictimContext context(VictimRule rule) const { return {rule, id_rank, arrival_rank}; }
};

// Index (into `candidates`) of the victim: the candidate with the greatest key. Candidates must be non-empty.
std::size_t chooseVictim(const VictimContext& ctx, std::span<const Candidate> candidates);

// The engine's own rule, in its words, when the policy follows an engine profile whose victim rule it is
// (the lab's "why" panel: "vLLM fcfs: running.pop() took the last admitted request"); "" otherwise.
std::string engineVictimRule(const Policy& policy);
// Under an engine profile, a recovery by swap or hybrid is the lab's what-if (the engines recover by recompute):
// the words that say so after the mode ("a what-if: vllm-v1 recovers by recompute ..."); empty otherwise.
std::string engineRecoveryWhatIf(const Policy& policy, Recovery mode);

// SGLang retract_decode's order under fewest-decoded, as a key maximised (the fewest output tokens, then the
// longest prompt, then the latest in the batch): the sglang profile's victim and its listed candidates.
inline VictimKey sglangRetractKey(const Candidate& c) { return {-c.generated_tokens, c.prompt_tokens, c.admit_seq, 0, 0}; }

// Each candidate's tenant_blocks: the blocks its tenant's candidates hold, over all of `candidates`.
void fillTenantBlocks(std::span<Candidate> candidates);

// The candidates an evict lists (ascending indices into `candidates`): all of them when there are at most
// `limit`, else the `limit` with the greatest keys under what chose the victim, so the victim is among them:
// the rule's key, or under the sglang profile with fewest-decoded retract_decode's own order (ties to the
// latest admitted). Keys are unique per request, so the choice is deterministic.
std::vector<std::size_t> listedCandidates(const Policy& policy, const VictimContext& ctx,
                                          std::span<const Candidate> candidates,
                                          std::size_t limit = kListedCandidates);

// Candidates ordered from first victim to last (the lab's "why this victim" ranking).
std::vector<std::size_t> rankCandidates(const VictimContext& ctx, std::span<const Candidate> candidates);

} // namespace pl
