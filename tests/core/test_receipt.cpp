// Receipts: determinism, hash behaviour, verify, mutations the oracle must notice, and a property test over
// seeded random workloads under every recovery mode, victim rule and resume guard.
#include "tests/core/sanitizer_scale.h"
#include "tests/core/engine_fixtures.h"
#include "tests/test_rng.h"

#include "core/hashing.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/verify.h"
#include "core/workload_io.h"

#include <QtTest>

#include <algorithm>
#include <cstdint>

using namespace pl;
using namespace pltest;

class TestReceipt : public QObject {
    Q_OBJECT

  private slots:
    void deterministicAcrossRuns();
    void hashesFollowTheirParts();
    void eventHashCoversTheWrittenEvents();
    void verifyPassesUntouchedReceipt();
    void receiptWorkloadReadsItBack();
    void verifyNamesTheFirstDifference();
    void verifyNamesTheFieldBehindRecomputedHashes();
    void oracleNoticesErasedTokens();
    void oracleNoticesDroppedRestoreBytes();
    void oracleNoticesWrongFreedBlocks();
    void propertyRandomWorkloadsConserve();
    void writtenChecksAreTheOraclesOnTheSameText();
};

namespace {

const char* kSamples[] = {"seed-example", "burst-recompute-wave", "swap-wins", "recompute-wins",
                          "livelock-next-block", "starvation", "multi-tenant"};


Workload randomWorkload(std::uint64_t seed) {
    SplitMix rng{seed};
    Config c;
    c.block_size_tokens = rng.uniform(1, 16);
    c.capacity_blocks = rng.uniform(8, 64);
    c.kv_bytes_per_token = rng.uniform(1, 4096);
    c.prefill_tokens_per_tick = rng.uniform(1, 256);
    c.transfer_bytes_per_tick = rng.uniform(1, 1 << 18);
    c.host_capacity_bytes = rng.uniform(0, 1 << 22);
    c.max_ticks = rng.uniform(50, 3000);
    c.wait_threshold_ticks = rng.uniform(0, 100);
    c.preemption_threshold = rng.uniform(0, 5);
    std::vector<RequestSpec> reqs;
    const auto n = rng.uniform(1, 24);
    const std::int64_t maxTokens = c.capacity_blocks * c.block_size_tokens;
    for (std::int64_t i = 0; i < n; ++i) {
        const auto prompt = rng.uniform(1, std::max<std::int64_t>(1, maxTokens / 2));
        const auto output = rng.uniform(1, std::max<std::int64_t>(1, maxTokens - prompt));
        const auto maxOut = rng.uniform(output, std::max(output, maxTokens - prompt));
        // Built with += : GCC 12 warns falsely (-Wrestrict) on "literal" + std::string here.
        std::string id = "r";
        id += std::to_string(i);
        std::string tenant = "t";
        tenant += std::to_string(rng.uniform(0, 2));
        reqs.push_back(req(id, rng.uniform(0, 60), prompt, output, rng.uniform(0, 3), tenant, maxOut));
    }
    Policy p;
    p.watermark_blocks = rng.uniform(0, 2);
    p.preempt_ahead = rng.uniform(0, 1) == 1;
    p.hybrid_swap_percent = rng.uniform(0, 100);
    p.adaptive_tie = rng.uniform(0, 1) == 1 ? AdaptiveTie::Swap : AdaptiveTie::Recompute;
    return workload(c, p, reqs);
}

nlohmann::json receiptJson(const Workload& w) { return nlohmann::json::parse(receiptText(w, runWorkload(w))); }

} // namespace

void TestReceipt::deterministicAcrossRuns() {
    for (const char* name : kSamples) {
        for (auto mode : {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid}) {
            // Two independent loads and runs must give byte-identical receipts.
            auto w1 = loadSample(name);
            auto w2 = loadSample(name);
            w1.policy.recovery = mode;
            w2.policy.recovery = mode;
            const std::string a = receiptText(w1, runWorkload(w1));
            const std::string b = receiptText(w2, runWorkload(w2));
            QVERIFY2(a == b, name);
            QVERIFY(a.size() > 500);
        }
    }
}

void TestReceipt::hashesFollowTheirParts() {
    auto w = loadSample("seed-example");
    const auto base = receiptHashes(w, runWorkload(w));
    // Another policy: same input hash, other policy hash, other events.
    auto swap = w;
    swap.policy.recovery = Recovery::Swap;
    const auto hs = receiptHashes(swap, runWorkload(swap));
    QCOMPARE(hs.input_hash, base.input_hash);
    QVERIFY(hs.policy_hash != base.policy_hash);
    QVERIFY(hs.event_hash != base.event_hash);
    // Notes are not part of the input; the machine is.
    auto notes = w;
    notes.notes = "different notes";
    QCOMPARE(receiptHashes(notes, runWorkload(notes)).input_hash, base.input_hash);
    auto bigger = w;
    bigger.config.capacity_blocks = 17;
    QVERIFY(receiptHashes(bigger, runWorkload(bigger)).input_hash != base.input_hash);
    // The hashes in the text are the ones receiptHashes reports.
    const auto doc = receiptJson(w);
    QCOMPARE(doc["input_hash"].get<std::string>(), base.input_hash);
    QCOMPARE(doc["policy_hash"].get<std::string>(), base.policy_hash);
    QCOMPARE(doc["event_hash"].get<std::string>(), base.event_hash);
    QCOMPARE(doc["input_hash"].get<std::string>(), sha256Tagged(canonicalJson(doc["workload"])));
    QCOMPARE(doc["policy_hash"].get<std::string>(), sha256Tagged(canonicalJson(doc["policy"])));
}

void TestReceipt::eventHashCoversTheWrittenEvents() {
    for (const char* name : kSamples) {
        const auto doc = receiptJson(loadSample(name));
        QCOMPARE(doc["event_hash"].get<std::string>(), sha256Tagged(canonicalJson(doc["events"])));
    }
}

void TestReceipt::verifyPassesUntouchedReceipt() {
    for (const char* name : kSamples) {
        const auto w = loadSample(name);
        const auto result = verifyReceiptText(receiptText(w, runWorkload(w)), name);
        QVERIFY(std::holds_alternative<VerifyOutcome>(result));
        const auto& v = std::get<VerifyOutcome>(result);
        QVERIFY2(v.identical, v.first_difference.c_str());
        QVERIFY2(v.conservation_passed, v.first_violation.c_str());
    }
}

// The index of a receipt's first evict event.
static std::size_t firstEvict(const nlohmann::json& receipt) {
    std::size_t evict = 0;
    while (receipt["events"][evict]["kind"] != "evict") {
        ++evict;
    }
    return evict;
}

void TestReceipt::verifyNamesTheFirstDifference() {
    auto doc = receiptJson(loadSample("seed-example"));
    const std::size_t evict = firstEvict(doc);
    doc["events"][evict]["replay_tokens"] = 31;
    const auto v = std::get<VerifyOutcome>(verifyReceipt(doc, "edited.json"));
    QVERIFY(!v.identical);
    QVERIFY2(v.first_difference.find("/events/" + std::to_string(evict) + "/replay_tokens") == 0,
             v.first_difference.c_str());
    // A receipt whose embedded workload is broken is bad input that names the path.
    auto broken = receiptJson(loadSample("seed-example"));
    broken["workload"]["requests"][1]["prompt_tokens"] = -4;
    const auto bad = verifyReceipt(broken, "broken.json");
    QVERIFY(std::holds_alternative<InputError>(bad));
    QCOMPARE(std::get<InputError>(bad).path, std::string("/workload/requests/1/prompt_tokens"));
    QVERIFY(std::holds_alternative<InputError>(verifyReceiptText("{ not json", "x.json")));
}

// Issue 21: an event or the policy changed and its hash recomputed was named as "/event_hash" (it sorts before
// "events"); "seq": -0 read "expected 0, found 0".
void TestReceipt::verifyNamesTheFieldBehindRecomputedHashes() {
    auto doc = receiptJson(loadSample("seed-example"));
    const std::size_t evict = firstEvict(doc);
    doc["events"][evict]["replay_tokens"] = 31;
    doc["event_hash"] = sha256Tagged(canonicalJson(doc["events"]));
    auto v = std::get<VerifyOutcome>(verifyReceipt(doc, "edited.json"));
    QVERIFY(!v.identical);
    QVERIFY2(v.first_difference.find("/events/" + std::to_string(evict) + "/replay_tokens: expected ") == 0,
             v.first_difference.c_str());
    // A policy changed with its hash recomputed: the events no longer follow from it; the first that differs is
    // named, not a hash.
    auto policy = receiptJson(loadSample("seed-example"));
    policy["policy"]["recovery"] = "swap";
    policy["policy_hash"] = sha256Tagged(canonicalJson(policy["policy"]));
    v = std::get<VerifyOutcome>(verifyReceipt(policy, "policy.json"));
    QVERIFY(!v.identical);
    QVERIFY2(v.first_difference.find("_hash") == std::string::npos, v.first_difference.c_str());
    QVERIFY2(v.first_difference.find("/events/") == 0 || v.first_difference.find("/checks") == 0 ||
                 v.first_difference.find("/totals") == 0,
             v.first_difference.c_str());
    auto negativeZero = receiptJson(loadSample("seed-example"));
    negativeZero["events"][0]["seq"] = nlohmann::json(std::int64_t{0}); // how the parser reads "seq": -0
    negativeZero["event_hash"] = sha256Tagged(canonicalJson(negativeZero["events"]));
    v = std::get<VerifyOutcome>(verifyReceipt(negativeZero, "zero.json"));
    QVERIFY(!v.identical);
    QCOMPARE(v.first_difference, std::string("/events/0/seq: expected 0, found -0 (a negative zero; the writer writes 0)"));
}

void TestReceipt::oracleNoticesErasedTokens() {
    auto doc = receiptJson(loadSample("seed-example"));
    QVERIFY(checkReceipt(doc).passed);
    for (auto& e : doc["events"]) {
        if (e["kind"] == "evict") {
            e["generated_tokens"] = 0; // the victim's output "disappears" at eviction
            break;
        }
    }
    const auto report = checkReceipt(doc);
    QVERIFY(!report.passed);
    QVERIFY(!report.violations.empty());
}

void TestReceipt::oracleNoticesDroppedRestoreBytes() {
    auto w = loadSample("seed-example");
    w.policy.recovery = Recovery::Swap;
    auto doc = receiptJson(w);
    QVERIFY(checkReceipt(doc).passed);
    for (auto& e : doc["events"]) {
        if (e["kind"] == "swap_in_done") {
            e["swap_in_bytes"] = 0;
            break;
        }
    }
    QVERIFY(!checkReceipt(doc).passed);
}

void TestReceipt::oracleNoticesWrongFreedBlocks() {
    auto doc = receiptJson(loadSample("burst-recompute-wave"));
    QVERIFY(checkReceipt(doc).passed);
    for (auto& e : doc["events"]) {
        if (e["kind"] == "evict") {
            e["freed_blocks"] = e["freed_blocks"].get<std::int64_t>() + 1;
            break;
        }
    }
    QVERIFY(!checkReceipt(doc).passed);
}

void TestReceipt::propertyRandomWorkloadsConserve() {
    const Recovery modes[] = {Recovery::Recompute, Recovery::Swap, Recovery::Adaptive, Recovery::Hybrid};
    const VictimRule rules[] = {VictimRule::PriorityNewest, VictimRule::LastAdmitted,   VictimRule::LongestContext,
                                VictimRule::ShortestContext, VictimRule::FewestDecoded, VictimRule::MostRemaining,
                                VictimRule::TenantFair};
    int runs = 0;
    std::int64_t evictions = 0;
    const auto seeds = std::min<std::uint64_t>(40, static_cast<std::uint64_t>(40 / pltest::sanitizerScale() + 1));
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        auto w = randomWorkload(seed);
        const auto invalid = validateWorkload(w);
        QVERIFY2(!invalid.has_value(), invalid ? invalid->message().c_str() : "");
        for (auto mode : modes) {
            for (auto rule : rules) {
                for (auto guard : {ResumeGuard::FullReservation, ResumeGuard::NextBlock}) {
                    w.policy.recovery = mode;
                    w.policy.victim_rule = rule;
                    w.policy.resume_guard = guard;
                    const auto run = runWorkload(w);
                    ++runs;
                    evictions += run.totals.evictions;
                    // Direct invariants, independent of the oracle.
                    QCOMPARE(run.totals.completed + run.totals.censored, std::int64_t(w.requests.size()));
                    for (const auto& rec : run.records) {
                        const auto& spec = w.requests[static_cast<std::size_t>(rec.request)];
                        QVERIFY(rec.generated_tokens <= spec.output_tokens);
                        QCOMPARE(rec.completed, rec.generated_tokens == spec.output_tokens);
                    }
                    QCOMPARE(run.totals.swap_out_bytes >= run.totals.swap_in_bytes, true);
                    // The quiescent-tick fast path (runWorkload) must match ticking one by one (series on).
                    const RunResult ticked = pltest::tickByTickRun(w, EngineOptions{true, false});
                    QCOMPARE(ticked.totals, run.totals);
                    QCOMPARE(receiptHashes(w, ticked).event_hash, receiptHashes(w, run).event_hash);
                    const auto report = checkReceipt(nlohmann::json::parse(receiptText(w, run)));
                    if (!report.passed) {
                        QFAIL(("seed " + std::to_string(seed) + " " + std::string(toString(mode)) + "/" +
                               std::string(toString(rule)) + "/" + std::string(toString(guard)) + ": " +
                               report.violations.front())
                                  .c_str());
                    }
                }
            }
        }
    }
    QCOMPARE(runs, static_cast<int>(seeds) * 4 * 7 * 2); // 40 seeds, fewer under sanitizers
    QVERIFY(evictions > 1000); // the workloads do exercise preemption
}

// receiptText checks its draft with the oracle fed while the draft is parsed (OracleStream): what it writes in
// checks.conservation is checkReceipt's on the whole written text, for passing runs and for runs whose
// totals and records were tampered with before the receipt was made; the facts it hands back say the same.
void TestReceipt::writtenChecksAreTheOraclesOnTheSameText() {
    for (const char* name : kSamples) {
        for (int tamper = 0; tamper < 2; ++tamper) {
            auto w = loadSample(name);
            w.policy.recovery = Recovery::Hybrid;
            RunResult run = runWorkload(w);
            if (tamper == 1) {
                run.totals.evictions += 1;
                run.totals.freed_blocks += 3;
                QVERIFY(!run.records.empty());
                run.records.front().preemptions += 1;
            }
            ReceiptFacts facts;
            facts.conservation_passed = tamper == 1; // the opposite of what it must become
            const nlohmann::json receipt = nlohmann::json::parse(receiptText(w, run, nullptr, &facts));
            const OracleReport whole = checkReceipt(receipt);
            QCOMPARE(whole.passed, tamper == 0);
            QCOMPARE(receipt["checks"]["conservation"]["passed"].get<bool>(), whole.passed);
            // What receiptText hands its caller (run and compare read no text back) is what it wrote.
            QCOMPARE(facts.conservation_passed, whole.passed);
            const ReceiptHashes hashes = receiptHashes(w, run);
            QCOMPARE(facts.hashes.input_hash, hashes.input_hash);
            QCOMPARE(facts.hashes.policy_hash, hashes.policy_hash);
            QCOMPARE(facts.hashes.event_hash, hashes.event_hash);
            QCOMPARE(receipt["event_hash"].get<std::string>(), hashes.event_hash);
            QCOMPARE(receipt["checks"]["conservation"]["violations"], nlohmann::json(whole.violations));
        }
    }
    OracleStream unstarted; // fed nothing, not even a workload: it does not pass
    const OracleReport nothing = unstarted.end(nlohmann::json::object());
    QVERIFY(!nothing.passed);
    QCOMPARE(nothing.violations.front(), std::string("the receipt has no 'workload' or 'policy' object"));
}

// pl::receiptWorkload: what the lab opens read-only. A receipt's workload and policy come back as the
// workload that made it (v2 written now, a v1 one from before compact candidates), and bad input names the
// file and the field.
void TestReceipt::receiptWorkloadReadsItBack() {
    const Workload w = pltest::loadSampleFile(PREEMPTLAB_SOURCE_DIR "/samples/livelock-next-block.workload.json");
    const std::string text = receiptText(w, runWorkload(w));
    auto back = receiptWorkload(text, "x.receipt.json");
    QVERIFY(std::holds_alternative<Workload>(back));
    Workload withoutNotes = w; // a receipt keeps no notes
    withoutNotes.notes.clear();
    QVERIFY(std::get<Workload>(back) == withoutNotes);
    for (const char* v1 : {"v1-burst-recompute-wave.receipt.json", "v1-multi-tenant-tenant-fair.receipt.json"}) {
        const std::string path = PREEMPTLAB_SOURCE_DIR "/tests/core/data/" + std::string(v1);
        auto file = readTextFile(path, Caps{}.max_file_bytes, "receipt");
        QVERIFY(std::holds_alternative<std::string>(file));
        auto read = receiptWorkload(std::get<std::string>(file), path);
        const auto* e = std::get_if<InputError>(&read); // QVERIFY2 builds its message whether or not it fails
        QVERIFY2(e == nullptr, e ? e->message().c_str() : "");
        QVERIFY(!std::get<Workload>(read).requests.empty());
    }
    const struct {
        std::string text;
        std::string path;
    } bad[] = {{"", ""},
               {"{\"format\": \"preemptlab.workload.v1\"}", "/format"},
               {"{\"format\": \"preemptlab.receipt.v2\", \"policy\": {}}", "/workload"},
               {"[1, 2", ""}};
    for (const auto& b : bad) {
        auto read = receiptWorkload(b.text, "bad.receipt.json");
        QVERIFY2(std::holds_alternative<InputError>(read), b.text.c_str());
        const InputError& e = std::get<InputError>(read);
        QCOMPARE(e.file, std::string("bad.receipt.json"));
        if (!b.path.empty()) QCOMPARE(e.path, b.path);
    }
    // A receipt whose embedded workload breaks a rule names the field under /workload.
    nlohmann::json doc = nlohmann::json::parse(text);
    doc["workload"]["config"]["capacity_blocks"] = 1;
    auto broken = receiptWorkload(doc.dump(), "edited.receipt.json");
    QVERIFY(std::holds_alternative<InputError>(broken));
    QVERIFY2(std::get<InputError>(broken).path.rfind("/workload", 0) == 0, std::get<InputError>(broken).message().c_str());
}

QTEST_GUILESS_MAIN(TestReceipt)
#include "test_receipt.moc"
