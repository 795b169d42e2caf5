// The conservation oracle on hand-written receipts: two valid runs pass; each mutation (lost tokens, dropped
// restore bytes, wrong freed blocks, over-capacity occupancy, a missing completion, ...) is caught with a
// sentence naming the event or request. Malformed receipts give violations, never a crash.
#include "core/oracle.h"
#include "tests/core/oracle_fixtures.h"

#include <QtTest>

#include <optional>

#include <functional>

using nlohmann::json;

namespace {

// Hybrid run: r2 is evicted (1 block swapped, 18 tokens dropped), swapped back, replays and completes.
json hybridReceipt() {
    return json::parse(R"({
  "format": "preemptlab.receipt.v1",
  "workload": { "format": "preemptlab.workload.v1", "name": "hybrid",
    "config": { "block_size_tokens": 8, "capacity_blocks": 16, "kv_bytes_per_token": 512,
                "prefill_tokens_per_tick": 64, "transfer_bytes_per_tick": 16384, "host_capacity_bytes": 1048576,
                "max_ticks": 20000, "wait_threshold_ticks": 50, "preemption_threshold": 3 },
    "requests": [
      { "id": "r1", "arrival_tick": 0, "prompt_tokens": 16, "output_tokens": 4, "max_output_tokens": 4,
        "priority": 0, "tenant": "default" },
      { "id": "r2", "arrival_tick": 0, "prompt_tokens": 24, "output_tokens": 10, "max_output_tokens": 10,
        "priority": 0, "tenant": "default" } ] },
  "policy": { "recovery": "hybrid", "victim_rule": "priority-newest", "adaptive_tie": "recompute",
              "resume_guard": "full-reservation", "watermark_blocks": 0, "preempt_ahead": false,
              "hybrid_swap_percent": 50 },
  "events": [
    {"seq":0,"tick":0,"kind":"arrive","request":"r1"},
    {"seq":1,"tick":0,"kind":"arrive","request":"r2"},
    {"seq":2,"tick":0,"kind":"admit","request":"r1","occupied_blocks":3,"capacity_blocks":16},
    {"seq":3,"tick":0,"kind":"first_token","request":"r1","generated_tokens":1,"context_tokens":17},
    {"seq":4,"tick":0,"kind":"admit","request":"r2","occupied_blocks":7,"capacity_blocks":16},
    {"seq":5,"tick":0,"kind":"first_token","request":"r2","generated_tokens":1,"context_tokens":25},
    {"seq":6,"tick":1,"kind":"pressure","request":"r2","trigger":"allocation-failed","need_blocks":1,
     "free_blocks":0,"occupied_blocks":16,"capacity_blocks":16},
    {"seq":7,"tick":1,"kind":"evict","request":"r2","mode":"hybrid","capacity_blocks":16,"occupied_blocks":16,
     "prompt_tokens":24,"generated_tokens":2,"context_tokens":26,"freed_blocks":4,"replay_tokens":18,
     "swap_out_bytes":4096,"swap_blocks":1,"estimates":{"recompute_ticks":1,"swap_ticks":2},
     "candidates":[{"id":"r1","priority":0,"arrival_tick":0,"admit_seq":0,"tenant":"default","prompt_tokens":16,
                    "generated_tokens":2,"context_tokens":18,"max_output_tokens":4,"blocks":3},
                   {"id":"r2","priority":0,"arrival_tick":0,"admit_seq":1,"tenant":"default","prompt_tokens":24,
                    "generated_tokens":2,"context_tokens":26,"max_output_tokens":10,"blocks":4}],
     "queue_position":0,"host_bytes":4096},
    {"seq":8,"tick":2,"kind":"swap_out_done","request":"r2","mode":"hybrid","swap_out_bytes":4096,
     "freed_blocks":1,"occupied_blocks":12,"host_bytes":4096},
    {"seq":9,"tick":3,"kind":"complete","request":"r1","generated_tokens":4,"freed_blocks":3,"occupied_blocks":9},
    {"seq":10,"tick":4,"kind":"resume","request":"r2","mode":"hybrid","swap_in_bytes":4096,"replay_tokens":18,
     "generated_tokens":2,"context_tokens":8,"occupied_blocks":2,"capacity_blocks":16},
    {"seq":11,"tick":5,"kind":"swap_in_done","request":"r2","mode":"hybrid","swap_in_bytes":4096,"host_bytes":0},
    {"seq":12,"tick":6,"kind":"replay_done","request":"r2","mode":"hybrid","replay_tokens":18},
    {"seq":13,"tick":14,"kind":"complete","request":"r2","generated_tokens":10,"freed_blocks":5,"occupied_blocks":0}
  ],
  "requests": [
    {"id":"r1","status":"completed","generated_tokens":4,"first_token_tick":0,"completion_tick":3,
     "preemptions":0,"queue_ticks":0,"flags":[]},
    {"id":"r2","status":"completed","generated_tokens":10,"first_token_tick":0,"completion_tick":14,
     "preemptions":1,"queue_ticks":3,"flags":[]}
  ],
  "totals": {"ticks":15,"request_ticks":30,"pressure_events":1,"evictions":1,"freed_blocks":4,"replay_tokens":18,
             "swap_out_bytes":4096,"swap_in_bytes":4096,"peak_host_bytes":4096,"completed":2,"censored":0,
             "queue_reentries":1}
})");
}

// Recompute run cut off at max_ticks: one eviction, a full replay, then censored with both flags.
json censoredReceipt() {
    return json::parse(R"({
  "workload": { "format": "preemptlab.workload.v1", "name": "censored",
    "config": { "block_size_tokens": 8, "capacity_blocks": 16, "kv_bytes_per_token": 512,
                "prefill_tokens_per_tick": 64, "transfer_bytes_per_tick": 16384, "host_capacity_bytes": 0,
                "max_ticks": 10, "wait_threshold_ticks": 0, "preemption_threshold": 0 },
    "requests": [ { "id": "solo", "arrival_tick": 0, "prompt_tokens": 8, "output_tokens": 100,
                    "max_output_tokens": 100, "priority": 0, "tenant": "default" } ] },
  "policy": { "recovery": "recompute" },
  "events": [
    {"seq":0,"tick":0,"kind":"arrive","request":"solo"},
    {"seq":1,"tick":0,"kind":"admit","request":"solo","occupied_blocks":2,"capacity_blocks":16},
    {"seq":2,"tick":0,"kind":"first_token","request":"solo","generated_tokens":1,"context_tokens":9},
    {"seq":3,"tick":3,"kind":"pressure","trigger":"preempt-ahead","need_blocks":1,"free_blocks":14,
     "occupied_blocks":2,"capacity_blocks":16},
    {"seq":4,"tick":3,"kind":"evict","request":"solo","mode":"recompute","capacity_blocks":16,"occupied_blocks":2,
     "prompt_tokens":8,"generated_tokens":4,"context_tokens":12,"freed_blocks":2,"replay_tokens":12,
     "swap_out_bytes":0,"swap_blocks":0,"estimates":{"recompute_ticks":1,"swap_ticks":1},
     "candidates":[{"id":"solo","priority":0,"arrival_tick":0,"admit_seq":0,"tenant":"default","prompt_tokens":8,
                    "generated_tokens":4,"context_tokens":12,"max_output_tokens":100,"blocks":2}],
     "queue_position":0,"host_bytes":0},
    {"seq":5,"tick":5,"kind":"resume","request":"solo","mode":"recompute","swap_in_bytes":0,"replay_tokens":12,
     "generated_tokens":4,"context_tokens":0,"occupied_blocks":2,"capacity_blocks":16},
    {"seq":6,"tick":5,"kind":"replay_done","request":"solo","mode":"recompute","replay_tokens":12},
    {"seq":7,"tick":10,"kind":"censor","request":"solo","generated_tokens":8,"freed_blocks":2}
  ],
  "requests": [
    {"id":"solo","status":"censored","generated_tokens":8,"first_token_tick":0,"completion_tick":null,
     "preemptions":1,"queue_ticks":2,"flags":["excessive_wait","repeated_preemption"]}
  ],
  "totals": {"ticks":10,"request_ticks":8,"pressure_events":1,"evictions":1,"freed_blocks":2,"replay_tokens":12,
             "swap_out_bytes":0,"swap_in_bytes":0,"peak_host_bytes":0,"completed":0,"censored":1,"queue_reentries":1}
})");
}

json& eventAt(json& r, int seq) { return r["events"][static_cast<std::size_t>(seq)]; }

void eraseEvent(json& r, int seq) {
    r["events"].erase(static_cast<std::size_t>(seq));
    for (std::size_t i = 0; i < r["events"].size(); ++i) {
        r["events"][i]["seq"] = i;
    }
}

// The oracle fed piece by piece (OracleStream, as receiptText feeds it while parsing its draft): its report must
// be checkReceipt's on the whole document. Null where the stream does not apply (no events array).
std::optional<pl::OracleReport> streamed(const json& r) {
    const auto events = r.find("events");
    if (!r.is_object() || events == r.end() || !events->is_array()) {
        return std::nullopt;
    }
    pl::OracleStream oracle;
    const auto w = r.find("workload");
    const auto p = r.find("policy");
    if (w == r.end() || !w->is_object() || p == r.end() || !p->is_object()) {
        return std::nullopt; // begin() takes a read workload; the message for a missing one is checkReceipt's
    }
    json doc = *w;
    doc["policy"] = *p;
    oracle.begin(pl::workloadFromJson(doc, "receipt"));
    for (const json& e : *events) oracle.event(e);
    json rest = r;
    rest["events"] = json::array();
    if (const auto records = r.find("requests"); records != r.end() && records->is_array()) {
        for (const json& record : *records) oracle.record(record);
        rest["requests"] = json::array();
    }
    return oracle.end(rest);
}

} // namespace

using pltest::joined;
using pltest::Mutation;


class TestOracle : public QObject {
    Q_OBJECT
  private slots:
    void validReceiptsPass();
    void mutationsAreCaught_data();
    void mutationsAreCaught();
    void malformedReceiptsDoNotCrash_data();
    void malformedReceiptsDoNotCrash();
    void violationListIsBounded();
    void mutationsReadFromLines_data() { mutationsAreCaught_data(); }
    void mutationsReadFromLines();
};

void TestOracle::validReceiptsPass() {
    for (const json& r : {hybridReceipt(), censoredReceipt()}) {
        const pl::OracleReport report = pl::checkReceipt(r);
        QVERIFY2(report.passed, qPrintable(joined(report)));
        QVERIFY(report.violations.empty());
        QCOMPARE(joined(*streamed(r)), joined(report));
    }
}

void TestOracle::mutationsAreCaught_data() {
    QTest::addColumn<bool>("censoredBase");
    QTest::addColumn<Mutation>("mutate");
    QTest::addColumn<QString>("expected"); // a fragment of one violation
    auto row = [](const char* name, const Mutation& m, const char* expected, bool censored = false) {
        QTest::newRow(name) << censored << m << QString(expected);
    };
    row("generated tokens erased", [](json& r) { eventAt(r, 10)["generated_tokens"] = 1; },
        "event seq 10 (resume of r2, tick 4): generated_tokens fell from 2 to 1");
    row("record loses tokens", [](json& r) { r["requests"][1]["generated_tokens"] = 9; },
        "record of r2: generated_tokens 9 differs from the last seen in its events (10)");
    row("restore bytes dropped at swap-in", [](json& r) { eventAt(r, 11)["swap_in_bytes"] = 0; },
        "swap_in_done restored 0 bytes but 4096 were to be copied back");
    row("restore bytes dropped at resume", [](json& r) { eventAt(r, 10)["swap_in_bytes"] = 2048; },
        "swap_in_bytes 2048 differs from the 4096 bytes swapped out at seq 7");
    row("swap-in total", [](json& r) { r["totals"]["swap_in_bytes"] = 0; },
        "totals.swap_in_bytes is 0 but the events add up to 4096");
    row("wrong freed blocks", [](json& r) { eventAt(r, 7)["freed_blocks"] = 3; },
        "event seq 7 (evict of r2, tick 1): freed_blocks is 3 but ceil(context_tokens 26 / block_size_tokens 8) = 4");
    row("freed total", [](json& r) { r["totals"]["freed_blocks"] = 5; }, "totals.freed_blocks is 5 but the events add up to 4");
    row("occupancy over capacity", [](json& r) { eventAt(r, 4)["occupied_blocks"] = 17; },
        "event seq 4 (admit of r2, tick 0): occupied_blocks 17 is outside 0..capacity_blocks 16");
    row("wrong capacity", [](json& r) { eventAt(r, 2)["capacity_blocks"] = 32; },
        "capacity_blocks is 32 but the workload's is 16");
    row("missing completion", [](json& r) { eraseEvent(r, 13); }, "request r2: never completed or censored");
    row("missing completion status", [](json& r) { eraseEvent(r, 13); },
        "record of r2: status 'completed' but its events never end it");
    row("completion count", [](json& r) { eraseEvent(r, 13); }, "totals.completed is 2 but the events add up to 1");
    row("completed short", [](json& r) { eventAt(r, 9)["generated_tokens"] = 3; },
        "completed with 3 generated tokens, not output_tokens 4");
    row("ended twice", [](json& r) {
        r["events"].push_back({{"seq", 14}, {"tick", 14}, {"kind", "censor"}, {"request", "r1"}, {"generated_tokens", 4},
                               {"freed_blocks", 0}});
    }, "event seq 14 (censor of r1, tick 14): r1 already ended with 'complete' at seq 9");
    row("swap-out never landed", [](json& r) { eraseEvent(r, 8); },
        "event seq 9 (resume of r2, tick 4): resumed before its swap-out (evict at seq 7) landed");
    row("swap-out bytes differ", [](json& r) { eventAt(r, 8)["swap_out_bytes"] = 4000; },
        "swap_out_done moved 4000 bytes but the evict at seq 7 swapped out 4096");
    row("swap-out blocks differ", [](json& r) { eventAt(r, 8)["freed_blocks"] = 4; },
        "swap_out_done returned 4 blocks but the evict at seq 7 swapped 1");
    row("replay short", [](json& r) { eventAt(r, 12)["replay_tokens"] = 17; },
        "replay_done replayed 17 tokens but its resume had 18 to replay (18 dropped at seq 7)");
    row("replay at resume", [](json& r) { eventAt(r, 10)["replay_tokens"] = 10; },
        "replay_tokens 10 but 18 tokens were dropped at seq 7");
    row("replay total", [](json& r) { r["totals"]["replay_tokens"] = 26; }, "totals.replay_tokens is 26");
    row("hybrid arithmetic", [](json& r) { eventAt(r, 7)["swap_out_bytes"] = 4095; },
        "hybrid with swap_blocks 1 must swap 8 tokens");
    row("swap arithmetic", [](json& r) {
        eventAt(r, 7)["mode"] = "swap";
        eventAt(r, 7)["fallback"] = "test";
    }, "swap must move context_tokens x kv_bytes_per_token = 13312 bytes");
    row("recompute arithmetic", [](json& r) { eventAt(r, 4)["replay_tokens"] = 11; },
        "recompute must replay all context_tokens (12)", true);
    row("mode without fallback", [](json& r) { r["policy"]["recovery"] = "swap"; },
        "mode hybrid differs from the policy's swap but no fallback says why");
    row("adaptive choice", [](json& r) { r["policy"]["recovery"] = "adaptive"; },
        "mode hybrid differs from the policy's recompute");
    row("estimates", [](json& r) { eventAt(r, 7)["estimates"]["swap_ticks"] = 1; },
        "estimates are recompute 1, swap 1 ticks but the declared rates give 1 and 2");
    row("victim not a candidate", [](json& r) { eventAt(r, 7)["candidates"].erase(1); },
        "the victim r2 is not among the 1 candidates");
    // The victim rule, checked from the candidates alone (tick-model-1): shortest-context takes r1 (18 < 26).
    row("victim not the rule's", [](json& r) { r["policy"]["victim_rule"] = "shortest-context"; },
        "event seq 7 (evict of r2, tick 1): victim_rule shortest-context takes the greatest key, r1, not r2");
    row("victim not the rule's (last-admitted)", [](json& r) {
        r["policy"]["victim_rule"] = "last-admitted";
        eventAt(r, 7)["candidates"][0]["admit_seq"] = 2;
    }, "victim_rule last-admitted takes the greatest key, r1, not r2");
    row("tenant-fair key of a shortened list", [](json& r) {
        r["policy"]["victim_rule"] = "tenant-fair";
        auto& e = eventAt(r, 7);
        e["candidates_omitted"] = 1;
        e["candidates"][0]["tenant_blocks"] = 3;
        e["candidates"][1]["tenant_blocks"] = 2; // below the 4 blocks r2 alone holds
    }, "candidate r2 gives tenant_blocks 2 but the listed candidates of tenant default alone hold 7");
    row("tenant-fair list without tenant_blocks", [](json& r) {
        r["policy"]["victim_rule"] = "tenant-fair";
        eventAt(r, 7)["candidates_omitted"] = 1;
    }, "a shortened tenant-fair list must give each candidate's tenant_blocks");
    // A shortened list (v2): kListedCandidates listed, and no more candidates than were running.
    row("candidates left out that never ran", [](json& r) { eventAt(r, 7)["candidates_omitted"] = 5; },
        "7 candidates (2 listed, 5 left out) but only 2 requests were running");
    row("a short list says it left some out", [](json& r) { eventAt(r, 7)["candidates_omitted"] = 5; },
        "lists 2 candidates and leaves 5 out; a shortened list has 8");
    row("candidates_omitted zero", [](json& r) { eventAt(r, 7)["candidates_omitted"] = 0; },
        "candidates_omitted is 0 (absent when every candidate is listed)");
    row("candidate not in the workload", [](json& r) { eventAt(r, 7)["candidates"][0]["id"] = "r9"; },
        "candidate r9 is not a workload request");
    row("candidate listed twice", [](json& r) { eventAt(r, 7)["candidates"][0] = eventAt(r, 7)["candidates"][1]; },
        "candidate r2 is listed twice");
    row("candidate figures", [](json& r) { eventAt(r, 7)["candidates"][0]["prompt_tokens"] = 17; },
        "candidate r1's priority, arrival_tick, prompt_tokens, max_output_tokens or tenant differ");
    row("candidate not running", [](json& r) {
        json done = eventAt(r, 9); // r1's complete, moved before the evict that lists it
        eraseEvent(r, 9);
        done["tick"] = 1;
        r["events"].insert(r["events"].begin() + 6, done);
        for (std::size_t i = 0; i < r["events"].size(); ++i) {
            r["events"][i]["seq"] = i;
        }
    }, "event seq 8 (evict of r2, tick 1): candidate r1 was not running");
    row("host over capacity", [](json& r) { eventAt(r, 8)["host_bytes"] = 2000000; },
        "host_bytes 2000000 is outside 0..host_capacity_bytes 1048576");
    row("peak host", [](json& r) { r["totals"]["peak_host_bytes"] = 100; }, "totals.peak_host_bytes 100 is below");
    row("evictions total", [](json& r) { r["totals"]["evictions"] = 2; }, "totals.evictions is 2 but the events add up to 1");
    row("reentries total", [](json& r) { r["totals"]["queue_reentries"] = 0; }, "totals.queue_reentries is 0");
    row("pressure total", [](json& r) { r["totals"]["pressure_events"] = 0; }, "totals.pressure_events is 0");
    row("preemptions", [](json& r) { r["requests"][1]["preemptions"] = 0; },
        "record of r2: preemptions 0 but it was evicted 1 times");
    row("status mismatch", [](json& r) { r["requests"][0]["status"] = "censored"; },
        "record of r1: status 'censored' but its events end with 'complete'");
    row("record missing", [](json& r) { r["requests"].erase(0); }, "request r1: no record in 'requests'");
    row("record twice", [](json& r) { r["requests"].push_back(r["requests"][0]); }, "record of r1: listed twice");
    row("record unknown", [](json& r) { r["requests"][0]["id"] = "r9"; }, "record of r9: no request with this id");
    row("flag set wrongly", [](json& r) { r["requests"][1]["flags"] = {"excessive_wait"}; },
        "record of r2: excessive_wait is set but queue_ticks 3 <= wait_threshold_ticks 50");
    row("flags missing", [](json& r) { r["requests"][0]["flags"] = json::array(); },
        "repeated_preemption is missing but preemptions 1 > preemption_threshold 0", true);
    row("unknown flag", [](json& r) { r["requests"][0]["flags"].push_back("slow"); }, "unknown or repeated flag \"slow\"");
    row("first token tick", [](json& r) { r["requests"][0]["first_token_tick"] = 1; },
        "record of r1: first_token_tick is 1 but its events say 0");
    row("completion tick", [](json& r) { r["requests"][0]["completion_tick"] = nullptr; },
        "record of r1: completion_tick is null but its events say 3");
    row("censored too late", [](json& r) { eventAt(r, 7)["generated_tokens"] = 100; },
        "censored with all 100 output tokens generated", true);
    row("seq gap", [](json& r) { eventAt(r, 5)["seq"] = 6; }, "seq is 6 but it is event number 5");
    row("tick goes back", [](json& r) { eventAt(r, 9)["tick"] = 1; }, "tick 1 is earlier than the previous event's tick 2");
    row("unknown request", [](json& r) { eventAt(r, 1)["request"] = "r7"; }, "names request r7, which is not in the workload");
    row("unknown kind", [](json& r) { eventAt(r, 1)["kind"] = "teleport"; }, "unknown event kind 'teleport'");
    row("arrive tick", [](json& r) { r["workload"]["requests"][0]["arrival_tick"] = 1; },
        "arrives at tick 0 but its arrival_tick is 1");
    row("admit twice", [](json& r) { eventAt(r, 10)["kind"] = "admit"; }, "admitted a second time");
    row("evicted twice", [](json& r) {
        json again = eventAt(r, 7);
        eventAt(r, 8) = again;
        eventAt(r, 8)["seq"] = 8;
    }, "evicted while not running (already evicted at seq 7 and not resumed)");
    row("first token count", [](json& r) { eventAt(r, 3)["generated_tokens"] = 2; }, "first_token has generated_tokens 2, not 1");
    row("resume without evict", [](json& r) { eventAt(r, 9)["kind"] = "resume"; eventAt(r, 9)["mode"] = "recompute";
                                              eventAt(r, 9)["swap_in_bytes"] = 0; eventAt(r, 9)["replay_tokens"] = 0; },
        "event seq 9 (resume of r1, tick 3): resume without a preceding eviction");
    row("missing field", [](json& r) { eventAt(r, 7).erase("replay_tokens"); },
        "event seq 7 (evict of r2, tick 1) has no 'replay_tokens'");
    row("float field", [](json& r) { eventAt(r, 7)["context_tokens"] = 26.0; },
        "has 'context_tokens' = 26.0, not an integer within 2^53");
    row("overflowing product", [](json& r) { eventAt(r, 7)["swap_blocks"] = std::int64_t{9007199254740991}; },
        "product overflows");
}

void TestOracle::mutationsAreCaught() {
    QFETCH(bool, censoredBase);
    QFETCH(Mutation, mutate);
    QFETCH(QString, expected);
    json r = censoredBase ? censoredReceipt() : hybridReceipt();
    mutate(r);
    const pl::OracleReport report = pl::checkReceipt(r);
    QVERIFY(!report.passed);
    QVERIFY2(joined(report).contains(expected), qPrintable("expected: " + expected + "\ngot:\n" + joined(report)));
    if (const auto fed = streamed(r)) QCOMPARE(joined(*fed), joined(report));
}

// The same mutations with each event and record fed as its line of text (as receiptText feeds the oracle),
// read without a document and, keys reversed, by nlohmann_json: the report is checkReceipt's either way.
void TestOracle::mutationsReadFromLines() {
    QFETCH(bool, censoredBase);
    QFETCH(Mutation, mutate);
    json r = censoredBase ? censoredReceipt() : hybridReceipt();
    mutate(r);
    const pl::OracleReport report = pl::checkReceipt(r);
    QCOMPARE(joined(*pltest::fedAsLines(r, true)), joined(report));
    QCOMPARE(joined(*pltest::fedAsLines(r, false)), joined(report));
}

void TestOracle::malformedReceiptsDoNotCrash_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("array") << QByteArray("[]") << "not a JSON object";
    QTest::newRow("no workload") << QByteArray(R"({"events":[]})") << "no 'workload' or 'policy'";
    QTest::newRow("bad workload") << QByteArray(R"({"workload":{"format":"x"},"policy":{}})") << "workload/policy is invalid";
    json noEvents = hybridReceipt();
    noEvents["events"] = "many";
    QTest::newRow("events not array") << QByteArray::fromStdString(noEvents.dump()) << "no 'events' array";
    json junk = hybridReceipt();
    junk["events"] = {1, "x", nullptr, json::object(), json::array()};
    QTest::newRow("junk events") << QByteArray::fromStdString(junk.dump()) << "event 0 is not an object";
    json noTotals = hybridReceipt();
    noTotals.erase("totals");
    noTotals["requests"] = 5;
    QTest::newRow("no totals") << QByteArray::fromStdString(noTotals.dump()) << "no 'totals' object";
    json badEstimates = hybridReceipt();
    badEstimates["events"][7]["estimates"] = 3;
    QTest::newRow("estimates") << QByteArray::fromStdString(badEstimates.dump()) << "has no 'estimates' object";
    json badMode = hybridReceipt();
    badMode["events"][7]["mode"] = "adaptive";
    QTest::newRow("mode adaptive") << QByteArray::fromStdString(badMode.dump()) << "a mode used must be recompute, swap or hybrid";
}

void TestOracle::malformedReceiptsDoNotCrash() {
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    const pl::OracleReport report = pl::checkReceipt(json::parse(text.toStdString()));
    QVERIFY(!report.passed);
    QVERIFY2(joined(report).contains(expected), qPrintable(joined(report)));
    if (const auto fed = streamed(json::parse(text.toStdString()))) QCOMPARE(joined(*fed), joined(report));
}

void TestOracle::violationListIsBounded() {
    json r = hybridReceipt();
    for (int i = 0; i < 3000; ++i) {
        r["events"].push_back({{"seq", 0}, {"tick", 0}, {"kind", "arrive"}, {"request", "nobody"}});
    }
    const pl::OracleReport report = pl::checkReceipt(r);
    QVERIFY(!report.passed);
    QCOMPARE(report.violations.size(), pl::kMaxOracleViolations + 1);
    QVERIFY(report.violations.back().find("more violations not listed") != std::string::npos);
    QCOMPARE(joined(*streamed(r)), joined(report));
}

QTEST_APPLESS_MAIN(TestOracle)
#include "test_oracle.moc"
