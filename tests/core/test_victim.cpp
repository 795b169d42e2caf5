// Each victim rule of the contract, on hand-built candidate sets, including its tie-breaks.
#include "core/victim.h"

#include <QtTest>

#include <numeric>

using namespace pl;

class TestVictim : public QObject {
    Q_OBJECT

  private slots:
    void priorityNewest();
    void lastAdmitted();
    void longestAndShortestContext();
    void fewestDecodedComparesIdsAsBytes();
    void mostRemaining();
    void tenantFair();
    void rankingPutsTheVictimFirst();
};

namespace {

// Requests 0..n-1 in (arrival, id) order; ids ranked by `idRanks` (byte order).
struct Fixture {
    std::vector<std::int32_t> idRank;
    std::vector<std::int32_t> arrivalRank;
    explicit Fixture(std::vector<std::int32_t> ids) : idRank(std::move(ids)), arrivalRank(idRank.size()) {
        std::iota(arrivalRank.begin(), arrivalRank.end(), 0);
    }
    VictimContext ctx(VictimRule rule) const { return {rule, idRank, arrivalRank}; }
};

Candidate cand(std::int32_t request, std::int64_t priority, std::int64_t context, std::int64_t generated,
               std::int64_t admitSeq = 0, std::int32_t tenant = 0, std::int64_t blocks = 1,
               std::int64_t prompt = 10, std::int64_t maxOut = 100) {
    Candidate c;
    c.request = request;
    c.priority = priority;
    c.context_tokens = context;
    c.generated_tokens = generated;
    c.admit_seq = admitSeq;
    c.tenant = tenant;
    c.blocks = blocks;
    c.prompt_tokens = prompt;
    c.max_output_tokens = maxOut;
    return c;
}

std::int32_t victimOf(const VictimContext& ctx, const std::vector<Candidate>& cs) {
    return cs[chooseVictim(ctx, cs)].request;
}

} // namespace

void TestVictim::priorityNewest() {
    const Fixture f({0, 1, 2, 3});
    // Least urgent class first (largest priority number), then newest arrival.
    QCOMPARE(victimOf(f.ctx(VictimRule::PriorityNewest), {cand(0, 1, 5, 1), cand(1, 2, 5, 1), cand(2, 0, 5, 1)}), 1);
    QCOMPARE(victimOf(f.ctx(VictimRule::PriorityNewest), {cand(0, 1, 5, 1), cand(3, 1, 5, 1), cand(2, 0, 5, 1)}), 3);
}

void TestVictim::lastAdmitted() {
    const Fixture f({0, 1, 2});
    QCOMPARE(victimOf(f.ctx(VictimRule::LastAdmitted), {cand(0, 0, 5, 1, 7), cand(1, 0, 5, 1, 9), cand(2, 0, 5, 1, 3)}),
             1);
}

void TestVictim::longestAndShortestContext() {
    const Fixture f({0, 1, 2});
    const std::vector<Candidate> cs = {cand(0, 0, 40, 1), cand(1, 0, 8, 1), cand(2, 0, 40, 1)};
    QCOMPARE(victimOf(f.ctx(VictimRule::LongestContext), cs), 2);  // tie on 40: newest
    QCOMPARE(victimOf(f.ctx(VictimRule::ShortestContext), cs), 1);
    const std::vector<Candidate> tie = {cand(0, 0, 8, 1), cand(1, 0, 8, 1)};
    QCOMPARE(victimOf(f.ctx(VictimRule::ShortestContext), tie), 1);
}

void TestVictim::fewestDecodedComparesIdsAsBytes() {
    // Requests 0 and 1 tie on generated and prompt; request 0's id sorts after request 1's id in byte order
    // (e.g. "b" arrived before "a"), so request 0 is the victim although it arrived first.
    const Fixture f({1, 0});
    QCOMPARE(victimOf(f.ctx(VictimRule::FewestDecoded), {cand(0, 0, 20, 3), cand(1, 0, 20, 3)}), 0);
    // Fewer generated tokens wins over everything else.
    QCOMPARE(victimOf(f.ctx(VictimRule::FewestDecoded), {cand(0, 0, 20, 3), cand(1, 0, 20, 5)}), 0);
    // Then the longer prompt.
    QCOMPARE(victimOf(f.ctx(VictimRule::FewestDecoded),
                      {cand(0, 0, 20, 3, 0, 0, 1, 10), cand(1, 0, 20, 3, 0, 0, 1, 30)}),
             1);
}

void TestVictim::mostRemaining() {
    const Fixture f({0, 1});
    QCOMPARE(victimOf(f.ctx(VictimRule::MostRemaining),
                      {cand(0, 0, 20, 10, 0, 0, 1, 10, 200), cand(1, 0, 20, 10, 0, 0, 1, 10, 50)}),
             0);
}

void TestVictim::tenantFair() {
    const Fixture f({0, 1, 2, 3});
    // Tenant 1 holds 2 + 3 = 5 blocks, tenant 0 holds 4: the victim comes from tenant 1, newest first.
    const std::vector<Candidate> cs = {cand(0, 0, 5, 1, 0, 0, 4), cand(1, 0, 5, 1, 0, 1, 2), cand(2, 5, 5, 1, 0, 1, 3),
                                       cand(3, 9, 5, 1, 0, 0, 0)};
    QCOMPARE(victimOf(f.ctx(VictimRule::TenantFair), cs), 2);
}

void TestVictim::rankingPutsTheVictimFirst() {
    const Fixture f({0, 1, 2});
    const std::vector<Candidate> cs = {cand(0, 0, 40, 1), cand(1, 0, 8, 1), cand(2, 0, 24, 1)};
    const auto order = rankCandidates(f.ctx(VictimRule::LongestContext), cs);
    QCOMPARE(order, (std::vector<std::size_t>{0, 2, 1}));
    QCOMPARE(order.front(), chooseVictim(f.ctx(VictimRule::LongestContext), cs));
}

QTEST_GUILESS_MAIN(TestVictim)
#include "test_victim.moc"
