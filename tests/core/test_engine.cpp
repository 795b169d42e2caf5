// The tick loop: lifecycle, chunked prefill, queue order, admission guards, each recovery mode, the seed
// example's exact numbers, fallbacks, preempt-ahead, censoring, and the teaching samples' claims.
#include "tests/core/engine_fixtures.h"

#include "core/engine.h"
#include "core/receipt.h"
#include "core/workload_io.h"

#include <QtTest>

#include <set>

using namespace pl;
using namespace pltest;

class TestEngine : public QObject {
    Q_OBJECT

  private slots:
    void singleRequestLifecycle();
    void chunkedPrefillSharesBudget();
    void queueOrderIsPriorityThenArrivalThenId();
    void fullReservationGatesAdmission();
    void watermarkHoldsBackAdmission();
    void seedExampleRecompute();
    void seedExampleSwap();
    void adaptivePicksLowerEstimateAndKeepsBoth();
    void adaptiveTieRule();
    void hybridRecordsSplit();
    void swapFallsBackWhenHostFull();
    void swapBlocksReturnOnlyWhenCopyLands();
    void preemptAheadKeepsHeadroom();
    void noAdmissionInATickThatEvicted();
    void censorsAtMaxTicks();
    void livelockSample();
    void starvationSampleRaisesBothFlags();
    void tenantFairProtectsTheSmallTenant();
};

namespace {
Config smallConfig() {
    Config c;
    c.block_size_tokens = 8;
    c.capacity_blocks = 16;
    c.kv_bytes_per_token = 512;
    c.prefill_tokens_per_tick = 64;
    c.transfer_bytes_per_tick = 16384;
    c.host_capacity_bytes = 1 << 20;
    c.max_ticks = 1000;
    return c;
}
} // namespace

void TestEngine::singleRequestLifecycle() {
    const auto w = workload(smallConfig(), {}, {req("a", 2, 24, 3)});
    const auto run = runWorkload(w);
    // tick 2: arrive, admit, prefill 24 tokens and sample token 1; ticks 3 and 4 decode tokens 2 and 3.
    QCOMPARE(run.ledger.events.size(), std::size_t{4});
    QCOMPARE(int(run.ledger.events[0].kind), int(EventKind::Arrive));
    QCOMPARE(int(run.ledger.events[1].kind), int(EventKind::Admit));
    QCOMPARE(run.ledger.events[1].occupied_blocks, std::int64_t{4}); // 25 tokens in 8-token blocks
    QCOMPARE(int(run.ledger.events[2].kind), int(EventKind::FirstToken));
    QCOMPARE(run.ledger.events[2].tick, Tick{2});
    QCOMPARE(int(run.ledger.events[3].kind), int(EventKind::Complete));
    QCOMPARE(run.ledger.events[3].tick, Tick{4});
    QCOMPARE(run.ledger.events[3].freed_blocks, std::int64_t{4}); // 27 tokens
    QCOMPARE(run.totals.ticks, std::int64_t{5});
    QCOMPARE(run.totals.request_ticks, std::int64_t{3});
    QCOMPARE(run.totals.completed, std::int64_t{1});
    QCOMPARE(run.records[0].queue_ticks, std::int64_t{0});
}

void TestEngine::chunkedPrefillSharesBudget() {
    // 64 prefill tokens a tick: a (100 tokens) takes 64 at tick 0 and 36 at tick 1; b gets the other 28 at tick 1.
    const auto w = workload(smallConfig(), {}, {req("a", 0, 100, 2), req("b", 0, 40, 2)});
    const auto run = runWorkload(w);
    const auto first = eventsOf(run, EventKind::FirstToken);
    QCOMPARE(first.size(), std::size_t{2});
    QCOMPARE(run.ledger.events[static_cast<std::size_t>(first[0]->seq)].request, 0);
    QCOMPARE(first[0]->tick, Tick{1});
    QCOMPARE(first[1]->tick, Tick{2}); // b: 28 tokens at tick 1, 12 at tick 2
    QCOMPARE(run.records[1].first_token_tick, std::int64_t{2});
}

void TestEngine::queueOrderIsPriorityThenArrivalThenId() {
    // Each request needs the whole pool under full reservation, so they run one at a time in queue order.
    Config c = smallConfig();
    const auto w = workload(c, {}, {req("z", 0, 64, 60, 1), req("y", 0, 64, 60, 0), req("x", 1, 64, 60, 0),
                                    req("w", 1, 64, 60, 2), req("v", 0, 64, 60, 1)});
    const auto run = runWorkload(w);
    std::vector<std::string> order;
    for (const auto* e : eventsOf(run, EventKind::Admit)) {
        order.push_back(w.requests[static_cast<std::size_t>(e->request)].id);
    }
    QCOMPARE(order, (std::vector<std::string>{"y", "x", "v", "z", "w"}));
    QCOMPARE(run.totals.evictions, std::int64_t{0});
}

void TestEngine::fullReservationGatesAdmission() {
    // a holds 8 blocks after tick 0 (57 tokens); b's prompt + max output needs 9 blocks: under full
    // reservation b waits until a is done, under next-block it is admitted at once (5 blocks for 33 tokens).
    const auto reqs = std::vector<RequestSpec>{req("a", 0, 56, 40), req("b", 1, 32, 40)};
    Policy full;
    const auto runFull = runWorkload(workload(smallConfig(), full, reqs));
    Policy next;
    next.resume_guard = ResumeGuard::NextBlock;
    const auto runNext = runWorkload(workload(smallConfig(), next, reqs));
    QCOMPARE(runNext.records[1].first_token_tick, std::int64_t{1});
    QVERIFY(runFull.records[1].first_token_tick > runFull.records[0].first_token_tick + 1);
    // a's completion frees its blocks in the run phase; admission comes after it in the same tick.
    QCOMPARE(runFull.records[1].first_token_tick, runFull.records[0].completion_tick);
    QCOMPARE(runNext.totals.evictions, std::int64_t{1}); // next-block overcommits: someone is evicted
}

void TestEngine::watermarkHoldsBackAdmission() {
    Policy p;
    p.resume_guard = ResumeGuard::NextBlock;
    p.watermark_blocks = 12;
    // a holds 4 blocks after its prefill (25 tokens); b needs 3: 16 - 4 = 12 free, minus the watermark of
    // 12 leaves 0 < 3, so b waits until a completes at tick 3 (completion runs before admission).
    const auto run = runWorkload(workload(smallConfig(), p, {req("a", 0, 24, 4), req("b", 1, 16, 2)}));
    QCOMPARE(run.records[0].completion_tick, std::int64_t{3});
    QCOMPARE(run.records[1].first_token_tick, std::int64_t{3});
    QCOMPARE(run.records[1].queue_ticks, std::int64_t{2});
}

void TestEngine::seedExampleRecompute() {
    const auto w = loadSample("seed-example");
    const auto run = runWorkload(w);
    const auto evicts = eventsOf(run, EventKind::Evict);
    QVERIFY(!evicts.empty());
    const Event& e = *evicts[0];
    QCOMPARE(w.requests[static_cast<std::size_t>(e.request)].id, std::string("r07"));
    QCOMPARE(e.tick, Tick{9});
    QCOMPARE(int(e.mode), int(Recovery::Recompute));
    QCOMPARE(e.prompt_tokens, std::int64_t{24});
    QCOMPARE(e.generated_tokens, std::int64_t{8});
    QCOMPARE(e.context_tokens, std::int64_t{32});
    QCOMPARE(e.freed_blocks, std::int64_t{4});
    QCOMPARE(e.replay_tokens, std::int64_t{32});
    QCOMPARE(e.swap_out_bytes, std::int64_t{0});
    QCOMPARE(e.est_recompute_ticks, std::int64_t{1}); // ceil(32 / 64)
    QCOMPARE(e.est_swap_ticks, std::int64_t{2});      // ceil(2 * 32 * 512 / 16384)
    QCOMPARE(e.occupied_blocks, std::int64_t{16});
    QCOMPARE(e.candidates_count, std::int64_t{3});
    // The replay of exactly those 32 tokens is reported, and the request still completes its 12 tokens.
    bool replayed = false;
    for (const auto* r : eventsOf(run, EventKind::ReplayDone)) {
        replayed = replayed || (r->request == e.request && r->replay_tokens == 32);
    }
    QVERIFY(replayed);
    QCOMPARE(run.records[static_cast<std::size_t>(e.request)].generated_tokens, std::int64_t{12});
    // The sample's notes state the run's totals as well as this eviction's (they gave only the first eviction's
    // 32 tokens and 16,384 bytes, while the run shows 80 and 40,960 over two).
    QCOMPARE(run.totals.evictions, std::int64_t{2});
    QCOMPARE(run.totals.replay_tokens, std::int64_t{80});
    Workload swapped = w;
    swapped.policy.recovery = Recovery::Swap;
    QCOMPARE(runWorkload(swapped).totals.swap_out_bytes, std::int64_t{40960});
    for (const char* said : {"A second eviction follows at tick 32", "80 replay tokens under recompute",
                             "40,960 bytes out and in under swap"}) {
        QVERIFY2(w.notes.find(said) != std::string::npos, said);
    }
}

void TestEngine::seedExampleSwap() {
    auto w = loadSample("seed-example");
    w.policy.recovery = Recovery::Swap;
    const auto run = runWorkload(w);
    const Event& e = *eventsOf(run, EventKind::Evict)[0];
    QCOMPARE(int(e.mode), int(Recovery::Swap));
    QCOMPARE(e.swap_out_bytes, std::int64_t{16384}); // 32 tokens x 512 bytes
    QCOMPARE(e.replay_tokens, std::int64_t{0});
    QCOMPARE(e.swap_blocks, std::int64_t{4});
    std::int64_t out = 0;
    std::int64_t back = 0;
    for (const auto& ev : run.ledger.events) {
        if (ev.request != e.request) {
            continue;
        }
        if (ev.kind == EventKind::SwapOutDone) {
            out += ev.swap_out_bytes;
            QCOMPARE(ev.tick, Tick{10}); // one tick of link at 16,384 bytes a tick
        }
        if (ev.kind == EventKind::SwapInDone) {
            back += ev.swap_in_bytes;
        }
    }
    QCOMPARE(out, std::int64_t{16384});
    QCOMPARE(back, std::int64_t{16384});
    QCOMPARE(run.totals.swap_out_bytes, run.totals.swap_in_bytes);
}

void TestEngine::adaptivePicksLowerEstimateAndKeepsBoth() {
    auto w = loadSample("recompute-wins");
    w.policy.recovery = Recovery::Adaptive;
    const auto run = runWorkload(w);
    QVERIFY(run.totals.evictions > 0);
    for (const auto* e : eventsOf(run, EventKind::Evict)) {
        QVERIFY(e->est_recompute_ticks > 0 && e->est_swap_ticks > 0);
        const Recovery expected = e->est_swap_ticks < e->est_recompute_ticks ? Recovery::Swap : Recovery::Recompute;
        QCOMPARE(int(e->mode), int(expected));
    }
    auto ws = loadSample("swap-wins");
    ws.policy.recovery = Recovery::Adaptive;
    const auto runSwap = runWorkload(ws);
    int swaps = 0;
    for (const auto* e : eventsOf(runSwap, EventKind::Evict)) {
        swaps += e->mode == Recovery::Swap ? 1 : 0;
        if (e->est_swap_ticks < e->est_recompute_ticks) {
            QCOMPARE(int(e->mode), int(Recovery::Swap));
        }
    }
    QVERIFY(swaps > 0);
}

void TestEngine::adaptiveTieRule() {
    // Seed example rates with a link twice as fast: recompute ceil(32/64) = 1 = swap ceil(32768/32768).
    auto w = loadSample("seed-example");
    w.config.transfer_bytes_per_tick = 32768;
    w.policy.recovery = Recovery::Adaptive;
    w.policy.adaptive_tie = AdaptiveTie::Swap;
    const Event tieSwap = *eventsOf(runWorkload(w), EventKind::Evict)[0];
    QCOMPARE(tieSwap.est_recompute_ticks, tieSwap.est_swap_ticks);
    QCOMPARE(int(tieSwap.mode), int(Recovery::Swap));
    w.policy.adaptive_tie = AdaptiveTie::Recompute;
    QCOMPARE(int(eventsOf(runWorkload(w), EventKind::Evict)[0]->mode), int(Recovery::Recompute));
}

void TestEngine::hybridRecordsSplit() {
    auto w = loadSample("seed-example");
    w.policy.recovery = Recovery::Hybrid; // 50%: 2 of the 4 full blocks go to the host
    const auto run = runWorkload(w);
    const Event& e = *eventsOf(run, EventKind::Evict)[0];
    QCOMPARE(int(e.mode), int(Recovery::Hybrid));
    QCOMPARE(e.swap_blocks, std::int64_t{2});
    QCOMPARE(e.swap_out_bytes, std::int64_t{2 * 8 * 512});
    QCOMPARE(e.replay_tokens, std::int64_t{16});
    QCOMPARE(e.freed_blocks, std::int64_t{4});
}

void TestEngine::swapFallsBackWhenHostFull() {
    auto w = loadSample("seed-example");
    w.policy.recovery = Recovery::Swap;
    w.config.host_capacity_bytes = 10000; // less than the victim's 16,384 bytes
    const auto run = runWorkload(w);
    const Event& e = *eventsOf(run, EventKind::Evict)[0];
    QCOMPARE(int(e.mode), int(Recovery::Recompute));
    QCOMPARE(int(e.fallback), int(Fallback::HostFull));
    QCOMPARE(e.replay_tokens, std::int64_t{32});
    QCOMPARE(run.totals.peak_host_bytes, std::int64_t{0});
    const std::string text = receiptText(w, run);
    QVERIFY(text.find("\"fallback\":\"host memory full: swapping 32 tokens needs 16384 bytes but 10000 of "
                      "host_capacity_bytes 10000 are free; recomputed instead\"") != std::string::npos);
    // Hybrid wants only its prefix (50%: 2 of the 4 full blocks, 16 tokens, 8,192 bytes); when not one block
    // fits, the text names that prefix, not the whole context.
    w.policy.recovery = Recovery::Hybrid;
    w.config.host_capacity_bytes = 4000; // under one 4,096-byte block
    const auto hybrid = runWorkload(w);
    const Event& h = *eventsOf(hybrid, EventKind::Evict)[0];
    QCOMPARE(int(h.fallback), int(Fallback::HostFull));
    QVERIFY(receiptText(w, hybrid).find("\"fallback\":\"host memory full: hybrid swapping a 16-token prefix needs "
                                        "8192 bytes but 4000 of host_capacity_bytes 4000 are free; recomputed "
                                        "instead\"") != std::string::npos);
}

void TestEngine::swapBlocksReturnOnlyWhenCopyLands() {
    auto w = loadSample("seed-example");
    w.policy.recovery = Recovery::Swap;
    w.config.transfer_bytes_per_tick = 4096; // 16,384 bytes take 4 ticks
    Ledger ledger;
    Engine engine(w, ledger, EngineOptions{false, true});
    engine.runToTick(9);
    const Event& e = *std::find_if(ledger.events.begin(), ledger.events.end(),
                                   [](const Event& ev) { return ev.kind == EventKind::Evict; });
    QCOMPARE(e.tick, Tick{9});
    const auto victim = e.request;
    QCOMPARE(int(engine.requests()[static_cast<std::size_t>(victim)].phase), int(Phase::SwapOut));
    QCOMPARE(engine.requests()[static_cast<std::size_t>(victim)].blocks, std::int64_t{4});
    int inFlight = 0;
    for (auto f : engine.blockInFlight()) {
        inFlight += f;
    }
    QCOMPARE(inFlight, 4);
    engine.runToTick(12);
    QCOMPARE(engine.requests()[static_cast<std::size_t>(victim)].blocks, std::int64_t{4});
    engine.runToTick(13);
    QCOMPARE(engine.requests()[static_cast<std::size_t>(victim)].blocks, std::int64_t{0});
    QCOMPARE(int(engine.requests()[static_cast<std::size_t>(victim)].phase), int(Phase::SwappedOut));
}

void TestEngine::preemptAheadKeepsHeadroom() {
    auto w = loadSample("burst-recompute-wave");
    w.policy.preempt_ahead = true;
    w.policy.watermark_blocks = 2;
    const auto run = runWorkload(w);
    int ahead = 0;
    for (const auto* e : eventsOf(run, EventKind::Pressure)) {
        ahead += e->trigger == PressureTrigger::PreemptAhead ? 1 : 0;
    }
    QVERIFY(ahead > 0);
    QCOMPARE(run.totals.completed, std::int64_t{16});
}

void TestEngine::noAdmissionInATickThatEvicted() {
    for (const char* name : {"burst-recompute-wave", "starvation", "multi-tenant"}) {
        const auto run = runWorkload(loadSample(name));
        std::set<Tick> evictTicks;
        for (const auto* e : eventsOf(run, EventKind::Evict)) {
            evictTicks.insert(e->tick);
        }
        for (const auto& e : run.ledger.events) {
            if (e.kind == EventKind::Admit || e.kind == EventKind::Resume) {
                QVERIFY2(!evictTicks.count(e.tick), name);
            }
        }
    }
}

void TestEngine::censorsAtMaxTicks() {
    Config c = smallConfig();
    c.max_ticks = 10;
    const auto run = runWorkload(workload(c, {}, {req("a", 0, 8, 50), req("late", 20, 8, 5)}));
    QCOMPARE(run.totals.ticks, std::int64_t{10});
    QCOMPARE(run.totals.censored, std::int64_t{2});
    QCOMPARE(run.records[0].generated_tokens, std::int64_t{10});
    QVERIFY(!run.records[0].completed);
    const auto censors = eventsOf(run, EventKind::Censor);
    QCOMPARE(censors.size(), std::size_t{2});
    QCOMPARE(censors[0]->tick, Tick{10});
}

void TestEngine::livelockSample() {
    auto w = loadSample("livelock-next-block");
    const auto thrash = runWorkload(w);
    QCOMPARE(thrash.totals.completed, std::int64_t{0});
    QCOMPARE(thrash.totals.censored, std::int64_t{2});
    QVERIFY(thrash.totals.evictions > 100);
    w.policy.resume_guard = ResumeGuard::FullReservation;
    const auto safe = runWorkload(w);
    QCOMPARE(safe.totals.completed, std::int64_t{2});
    QCOMPARE(safe.totals.evictions, std::int64_t{0});
}

void TestEngine::starvationSampleRaisesBothFlags() {
    const auto w = loadSample("starvation");
    const auto run = runWorkload(w);
    for (const auto& rec : run.records) {
        const bool bg = w.requests[static_cast<std::size_t>(rec.request)].id == "bg-report";
        QCOMPARE(rec.excessive_wait && rec.repeated_preemption, bg);
        if (!bg) {
            QVERIFY(!rec.excessive_wait && !rec.repeated_preemption);
        }
    }
}

void TestEngine::tenantFairProtectsTheSmallTenant() {
    auto w = loadSample("multi-tenant");
    auto chatPreemptions = [&](const RunResult& run) {
        std::int64_t n = 0;
        for (const auto& rec : run.records) {
            n += w.requests[static_cast<std::size_t>(rec.request)].tenant == "chat" ? rec.preemptions : 0;
        }
        return n;
    };
    const auto fair = runWorkload(w);
    QCOMPARE(chatPreemptions(fair), std::int64_t{0});
    QVERIFY(fair.totals.evictions > 0);
    w.policy.victim_rule = VictimRule::PriorityNewest;
    QVERIFY(chatPreemptions(runWorkload(w)) > 0);
}

QTEST_GUILESS_MAIN(TestEngine)
#include "test_engine.moc"
