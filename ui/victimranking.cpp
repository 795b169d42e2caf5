#include "ui/victimranking.h"

#include "core/session.h"
#include "core/victim.h"

#include <algorithm>

namespace plui {

namespace {

QString keyText(const pl::Session& s, const pl::Candidate& c, std::int64_t tenantBlocks) {
    const auto& reqs = s.workload().requests;
    const QString id = QString::fromStdString(reqs[static_cast<std::size_t>(c.request)].id);
    const QString tenant = c.tenant >= 0 && static_cast<std::size_t>(c.tenant) < s.result().tenants.size()
                               ? QString::fromStdString(s.result().tenants[static_cast<std::size_t>(c.tenant)])
                               : QString::number(c.tenant);
    switch (s.workload().policy.victim_rule) {
    case pl::VictimRule::PriorityNewest:
        return QStringLiteral("(%1, %2, %3)").arg(c.priority).arg(c.arrival_tick).arg(id);
    case pl::VictimRule::LastAdmitted: return QStringLiteral("(%1)").arg(c.admit_seq);
    case pl::VictimRule::LongestContext:
        return QStringLiteral("(%1, %2, %3)").arg(c.context_tokens).arg(c.arrival_tick).arg(id);
    case pl::VictimRule::ShortestContext:
        return QStringLiteral("(%1, %2, %3)").arg(-c.context_tokens).arg(c.arrival_tick).arg(id);
    case pl::VictimRule::FewestDecoded:
        return QStringLiteral("(%1, %2, %3)").arg(-c.generated_tokens).arg(c.prompt_tokens).arg(id);
    case pl::VictimRule::MostRemaining:
        return QStringLiteral("(%1, %2, %3)").arg(c.max_output_tokens - c.generated_tokens).arg(c.arrival_tick).arg(id);
    case pl::VictimRule::TenantFair:
        return QStringLiteral("(%1, %2, %3, %4, %5)").arg(tenantBlocks).arg(tenant).arg(c.priority).arg(c.arrival_tick).arg(id);
    }
    return {};
}

} // namespace

QString victimKeyDescription(const pl::Session& session) {
    switch (session.workload().policy.victim_rule) {
    case pl::VictimRule::PriorityNewest: return QStringLiteral("(priority, arrival_tick, id)");
    case pl::VictimRule::LastAdmitted: return QStringLiteral("(admit_seq)");
    case pl::VictimRule::LongestContext: return QStringLiteral("(context_tokens, arrival_tick, id)");
    case pl::VictimRule::ShortestContext: return QStringLiteral("(-context_tokens, arrival_tick, id)");
    case pl::VictimRule::FewestDecoded: return QStringLiteral("(-generated_tokens, prompt_tokens, id)");
    case pl::VictimRule::MostRemaining: return QStringLiteral("(max_output_tokens - generated_tokens, arrival_tick, id)");
    case pl::VictimRule::TenantFair: return QStringLiteral("(tenant_blocks, tenant, priority, arrival_tick, id)");
    }
    return {};
}

std::vector<RankedCandidate> rankedCandidates(const pl::Session& session, std::int64_t eventIndex) {
    std::vector<RankedCandidate> out;
    const auto& ledger = session.result().ledger;
    if (eventIndex < 0 || static_cast<std::size_t>(eventIndex) >= ledger.events.size()) return out;
    const pl::Event& e = ledger.events[static_cast<std::size_t>(eventIndex)];
    const bool whole = e.all_candidates_count == e.candidates_total && e.candidates_total > 0;
    const auto& list = whole ? ledger.all_candidates : ledger.candidates;
    const auto begin = static_cast<std::size_t>(whole ? e.all_candidates_begin : e.candidates_begin);
    const auto count = static_cast<std::size_t>(whole ? e.all_candidates_count : e.candidates_count);
    if (begin + count > list.size()) return out;
    // Core's ranking: the same rule, keys and ranks the engine used (tenant-fair: each candidate's tenant_blocks,
    // its tenant's blocks over the whole list, as the engine filled it in).
    const pl::VictimRanks ranks = pl::VictimRanks::of(session.workload());
    const pl::VictimContext ctx = ranks.context(session.workload().policy.victim_rule);
    const std::span<const pl::Candidate> cands(list.data() + begin, count);
    for (std::size_t k : pl::rankCandidates(ctx, cands)) {
        out.push_back({cands[k], keyText(session, cands[k], cands[k].tenant_blocks)});
    }
    return out;
}

} // namespace plui
