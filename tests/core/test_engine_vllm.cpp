// The vllm-v1 engine profile on scenarios ported from vLLM's own test suite (tests/core/data/vllm/, each file's
// notes name the test and the commit). Each test checks the assertions the vLLM test makes, as events: vLLM's
// step k is tick k-1; who is admitted in which step and in what order, who is preempted, when and with how many
// generated tokens, what the resume recomputes, the waiting queue's order. docs/engines.md lists them.
#include "tests/core/engine_fixtures.h"
#include "tests/core/quiet_steps.h"

#include "core/engine.h"
#include "core/engine_profiles.h"
#include "core/ledger.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/workload_io.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace pl;
using namespace pltest;

class TestEngineVllm : public QObject {
    Q_OBJECT

  private slots:
    void everyPortedScenarioPassesTheOracle();
    void scheduleOrderChunksTheSecondPrompt();           // test_schedule_order[chunked]
    void scheduleAdmitsAllInOrder();                     // test_schedule
    void priorityOrdering_data();
    void priorityOrdering();                             // V6-V9, V16
    void maxNumSeqsLeavesTheQueueInPriorityOrder_data();
    void maxNumSeqsLeavesTheQueueInPriorityOrder();      // V10-V12b
    void priorityPreemptionTakesBackAScheduledVictim();  // test_priority_scheduling_preemption
    void noPreemptionWhenSpaceIsAvailable();             // V14
    void preemptionAndResumptionWhenOutOfKv();           // V15
    void headOfLineWaitsForBlocks();                     // V17
    void fcfsPreemptsTheLastAdmitted();                  // V18
    void memoryIsAllFreeAtTheEnd();                      // V19
    void prefillReusesBlocksInFreeQueueOrder();          // V20 test_prefill
    void evictHitsTheDeclaredPrefixAndTakesTheOldestFree(); // V21 test_evict
    void resumeHitsItsOwnBlocksOnlyWithCaching();
    void ownBlocksAreNeverHitBeforeTheyWereComputed();
    void swapIsAWhatIfUnderTheProfile();
    void sampledTokenIsResidentOneStepLater();
    void quietStepsAreSkippedAsIfTicked();
    void oracleRefusesAWrongVllmVictim();
    void tickModelReceiptsDoNotChange();
};

namespace {

Workload scenario(const std::string& name) {
    return loadSampleFile(std::string(PREEMPTLAB_SOURCE_DIR) + "/tests/core/data/vllm/" + name + ".workload.json");
}

std::int32_t indexOf(const Workload& w, const std::string& id) {
    for (std::size_t i = 0; i < w.requests.size(); ++i) {
        if (w.requests[i].id == id) return static_cast<std::int32_t>(i);
    }
    qFatal("no request %s", id.c_str());
}

// Ids of the requests admitted (first admission) at `tick`, in event order.
QStringList admittedAt(const Workload& w, const RunResult& run, Tick tick) {
    QStringList ids;
    for (const Event& e : run.ledger.events) {
        if (e.kind == EventKind::Admit && e.tick == tick) ids << QString::fromStdString(w.requests[static_cast<std::size_t>(e.request)].id);
    }
    return ids;
}

QStringList waitingAfter(const Workload& w, Tick tick) {
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(tick);
    QStringList ids;
    for (auto r : engine.waitingQueue()) ids << QString::fromStdString(w.requests[static_cast<std::size_t>(r)].id);
    return ids;
}

std::vector<const Event*> kinds(const RunResult& run, EventKind kind) {
    std::vector<const Event*> out;
    for (const Event& e : run.ledger.events) {
        if (e.kind == kind) out.push_back(&e);
    }
    return out;
}

const char* kScenarios[] = {"v02-schedule-order", "v05-schedule", "v06-priority-basic-ordering",
                            "v07-priority-arrival-tiebreaker", "v08-priority-mixed", "v09-priority-fcfs-fallback",
                            "v10-priority-limited-slots", "v11-priority-waiting-queue-order",
                            "v12-priority-victim-selection", "v12b-priority-equal-priority", "v13-priority-preemption",
                            "v14-priority-no-preemption", "v15-priority-preemption-resumption",
                            "v16-priority-heap-property", "v17-unable-to-allocate", "v18-handles-preemption",
                            "v19-memory-leak", "v20-prefill-eviction-order", "v21-evict"};

// The device blocks request `id` holds after `tick`, in its logical order.
std::vector<std::int32_t> heldAfter(const Workload& w, const std::string& id, Tick tick) {
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(tick);
    const auto held = engine.heldBlocks(indexOf(w, id));
    return {held.begin(), held.end()};
}

const Event* firstOf(const RunResult& run, EventKind kind, std::int32_t request) {
    for (const Event& e : run.ledger.events) {
        if (e.kind == kind && e.request == request) return &e;
    }
    return nullptr;
}

} // namespace

void TestEngineVllm::everyPortedScenarioPassesTheOracle() {
    for (const char* name : kScenarios) {
        const Workload w = scenario(name);
        QVERIFY(w.policy.engine_profile == EngineProfile::VllmV1);
        const RunResult run = runWorkload(w);
        QCOMPARE(run.totals.completed, static_cast<std::int64_t>(w.requests.size()));
        const auto report = checkReceipt(nlohmann::json::parse(receiptText(w, run)));
        QVERIFY2(report.passed, (std::string(name) + ": " + (report.violations.empty() ? "" : report.violations.front())).c_str());
        // The lab's engine (ticked one by one, series and pool map) writes the same events.
        QCOMPARE(receiptHashes(w, tickByTickRun(w)).event_hash, receiptHashes(w, run).event_hash);
    }
}

// max_num_batched_tokens 1024: step 1 schedules "1" (800) and a 224-token chunk of "2"; "3" and "4" wait.
void TestEngineVllm::scheduleOrderChunksTheSecondPrompt() {
    const Workload w = scenario("v02-schedule-order");
    const RunResult run = runWorkload(w);
    QCOMPARE(admittedAt(w, run, 0), (QStringList{"1", "2"}));
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(0);
    QCOMPARE(engine.requests()[static_cast<std::size_t>(indexOf(w, "2"))].computed_tokens, std::int64_t{224});
    QCOMPARE(engine.requests()[static_cast<std::size_t>(indexOf(w, "1"))].computed_tokens, std::int64_t{800});
    QCOMPARE(waitingAfter(w, 0), (QStringList{"3", "4"}));
}

void TestEngineVllm::scheduleAdmitsAllInOrder() {
    const Workload w = scenario("v05-schedule");
    const RunResult run = runWorkload(w);
    QCOMPARE(admittedAt(w, run, 0), (QStringList{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
    QCOMPARE(waitingAfter(w, 0), QStringList{});
}

void TestEngineVllm::priorityOrdering_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("order"); // admissions, in order over the whole run
    QTest::newRow("test_priority_scheduling_basic_ordering") << "v06-priority-basic-ordering" << QStringList{"1", "2", "0"};
    QTest::newRow("test_priority_scheduling_arrival_time_tiebreaker")
        << "v07-priority-arrival-tiebreaker" << QStringList{"t1-1", "t2-2", "t3-0"};
    QTest::newRow("test_priority_scheduling_mixed_priority_and_arrival")
        << "v08-priority-mixed" << QStringList{"t4-3", "t2-2", "t3-1", "t1-0"};
    QTest::newRow("test_priority_scheduling_fcfs_fallback")
        << "v09-priority-fcfs-fallback" << QStringList{"t1-1", "t2-3", "t3-2", "t4-0"};
    QTest::newRow("test_priority_scheduling_heap_property")
        << "v16-priority-heap-property" << QStringList{"1", "4", "3", "6", "0", "7", "5", "2"};
}

void TestEngineVllm::priorityOrdering() {
    QFETCH(QString, name);
    QFETCH(QStringList, order);
    const Workload w = scenario(name.toStdString());
    const RunResult run = runWorkload(w);
    QStringList admitted;
    QList<Tick> ticks;
    for (const auto* e : kinds(run, EventKind::Admit)) {
        admitted << QString::fromStdString(w.requests[static_cast<std::size_t>(e->request)].id);
        ticks << e->tick;
    }
    QCOMPARE(admitted, order);
    if (name.startsWith("v16")) { // max_num_seqs 1, each finished after one token: one admission per step
        for (qsizetype i = 0; i < ticks.size(); ++i) QCOMPARE(ticks[i], static_cast<Tick>(i));
    } else {
        QCOMPARE(admittedAt(w, run, 0), order); // all in step 1
    }
}

void TestEngineVllm::maxNumSeqsLeavesTheQueueInPriorityOrder_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("admitted");
    QTest::addColumn<QStringList>("waiting");
    QTest::newRow("test_priority_scheduling_with_limited_slots")
        << "v10-priority-limited-slots" << QStringList{"3", "1"} << QStringList{"2", "0"};
    QTest::newRow("test_priority_scheduling_waiting_queue_order")
        << "v11-priority-waiting-queue-order" << QStringList{"3"} << QStringList{"1", "2", "0"};
    QTest::newRow("test_priority_scheduling_preemption_victim_selection")
        << "v12-priority-victim-selection" << QStringList{"2"} << QStringList{"1", "0"};
    QTest::newRow("test_priority_scheduling_equal_priority_preemption")
        << "v12b-priority-equal-priority" << QStringList{"t1-1"} << QStringList{"t2-2", "t3-0"};
}

void TestEngineVllm::maxNumSeqsLeavesTheQueueInPriorityOrder() {
    QFETCH(QString, name);
    QFETCH(QStringList, admitted);
    QFETCH(QStringList, waiting);
    const Workload w = scenario(name.toStdString());
    QCOMPARE(admittedAt(w, runWorkload(w), 0), admitted);
    QCOMPARE(waitingAfter(w, 0), waiting);
}

// 5 usable blocks. Step 2: lo1 decodes into its third block, hi1 takes the last two. Step 3: lo1 is scheduled
// (slot 34 fits), hi1 needs a third block: the victim is lo1 (priority 5), already scheduled, so its step is
// taken back; it leaves with 2 generated tokens and 33 resident (the second token's KV was never written).
void TestEngineVllm::priorityPreemptionTakesBackAScheduledVictim() {
    const Workload w = scenario("v13-priority-preemption");
    const RunResult run = runWorkload(w);
    const auto evicts = kinds(run, EventKind::Evict);
    QVERIFY(!evicts.empty());
    const Event& e = *evicts.front();
    QCOMPARE(e.request, indexOf(w, "lo1"));
    QCOMPARE(e.tick, Tick{2});
    QCOMPARE(e.generated_tokens, std::int64_t{2});
    QCOMPARE(e.context_tokens, std::int64_t{33});
    QCOMPARE(e.replay_tokens, std::int64_t{33});
    QCOMPARE(e.freed_blocks, std::int64_t{3}); // its step's allocation (none: slot 34 fit) was taken back first
    QCOMPARE(e.queue_position, std::int64_t{0});
    QCOMPARE(admittedAt(w, run, 1), QStringList{"hi1"});
    // hi1 kept running: it samples its second token in step 3; nobody is admitted in step 3.
    for (const Event& ev : run.ledger.events) {
        if (ev.tick == 2) QVERIFY(ev.kind != EventKind::Admit && ev.kind != EventKind::Resume);
    }
    QCOMPARE(waitingAfter(w, 2), QStringList{"lo1"});
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(2);
    QCOMPARE(engine.requests()[static_cast<std::size_t>(indexOf(w, "hi1"))].generated_tokens, std::int64_t{2});
    QCOMPARE(engine.requests()[static_cast<std::size_t>(indexOf(w, "lo1"))].computed_tokens, std::int64_t{0});
}

void TestEngineVllm::noPreemptionWhenSpaceIsAvailable() {
    const Workload w = scenario("v14-priority-no-preemption");
    const RunResult run = runWorkload(w);
    QCOMPARE(admittedAt(w, run, 1), QStringList{"hi1"});
    QCOMPARE(run.totals.evictions, std::int64_t{0});
    QCOMPARE(waitingAfter(w, 1), QStringList{});
}

// 4 usable blocks. Step 3: "req_low needs 32 tokens = 2 blocks, req_high needs 33 tokens = 3 blocks": low is
// preempted (its step taken back), high runs; step 4: low resumes and recomputes 32 tokens (30 prompt + 2
// decoded), nobody new is scheduled.
void TestEngineVllm::preemptionAndResumptionWhenOutOfKv() {
    const Workload w = scenario("v15-priority-preemption-resumption");
    const RunResult run = runWorkload(w);
    const auto evicts = kinds(run, EventKind::Evict);
    QCOMPARE(evicts.size(), std::size_t{1});
    QCOMPARE(evicts[0]->request, indexOf(w, "0"));
    QCOMPARE(evicts[0]->tick, Tick{2});
    QCOMPARE(evicts[0]->generated_tokens, std::int64_t{2});
    QCOMPARE(waitingAfter(w, 2), QStringList{"0"});
    const auto resumes = kinds(run, EventKind::Resume);
    QCOMPARE(resumes.size(), std::size_t{1});
    QCOMPARE(resumes[0]->tick, Tick{3});
    QCOMPARE(resumes[0]->generated_tokens, std::int64_t{2});
    // The resume schedules num_tokens = 32: the 31 tokens whose KV was dropped are replayed and the 32nd
    // (the second decoded token, never written) is computed with them, sampling the third in the same step.
    QCOMPARE(resumes[0]->replay_tokens, std::int64_t{31});
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(3);
    QCOMPARE(engine.requests()[static_cast<std::size_t>(indexOf(w, "0"))].computed_tokens, std::int64_t{32});
    QCOMPARE(engine.requests()[static_cast<std::size_t>(indexOf(w, "0"))].generated_tokens, std::int64_t{3});
}

void TestEngineVllm::headOfLineWaitsForBlocks() {
    const Workload w = scenario("v17-unable-to-allocate");
    const RunResult run = runWorkload(w);
    QCOMPARE(admittedAt(w, run, 0), QStringList{"0"});
    QCOMPARE(waitingAfter(w, 0), QStringList{"1"});
    QCOMPARE(admittedAt(w, run, 2), QStringList{"1"}); // after 0 finished in step 2 and freed its blocks
    QCOMPARE(run.totals.evictions, std::int64_t{0});
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToEnd();
    QCOMPARE(engine.freeBlocks(), std::int64_t{9});
}

// 6 usable blocks of 2 tokens. Step 3: 0 needs a fourth block; fcfs running.pop() takes 1, the last admitted.
void TestEngineVllm::fcfsPreemptsTheLastAdmitted() {
    const Workload w = scenario("v18-handles-preemption");
    QVERIFY(w.config.enable_prefix_caching);
    const RunResult run = runWorkload(w);
    const auto evicts = kinds(run, EventKind::Evict);
    QVERIFY(!evicts.empty());
    QCOMPARE(evicts[0]->request, indexOf(w, "1"));
    QCOMPARE(evicts[0]->tick, Tick{2});
    QCOMPARE(evicts[0]->generated_tokens, std::int64_t{2});
    QCOMPARE(evicts[0]->context_tokens, std::int64_t{6});
    QCOMPARE(waitingAfter(w, 2), QStringList{"1"});
    // r0's 4th block is the free queue's head, r1's tail block (freed first); r1's first 2 blocks stay cached.
    const auto r0 = heldAfter(w, "0", 2);
    QCOMPARE(r0.size(), std::size_t{4});
    const auto resumes = kinds(run, EventKind::Resume);
    QVERIFY(!resumes.empty());
    QCOMPARE(resumes[0]->request, indexOf(w, "1"));
    QCOMPARE(resumes[0]->tick, Tick{4}); // vLLM's step 5, after r0 finished in step 4
    QCOMPARE(resumes[0]->cached_tokens, std::int64_t{4});
    QCOMPARE(resumes[0]->replay_tokens, std::int64_t{2}); // + the 7th token, never written: 3 scheduled
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(4);
    QCOMPARE(engine.requests()[static_cast<std::size_t>(indexOf(w, "1"))].computed_tokens, std::int64_t{7});
}

void TestEngineVllm::memoryIsAllFreeAtTheEnd() {
    const Workload w = scenario("v19-memory-leak");
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToEnd();
    QCOMPARE(engine.freeBlocks(), w.config.capacity_blocks);
    QCOMPARE(engine.waitingCount(), std::int64_t{0});
    QCOMPARE(engine.totals().completed, std::int64_t{5});
}

// test_prefill: the common blocks are hit by req1 and req2, and every freed block joins the free queue's tail
// (tail block first), never-used blocks ahead of them. vLLM's block b is the lab's b - 1.
void TestEngineVllm::prefillReusesBlocksInFreeQueueOrder() {
    const Workload w = scenario("v20-prefill-eviction-order");
    const RunResult run = runWorkload(w);
    using Blocks = std::vector<std::int32_t>;
    QCOMPARE(heldAfter(w, "req0", 0), (Blocks{0, 1, 2, 3}));  // vLLM [1, 2, 3, 4]
    QCOMPARE(heldAfter(w, "req1", 1), (Blocks{0, 1, 2, 4}));  // hits [1, 2, 3], new [5]
    QCOMPARE(firstOf(run, EventKind::Admit, indexOf(w, "req1"))->cached_tokens, std::int64_t{48});
    QCOMPARE(heldAfter(w, "req2", 3), (Blocks{0, 1, 2, 5}));  // hits [1, 2, 3], new [6]
    QCOMPARE(firstOf(run, EventKind::Admit, indexOf(w, "req2"))->cached_tokens, std::int64_t{48});
    // "This block ID order also checks the eviction order": [7, 8, 9, 10, 4, 5, 6, 3, 2, 1].
    QCOMPARE(heldAfter(w, "req3", 5), (Blocks{6, 7, 8, 9, 3, 4, 5, 2, 1, 0}));
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(2); // req0 and req1 freed: the free queue is [6..10, 4, 5, 3, 2, 1], 10 free
    QCOMPARE(engine.freeBlocks(), std::int64_t{10});
}

// test_evict: req0 (6 blocks) and req1 (3) freed in that order leave [10, 6, 5, 4, 3, 2, 1, 9, 8, 7]; req2, the
// first 35 tokens of req0, hits [1, 2] and takes the never-used [10]; 7 blocks stay free.
void TestEngineVllm::evictHitsTheDeclaredPrefixAndTakesTheOldestFree() {
    const Workload w = scenario("v21-evict");
    const RunResult run = runWorkload(w);
    using Blocks = std::vector<std::int32_t>;
    QCOMPARE(heldAfter(w, "req0", 0).size(), std::size_t{0}); // it finished in its first step (1 output token)
    QCOMPARE(firstOf(run, EventKind::Admit, indexOf(w, "req2"))->cached_tokens, std::int64_t{32});
    QCOMPARE(heldAfter(w, "req2", 1), (Blocks{0, 1, 9}));
    Ledger ledger;
    Engine engine(w, ledger);
    engine.runToTick(1);
    QCOMPARE(engine.freeBlocks(), std::int64_t{7});
}

// Without enable_prefix_caching (vLLM's --no-enable-prefix-caching) the same preemption recomputes all 7 tokens;
// with it, the resume starts from the 2 blocks still cached. The receipt says which.
void TestEngineVllm::resumeHitsItsOwnBlocksOnlyWithCaching() {
    Workload w = scenario("v18-handles-preemption");
    for (bool caching : {false, true}) {
        w.config.enable_prefix_caching = caching;
        const RunResult run = runWorkload(w);
        const auto resumes = kinds(run, EventKind::Resume);
        QCOMPARE(resumes.size(), std::size_t{1});
        QCOMPARE(resumes[0]->cached_tokens, caching ? std::int64_t{4} : std::int64_t{0});
        QCOMPARE(resumes[0]->replay_tokens, caching ? std::int64_t{2} : std::int64_t{6});
        QCOMPARE(run.totals.cached_tokens, caching ? std::int64_t{4} : std::int64_t{0});
        const auto doc = nlohmann::json::parse(receiptText(w, run));
        QCOMPARE(doc["workload"]["config"].contains("enable_prefix_caching"), caching);
        QVERIFY(checkReceipt(doc).passed);
        bool said = false;
        for (const auto& l : doc["limitations"]) {
            said = said || l.get<std::string>().rfind(caching ? "enable_prefix_caching:" : "Prefix caching", 0) == 0;
        }
        QVERIFY(said);
    }
    // Under the other profiles the key is reported as unused.
    w.policy.engine_profile = EngineProfile::Sglang;
    const auto unused = unusedSettings(w);
    QVERIFY(std::find(unused.begin(), unused.end(), "enable_prefix_caching") != unused.end());
}

// Swap as a what-if under vllm-v1 (docs/engines.md), on v18 without caching, worked by hand: bs 2, 6 blocks, two
// 5-token prompts admitted at step 0 (3 blocks each) and sampling. Step 2: request 0's 7th token needs a 4th block,
// none is free, fcfs pops 1 (2 generated, 6 tokens resident) and copies its 3 blocks out (3,072 B over a
// 16,384 B/tick link): it goes to the head of the queue, and 0, whose block is on its way back, waits a step.
// Step 3: the copy lands, 0 takes a block; 1 needs 3 blocks, 2 are free: head-of-line. Step 4: 0 finishes (its
// blocks free after the waiting loop). Step 5: 1 swaps in; step 6 the copy lands and it computes its pending
// token; step 7 it finishes.
void TestEngineVllm::swapIsAWhatIfUnderTheProfile() {
    Workload w = scenario("v18-handles-preemption");
    w.config.enable_prefix_caching = false;
    w.policy.recovery = Recovery::Swap;
    QVERIFY(!validateWorkload(w).has_value());
    const RunResult run = runWorkload(w);
    const auto evicts = kinds(run, EventKind::Evict);
    QCOMPARE(evicts.size(), std::size_t{1});
    QCOMPARE(w.requests[static_cast<std::size_t>(evicts[0]->request)].id, std::string("1"));
    QCOMPARE(evicts[0]->tick, Tick{2});
    QVERIFY(evicts[0]->mode == Recovery::Swap);
    QCOMPARE(evicts[0]->swap_out_bytes, std::int64_t{3072});
    QCOMPARE(evicts[0]->generated_tokens, std::int64_t{2});
    QCOMPARE(evicts[0]->context_tokens, std::int64_t{6});
    QCOMPARE(evicts[0]->queue_position, std::int64_t{0});
    QCOMPARE(kinds(run, EventKind::SwapOutDone).at(0)->tick, Tick{3});
    const auto resumes = kinds(run, EventKind::Resume);
    QCOMPARE(resumes.size(), std::size_t{1});
    QCOMPARE(resumes[0]->tick, Tick{5});
    QVERIFY(resumes[0]->mode == Recovery::Swap);
    QCOMPARE(resumes[0]->swap_in_bytes, std::int64_t{3072});
    QCOMPARE(kinds(run, EventKind::SwapInDone).at(0)->tick, Tick{6});
    const auto done = kinds(run, EventKind::Complete);
    QCOMPARE(done.size(), std::size_t{2});
    QCOMPARE(done[0]->tick, Tick{4});
    QCOMPARE(done[1]->tick, Tick{7});
    QCOMPARE(run.totals.replay_tokens, std::int64_t{0});
    const auto doc = nlohmann::json::parse(receiptText(w, run));
    QVERIFY(checkReceipt(doc).passed);
    bool said = false;
    for (const auto& l : doc["limitations"]) said = said || l.get<std::string>().rfind("What-if: recovery swap", 0) == 0;
    QVERIFY(said);
    // The swap settings are used now; hybrid's and adaptive's are not. Under recompute they are unused again.
    auto unused = unusedSettings(w);
    const auto has = [&](const char* key) { return std::find(unused.begin(), unused.end(), key) != unused.end(); };
    QVERIFY(!has("kv_bytes_per_token") && !has("transfer_bytes_per_tick") && !has("host_capacity_bytes"));
    QVERIFY(has("hybrid_swap_percent") && has("adaptive_tie"));
    w.policy.recovery = Recovery::Recompute;
    unused = unusedSettings(w);
    QVERIFY(has("kv_bytes_per_token") && has("host_capacity_bytes"));
    // Preempt-ahead stays refused under a profile, with the reason.
    w.policy.preempt_ahead = true;
    const auto refused = validateWorkload(w);
    QVERIFY(refused.has_value());
    QVERIFY2(refused->message().find("preempt_ahead") != std::string::npos, refused->message().c_str());
}

// The oracle: a request's own blocks can be hit only after it computed them (on a resume, at most the full
// blocks of what it owed); a first admission hits only its declared prefix.
void TestEngineVllm::ownBlocksAreNeverHitBeforeTheyWereComputed() {
    const Workload w = scenario("v18-handles-preemption");
    const auto good = nlohmann::json::parse(receiptText(w, runWorkload(w)));
    QVERIFY(checkReceipt(good).passed);
    auto admit = good;
    for (auto& e : admit["events"]) {
        if (e["kind"] == "admit") {
            e["cached_tokens"] = 2; // one block of its own, before it computed any
            break;
        }
    }
    auto report = checkReceipt(admit);
    QVERIFY(!report.passed);
    QVERIFY2(report.violations.front().find("cached_tokens 2 is not a whole number of its 0 cachable blocks") !=
                 std::string::npos,
             report.violations.front().c_str());
    auto resume = good;
    for (auto& e : resume["events"]) {
        if (e["kind"] == "resume") {
            e["cached_tokens"] = 8; // 4 blocks: more than the 3 it owed (6 tokens)
            e["context_tokens"] = 8;
        }
    }
    report = checkReceipt(resume);
    QVERIFY(!report.passed);
    QVERIFY2(report.violations.front().find("cached_tokens 8 is not a whole number of its 3 cachable blocks") !=
                 std::string::npos,
             report.violations.front().c_str());
}

// The first finding: in tick-model-1 a decoding request crosses each block edge one step earlier than
// in vLLM. A 16-token prompt in 16-token blocks takes its second block when its first token is sampled under
// tick-model-1, and one step later (to write that token's KV) under vllm-v1.
void TestEngineVllm::sampledTokenIsResidentOneStepLater() {
    Workload w = scenario("v05-schedule");
    w.requests = {req("a", 0, 16, 4)};
    normaliseWorkload(w);
    for (auto profile : {EngineProfile::TickModel1, EngineProfile::VllmV1}) {
        w.policy.engine_profile = profile;
        Ledger ledger;
        Engine engine(w, ledger);
        engine.runToTick(0);
        QCOMPARE(engine.requests()[0].blocks, profile == EngineProfile::VllmV1 ? std::int64_t{1} : std::int64_t{2});
        engine.runToTick(1);
        QCOMPARE(engine.requests()[0].blocks, std::int64_t{2});
    }
}

// The oracle checks vLLM's victim independently of the engine: naming another victim fails.
void TestEngineVllm::oracleRefusesAWrongVllmVictim() {
    const Workload w = scenario("v18-handles-preemption");
    auto doc = nlohmann::json::parse(receiptText(w, runWorkload(w)));
    QVERIFY(checkReceipt(doc).passed);
    for (auto& e : doc["events"]) {
        if (e["kind"] == "evict") {
            for (auto& c : e["candidates"]) {
                if (c["id"] == "0") c["admit_seq"] = 99; // now 0 looks admitted last
            }
            break;
        }
    }
    const auto report = checkReceipt(doc);
    QVERIFY(!report.passed);
    bool said = false;
    for (const auto& v : report.violations) said = said || v.find("fcfs takes running.pop(), the last admitted, 0, not 1") != std::string::npos;
    QVERIFY2(said, report.violations.front().c_str());
}

// tick-model-1 is the default and its receipts keep their bytes: no engine_profile in the policy, no engine
// keys in the config (the sample pins check every byte of every sample).
void TestEngineVllm::tickModelReceiptsDoNotChange() {
    const Workload w = loadSample("seed-example");
    const auto doc = nlohmann::json::parse(receiptText(w, runWorkload(w)));
    QVERIFY(!doc["policy"].contains("engine_profile"));
    QVERIFY(!doc["workload"]["config"].contains("max_num_seqs"));
    QCOMPARE(doc["engine"]["tick_model"].get<std::string>(), std::string("tick-model-1"));
    const Workload v = scenario("v13-priority-preemption");
    const auto vdoc = nlohmann::json::parse(receiptText(v, runWorkload(v)));
    QCOMPARE(vdoc["policy"]["engine_profile"].get<std::string>(), std::string("vllm-v1"));
    QVERIFY(vdoc["policy"]["engine_follows"].get<std::string>().find("00024d31") != std::string::npos);
    QCOMPARE(vdoc["engine"]["tick_model"].get<std::string>(), std::string("vllm-v1"));
}

// Pure decode steps (every running request decoding, the budget covering them, nobody admissible, no block
// edge the free pool cannot cover, no arrival or completion) are advanced in one pass, as tick-model-1's
// quiescent ticks are: the same events, totals and receipt as ticking every step, with far fewer calls. Under
// both vLLM victim rules, with and without max_num_seqs, a watermark and a budget too small for the batch.
void TestEngineVllm::quietStepsAreSkippedAsIfTicked() {
    const Workload plain = decodeHeavyWorkload();
    // With enable_prefix_caching: every 4th request shares a 3-block prefix too (a queue head's hits can be
    // taken by the decodes of a stretch).
    Workload shared = plain;
    shared.config.enable_prefix_caching = true;
    for (std::size_t i = 0; i < shared.requests.size(); i += 4) {
        if (shared.requests[i].prompt_tokens >= 3 * shared.config.block_size_tokens) shared.requests[i].prefix_blocks = {7, 8, 9};
    }
    int skippedRuns = 0;
    for (const Workload* base : {&plain, static_cast<const Workload*>(&shared)}) {
    for (auto rule : {VictimRule::LastAdmitted, VictimRule::PriorityNewest}) {
        for (std::int64_t seqs : {0, 8}) {
            for (std::int64_t budget : {0, 6}) {
                for (std::int64_t watermark : {0, 5}) {
                    Workload w = *base;
                    w.policy.engine_profile = EngineProfile::VllmV1;
                    w.policy.recovery = Recovery::Recompute;
                    w.policy.victim_rule = rule;
                    w.policy.watermark_blocks = watermark;
                    w.config.max_num_seqs = seqs;
                    w.config.max_num_batched_tokens = budget;
                    const auto invalid = validateWorkload(w);
                    QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
                    const std::string what = std::string(w.config.enable_prefix_caching ? "caching " : "") +
                                             std::string(toString(rule)) + " seqs " + std::to_string(seqs) +
                                             " budget " + std::to_string(budget) + " watermark " +
                                             std::to_string(watermark);
                    std::int64_t calls = 0;
                    checkSkippedRunMatchesTicked(w, what, calls);
                    if (QTest::currentTestFailed()) return;
                    const RunResult run = runWorkload(w);
                    // The pool is tight enough to preempt (a 6-token budget admits too slowly to fill it).
                    QVERIFY2(budget != 0 || run.totals.evictions > 0, what.c_str());
                    // A budget of 6 tokens cannot decode the batch in one step: nothing is skipped there.
                    if (budget == 0) {
                        QVERIFY2(calls * 2 < run.totals.ticks, (what + ": " + std::to_string(calls) + " calls for " +
                                                                std::to_string(run.totals.ticks) + " ticks").c_str());
                        ++skippedRuns;
                    }
                }
            }
        }
    }
    }
    QCOMPARE(skippedRuns, 16);
}

QTEST_GUILESS_MAIN(TestEngineVllm)
#include "test_engine_vllm.moc"
