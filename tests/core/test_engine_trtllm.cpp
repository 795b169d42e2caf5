// The trtllm-max-utilization and trtllm-guaranteed-no-evict engine profiles on scenarios ported from
// TensorRT-LLM's own capacitySchedulerTest.cpp (tests/core/data/trtllm/, each file's notes name the test and the
// commit). The test's expected tables give, per iteration range, the scheduled requests and their progress at
// the range's start; as events that is who is paused (evict) when and with how many tokens generated, who
// recomputes (resume) when, who finishes when, and the number of iterations. Iteration k is tick k.
#include "tests/core/engine_fixtures.h"
#include "tests/core/quiet_steps.h"

#include "core/compare_report.h"
#include "core/engine.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/workload_io.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace pl;
using namespace pltest;

namespace {

Workload scenario(const std::string& name) {
    return loadSampleFile(std::string(PREEMPTLAB_SOURCE_DIR) + "/tests/core/data/trtllm/" + name + ".workload.json");
}

// "tick kind id generated" for every evict (a pause), resume and complete, in order.

} // namespace

class TestEngineTrtllm : public QObject {
    Q_OBJECT

  private slots:
    void portedScenarios_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<qint64>("iterations");
        // SimpleShouldFit: both scheduled for all 80 iterations.
        const QStringList fit{"0 admit 0", "0 admit 1", "79 complete 0 80", "79 complete 1 80"};
        QTest::newRow("SimpleShouldFit[MAX_UTILIZATION]") << "t01-simple-should-fit-max-utilization" << fit << qint64{80};
        QTest::newRow("SimpleShouldFit[GUARANTEED_NO_EVICT]") << "t01-simple-should-fit-no-evict" << fit << qint64{80};
        // {0,41,{0,1},both} {41,80,{0,1},{{0,80,10,41,10}}} {80,120,{1},{{1,39,51,0}}}: 119 iterations.
        QTest::newRow("SimpleDoesntFitMaxUtilization")
            << "t06-doesnt-fit-max-utilization"
            << QStringList{"0 admit 0", "0 admit 1", "41 evict 1 41", "79 complete 0 80", "80 resume 1 41", "118 complete 1 80"}
            << qint64{119};
        // Active order {1, 0}: at 41 the last started is req 0.
        QTest::newRow("SimpleDoesntFitPriorities")
            << "t09-doesnt-fit-priorities"
            << QStringList{"0 admit 1", "0 admit 0", "41 evict 0 41", "79 complete 1 80", "80 resume 0 41", "118 complete 0 80"}
            << qint64{119};
        // {0,80,{0,1},{{0,80,10,0}}} {80,160,{1},{{1,80,10,0}}}: 160 iterations, nothing paused.
        QTest::newRow("SimpleDoesntFitGuaranteedCompletion")
            << "t13-doesnt-fit-guaranteed-completion"
            << QStringList{"0 admit 0", "79 complete 0 80", "80 admit 1", "159 complete 1 80"} << qint64{160};
        // The table of SimpleDoesntFitAddingNewRequestsMaxUtilization: pauses at 21 (3, then 2: "Need to drop two
        // requests"), 41 (1), 90 (2), 139 (3); {80,90,{1,2,3},{{1,39,51,0,0},{2,69,21,0}}},
        // {119,139,{2,3},{{2,59,31,0},{3,69,21,0}}}, {178,227,{3},{{3,49,41,0}}}; 227 iterations.
        QTest::newRow("SimpleDoesntFitAddingNewRequestsMaxUtilization")
            << "t16-adding-new-requests-max-utilization"
            << QStringList{"0 admit 0",       "0 admit 1",        "10 admit 2",       "10 admit 3",       "21 evict 3 11",
                           "21 evict 2 11",   "41 evict 1 41",    "79 complete 0 80", "80 resume 1 41",   "80 resume 2 11",
                           "90 evict 2 21",   "118 complete 1 80", "119 resume 2 21", "119 resume 3 11", "139 evict 3 31",
                           "177 complete 2 80", "178 resume 3 31", "226 complete 3 80"}
            << qint64{227};
        // {0,10,{0,1},{0}} {10,80,{0,1,2,3},{0}} {80,160,..,{1}} {160,240,..,{2}} {240,320,{3},{3}}: 320 iterations.
        QTest::newRow("SimpleDoesntFitAddingNewRequestsGuaranteedCompletion")
            << "t19-adding-new-requests-guaranteed-completion"
            << QStringList{"0 admit 0",   "79 complete 0 80",  "80 admit 1",  "159 complete 1 80",
                           "160 admit 2", "239 complete 2 80", "240 admit 3", "319 complete 3 80"}
            << qint64{320};
    }

    void portedScenarios() {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        QFETCH(qint64, iterations);
        const Workload w = scenario(name.toStdString());
        const RunResult run = runWorkload(w);
        QCOMPARE(eventStory(w, run), expected);
        QCOMPARE(run.totals.ticks, static_cast<std::int64_t>(iterations));
        const auto report = checkReceipt(nlohmann::json::parse(receiptText(w, run)));
        QVERIFY2(report.passed, report.violations.empty() ? "" : report.violations.front().c_str());
        QCOMPARE(receiptHashes(w, tickByTickRun(w)).event_hash, receiptHashes(w, run).event_hash);
    }

    // A paused request recomputes prompt + generated: at iteration 80 req 1 of SimpleDoesntFitMaxUtilization is a
    // 51-token context (prompt 10 + 41 generated, "{1, 39, 51, 0}"), whose KV holds 50 of them (the 41st token's
    // KV was never written) and is replayed, the 51st computed with it.
    void pausedRequestRecomputesPromptAndGenerated() {
        const Workload w = scenario("t06-doesnt-fit-max-utilization");
        const RunResult run = runWorkload(w);
        for (const Event& e : run.ledger.events) {
            if (e.kind == EventKind::Evict) {
                QCOMPARE(e.context_tokens, std::int64_t{50});
                QCOMPARE(e.freed_blocks, std::int64_t{5}); // "schedulingRemoveSequence frees its 5 blocks"
            }
            if (e.kind == EventKind::Resume) QCOMPARE(e.replay_tokens, std::int64_t{50});
        }
        Ledger ledger;
        Engine engine(w, ledger);
        engine.runToTick(80);
        QCOMPARE(engine.requests()[1].computed_tokens, std::int64_t{51});
    }

    // The oracle knows each profile's rule: an evict under guaranteed-no-evict, or a pause of a request that is
    // not the last started one, fails.
    void oracleChecksTheCapacityPolicies() {
        const Workload w = scenario("t16-adding-new-requests-max-utilization");
        auto doc = nlohmann::json::parse(receiptText(w, runWorkload(w)));
        QVERIFY(checkReceipt(doc).passed);
        for (auto& e : doc["events"]) {
            if (e["kind"] == "evict") {
                for (auto& c : e["candidates"]) {
                    if (c["id"] == "0") c["priority"] = 5; // 0 now looks last in activeRequests
                }
                break;
            }
        }
        QVERIFY(!checkReceipt(doc).passed);
        auto noEvict = nlohmann::json::parse(receiptText(w, runWorkload(w)));
        noEvict["policy"]["engine_profile"] = "trtllm-guaranteed-no-evict";
        noEvict["policy"]["engine_follows"] = std::string(engineFollows(EngineProfile::TrtllmGuaranteedNoEvict));
        const auto report = checkReceipt(noEvict);
        bool said = false;
        for (const auto& v : report.violations) said = said || v.find("never pauses a request") != std::string::npos;
        QVERIFY(said);
    }

    // compare --engines (core's compareEngineRuns, what the CLI prints and writes): one column per profile, the
    // same input, each profile's own policy (recompute, the engine's victim rule), every receipt conserving; on
    // the bundled sample the engines disagree (its notes' figures).
    void compareEnginesRunsEveryProfile() {
        const Workload w = loadSample("engines-disagree");
        const auto cols = compareEngineRuns(w, RunControl{}, false);
        QCOMPARE(cols.size(), comparedProfiles().size());
        QStringList labels;
        for (const auto& c : cols) {
            labels << QString::fromStdString(c.label);
            QVERIFY(c.engine);
            QVERIFY(c.conservation_passed);
            QCOMPARE(c.hashes.input_hash, cols.front().hashes.input_hash);
        }
        QCOMPARE(labels, (QStringList{"tick-model-1", "vllm-v1", "sglang", "trtllm-max-utilization",
                                      "trtllm-guaranteed-no-evict"}));
        QCOMPARE(cols[0].summary.totals.evictions, std::int64_t{8});
        QCOMPARE(cols[1].summary.totals.evictions, std::int64_t{8});
        QCOMPARE(cols[2].summary.totals.evictions, std::int64_t{0});
        QCOMPARE(cols[3].summary.totals.evictions, std::int64_t{6});
        QCOMPARE(cols[4].summary.totals.evictions, std::int64_t{0});
        QCOMPARE(cols[3].summary.totals.ticks, std::int64_t{299});
        QCOMPARE(cols[4].summary.totals.ticks, std::int64_t{400});
        const auto doc = nlohmann::json::parse(compareFileText(w, cols, false));
        QVERIFY(doc.contains("engines") && !doc.contains("modes"));
        QVERIFY(compareFileText(w, cols, true).starts_with("engine,policy_hash,event_hash"));
        QVERIFY(compareTableText(w, cols).find("trtllm-guaranteed-no-evict") != std::string::npos);
    }

    // Pure generation iterations are advanced in one pass (core/engine_trtllm.cpp, trtllmStepsAreQuiet): the
    // same events, totals and receipt as ticking every iteration, under both capacity policies, with and without
    // max_num_seqs and a token limit too small for the batch. With one priority most iterations are skipped.
    // With two, MAX_UTILIZATION tries a waiting request of a higher priority before running ones each iteration,
    // and one whose prompt does not fit the token limit stops the micro batch there (the running requests behind
    // it stall): those iterations are not pure generation and must be ticked one by one.
    void quietIterationsAreSkippedAsIfTicked() {
        int skippedRuns = 0;
        for (bool priorities : {false, true}) {
            Workload base = decodeHeavyWorkload(); // priorities 0 and 1
            if (!priorities) {
                for (auto& r : base.requests) r.priority = 0;
            }
            base.config.capacity_blocks = 250; // MAX_UTILIZATION admits a request only when its whole prompt fits
            for (auto profile : {EngineProfile::TrtllmMaxUtilization, EngineProfile::TrtllmGuaranteedNoEvict}) {
                for (std::int64_t seqs : {0, 8}) {
                    for (std::int64_t budget : {8192, 512, 6}) { // 8192: TensorRT-LLM's default max_num_tokens
                        Workload w = engineVariant(base, profile);
                        w.config.max_num_seqs = seqs;
                        w.config.max_num_batched_tokens = budget;
                        const auto invalid = validateWorkload(w);
                        QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
                        const std::string what = std::string(toString(profile)) + " seqs " + std::to_string(seqs) +
                                                 " budget " + std::to_string(budget) +
                                                 (priorities ? " two priorities" : "");
                        std::int64_t calls = 0;
                        checkSkippedRunMatchesTicked(w, what, calls);
                        if (QTest::currentTestFailed()) return;
                        if (priorities || budget != 8192) continue;
                        const RunResult run = runWorkload(w);
                        if (profile == EngineProfile::TrtllmMaxUtilization) {
                            QVERIFY2(run.totals.evictions > 0, what.c_str()); // pauses happen, and are ticked through
                        }
                        QVERIFY2(calls * 2 < run.totals.ticks, (what + ": " + std::to_string(calls) + " calls for " +
                                                                std::to_string(run.totals.ticks) + " ticks").c_str());
                        ++skippedRuns;
                    }
                }
            }
        }
        QCOMPARE(skippedRuns, 4);
    }
};

QTEST_GUILESS_MAIN(TestEngineTrtllm)
#include "test_engine_trtllm.moc"
