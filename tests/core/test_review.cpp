// core/review: ITL reconstruction, latency percentiles, SLOs and goodput (censored requests as misses), the ms
// conversion, the report's groups and the config key tick_us. Every expected figure is worked out by hand in
// the comments from small hand-written receipts and token sequences.
#include "core/review/gate.h"
#include "core/review/goodput.h"
#include "core/review/outcomes.h"
#include "core/review/report.h"

#include "core/engine.h"
#include "core/hashing.h"
#include "core/receipt.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace pl;
using namespace pl::review;
using nlohmann::json;

namespace {

// Three requests, hand-made (not a run): figures below are worked out from these lines alone.
//  a: arrives 0, first token 2, complete 6 with 5 tokens, no eviction: tokens at 2,3,4,5,6, gaps 1,1,1,1.
//  b: arrives 0, first token 4, tokens 2 and 3 at 5 and 6, evicted at 7 with 3, replay done at 15 (token 4
//     sampled there), complete 15 with 4: gaps 1, 1, 15 - 6 = 9.
//  c: arrives 5, first token 10, token 2 at 11, evicted at 12 with 2, replay done 30 then evicted again at 31
//     with 2 (a restart without a new token before the next eviction: no gap), censored at 100: gap 1.
json handReceipt(bool withTickUs) {
    json config = {{"block_size_tokens", 8}, {"capacity_blocks", 64}};
    if (withTickUs) {
        config["tick_us"] = 2000;
    }
    json requests = json::array({
        {{"id", "a"}, {"arrival_tick", 0}, {"prompt_tokens", 10}, {"output_tokens", 5}, {"priority", 0},
         {"tenant", "t1"}, {"status", "completed"}, {"generated_tokens", 5}, {"first_token_tick", 2},
         {"completion_tick", 6}, {"preemptions", 0}, {"queue_ticks", 1}},
        {{"id", "b"}, {"arrival_tick", 0}, {"prompt_tokens", 100}, {"output_tokens", 4}, {"priority", 1},
         {"tenant", "t2"}, {"status", "completed"}, {"generated_tokens", 4}, {"first_token_tick", 4},
         {"completion_tick", 15}, {"preemptions", 1}, {"queue_ticks", 3}},
        {{"id", "c"}, {"arrival_tick", 5}, {"prompt_tokens", 300}, {"output_tokens", 10}, {"priority", 1},
         {"tenant", "t1"}, {"status", "censored"}, {"generated_tokens", 2}, {"first_token_tick", 10},
         {"completion_tick", nullptr}, {"preemptions", 2}, {"queue_ticks", 50}},
    });
    json events = json::array({
        {{"seq", 0}, {"tick", 2}, {"kind", "first_token"}, {"request", "a"}, {"generated_tokens", 1}},
        {{"seq", 1}, {"tick", 4}, {"kind", "first_token"}, {"request", "b"}, {"generated_tokens", 1}},
        {{"seq", 2}, {"tick", 6}, {"kind", "complete"}, {"request", "a"}, {"generated_tokens", 5}},
        {{"seq", 3}, {"tick", 7}, {"kind", "evict"}, {"request", "b"}, {"generated_tokens", 3}},
        {{"seq", 4}, {"tick", 10}, {"kind", "first_token"}, {"request", "c"}, {"generated_tokens", 1}},
        {{"seq", 5}, {"tick", 12}, {"kind", "evict"}, {"request", "c"}, {"generated_tokens", 2}},
        {{"seq", 6}, {"tick", 15}, {"kind", "replay_done"}, {"request", "b"}},
        {{"seq", 7}, {"tick", 15}, {"kind", "complete"}, {"request", "b"}, {"generated_tokens", 4}},
        {{"seq", 8}, {"tick", 30}, {"kind", "replay_done"}, {"request", "c"}},
        {{"seq", 9}, {"tick", 31}, {"kind", "evict"}, {"request", "c"}, {"generated_tokens", 2}},
        {{"seq", 10}, {"tick", 100}, {"kind", "censor"}, {"request", "c"}, {"generated_tokens", 2}},
    });
    return {{"format", "preemptlab.receipt.v2"},
            {"input_hash", "sha256:hand"},
            {"workload", {{"format", "preemptlab.workload.v1"}, {"name", "hand"}, {"config", config}}},
            {"totals", {{"ticks", 100}}},
            {"events", events},
            {"requests", requests}};
}

RunOutcomes handOutcomes(bool withTickUs) {
    auto parsed = outcomesFromReceipt(handReceipt(withTickUs), "hand.receipt.json");
    if (auto* e = std::get_if<InputError>(&parsed)) {
        qFatal("%s", e->message().c_str());
    }
    return std::get<RunOutcomes>(parsed);
}

Slo ticks(std::int64_t n) { return Slo{n, SloUnit::Ticks}; }
Slo micros(std::int64_t n) { return Slo{n, SloUnit::Micros}; }

} // namespace

class TestReview : public QObject {
    Q_OBJECT

  private slots:
    void itlWithoutEviction();
    void itlAcrossRecomputeEviction();
    void itlAcrossSwapEviction();
    void itlEvictedTwiceBeforeRestart();
    void itlWithoutRestartEventFallsOnFirstToken();
    void percentilesWithOnes();
    void hostileTokenCountsDoNotOverflow();
    void figuresFromHandReceipt();
    void msConversion();
    void goodputCountsCensoredAsMisses();
    void goodputInMilliseconds();
    void goodputRate();
    void sloFlagsParseAndRefuseMsWithoutTick();
    void receiptErrorsNameFileFieldAndReason();
    void runAndItsReceiptGiveTheSameOutcomes();
    void oneRequestRunByHand();
    void gapsAddUpOnEverySample();
    void reportGroupsAndBuckets();
    void bucketEdgesParse();
    void gatePercentParse();
    void tickUsKey();
};

void TestReview::itlWithoutEviction() {
    // 5 tokens at ticks 3..7: four gaps of one tick.
    const ItlGaps g = itlGaps({{TokenEvent::FirstToken, 3, 1}, {TokenEvent::Complete, 7, 5}});
    QCOMPARE(g.one_tick, std::int64_t{4});
    QVERIFY(g.longer.empty());
    QCOMPARE(g.sum(), std::int64_t{4});
}

void TestReview::itlAcrossRecomputeEviction() {
    // First token at 1; tokens 2..8 at ticks 2..8; evicted at 9 with 8; replay done at 40 samples token 9;
    // tokens 10..12 at 41..43: gaps seven 1s, 40 - 8 = 32, three 1s; they add up to 43 - 1 = 42.
    const ItlGaps g = itlGaps({{TokenEvent::FirstToken, 1, 1},
                               {TokenEvent::Evict, 9, 8},
                               {TokenEvent::Restart, 40, 0},
                               {TokenEvent::Complete, 43, 12}});
    QCOMPARE(g.one_tick, std::int64_t{10});
    QCOMPARE(g.longer, std::vector<std::int64_t>{32});
    QCOMPARE(g.count(), std::int64_t{11}); // generated - 1
    QCOMPARE(g.sum(), std::int64_t{42});
}

void TestReview::itlAcrossSwapEviction() {
    // The same request swapped: swap_in_done at 44 samples token 9, tokens 10..12 at 45..47: 44 - 8 = 36.
    const ItlGaps g = itlGaps({{TokenEvent::FirstToken, 1, 1},
                               {TokenEvent::Evict, 9, 8},
                               {TokenEvent::Restart, 44, 0},
                               {TokenEvent::Complete, 47, 12}});
    QCOMPARE(g.longer, std::vector<std::int64_t>{36});
    QCOMPARE(g.one_tick, std::int64_t{10});
    QCOMPARE(g.sum(), std::int64_t{46});
}

void TestReview::itlEvictedTwiceBeforeRestart() {
    // Tokens 1..4 at 0..3, evicted at 3 with 4; evicted again at 8 while replaying (no new token); the replay
    // that lands at 20 samples token 5; token 6 at 21 completes. Gaps: 1,1,1, 20 - 3 = 17, 1 (sum 21).
    const ItlGaps g = itlGaps({{TokenEvent::FirstToken, 0, 1},
                               {TokenEvent::Evict, 3, 4},
                               {TokenEvent::Evict, 8, 4},
                               {TokenEvent::Restart, 20, 0},
                               {TokenEvent::Complete, 21, 6}});
    QCOMPARE(g.longer, std::vector<std::int64_t>{17});
    QCOMPARE(g.one_tick, std::int64_t{4});
    QCOMPARE(g.sum(), std::int64_t{21});
}

void TestReview::itlWithoutRestartEventFallsOnFirstToken() {
    // No restart event: the 2 tokens after the eviction are taken as the last two ticks (19, 20), so the stall
    // falls on the first of them: 19 - 5 = 14, then 1. Tokens 1..6 at 0..5 first.
    const ItlGaps g = itlGaps({{TokenEvent::FirstToken, 0, 1}, {TokenEvent::Evict, 6, 6}, {TokenEvent::Complete, 20, 8}});
    QCOMPARE(g.longer, std::vector<std::int64_t>{14});
    QCOMPARE(g.one_tick, std::int64_t{6});
    QCOMPARE(g.sum(), std::int64_t{20});
}

void TestReview::percentilesWithOnes() {
    // 7 ones and a 9: ranks ceil(.5*8)=4 -> 1, ceil(.9*8)=8 -> 9, ceil(.99*8)=8 -> 9.
    const Percentiles p = review::percentilesWithOnes({9}, 7);
    QCOMPARE(p.count, std::int64_t{8});
    QCOMPARE(p.p50, std::int64_t{1});
    QCOMPARE(p.p90, std::int64_t{9});
    QCOMPARE(p.p99, std::int64_t{9});
    QCOMPARE(p.max, std::int64_t{9});
    // 20 ones and {5, 3}: 22 values, p90 rank ceil(19.8) = 20 -> 1, p99 rank 22 -> 5.
    const Percentiles q = review::percentilesWithOnes({5, 3}, 20);
    QCOMPARE(q.p90, std::int64_t{1});
    QCOMPARE(q.p99, std::int64_t{5});
    // Without ones it is the plain nearest rank.
    QCOMPARE(review::percentilesWithOnes({4, 2, 8}, 0).p50, std::int64_t{4});
}

void TestReview::hostileTokenCountsDoNotOverflow() {
    // Every request claims 2^53-1 tokens: the pooled count saturates instead of wrapping, and every rank
    // still falls on the ones (the only other gap is the 9 of b below them in rank).
    json r = handReceipt(false);
    const std::int64_t huge = (std::int64_t{1} << 53) - 1;
    for (auto& e : r["events"]) {
        if (e["kind"] == "complete") e["generated_tokens"] = huge;
    }
    for (int i = 0; i < 2000; ++i) {
        json extra = r["requests"][0];
        extra["id"] = std::string("x") + std::to_string(i);
        r["requests"].push_back(extra);
        r["events"].push_back({{"seq", 100 + 2 * i}, {"tick", 2}, {"kind", "first_token"}, {"request", extra["id"]}});
        r["events"].push_back({{"seq", 101 + 2 * i}, {"tick", 6}, {"kind", "complete"}, {"request", extra["id"]},
                               {"generated_tokens", huge}});
    }
    auto parsed = outcomesFromReceipt(r, "hostile");
    QVERIFY(std::holds_alternative<RunOutcomes>(parsed));
    const LatencyFigures f = latencyFigures(std::get<RunOutcomes>(parsed));
    QCOMPARE(f.itl_ticks.count, std::numeric_limits<std::int64_t>::max());
    QCOMPARE(f.itl_ticks.p50, std::int64_t{1});
    QCOMPARE(f.itl_ticks.p99, std::int64_t{1});
}

void TestReview::figuresFromHandReceipt() {
    const RunOutcomes run = handOutcomes(false);
    QCOMPARE(run.requests.size(), std::size_t{3});
    QCOMPARE(run.tick_us, std::int64_t{0});
    QCOMPARE(run.ticks, std::int64_t{100});
    QCOMPARE(run.requests[1].itl.longer, std::vector<std::int64_t>{9});
    QCOMPARE(run.requests[1].itl.one_tick, std::int64_t{2});
    QCOMPARE(run.requests[2].itl.one_tick, std::int64_t{1});
    QVERIFY(run.requests[2].itl.longer.empty());
    const LatencyFigures f = latencyFigures(run);
    QCOMPARE(f.requests, std::int64_t{3});
    QCOMPARE(f.censored, std::int64_t{1});
    // queue [1, 3, 50]: p50 rank 2 -> 3, p90 rank 3 -> 50.
    QCOMPARE(f.queue_ticks.p50, std::int64_t{3});
    QCOMPARE(f.queue_ticks.p90, std::int64_t{50});
    // TTFT [2, 4, 5] (c's first token counts though c is censored).
    QCOMPARE(f.ttft_ticks.count, std::int64_t{3});
    QCOMPARE(f.ttft_ticks.p50, std::int64_t{4});
    QCOMPARE(f.ttft_ticks.p90, std::int64_t{5});
    // TPOT x100: a (6-2)*100/4 = 100, b (15-4)*100/3 = 366.
    QCOMPARE(f.tpot_ticks_x100.count, std::int64_t{2});
    QCOMPARE(f.tpot_ticks_x100.p50, std::int64_t{100});
    QCOMPARE(f.tpot_ticks_x100.p90, std::int64_t{366});
    // ITL: a 4 ones, b 2 ones and 9, c 1 one: 8 gaps, p50 1, p90 9.
    QCOMPARE(f.itl_ticks.count, std::int64_t{8});
    QCOMPARE(f.itl_ticks.p50, std::int64_t{1});
    QCOMPARE(f.itl_ticks.p90, std::int64_t{9});
    // Completion: a 6, b 15 (c censored: none).
    QCOMPARE(f.completion_ticks.count, std::int64_t{2});
    QCOMPARE(f.completion_ticks.p50, std::int64_t{6});
    QCOMPARE(f.completion_ticks.p90, std::int64_t{15});
}

void TestReview::msConversion() {
    // 2000 us a tick: 4 ticks are 8 ms, TPOT 366/100 ticks are 7.32 ms, 9 ticks 18 ms.
    QCOMPARE(ticksAsMs(4, 2000), std::string("8"));
    QCOMPARE(ticksX100AsMs(366, 2000), std::string("7.32"));
    QCOMPARE(ticksAsMs(9, 2000), std::string("18"));
    QCOMPARE(ticksAsMs(3, 1500), std::string("4.5"));
    QCOMPARE(ticksToMs(7, 20000), 140.0);
    QCOMPARE(handOutcomes(true).tick_us, std::int64_t{2000});
}

void TestReview::goodputCountsCensoredAsMisses() {
    const RunOutcomes run = handOutcomes(false);
    Slos slos;
    slos.ttft = ticks(3); // a 2 ok, b 4 over, c censored
    Goodput g = goodput(run, slos);
    QCOMPARE(g.requests, std::int64_t{3});
    QCOMPARE(g.good, std::int64_t{1});
    QCOMPARE(g.censored, std::int64_t{1});
    QCOMPARE(g.missed_ttft, std::int64_t{1});
    QCOMPARE(g.percent(), 100.0 / 3.0);
    // Every SLO met by the completed two: still 2 of 3, the censored one is never dropped.
    slos.ttft = ticks(1000);
    slos.tpot = ticks(1000);
    g = goodput(run, slos);
    QCOMPARE(g.good, std::int64_t{2});
    QCOMPARE(g.requests, std::int64_t{3});
    QVERIFY(g.atLeast(6666));  // 2/3 = 66.666..%
    QVERIFY(!g.atLeast(6667));
    // TPOT in ticks: b's is 11/3 = 3.67 ticks: 3 misses (11 > 3*3), 4 meets (11 <= 12).
    slos = Slos{};
    slos.tpot = ticks(3);
    QCOMPARE(goodput(run, slos).good, std::int64_t{1});
    slos.tpot = ticks(4);
    QCOMPARE(goodput(run, slos).good, std::int64_t{2});
    // A one-token request meets any TPOT (it has no second token); a censored one meets none.
    RequestOutcome one;
    one.completed = true;
    one.generated_tokens = 1;
    one.first_token_tick = 5;
    one.completion_tick = 5;
    QVERIFY(meetsTpot(one, ticks(0), 0));
    RequestOutcome censored = one;
    censored.completed = false;
    QVERIFY(!meetsTpot(censored, ticks(100), 0));
    QVERIFY(!meetsTtft(censored, ticks(100), 0));
}

void TestReview::goodputInMilliseconds() {
    const RunOutcomes run = handOutcomes(true); // 2 ms a tick
    Slos slos;
    slos.ttft = micros(8000); // a 2 ticks = 4 ms, b 4 ticks = 8 ms: both meet (<=)
    QCOMPARE(goodput(run, slos).good, std::int64_t{2});
    slos.ttft = micros(7999); // b's 8 ms now misses
    QCOMPARE(goodput(run, slos).good, std::int64_t{1});
    slos.ttft.reset();
    slos.tpot = micros(7000); // b: 11 ticks * 2000 us = 22000 > 7000 * 3 = 21000: misses; a 2 ms meets
    QCOMPARE(goodput(run, slos).good, std::int64_t{1});
    slos.tpot = micros(7400); // 22000 <= 22200: meets
    QCOMPARE(goodput(run, slos).good, std::int64_t{2});
}

void TestReview::goodputRate() {
    Slos slos;
    slos.ttft = ticks(1000);
    // 2 good over 100 ticks: 20 per 1000 ticks; at 2 ms a tick the run lasts 0.2 s: 10 per second.
    bool perSecond = true;
    QCOMPARE(goodput(handOutcomes(false), slos).rate(&perSecond), 20.0);
    QVERIFY(!perSecond);
    QCOMPARE(goodput(handOutcomes(false), slos).rateText(), std::string("20.00 req/1000 ticks"));
    QCOMPARE(goodput(handOutcomes(true), slos).rate(&perSecond), 10.0);
    QVERIFY(perSecond);
    QCOMPARE(goodput(handOutcomes(true), slos).rateText(), std::string("10.00 req/s"));
}

void TestReview::sloFlagsParseAndRefuseMsWithoutTick() {
    auto ms = parseSlo("12.5", SloUnit::Micros);
    QVERIFY(std::holds_alternative<Slo>(ms));
    QCOMPARE(std::get<Slo>(ms).value, std::int64_t{12500});
    QCOMPARE(sloText(std::get<Slo>(ms)), std::string("12.5 ms"));
    auto t = parseSlo("40", SloUnit::Ticks);
    QCOMPARE(std::get<Slo>(t).value, std::int64_t{40});
    QVERIFY(std::holds_alternative<std::string>(parseSlo("4.5", SloUnit::Ticks)));
    QVERIFY(std::holds_alternative<std::string>(parseSlo("-3", SloUnit::Micros)));
    QVERIFY(std::holds_alternative<std::string>(parseSlo("", SloUnit::Micros)));
    Slos slos;
    slos.tpot = std::get<Slo>(ms);
    const auto problem = sloProblem(slos, 0);
    QVERIFY(problem.has_value());
    QVERIFY(problem->find("--slo-tpot-ms") != std::string::npos);
    QVERIFY(problem->find("tick_us") != std::string::npos);
    QVERIFY(!sloProblem(slos, 1000).has_value());
    slos.tpot = std::get<Slo>(t);
    QVERIFY(!sloProblem(slos, 0).has_value()); // ticks need no tick length
}

void TestReview::receiptErrorsNameFileFieldAndReason() {
    const auto fails = [](const json& doc, const std::string& path, const std::string& reasonPart) {
        auto parsed = outcomesFromReceipt(doc, "x.receipt.json");
        const auto* e = std::get_if<InputError>(&parsed);
        if (e == nullptr) {
            return false;
        }
        return e->file == "x.receipt.json" && e->path == path && e->reason.find(reasonPart) != std::string::npos;
    };
    QVERIFY(fails(json::array(), "/format", "not a receipt"));
    json workload = handReceipt(false);
    workload["format"] = "preemptlab.workload.v1";
    QVERIFY(fails(workload, "/format", "not a receipt"));
    json r = handReceipt(false);
    r["requests"][1].erase("queue_ticks");
    QVERIFY(fails(r, "/requests/1/queue_ticks", "missing"));
    r = handReceipt(false);
    r["requests"][0]["first_token_tick"] = "soon";
    QVERIFY(fails(r, "/requests/0/first_token_tick", "integer"));
    r = handReceipt(false);
    r["requests"][2]["status"] = "lost";
    QVERIFY(fails(r, "/requests/2/status", "completed"));
    r = handReceipt(false);
    r["events"][3]["request"] = "zz";
    QVERIFY(fails(r, "/events/3/request", "zz"));
    r = handReceipt(true);
    r["workload"]["config"]["tick_us"] = 0;
    QVERIFY(fails(r, "/workload/config/tick_us", "from 1"));
    r = handReceipt(false);
    r["events"][2]["tick"] = 1; // a's complete before its first token
    QVERIFY(fails(r, "/events/2/tick", "back in time"));
    // Missing files and text that is not JSON name the file.
    auto missing = outcomesFromReceiptFile("/nonexistent/none.receipt.json");
    QVERIFY(std::holds_alternative<InputError>(missing));
    QCOMPARE(std::get<InputError>(missing).file, std::string("/nonexistent/none.receipt.json"));
}

void TestReview::runAndItsReceiptGiveTheSameOutcomes() {
    // Both ways of reading a run (in memory for run/compare, from the receipt for gate/report) must agree.
    auto loaded = loadWorkloadFile(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
    QVERIFY(std::holds_alternative<Workload>(loaded));
    for (Recovery mode : {Recovery::Recompute, Recovery::Swap, Recovery::Hybrid}) {
        Workload w = std::get<Workload>(loaded);
        w.policy.recovery = mode;
        const RunResult run = runWorkload(w);
        const RunOutcomes fromRun = outcomesFromRun(w, run);
        auto parsed = outcomesFromReceipt(json::parse(receiptText(w, run)), "seed");
        QVERIFY(std::holds_alternative<RunOutcomes>(parsed));
        const RunOutcomes& fromReceipt = std::get<RunOutcomes>(parsed);
        QCOMPARE(fromReceipt.requests.size(), fromRun.requests.size());
        for (std::size_t i = 0; i < fromRun.requests.size(); ++i) {
            const auto& a = fromRun.requests[i];
            const auto& b = fromReceipt.requests[i];
            QCOMPARE(a.id, b.id);
            QCOMPARE(a.itl.longer, b.itl.longer);
            QCOMPARE(a.itl.one_tick, b.itl.one_tick);
            // Every completed request's gaps: generated - 1 of them adding up to completion - first token.
            if (a.completed) {
                QCOMPARE(a.itl.count(), a.generated_tokens - 1);
                QCOMPARE(a.itl.sum(), a.completion_tick - a.first_token_tick);
            }
        }
    }
}

void TestReview::gapsAddUpOnEverySample() {
    // Whatever the mode or engine profile, a completed request's gaps number generated - 1 and add up to
    // completion - first token (docs/receipt.md, "Latency figures"); and none is shorter than a tick.
    for (const char* name : {"starvation", "burst-recompute-wave", "multi-tenant", "swap-wins", "engines-disagree"}) {
        auto loaded = loadWorkloadFile(std::string(PREEMPTLAB_SOURCE_DIR "/samples/") + name + ".workload.json");
        QVERIFY2(std::holds_alternative<Workload>(loaded), name);
        for (EngineProfile profile : {EngineProfile::TickModel1, EngineProfile::VllmV1, EngineProfile::Sglang}) {
            for (Recovery mode : {Recovery::Recompute, Recovery::Swap, Recovery::Hybrid}) {
                Workload w = std::get<Workload>(loaded);
                w.policy.engine_profile = profile;
                w.policy.recovery = profile == EngineProfile::TickModel1 ? mode : Recovery::Recompute;
                const RunOutcomes out = outcomesFromRun(w, runWorkload(w));
                for (const auto& r : out.requests) {
                    if (!r.completed) continue;
                    QVERIFY2(r.itl.count() == r.generated_tokens - 1, (std::string(name) + " " + r.id).c_str());
                    QVERIFY2(r.itl.sum() == r.completion_tick - r.first_token_tick,
                             (std::string(name) + " " + r.id + " " + std::string(toString(profile))).c_str());
                    for (std::int64_t g : r.itl.longer) QVERIFY(g >= 1);
                }
            }
        }
    }
}

void TestReview::oneRequestRunByHand() {
    // One request, prompt 8 (one prefill chunk of 64 a tick), 4 output tokens, a pool far larger than it needs:
    // first token at its arrival tick 3, then one a tick: complete at 6. TTFT 0, TPOT (6-3)/3 = 1 tick, ITL
    // three gaps of 1, completion 3 ticks; at tick_us 1500: 4.5 ms.
    Workload w;
    w.name = "one";
    w.config.capacity_blocks = 64;
    w.config.tick_us = 1500;
    RequestSpec r;
    r.id = "r";
    r.arrival_tick = 3;
    r.prompt_tokens = 8;
    r.output_tokens = 4;
    r.max_output_tokens = 4;
    w.requests.push_back(r);
    QVERIFY(!validateWorkload(w).has_value());
    const RunOutcomes out = outcomesFromRun(w, runWorkload(w));
    QCOMPARE(out.tick_us, std::int64_t{1500});
    const LatencyFigures f = latencyFigures(out);
    QCOMPARE(f.ttft_ticks.p50, std::int64_t{0});
    QCOMPARE(f.tpot_ticks_x100.p50, std::int64_t{100});
    QCOMPARE(f.itl_ticks.count, std::int64_t{3});
    QCOMPARE(f.itl_ticks.max, std::int64_t{1});
    QCOMPARE(f.completion_ticks.p50, std::int64_t{3});
    QCOMPARE(ticksAsMs(f.completion_ticks.p50, out.tick_us), std::string("4.5"));
}

void TestReview::reportGroupsAndBuckets() {
    ReportOptions options; // prompt edges 128, 512, 2048, 8192
    options.slos.ttft = ticks(3);
    const Report report = buildReport(handOutcomes(false), options);
    auto group = [&](const std::string& dim, const std::string& key) -> const ReportGroup* {
        for (const auto& g : report.groups) {
            if (g.dimension == dim && g.key == key) return &g;
        }
        return nullptr;
    };
    // a (10) and b (100) below 128, c (300) in 128-511, censored.
    QVERIFY(group("prompt_tokens", "<128") && group("prompt_tokens", "<128")->figures.requests == 2);
    QCOMPARE(group("prompt_tokens", "128-511")->figures.censored, std::int64_t{1});
    QVERIFY(group("prompt_tokens", "512-2047") == nullptr); // empty buckets are not listed
    // Output 5, 4, 10: all below 32.
    QCOMPARE(group("output_tokens", "<32")->figures.requests, std::int64_t{3});
    // Priority 1: b and c; its queue [3, 50]: p50 3; its goodput: b over TTFT, c censored: 0 of 2.
    const ReportGroup* p1 = group("priority", "1");
    QCOMPARE(p1->figures.requests, std::int64_t{2});
    QCOMPARE(p1->figures.queue_ticks.p50, std::int64_t{3});
    QCOMPARE(p1->goodput->good, std::int64_t{0});
    QCOMPARE(group("priority", "0")->goodput->good, std::int64_t{1});
    // Tenants: t1 = a, c; t2 = b (its ITL 1, 1, 9: p90 9).
    QCOMPARE(group("tenant", "t1")->figures.requests, std::int64_t{2});
    QCOMPARE(group("tenant", "t2")->figures.itl_ticks.p90, std::int64_t{9});
    // Preemption counts 0, 1, 2 are one group each, in numeric order after the "all" group.
    QCOMPARE(group("preemptions", "2")->figures.censored, std::int64_t{1});
    QCOMPARE(report.groups.front().dimension, std::string("all"));
    QCOMPARE(report.groups.front().figures.requests, std::int64_t{3});
    // Own edges.
    options.prompt_edges = {50, 200};
    const Report custom = buildReport(handOutcomes(false), options);
    std::vector<std::string> keys;
    for (const auto& g : custom.groups) {
        if (g.dimension == "prompt_tokens") keys.push_back(g.key);
    }
    QCOMPARE(keys, (std::vector<std::string>{"<50", "50-199", ">=200"}));
    // CSV: a header and one line per group; JSON: ms figures only with tick_us.
    const std::string csv = reportCsvText(report);
    QCOMPARE(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), report.groups.size() + 1);
    QVERIFY(csv.find("_ms") == std::string::npos);
    const json j = json::parse(reportJsonText(buildReport(handOutcomes(true), options)));
    QCOMPARE(j["groups"][0]["ttft"]["p50_ms"].get<double>(), 8.0); // 4 ticks of 2 ms
    QCOMPARE(j["groups"][0]["requests"].get<int>(), 3);
}

void TestReview::bucketEdgesParse() {
    auto ok = parseBucketEdges("64,256,1024");
    QCOMPARE(std::get<std::vector<std::int64_t>>(ok), (std::vector<std::int64_t>{64, 256, 1024}));
    for (const char* bad : {"", "64,,256", "256,64", "64,64", "0,5", "a", "1.5"}) {
        QVERIFY2(std::holds_alternative<std::string>(parseBucketEdges(bad)), bad);
    }
    QCOMPARE(bucketLabel(0, {10, 20}), std::string("<10"));
    QCOMPARE(bucketLabel(10, {10, 20}), std::string("10-19"));
    QCOMPARE(bucketLabel(20, {10, 20}), std::string(">=20"));
}

void TestReview::gatePercentParse() {
    QCOMPARE(parsePercentBp("95"), std::optional<std::int64_t>(9500));
    QCOMPARE(parsePercentBp("12.5"), std::optional<std::int64_t>(1250));
    QCOMPARE(parsePercentBp("0.01"), std::optional<std::int64_t>(1));
    QVERIFY(!parsePercentBp("0.001").has_value());
    QVERIFY(!parsePercentBp("-1").has_value());
    QVERIFY(!parsePercentBp("ten").has_value());
}

void TestReview::tickUsKey() {
    const std::string base = R"({"format":"preemptlab.workload.v1","name":"t","config":{CONFIG},
        "requests":[{"id":"r","arrival_tick":0,"prompt_tokens":8,"output_tokens":4}]})";
    const auto doc = [&](const std::string& config) {
        std::string s = base;
        s.replace(s.find("{CONFIG}"), 8, "{" + config + "}");
        return s;
    };
    auto without = parseWorkload(doc(""), "w.json");
    auto with = parseWorkload(doc(R"("tick_us": 20000)"), "w.json");
    QVERIFY(std::holds_alternative<Workload>(without));
    QVERIFY(std::holds_alternative<Workload>(with));
    QCOMPARE(std::get<Workload>(with).config.tick_us, std::int64_t{20000});
    // Hashed only when present: absent keeps the workload's canonical form (and so every pinned receipt).
    QVERIFY(!workloadJson(std::get<Workload>(without))["config"].contains("tick_us"));
    QCOMPARE(workloadJson(std::get<Workload>(with))["config"]["tick_us"], json(20000));
    const auto inputHash = [](const Workload& w) { return receiptHashes(w, runWorkload(w)).input_hash; };
    QVERIFY(inputHash(std::get<Workload>(without)) != inputHash(std::get<Workload>(with)));
    // 0, negative, fractional and text are refused, naming the file, the field and the reason.
    for (const char* bad : {R"("tick_us": 0)", R"("tick_us": -5)", R"("tick_us": 1.5)", R"("tick_us": "20ms")"}) {
        auto parsed = parseWorkload(doc(bad), "w.json");
        QVERIFY2(std::holds_alternative<InputError>(parsed), bad);
        const InputError& e = std::get<InputError>(parsed);
        QCOMPARE(e.file, std::string("w.json"));
        QCOMPARE(e.path, std::string("/config/tick_us"));
        QVERIFY(!e.reason.empty());
    }
    // A command-line override: --tick-us 0 is refused too.
    Workload w = std::get<Workload>(without);
    QVERIFY(applyOverride(w, "tick-us", "0").has_value());
    QVERIFY(!applyOverride(w, "tick-us", "250").has_value());
    QCOMPARE(w.config.tick_us, std::int64_t{250});
}

QTEST_APPLESS_MAIN(TestReview)
#include "test_review.moc"
