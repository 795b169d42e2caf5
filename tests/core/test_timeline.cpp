// Timeline export (core/timeline.h): the Chrome trace parsed back and checked against the receipt of the same
// run and against an engine stepped tick by tick.
#include "tests/core/engine_fixtures.h"

#include "tests/cli_runner.h"
#include "core/receipt.h"
#include "core/stop_check.h"
#include "core/timeline.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace pl;
using namespace pltest;
using nlohmann::json;

class TestTimeline : public QObject {
    Q_OBJECT

  private slots:
    void slicesTileEachRequestsLifeAndAgreeWithTheReceipt();
    void slicesMatchAnEngineSteppedTickByTick();
    void evictInstantsAreTheReceiptsEvicts();
    void countersFollowTheSeries();
    void sameRunSameBytes();
    void onlyRequestsKeepsTheirTracksWhole();
    void tickLengthScalesTimestamps();
    void badPathWritesNothing();
    void aStopFlagCancelsAndLeavesNoFile();
    void cliWritesTheTrace();
    void cliBadTraceOutNamesTheFile();
};

namespace {

struct Case {
    std::string sample;
    Recovery recovery;
    EngineProfile profile = EngineProfile::TickModel1;
};

std::string caseName(const Case& c) {
    return c.sample + "/" + std::string(toString(c.recovery)) + "/" + std::string(toString(c.profile));
}

// Several samples under recompute, swap and hybrid, and the engine profiles on the one written for them.
std::vector<Case> cases() {
    std::vector<Case> out;
    for (const char* s : {"seed-example", "burst-recompute-wave", "swap-wins", "multi-tenant", "starvation",
                          "livelock-next-block", "recompute-wins", "generated-bursty-shared-prefix"}) {
        for (Recovery r : {Recovery::Recompute, Recovery::Swap, Recovery::Hybrid}) {
            out.push_back({s, r});
        }
    }
    // The profiles as their engines run them (recompute), and swap and hybrid as what-ifs under them.
    for (EngineProfile p : {EngineProfile::VllmV1, EngineProfile::Sglang, EngineProfile::TrtllmMaxUtilization,
                            EngineProfile::TrtllmGuaranteedNoEvict}) {
        out.push_back({"engines-disagree", Recovery::Recompute, p});
        out.push_back({"starvation", Recovery::Recompute, p});
        out.push_back({"swap-wins", Recovery::Swap, p});
        out.push_back({"swap-wins", Recovery::Hybrid, p});
    }
    return out;
}

Workload caseWorkload(const Case& c) {
    Workload w = loadSample(c.sample);
    w.policy.recovery = c.recovery;
    w.policy.engine_profile = c.profile;
    if (auto e = validateWorkload(w)) { // a case the engine would refuse tests nothing
        qFatal("%s: %s", caseName(c).c_str(), e->message().c_str());
    }
    return w;
}

struct Traced {
    RunResult run;
    std::vector<TickStats> series;
    json trace;
    json receipt;
};

Traced traced(const Workload& w, const TickLength& tick = {}) {
    Traced t;
    EngineOptions options;
    options.record_series = true;
    t.run = runWorkload(w, nullptr, {}, options, &t.series);
    t.trace = json::parse(timelineText(w, t.run, t.series, tick));
    t.receipt = json::parse(receiptText(w, t.run));
    return t;
}

// The complete slices of each track (tid), in the order written (each track's are written in time order).
std::map<std::int64_t, std::vector<json>> slicesByTid(const json& trace) {
    std::map<std::int64_t, std::vector<json>> out;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "X") {
            out[e["tid"].get<std::int64_t>()].push_back(e);
        }
    }
    return out;
}

// tid -> request id, from the thread_name metadata.
std::map<std::int64_t, std::string> threadNames(const json& trace) {
    std::map<std::int64_t, std::string> out;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name") {
            out[e["tid"].get<std::int64_t>()] = e["args"]["name"].get<std::string>();
        }
    }
    return out;
}

} // namespace

void TestTimeline::slicesTileEachRequestsLifeAndAgreeWithTheReceipt() {
    for (const Case& c : cases()) {
        const std::string name = caseName(c);
        const Workload w = caseWorkload(c);
        const Traced t = traced(w);
        const std::int64_t us = t.trace["metadata"]["tick_us"].get<std::int64_t>();
        QCOMPARE(us, kDefaultTickUs);
        const auto names = threadNames(t.trace);
        QCOMPARE(names.size(), w.requests.size());
        const auto slices = slicesByTid(t.trace);
        // Each request's arrive and end (complete or censor) events in the receipt.
        std::map<std::string, std::int64_t> arrive, end;
        for (const auto& e : t.receipt["events"]) {
            if (e["kind"] == "arrive") {
                arrive[e["request"].get<std::string>()] = e["tick"].get<std::int64_t>();
            } else if (e["kind"] == "complete" || e["kind"] == "censor") {
                end[e["request"].get<std::string>()] = e["tick"].get<std::int64_t>();
            }
        }
        std::int64_t preemptedSlices = 0;
        for (const auto& r : t.receipt["requests"]) {
            const std::string id = r["id"].get<std::string>();
            std::int64_t tid = -1;
            for (const auto& [k, v] : names) {
                if (v == id) {
                    tid = k;
                }
            }
            QVERIFY2(tid > 0, (name + ": no track for " + id).c_str());
            const auto it = slices.find(tid);
            if (arrive.count(id) == 0) { // arrived at or after max_ticks: censored, never in the system
                QVERIFY2(it == slices.end(), (name + ": " + id + " has slices but never arrived").c_str());
                continue;
            }
            QVERIFY2(it != slices.end(), (name + ": " + id + " has no slices").c_str());
            const auto& s = it->second;
            const std::string where = name + ": " + id;
            // Tiled: from the arrival to the end, no gap, no overlap.
            QVERIFY2(s.front()["ts"].get<std::int64_t>() == arrive[id] * us, where.c_str());
            QVERIFY2(s.front()["name"] == "waiting", where.c_str());
            for (std::size_t i = 0; i < s.size(); ++i) {
                QVERIFY2(s[i]["dur"].get<std::int64_t>() >= 0, where.c_str());
                if (i + 1 < s.size()) {
                    QVERIFY2(s[i]["ts"].get<std::int64_t>() + s[i]["dur"].get<std::int64_t>() ==
                                 s[i + 1]["ts"].get<std::int64_t>(),
                             (where + ": gap or overlap after slice " + std::to_string(i)).c_str());
                    QVERIFY2(s[i]["name"] != s[i + 1]["name"] || s[i]["args"]["phase"] != s[i + 1]["args"]["phase"],
                             (where + ": two slices for one stretch").c_str());
                }
            }
            const json& last = s.back();
            QVERIFY2(last["ts"].get<std::int64_t>() + last["dur"].get<std::int64_t>() == end[id] * us, where.c_str());
            const bool completed = r["status"] == "completed";
            QVERIFY2(last["args"]["end"] == (completed ? "done" : "censored"), where.c_str());
            if (completed) {
                QVERIFY2(end[id] == r["completion_tick"].get<std::int64_t>(), where.c_str());
            }
            // Preemptions: each eviction starts a preempted slice (recompute) or a copy out (swap, hybrid).
            std::int64_t evicted = 0;
            std::int64_t firstDecode = -1;
            for (const auto& sl : s) {
                if (sl["name"] == "preempted" || (sl["name"] == "copying" && sl["args"]["phase"] == "swap-out")) {
                    ++evicted;
                }
                if (sl["name"] == "decode" && firstDecode < 0) {
                    firstDecode = sl["ts"].get<std::int64_t>();
                }
            }
            QVERIFY2(evicted == r["preemptions"].get<std::int64_t>(), where.c_str());
            preemptedSlices += evicted;
            const std::int64_t ft = r["first_token_tick"].is_number() ? r["first_token_tick"].get<std::int64_t>() : -1;
            if (ft >= 0) {
                // The first token can come with the request's end (a one-token output): no decode stretch then.
                QVERIFY2(firstDecode == ft * us || (firstDecode < 0 && end[id] == ft), where.c_str());
            } else {
                QVERIFY2(firstDecode < 0, where.c_str());
            }
        }
        QCOMPARE(preemptedSlices, t.receipt["totals"]["evictions"].get<std::int64_t>());
    }
}

void TestTimeline::slicesMatchAnEngineSteppedTickByTick() {
    // The state a slice names is the engine's own phase at the end of every tick it covers.
    for (const Case& c : cases()) {
        const std::string name = caseName(c);
        const Workload w = caseWorkload(c);
        const Traced t = traced(w);
        const auto slices = slicesByTid(t.trace);
        Ledger ledger;
        Engine engine(w, ledger);
        std::int64_t checked = 0;
        while (!engine.finished()) {
            engine.step();
            if (engine.finished()) {
                break;
            }
            const Tick tick = engine.totals().ticks - 1; // the tick just executed
            const auto reqs = engine.requests();
            for (std::size_t i = 0; i < reqs.size(); ++i) {
                const Phase p = reqs[i].phase;
                std::string shown = "none";
                std::string phase = "none";
                const auto it = slices.find(static_cast<std::int64_t>(i) + 1);
                if (it != slices.end()) {
                    for (const auto& sl : it->second) {
                        if (sl["args"]["from_tick"].get<std::int64_t>() <= tick &&
                            tick < sl["args"]["to_tick"].get<std::int64_t>()) {
                            shown = sl["name"].get<std::string>();
                            phase = sl["args"]["phase"].get<std::string>();
                        }
                    }
                }
                const bool outside = p == Phase::NotArrived || p == Phase::Done || p == Phase::Censored;
                const std::string want = outside ? "none" : std::string(timelineStateName(p));
                const std::string wantPhase = outside ? "none" : std::string(toString(p));
                QVERIFY2(shown == want && phase == wantPhase,
                         (name + ": " + w.requests[i].id + " at tick " + std::to_string(tick) + ": trace " + shown +
                          "/" + phase + ", engine " + want + "/" + wantPhase)
                             .c_str());
                ++checked;
            }
        }
        QVERIFY(checked > 0);
    }
}

void TestTimeline::evictInstantsAreTheReceiptsEvicts() {
    std::int64_t total = 0;
    for (const Case& c : cases()) {
        const std::string name = caseName(c);
        const Traced t = traced(caseWorkload(c));
        std::vector<json> receiptEvicts, instants;
        for (const auto& e : t.receipt["events"]) {
            if (e["kind"] == "evict") {
                receiptEvicts.push_back(e);
            }
        }
        for (const auto& e : t.trace["traceEvents"]) {
            if (e["ph"] == "i") {
                QVERIFY(e["name"] == "evict");
                instants.push_back(e);
            }
        }
        QVERIFY2(instants.size() == receiptEvicts.size(), name.c_str());
        const auto names = threadNames(t.trace);
        for (std::size_t i = 0; i < instants.size(); ++i) {
            const json& a = instants[i]["args"];
            const json& r = receiptEvicts[i];
            const std::string where = name + ": evict " + std::to_string(i);
            QVERIFY2(a["victim"] == r["request"], where.c_str());
            QVERIFY2(names.at(instants[i]["tid"].get<std::int64_t>()) == r["request"].get<std::string>(), where.c_str());
            QVERIFY2(a["seq"] == r["seq"] && a["tick"] == r["tick"] && a["mode"] == r["mode"], where.c_str());
            QVERIFY2(instants[i]["ts"].get<std::int64_t>() == r["tick"].get<std::int64_t>() * kDefaultTickUs,
                     where.c_str());
            QVERIFY2(a["owed_tokens"] == r["replay_tokens"] && a["freed_blocks"] == r["freed_blocks"], where.c_str());
            QVERIFY2(a["rule"] == t.receipt["policy"]["victim_rule"], where.c_str());
            QVERIFY2(a["trigger"] != "none", where.c_str()); // every evict answers a pressure of its tick
            QVERIFY2(r.contains("fallback") == a.contains("fallback"), where.c_str());
        }
        total += static_cast<std::int64_t>(instants.size());
    }
    QVERIFY(total > 0); // the cases do evict
}

void TestTimeline::countersFollowTheSeries() {
    bool sawLink = false;
    for (const Case& c : cases()) {
        const std::string name = caseName(c);
        const Traced t = traced(caseWorkload(c));
        std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> samples; // name -> (tick, value)
        for (const auto& e : t.trace["traceEvents"]) {
            if (e["ph"] == "C") {
                QVERIFY(e["pid"] != 1);
                const auto& args = e["args"];
                QCOMPARE(args.size(), std::size_t{1});
                samples[e["name"].get<std::string>()].emplace_back(e["ts"].get<std::int64_t>() / kDefaultTickUs,
                                                                   args.begin()->get<std::int64_t>());
            }
        }
        // Step functions of the series' figures: a sample exactly where the value changed.
        auto check = [&](const std::string& counter, auto field) {
            const auto& got = samples[counter];
            std::vector<std::pair<std::int64_t, std::int64_t>> want;
            for (const TickStats& s : t.series) {
                if (want.empty() || want.back().second != field(s)) {
                    want.emplace_back(s.tick, field(s));
                }
            }
            QVERIFY2(got == want, (name + ": " + counter).c_str());
        };
        check("occupied_blocks", [](const TickStats& s) { return s.occupied_blocks; });
        check("waiting_requests", [](const TickStats& s) { return s.waiting; });
        check("host_bytes", [](const TickStats& s) { return s.host_bytes; });
        // Link bytes: never negative, back to 0 at the end; something moved whenever the run swapped.
        const auto& link = samples["link_bytes_in_flight"];
        QVERIFY2(!link.empty() && link.back().second == 0, name.c_str());
        std::int64_t peak = 0;
        for (const auto& [tick, v] : link) {
            QVERIFY2(v >= 0, name.c_str());
            peak = std::max(peak, v);
        }
        QVERIFY2((peak > 0) == (t.run.totals.swap_out_bytes > 0), name.c_str());
        sawLink = sawLink || peak > 0;
        // While blocks are in flight on the link, the counter says bytes are.
        for (const TickStats& s : t.series) {
            std::int64_t v = 0;
            for (const auto& [tick, value] : link) {
                if (tick <= s.tick) {
                    v = value;
                }
            }
            if (s.in_flight_blocks > 0) {
                QVERIFY2(v > 0, (name + ": tick " + std::to_string(s.tick)).c_str());
            }
        }
    }
    QVERIFY(sawLink);
}

void TestTimeline::sameRunSameBytes() {
    for (const Case& c : {Case{"swap-wins", Recovery::Hybrid}, Case{"engines-disagree", Recovery::Recompute,
                                                                     EngineProfile::VllmV1}}) {
        const Workload w1 = caseWorkload(c);
        const Workload w2 = caseWorkload(c);
        std::vector<TickStats> s1, s2;
        const RunResult a = runWorkload(w1, nullptr, {}, EngineOptions{true, false, false}, &s1);
        const RunResult b = runWorkload(w2, nullptr, {}, EngineOptions{true, false, false}, &s2);
        const std::string ta = timelineText(w1, a, s1, tickLengthOf(w1));
        QVERIFY(!ta.empty());
        QVERIFY(ta == timelineText(w2, b, s2, tickLengthOf(w2)));
        // The file holds the same bytes as the text.
        const std::string path = QDir::tempPath().toStdString() + "/test_timeline_same.json";
        QVERIFY(!writeTimeline(path, w1, a, s1, tickLengthOf(w1)));
        std::ifstream in(path, std::ios::binary);
        std::stringstream buf;
        buf << in.rdbuf();
        QVERIFY(buf.str() == ta);
        std::filesystem::remove(path);
    }
}

void TestTimeline::tickLengthScalesTimestamps() {
    const Workload w = loadSample("seed-example");
    const Traced base = traced(w);
    QCOMPARE(base.trace["metadata"]["tick_us"].get<std::int64_t>(), std::int64_t{1000});
    QVERIFY(base.trace["metadata"]["tick_us_source"].get<std::string>().find("default") != std::string::npos);
    QVERIFY(base.trace["displayTimeUnit"] == "ms");
    // An imported trace's notes hold its command, whose --tick-ms is the tick's length.
    const TickLength imported = tickLengthOf(loadSample("azure-conv-slice"));
    QCOMPARE(imported.us, std::int64_t{20000});
    QVERIFY2(imported.source.find("--tick-ms 20") != std::string::npos, imported.source.c_str());
    Workload odd = w;
    odd.notes = "Command: preemptlab-cli import-trace --tick-ms 0.25 --out x";
    QCOMPARE(tickLengthOf(odd).us, std::int64_t{250});
    odd.notes = "Command: preemptlab-cli import-trace --tick-ms 0.0005 --out x"; // under a microsecond
    QCOMPARE(tickLengthOf(odd).us, kDefaultTickUs);
    odd.notes = "a note that says --tick-ms 20 without a command";
    QCOMPARE(tickLengthOf(odd).us, kDefaultTickUs);
    // config.tick_us, when the workload has it, wins over the notes.
    odd.notes = "Command: preemptlab-cli import-trace --tick-ms 0.25 --out x";
    odd.config.tick_us = 10000;
    QCOMPARE(tickLengthOf(odd).us, std::int64_t{10000});
    QVERIFY(tickLengthOf(odd).source.find("config.tick_us") != std::string::npos);
    const Traced scaled = traced(w, TickLength{250, "test"});
    QCOMPARE(scaled.trace["metadata"]["tick_us"].get<std::int64_t>(), std::int64_t{250});
    const auto& a = base.trace["traceEvents"];
    const auto& b = scaled.trace["traceEvents"];
    QCOMPARE(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].contains("ts")) {
            QCOMPARE(a[i]["ts"].get<std::int64_t>() / 4, b[i]["ts"].get<std::int64_t>());
        }
        if (a[i].contains("dur")) {
            QCOMPARE(a[i]["dur"].get<std::int64_t>() / 4, b[i]["dur"].get<std::int64_t>());
        }
    }
}

void TestTimeline::badPathWritesNothing() {
    const Workload w = loadSample("seed-example");
    std::vector<TickStats> series;
    const RunResult run = runWorkload(w, nullptr, {}, EngineOptions{true, false, false}, &series);
    QTemporaryDir dir;
    const std::string missing = dir.path().toStdString() + "/no-such-folder/t.json";
    const auto err = writeTimeline(missing, w, run, series, tickLengthOf(w));
    QVERIFY(err);
    QVERIFY2(err->find("no-such-folder/t.json") != std::string::npos, err->c_str());
    QVERIFY(!std::filesystem::exists(missing));
    // A run of another workload: an error, and no file.
    const std::string mismatched = dir.path().toStdString() + "/mismatched.json";
    std::vector<TickStats> otherSeries;
    const RunResult otherRun = runWorkload(loadSample("starvation"), nullptr, {}, EngineOptions{true, false, false},
                                           &otherSeries);
    const auto err3 = writeTimeline(mismatched, w, otherRun, otherSeries, tickLengthOf(w));
    QVERIFY(err3);
    QVERIFY(!std::filesystem::exists(mismatched));
    // A folder is refused, not replaced; nothing is left beside it.
    const auto err2 = writeTimeline(dir.path().toStdString(), w, run, series, tickLengthOf(w));
    QVERIFY(err2);
    QVERIFY(std::filesystem::is_directory(dir.path().toStdString()));
    QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()),
                           std::filesystem::directory_iterator()),
             std::ptrdiff_t{0});
}

void TestTimeline::aStopFlagCancelsAndLeavesNoFile() {
    const Workload w = loadSample("azure-conv-slice"); // thousands of steps and events: the flag is read every 1024
    QVERIFY(runWorkload(w).totals.ticks > 2048);
    std::vector<TickStats> series;
    const RunResult run = runWorkload(w, nullptr, {}, EngineOptions{true, false, false}, &series);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/t.json";
    std::atomic<bool> stop{true};
    bool cancelled = false;
    try {
        (void)writeTimeline(path, w, run, series, tickLengthOf(w), &stop);
    } catch (const Cancelled&) {
        cancelled = true;
    }
    QVERIFY(cancelled);
    QVERIFY(!std::filesystem::exists(path));
    QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()),
                           std::filesystem::directory_iterator()),
             std::ptrdiff_t{0}); // no temporary left either
    // A flag that stays clear changes nothing.
    std::atomic<bool> clear{false};
    QVERIFY(!writeTimeline(path, w, run, series, tickLengthOf(w), &clear));
    std::ifstream in(path, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    QVERIFY(buf.str() == timelineText(w, run, series, tickLengthOf(w)));
}

void TestTimeline::cliWritesTheTrace() {
    QTemporaryDir dir;
    const QString trace = dir.filePath("run.trace.json");
    const QString receipt = dir.filePath("run.receipt.json");
    const QString sample = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");
    const auto r = runCli({"run", sample, "--recovery", "hybrid", "--out", receipt, "--trace-out", trace});
    QVERIFY2(r.code == 0, r.err.constData());
    // The same bytes as the library's, for the same run.
    Workload w = loadSample("swap-wins");
    w.policy.recovery = Recovery::Hybrid;
    std::vector<TickStats> series;
    const RunResult run = runWorkload(w, nullptr, {}, EngineOptions{true, false, false}, &series);
    QFile f(trace);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().toStdString() == timelineText(w, run, series, tickLengthOf(w)));
    // Without --out the receipt still goes to stdout.
    const QString trace2 = dir.filePath("second.json");
    const auto r2 = runCli({"run", sample, "--trace-out", trace2});
    QVERIFY2(r2.code == 0, r2.err.constData());
    QVERIFY(json::parse(r2.out.toStdString())["format"] == std::string(kReceiptFormat));
    QVERIFY(QFile::exists(trace2));
}

void TestTimeline::cliBadTraceOutNamesTheFile() {
    QTemporaryDir dir;
    const QString sample = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
    const QString bad = dir.filePath("missing/t.json");
    const QString receipt = dir.filePath("r.json");
    const auto r = runCli({"run", sample, "--out", receipt, "--trace-out", bad});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("missing/t.json"), r.err.constData());
    QVERIFY(!QFile::exists(bad));
    QVERIFY(!QFile::exists(receipt)); // checked before the run: nothing written
    // The trace may not replace the workload it was made from.
    const auto r2 = runCli({"run", sample, "--trace-out", sample});
    QCOMPARE(r2.code, 2);
}

// The lab's flagged-only timeline exports only the flagged requests' tracks: exactly their slices and evict
// instants, as the whole trace has them, and the pool's counters unchanged.
void TestTimeline::onlyRequestsKeepsTheirTracksWhole() {
    const Workload w = loadSample("starvation");
    EngineOptions options;
    options.record_series = true;
    std::vector<TickStats> series;
    const RunResult run = runWorkload(w, nullptr, {}, options, &series);
    std::vector<std::int32_t> only;
    for (const RequestRecord& r : run.records)
        if (r.excessive_wait || r.repeated_preemption) only.push_back(r.request);
    QVERIFY(!only.empty() && only.size() < w.requests.size());
    const json whole = json::parse(timelineText(w, run, series, tickLengthOf(w)));
    const json part = json::parse(timelineText(w, run, series, tickLengthOf(w), only));
    QVERIFY(!whole["metadata"].contains("tracks_of_requests"));
    QCOMPARE(part["metadata"]["tracks_of_requests"].get<std::int64_t>(), static_cast<std::int64_t>(only.size()));
    const auto keep = [&](const json& e) {
        if (e["pid"] != 1 || !e.contains("tid")) return true; // processes' names, counters
        const auto r = e["tid"].get<std::int32_t>() - 1;
        return std::find(only.begin(), only.end(), r) != only.end();
    };
    json expected = json::array();
    for (const json& e : whole["traceEvents"])
        if (keep(e)) expected.push_back(e);
    QVERIFY(expected.size() < whole["traceEvents"].size());
    QVERIFY(part["traceEvents"] == expected);
}

QTEST_GUILESS_MAIN(TestTimeline)
#include "test_timeline.moc"
