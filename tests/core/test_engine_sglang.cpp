// The sglang engine profile. SGLang has no unit test that asserts retraction decisions (its only retraction test
// runs a real model, test/srt/test_retract_decode.py), so these scenarios are derived from the code it follows
// (schedule_batch.py retract_decode, scheduler.py, schedule_policy.py @ 000eaffa) and labelled so in their notes
// (tests/core/data/sglang/); the figures below were worked by hand from that code (docs/engines.md).
#include "tests/core/engine_fixtures.h"
#include "tests/core/quiet_steps.h"

#include "core/compare_report.h"
#include "core/engine.h"
#include "core/ledger.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/workload_io.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

using namespace pl;
using namespace pltest;

namespace {

Workload scenario(const std::string& name) {
    return loadSampleFile(std::string(PREEMPTLAB_SOURCE_DIR) + "/tests/core/data/sglang/" + name + ".workload.json");
}


} // namespace

class TestEngineSglang : public QObject {
    Q_OBJECT

  private slots:
    // PrefillAdder: d (28 + 175 = 203 tokens < 240) is admitted alone (a's 6 + 171 >= the 37 left). At 175, a
    // (177 < 240); at 176 b, because the running batch reserves only new_token_ratio (0.7 less 174 decays of
    // (0.7 - 0.098) / 600 = 0.5255) x a's 170 remaining: 232 - 89 = 142 > 17 + 114. At 284 a and b both have 108
    // tokens; b's next token needs a block, none is free: retract_decode pops b (fewest output; tie: longest
    // prompt, 17 > 6) to the tail of the waiting queue behind c (queue_position 1); c is admitted when a is done,
    // b resumes when c is.
    void retractionOrderAndQueueTail() {
        const Workload w = scenario("d1-retract-order");
        const RunResult run = runWorkload(w);
        QCOMPARE(eventStory(w, run), (QStringList{"0 admit d", "174 complete d 175", "175 admit a", "176 admit b",
                                                  "284 evict b 108", "346 complete a 171", "347 admit c",
                                                  "526 complete c 180", "527 resume b 108", "533 complete b 114"}));
        for (const Event& e : run.ledger.events) {
            if (e.kind == EventKind::Evict) QCOMPARE(e.queue_position, std::int64_t{1}); // behind c: the tail
            if (e.kind == EventKind::Pressure) {
                QVERIFY(e.trigger == PressureTrigger::RetractDecode); // the batch's step, not one requester
                QCOMPARE(e.request, -1);
            }
        }
    }

    // No mixed chunks: a step that prefills a new request does not decode the running batch. a (10 tokens)
    // samples at 0, 1, 3, 5..11 (ticks 2 and 4 prefill b and c): it completes at 11, where tick-model-1 would
    // finish it at 9.
    void aPrefillStepDoesNotDecode() {
        const Workload w = scenario("d4-prefill-or-decode");
        const RunResult run = runWorkload(w);
        QCOMPARE(eventStory(w, run), (QStringList{"0 admit a", "2 admit b", "4 admit c", "11 complete a 10",
                                                  "12 complete b 10", "13 complete c 10"}));
    }

    // Random tight workloads under the profile (every victim rule; the others are what-ifs): the oracle, with the
    // profile's residency and SGLang's retraction order, passes; the lab's engine writes the same events.
    void propertyRandomWorkloadsConserve() {
        int runs = 0;
        std::int64_t evictions = 0;
        // Every seed, sanitizers or not: the 120 runs take well under a second, and fewer seeds reach no retraction.
        const std::uint64_t seeds = 40;
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            std::uint64_t x = seed * 0x9E3779B97F4A7C15ull;
            auto next = [&](std::int64_t lo, std::int64_t hi) {
                x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
                return lo + static_cast<std::int64_t>((x * 0x2545F4914F6CDD1Dull) % static_cast<std::uint64_t>(hi - lo + 1));
            };
            Config c;
            c.block_size_tokens = next(2, 8);
            c.capacity_blocks = next(20, 60);
            c.max_ticks = 2000;
            c.max_num_batched_tokens = next(8, 64);
            std::vector<RequestSpec> reqs;
            const std::int64_t pool = c.capacity_blocks * c.block_size_tokens;
            for (int i = 0; i < next(2, 8); ++i) {
                const auto prompt = next(1, pool / 4);
                const auto out = next(1, pool - prompt - 1);
                std::string id = "r"; // built with += : GCC 12 warns falsely (-Wrestrict) on "r" + std::string
                id += std::to_string(i);
                reqs.push_back(req(id, next(0, 20), prompt, out, next(0, 2), "t", out));
            }
            Policy p;
            p.engine_profile = EngineProfile::Sglang;
            Workload w = workload(c, p, reqs);
            for (auto rule : {VictimRule::FewestDecoded, VictimRule::PriorityNewest, VictimRule::LastAdmitted}) {
                w.policy.victim_rule = rule;
                QVERIFY(!validateWorkload(w).has_value());
                const RunResult run = runWorkload(w);
                ++runs;
                evictions += run.totals.evictions;
                QCOMPARE(run.totals.completed + run.totals.censored, static_cast<std::int64_t>(w.requests.size()));
                QCOMPARE(receiptHashes(w, tickByTickRun(w)).event_hash, receiptHashes(w, run).event_hash);
                const auto report = checkReceipt(nlohmann::json::parse(receiptText(w, run)));
                QVERIFY2(report.passed, report.violations.empty() ? "" : report.violations.front().c_str());
            }
        }
        qInfo("sglang: %d runs, %lld retractions", runs, static_cast<long long>(evictions));
        QVERIFY(evictions > 0);
    }

    // Decode batches without a retraction are advanced in one pass (core/engine_sglang.cpp,
    // sglangStepsAreQuiet): the same events, totals and receipt as ticking every iteration, new_token_ratio
    // decayed by the steps skipped. The head's NO_TOKEN depends on the ratio, which decays each step, so a
    // stretch stops before the step that could admit it. With and without --max-running-requests and a small
    // chunked-prefill size.
    void quietDecodeBatchesAreSkippedAsIfTicked() {
        const Workload base = decodeHeavyWorkload();
        int skippedRuns = 0;
        for (std::int64_t seqs : {0, 8}) {
            for (std::int64_t chunk : {0, 64}) {
                for (std::int64_t capacity : {600, 250}) {
                    Workload w = engineVariant(base, EngineProfile::Sglang);
                    w.config.max_num_seqs = seqs;
                    w.config.max_num_batched_tokens = chunk;
                    w.config.capacity_blocks = capacity;
                    const auto invalid = validateWorkload(w);
                    QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
                    const std::string what = "seqs " + std::to_string(seqs) + " chunk " + std::to_string(chunk) +
                                             " capacity " + std::to_string(capacity);
                    std::int64_t calls = 0;
                    checkSkippedRunMatchesTicked(w, what, calls);
                    if (QTest::currentTestFailed()) return;
                    const RunResult run = runWorkload(w);
                    if (capacity == 250 && seqs == 0) {
                        QVERIFY2(run.totals.evictions > 0, what.c_str()); // retractions happen, and are ticked through
                    }
                    QVERIFY2(calls * 2 < run.totals.ticks, (what + ": " + std::to_string(calls) + " calls for " +
                                                            std::to_string(run.totals.ticks) + " ticks").c_str());
                    ++skippedRuns;
                }
            }
        }
        QCOMPARE(skippedRuns, 8);
    }
};

QTEST_GUILESS_MAIN(TestEngineSglang)
#include "test_engine_sglang.moc"
