// Session: seeking back and forth gives exactly the state a fresh engine reaches by running forward.
#include "tests/core/engine_fixtures.h"

#include "core/engine_state.h"
#include "core/receipt.h"
#include "core/session.h"
#include "core/trace/generator.h"

#include <QtTest>

using namespace pl;
using namespace pltest;

class TestSession : public QObject {
    Q_OBJECT

  private slots:
    void seekMatchesFreshRun();
    void pressureNavigation();
    void fullRunMatchesRunWorkload();
    void runToTickStopsInsideQuiescentStretch();
    void snapshotsShareUnchangedRequests();
    void poolMapCoversTheBlocksTaken();
    void aHugePoolCostsWhatTheRunTouches();
    void stateMovesItsWaitingQueue();
    void intervalFollowsTheRunsLength();
    void fullRunIsTheRunWithThePoolMap();
};

namespace {

void compareWithFresh(const Workload& w, const Session& s, Tick t) {
    Ledger ledger;
    Engine fresh(w, ledger, EngineOptions{false, true});
    fresh.runToTick(t);
    const auto a = s.cursor().requests();
    const auto b = fresh.requests();
    QCOMPARE(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(int(a[i].phase), int(b[i].phase));
        QCOMPARE(a[i].generated_tokens, b[i].generated_tokens);
        QVERIFY2(a[i] == b[i], qPrintable(QStringLiteral("request %1 at tick %2").arg(i).arg(t))); // every field
    }
    QCOMPARE(s.cursor().blockOwners().size(), fresh.blockOwners().size());
    QCOMPARE(s.cursor().blockInFlight().size(), fresh.blockInFlight().size());
    QVERIFY(std::equal(s.cursor().blockOwners().begin(), s.cursor().blockOwners().end(), fresh.blockOwners().begin()));
    QVERIFY(std::equal(s.cursor().blockInFlight().begin(), s.cursor().blockInFlight().end(),
                       fresh.blockInFlight().begin()));
    QCOMPARE(s.cursor().freeBlocks(), fresh.freeBlocks());
}

// Generated short requests (prompts about 32 tokens, outputs about 16) arriving at `rate` per tick.
Workload shortRequests(std::uint64_t seed, std::int64_t count, double rate, std::int64_t blocks,
                       std::int64_t maxTicks = trace::GeneratorParams::defaultConfig().max_ticks) {
    trace::GeneratorParams p;
    p.seed = seed;
    p.count = count;
    p.rate_per_tick = rate;
    p.prompt_median = 32;
    p.output_median = 16;
    p.prompt_max = 128;
    p.output_max = 64;
    p.config.capacity_blocks = blocks;
    p.config.max_ticks = maxTicks;
    auto generated = trace::generateWorkload(p);
    if (!std::holds_alternative<Workload>(generated)) qFatal("the generator refused its parameters");
    return std::get<Workload>(std::move(generated));
}

} // namespace

void TestSession::seekMatchesFreshRun() {
    for (const char* name : {"seed-example", "swap-wins", "livelock-next-block"}) {
        const auto w = loadSample(name);
        Session s(w);
        QVERIFY(s.snapshotCount() >= 1);
        const Tick last = s.lastTick();
        QVERIFY(last > 10);
        for (Tick t : {last / 2, Tick{3}, last, Tick{0}, last / 3 + 1, last - 1, Tick{-1}, last / 2 + 7}) {
            s.seek(t);
            QCOMPARE(s.currentTick(), std::clamp<Tick>(t, -1, last));
            compareWithFresh(w, s, std::clamp<Tick>(t, -1, last));
        }
        s.seek(5);
        s.stepForward();
        QCOMPARE(s.currentTick(), Tick{6});
        s.stepBack();
        s.stepBack();
        QCOMPARE(s.currentTick(), Tick{4});
        compareWithFresh(w, s, 4);
    }
}

void TestSession::pressureNavigation() {
    const auto w = loadSample("burst-recompute-wave");
    Session s(w);
    QVERIFY(!s.pressureTicks().empty());
    s.seek(-1);
    QVERIFY(s.seekNextPressure());
    QCOMPARE(s.currentTick(), s.pressureTicks().front());
    QVERIFY(s.seekNextPressure());
    QCOMPARE(s.currentTick(), s.pressureTicks()[1]);
    QVERIFY(s.seekPreviousPressure());
    QCOMPARE(s.currentTick(), s.pressureTicks().front());
    QVERIFY(!s.seekPreviousPressure());
    s.seek(s.lastTick());
    QVERIFY(!s.seekNextPressure());
}

void TestSession::fullRunMatchesRunWorkload() {
    const auto w = loadSample("starvation");
    Session s(w);
    const auto direct = runWorkload(w);
    QCOMPARE(s.result().totals, direct.totals);
    QCOMPARE(s.result().ledger.events.size(), direct.ledger.events.size());
    QCOMPARE(static_cast<std::int64_t>(s.series().size()) > 0, true);
    QCOMPARE(s.series().back().completed, direct.totals.completed);
}

// A run of 12,000 short requests arriving over its length: at any snapshot most requests have not arrived or are
// long done, so consecutive snapshots share them and the snapshots hold a small part of 128 whole copies;
// seeking into every part of the request list still restores exactly what a fresh run reaches.
void TestSession::snapshotsShareUnchangedRequests() {
    const Workload w = shortRequests(9, 12000, 1.0, 1024);
    Session s(w);
    s.seek(s.lastTick()); // snapshots are taken as seeks first reach each part of the run
    QVERIFY2(s.snapshotCount() > 64, qPrintable(QString::number(s.snapshotCount())));
    const std::size_t whole = w.requests.size() * sizeof(RequestState);
    QVERIFY2(s.snapshotBytes() < s.snapshotCount() * whole / 8,
             qPrintable(QStringLiteral("%1 bytes in %2 snapshots of %3 bytes of requests")
                            .arg(s.snapshotBytes()).arg(s.snapshotCount()).arg(whole)));
    const Tick last = s.lastTick();
    for (Tick t : {last - 3, last / 5, Tick{0}, last / 2 + 11, last * 4 / 5, Tick{-1}, last / 2}) {
        s.seek(t);
        compareWithFresh(w, s, std::clamp<Tick>(t, -1, last));
    }

    // A memory cap keeps fewer snapshots (seeks replay further) and still seeks exactly.
    RunControl capped;
    capped.max_snapshot_bytes = s.snapshotBytes() / 2;
    Session small(w, capped);
    small.seek(small.lastTick());
    QVERIFY2(small.snapshotBytes() <= capped.max_snapshot_bytes,
             qPrintable(QStringLiteral("%1 > %2").arg(small.snapshotBytes()).arg(capped.max_snapshot_bytes)));
    QVERIFY(small.snapshotCount() < s.snapshotCount());
    QVERIFY(small.snapshotInterval() > s.snapshotInterval());
    QCOMPARE(small.result().totals, s.result().totals);
    for (Tick t : {last / 3, Tick{5}, last - 1}) {
        small.seek(t);
        compareWithFresh(w, small, t);
    }
}

// The pool map is lazy (issue 21): every per-block span covers [0, n), n the blocks taken at least once, and a
// fresh pool fills from block 0 upwards, so n is one past the highest block id any request has held. Checked
// tick by tick, eviction and prefix sharing included.
void TestSession::poolMapCoversTheBlocksTaken() {
    for (const char* name : {"seed-example", "swap-wins", "livelock-next-block", "generated-bursty-shared-prefix"}) {
        const auto w = loadSample(name);
        Ledger ledger;
        Engine e(w, ledger, EngineOptions{true, true});
        std::int64_t highest = -1;
        std::int64_t evictions = 0;
        while (!e.finished()) {
            e.step();
            for (std::size_t r = 0; r < w.requests.size(); ++r) {
                for (const std::int32_t b : e.heldBlocks(static_cast<std::int32_t>(r))) {
                    highest = std::max<std::int64_t>(highest, b);
                }
            }
            const auto n = static_cast<std::int64_t>(e.blockOwners().size());
            QVERIFY2(n == highest + 1, qPrintable(QStringLiteral("%1 at tick %2: map of %3 blocks, highest held %4")
                                                      .arg(name).arg(e.nextTick() - 1).arg(n).arg(highest)));
            QCOMPARE(static_cast<std::int64_t>(e.blockInFlight().size()), n);
            QCOMPARE(static_cast<std::int64_t>(e.blockRefCount().size()), n);
            QCOMPARE(static_cast<std::int64_t>(e.blockPrefixId().size()), n);
            QVERIFY(n <= w.config.capacity_blocks);
            evictions = e.totals().evictions;
        }
        QVERIFY2(evictions > 0 || std::string(name) == "generated-bursty-shared-prefix", name);
    }
}

// The seed example in a pool of 50,000,000 blocks: its snapshots and cursor hold the few blocks it touches,
// not 13 bytes per block of capacity in each copy (the lab took 4.44 GB for it before issue 21).
void TestSession::aHugePoolCostsWhatTheRunTouches() {
    Workload w = loadSample("seed-example");
    w.config.capacity_blocks = 50'000'000;
    Session s(w);
    QVERIFY2(s.snapshotBytes() < (std::size_t{16} << 20), qPrintable(QString::number(s.snapshotBytes())));
    s.seek(s.lastTick() / 2);
    QVERIFY(!s.cursor().blockOwners().empty());
    QVERIFY(s.cursor().blockOwners().size() < 10'000);
    compareWithFresh(w, s, s.lastTick() / 2);
}

// Moving an engine state moves its waiting queue (libstdc++'s policy-based tree has no move of its own: a move
// copied every node, and a growing vector of snapshots copied each whole state).
void TestSession::stateMovesItsWaitingQueue() {
    Engine::State a;
    for (std::int32_t r = 0; r < 100; ++r) a.waiting.insert({100 - r, pl::RequestIndex(r)});
    Engine::State b(std::move(a));
    QCOMPARE(b.waiting.size(), std::size_t{100});
    QCOMPARE(a.waiting.size(), std::size_t{0}); // NOLINT(bugprone-use-after-move): moved, not copied
    QCOMPARE(b.waiting.order_of_key({50, pl::RequestIndex(0)}), std::size_t{49});
    Engine::State c;
    c.waiting.insert({7, pl::RequestIndex(7)});
    c = std::move(b);
    QCOMPARE(c.waiting.size(), std::size_t{100});
    QCOMPARE(b.waiting.size(), std::size_t{0}); // NOLINT(bugprone-use-after-move)
    QCOMPARE(c.waiting.begin()->second.value(), 99);
    Engine::State d(c); // copies stay copies
    QCOMPARE(d.waiting.size(), std::size_t{100});
    QCOMPARE(c.waiting.size(), std::size_t{100});
}

// A simulated session takes its snapshots (with the pool map) as seeks first reach each part of the run, at the
// interval that keeps at most 128 over the run's known length: none but the first before a seek, all of them,
// never thinned, after a seek to the end; doubling from 64 during the run took about twice as many copies.
// Seeks restore exactly what a fresh run reaches wherever the furthest seek so far stopped.
void TestSession::intervalFollowsTheRunsLength() {
    const Workload w = shortRequests(3, 3000, 0.1, 512, 100000);
    Session s(w);
    const Tick ticks = s.lastTick() + 1;
    QVERIFY2(ticks > 64 * 128 * 2 && ticks <= 256 * 128, qPrintable(QString::number(ticks)));
    QCOMPARE(s.snapshotInterval(), Tick{256});
    QCOMPARE(s.snapshotCount(), std::size_t{1});
    const Tick last = s.lastTick();
    // Forward in steps past the frontier, back inside it, forward from the cursor, then to the end.
    for (Tick t : {Tick{300}, Tick{255}, Tick{256}, Tick{257}, Tick{1000}, Tick{700}, last / 2 + 5, Tick{0}, last - 1}) {
        s.seek(t);
        QCOMPARE(s.currentTick(), t);
        compareWithFresh(w, s, t);
    }
    s.seek(last);
    compareWithFresh(w, s, last);
    // One every 256 ticks or a little further apart: an idle stretch (nothing arrived yet) is stepped over whole.
    const auto most = static_cast<std::size_t>((ticks - 1) / 256 + 1);
    QVERIFY2(s.snapshotCount() <= most && s.snapshotCount() >= most * 9 / 10,
             qPrintable(QStringLiteral("%1 snapshots over %2 ticks").arg(s.snapshotCount()).arg(ticks)));
    QCOMPARE(s.snapshotsTaken(), s.snapshotCount());
    for (Tick t : {last / 3, Tick{257}, last}) {
        s.seek(t);
        compareWithFresh(w, s, t);
    }
    Session filled(w); // as the lab does while idle: a slice at a time, then the seeks find them all
    int slices = 0;
    while (filled.fillSnapshots(1000)) ++slices;
    QCOMPARE(slices, static_cast<int>((ticks - 1) / 1000)); // the last slice reaches the end and says so
    QCOMPARE(filled.snapshotCount(), s.snapshotCount());
    QVERIFY(!filled.fillSnapshots(1000));
    for (Tick t : {last, last / 2 + 3, Tick{-1}, Tick{513}}) {
        filled.seek(t);
        compareWithFresh(w, filled, t);
    }
    Session stepping(w); // one step at a time past the frontier
    for (Tick t = 0; t < 600; ++t) stepping.stepForward();
    compareWithFresh(w, stepping, 599);
    QVERIFY(stepping.snapshotCount() >= 2 && stepping.snapshotCount() <= 3); // ticks 0, 256 and 512, or about
}

// The simulated full run does without the pool map (block identities change no event): its ledger, records and
// whole candidate lists are those of the run with the pool map the session made before, and its receipt is
// the CLI's, byte for byte, on every bundled sample.
void TestSession::fullRunIsTheRunWithThePoolMap() {
    for (const char* name : {"seed-example", "swap-wins", "livelock-next-block", "generated-bursty-shared-prefix",
                             "burst-recompute-wave", "starvation", "multi-tenant", "engines-disagree",
                             "recompute-wins", "mooncake-conv-slice", "azure-conv-slice"}) {
        const auto w = loadSample(name);
        Session s(w);
        RunResult tracked;
        EngineOptions options{true, true};
        options.keep_all_candidates = w.requests.size() <= kWholeCandidateListRequests;
        Engine e(w, tracked.ledger, options);
        e.runToEnd();
        collectResult(e, nullptr, tracked);
        QVERIFY2(receiptText(w, s.result()) == receiptText(w, tracked), name);
        QVERIFY2(receiptText(w, s.result()) == receiptText(w, runWorkload(w)), name);
        const auto& a = s.result().ledger.all_candidates;
        const auto& b = tracked.ledger.all_candidates;
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QVERIFY2(a[i].request == b[i].request && a[i].blocks == b[i].blocks &&
                         a[i].context_tokens == b[i].context_tokens && a[i].tenant_blocks == b[i].tenant_blocks &&
                         a[i].generated_tokens == b[i].generated_tokens && a[i].admit_seq == b[i].admit_seq,
                     name);
        }
        QCOMPARE(s.series().size(), e.series().size());
        for (std::size_t i = 0; i < e.series().size(); ++i) {
            const auto& x = s.series()[i];
            const auto& y = e.series()[i];
            QVERIFY2(x.tick == y.tick && x.occupied_blocks == y.occupied_blocks &&
                         x.in_flight_blocks == y.in_flight_blocks && x.waiting == y.waiting &&
                         x.running == y.running && x.host_bytes == y.host_bytes &&
                         x.replay_tokens_total == y.replay_tokens_total && x.completed == y.completed &&
                         x.swap_out_bytes_total == y.swap_out_bytes_total &&
                         x.swap_in_bytes_total == y.swap_in_bytes_total,
                     qPrintable(QStringLiteral("%1 tick %2").arg(name).arg(i)));
        }
    }
}

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"

// An engine that skips quiescent ticks (no pool map) must still stop exactly after the tick it was asked for;
// a skip that ran past it once made the fuzzer's fresh engine disagree with the Session's cursor.
void TestSession::runToTickStopsInsideQuiescentStretch() {
    Workload w = loadSample("seed-example");
    w.requests.resize(1);
    w.requests[0].arrival_tick = 0;
    w.requests[0].prompt_tokens = 15;
    w.requests[0].output_tokens = w.requests[0].max_output_tokens = 40;
    normaliseWorkload(w);
    for (Tick t = -1; t < 45; ++t) {
        Ledger la;
        Ledger lb;
        Engine skipping(w, la);
        Engine ticking(w, lb, EngineOptions{false, true});
        skipping.runToTick(t);
        ticking.runToTick(t);
        QCOMPARE(skipping.nextTick(), ticking.nextTick());
        QCOMPARE(skipping.requests()[0].generated_tokens, ticking.requests()[0].generated_tokens);
        QCOMPARE(skipping.requests()[0].blocks, ticking.requests()[0].blocks);
        QCOMPARE(skipping.freeBlocks(), ticking.freeBlocks());
        QCOMPARE(skipping.totals().request_ticks, ticking.totals().request_ticks);
    }
}
