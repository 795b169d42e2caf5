#pragma once
// Victim ranking for "why this victim": the candidates of one evict event, ordered by the run's victim rule
// as core ranks them, and the rule's key written out for each candidate.

#include "core/ledger.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace pl {
class Session;
}

namespace plui {

struct RankedCandidate {
    pl::Candidate candidate;
    QString key; // the rule's key, as text
};

// Candidates of the evict event `eventIndex`, first victim first: every one when the session kept the whole
// list (pl::kWholeCandidateListRequests), else the ones the receipt lists (the greatest keys).
std::vector<RankedCandidate> rankedCandidates(const pl::Session& session, std::int64_t eventIndex);
// The rule's key in words, e.g. "(priority, arrival_tick, id)".
QString victimKeyDescription(const pl::Session& session);

} // namespace plui
