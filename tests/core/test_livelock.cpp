// pl::findLivelock (core/livelock.h): the livelock sample is found, from the tick the engine itself last
// advanced a request; the same workload under the full-reservation guard, and every other sample, is not.
// The engine is stepped tick by tick beside it, so "nothing advanced after lastAdvance" is checked against the
// engine's own request states, not against the ledger the query reads.
#include "tests/core/engine_fixtures.h"

#include "core/engine.h"
#include "core/livelock.h"
#include "core/number_text.h"

#include <QtTest>

#include <algorithm>

using namespace pl;

namespace {

const std::string kLivelock = PREEMPTLAB_SOURCE_DIR "/samples/livelock-next-block.workload.json";

// The last tick in which the engine's own state shows a request gaining an output token, a prefilled prompt
// token (before its first output token) or finishing; -1 when none ever does.
Tick lastEngineAdvance(const Workload& w) {
    Ledger ledger;
    Engine engine(w, ledger);
    struct Seen {
        std::int64_t generated = 0;
        std::int64_t prefilled = 0;
        bool done = false;
    };
    std::vector<Seen> seen(w.requests.size());
    Tick last = -1;
    while (!engine.finished()) {
        const Tick tick = engine.nextTick();
        engine.step();
        const auto states = engine.requests();
        for (std::size_t r = 0; r < states.size(); ++r) {
            const RequestState& st = states[r];
            Seen& s = seen[r];
            const bool done = st.phase == Phase::Done;
            const std::int64_t prefilled = st.generated_tokens > 0 ? 0 : st.computed_tokens;
            if (st.generated_tokens > s.generated || (st.generated_tokens == s.generated && prefilled > s.prefilled) ||
                (done && !s.done)) {
                last = tick;
            }
            s.generated = std::max(s.generated, st.generated_tokens);
            if (st.generated_tokens > 0) s.prefilled = 0;
            else s.prefilled = std::max(s.prefilled, prefilled);
            s.done = s.done || done;
        }
    }
    return last;
}

} // namespace

class TestLivelock : public QObject {
    Q_OBJECT
  private slots:
    void theLivelockSampleIsFound();
    void fullReservationIsNoLivelock();
    void noOtherSampleIsOne();
    void aRunStillAdvancingAtItsCutOffIsNoLivelock();
};

void TestLivelock::theLivelockSampleIsFound() {
    const Workload w = pltest::loadSampleFile(kLivelock);
    const RunResult run = runWorkload(w);
    const auto found = findLivelock(w, run);
    QVERIFY(found.has_value());
    const Tick engineLast = lastEngineAdvance(w);
    qInfo("livelock: ledger says nothing advanced after tick %lld; the engine's last advance is tick %lld; "
          "%lld evictions after it, end %lld",
          static_cast<long long>(found->lastAdvance), static_cast<long long>(engineLast),
          static_cast<long long>(found->evictions), static_cast<long long>(found->end));
    // The ledger sees a gain at the request's next event, never before the engine made it: the claim "nothing
    // advanced after lastAdvance" holds, and it is at most one eviction cycle late.
    QVERIFY(engineLast >= 0);
    QVERIFY(found->lastAdvance >= engineLast);
    QVERIFY2(found->lastAdvance - engineLast <= w.config.wait_threshold_ticks, "the ledger's tick is far too late");
    // Neither request advances for most of the run (the engine's states: a's last token at tick 450, b's
    // earlier); both are censored at max_ticks.
    QVERIFY(found->lastAdvance < w.config.max_ticks / 2);
    QCOMPARE(found->censored, 2);
    QCOMPARE(found->end, w.config.max_ticks);
    QCOMPARE(static_cast<int>(found->churned.size()), 2);
    std::int64_t evicts = 0;
    for (const Event& e : run.ledger.events)
        if (e.kind == EventKind::Evict && e.tick > found->lastAdvance) ++evicts;
    QCOMPARE(found->evictions, evicts);
    QCOMPARE(found->churned[0].evictions + found->churned[1].evictions, evicts);
    QVERIFY(found->churned[0].evictions >= found->churned[1].evictions);
    const std::string sentence = livelockSentence(w, *found);
    QVERIFY2(sentence.find("from tick " + formatThousands(found->lastAdvance + 1)) != std::string::npos, sentence.c_str());
    QVERIFY2(sentence.find("2 requests were unfinished at max_ticks") != std::string::npos, sentence.c_str());
}

void TestLivelock::fullReservationIsNoLivelock() {
    Workload w = pltest::loadSampleFile(kLivelock);
    w.policy.resume_guard = ResumeGuard::FullReservation;
    const RunResult run = runWorkload(w);
    QCOMPARE(run.totals.censored, 0);
    QVERIFY(!findLivelock(w, run));
}

void TestLivelock::noOtherSampleIsOne() {
    for (const std::string& path : pltest::sampleFiles()) {
        if (path == kLivelock) continue;
        const Workload w = pltest::loadSampleFile(path);
        const RunResult run = runWorkload(w);
        const auto found = findLivelock(w, run);
        QVERIFY2(!found, (path + ": " + (found ? livelockSentence(w, *found) : std::string())).c_str());
    }
}

void TestLivelock::aRunStillAdvancingAtItsCutOffIsNoLivelock() {
    // The livelock sample cut off at tick 400, long before it stops advancing: censored, evicting, not stalled.
    Workload w = pltest::loadSampleFile(kLivelock);
    w.config.max_ticks = 400;
    const RunResult run = runWorkload(w);
    QVERIFY(run.totals.censored > 0);
    QVERIFY(run.totals.evictions > 0);
    QVERIFY(!findLivelock(w, run));
}

QTEST_MAIN(TestLivelock)
#include "test_livelock.moc"
