// Sweeps with SLOs (issue 26): each result's goodput against hand-computed figures on a 2-point grid, the
// slo-misses metric's winners, outputs without SLOs unchanged, the result file's SLOs and goodput read back, and
// the checks (slo-misses without SLOs, an ms SLO without tick_us at some point).
#include "core/cost/sweep.h"
#include "core/cost/sweep_output.h"
#include "core/cost/sweep_read.h"

#include "tests/core/cost/sweep_fixtures.h"
#include "core/workload_io.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace pl;
using namespace pl::cost;

using review::Slo;
using review::SloUnit;

namespace {

// Four requests that never share the pool (64 blocks of 8 tokens; 8 prompt tokens prefilled a tick), so every
// mode runs them alike. In the tick model an idle engine admits a request in its arrival tick and prefills its
// first 8 tokens in that tick; the first token comes in the tick its prompt completes, then one token a tick
// (docs/tick-model.md; `preemptlab-cli run` of this workload shows these ticks):
//   r0 arrives 0,  prompt 8,  3 tokens: first token 0,  complete 2:  TTFT 0,       TPOT (2 - 0) / 2 = 1 tick
//   r1 arrives 10, prompt 16, 5 tokens: first token 11, complete 15: TTFT 1 tick,  TPOT (15 - 11) / 4 = 1 tick
//   r2 arrives 20, prompt 40, 2 tokens: first token 24, complete 25: TTFT 4 ticks, TPOT 1 tick
//   r3 arrives 30, prompt 8,  5 tokens: first token 30, censored at max_ticks 32 (a miss whatever the SLOs)
Workload handWorkload() {
    Workload w;
    w.name = "slo-hand";
    w.config.block_size_tokens = 8;
    w.config.capacity_blocks = 64;
    w.config.kv_bytes_per_token = 512;
    w.config.prefill_tokens_per_tick = 8;
    w.config.transfer_bytes_per_tick = 16384;
    w.config.max_ticks = 32;
    w.config.tick_us = 1000;
    const std::int64_t arrival[] = {0, 10, 20, 30};
    const std::int64_t prompt[] = {8, 16, 40, 8};
    const std::int64_t output[] = {3, 5, 2, 5};
    for (int i = 0; i < 4; ++i) {
        RequestSpec r;
        r.id = std::string("r").append(std::to_string(i));
        r.arrival_tick = arrival[i];
        r.prompt_tokens = prompt[i];
        r.output_tokens = output[i];
        r.max_output_tokens = output[i];
        w.requests.push_back(r);
    }
    return w;
}

Slo ms(std::int64_t micros) { return Slo{micros, SloUnit::Micros}; }
Slo ticks(std::int64_t n) { return Slo{n, SloUnit::Ticks}; }

// The 2-point grid: a tick of 1 ms, then of 3 ms (the same run in ticks; SLOs in ms read it differently).
SweepSpec tickGrid(review::Slos slos, SweepMetric metric = SweepMetric::MeanCompletion) {
    SweepSpec s;
    s.axes.push_back(std::get<SweepAxis>(parseSweepAxis("tick_us=1000,3000")));
    s.slos = slos;
    s.metric = metric;
    s.threads = 2;
    return s;
}

SweepResult mustRun(const Workload& w, const SweepSpec& spec) {
    auto r = runSweep(w, spec);
    if (auto* e = std::get_if<InputError>(&r)) {
        qFatal("sweep: %s", e->message().c_str());
    }
    return std::get<SweepResult>(std::move(r));
}

// The text with the last `n` comma-separated fields of every line dropped.
std::string withoutLastColumns(const std::string& csv, int n) {
    std::string out;
    std::size_t start = 0;
    while (start < csv.size()) {
        const std::size_t end = csv.find('\n', start);
        std::string line = csv.substr(start, end - start);
        for (int k = 0; k < n; ++k) {
            line.erase(line.rfind(','));
        }
        out += line + "\n";
        start = end + 1;
    }
    return out;
}

} // namespace

namespace pl::review {
bool operator==(const Goodput& a, const Goodput& b) {
    return a.requests == b.requests && a.good == b.good && a.censored == b.censored &&
           a.missed_ttft == b.missed_ttft && a.missed_tpot == b.missed_tpot;
}
} // namespace pl::review

class TestSweepSlos : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QVERIFY2(!validateWorkload(handWorkload()), "the hand workload must validate"); }

    // TTFT <= 2 ms and TPOT <= 3 ms:
    //   1 ms a tick: r0 (0 ms, 1 ms) and r1 (1 ms, 1 ms) good, r2 over TTFT (4 ms), r3 censored: 2 of 4 = 50%
    //   3 ms a tick: r0 (0 ms, 3 ms) good, r1 (3 ms) and r2 (12 ms) over TTFT, r3 censored: 1 of 4 = 25%
    // slo-misses: 50 and 75; every mode runs alike, so every point is a four-way tie with margin 0.
    void goodputByHand() {
        review::Slos slos;
        slos.ttft = ms(2000);
        slos.tpot = ms(3000);
        const SweepResult r = mustRun(handWorkload(), tickGrid(slos, SweepMetric::SloMisses));
        QCOMPARE(r.points.size(), std::size_t{2});
        const review::Goodput expected[] = {{4, 2, 1, 1, 0, 0, 0}, {4, 1, 1, 2, 0, 0, 0}};
        const double misses[] = {50.0, 75.0};
        for (std::size_t i = 0; i < 2; ++i) {
            const auto& p = r.points[i];
            QCOMPARE(p.results.size(), std::size_t{4});
            for (const auto& m : p.results) {
                QVERIFY(m.goodput.has_value());
                QVERIFY2(*m.goodput == expected[i], (std::to_string(i) + " " + std::string(toString(m.mode))).c_str());
                QCOMPARE(m.metric, misses[i]);
                QCOMPARE(m.totals.censored, std::int64_t{1});
            }
            QCOMPARE(p.winner, std::string("recompute=swap=adaptive=hybrid"));
            QCOMPARE(p.margin, 0.0);
        }
        // In ticks the two points are the same: TTFT <= 2 ticks, TPOT <= 1 tick: r0 and r1 good, r2 over TTFT.
        review::Slos inTicks;
        inTicks.ttft = ticks(2);
        inTicks.tpot = ticks(1);
        const SweepResult t = mustRun(handWorkload(), tickGrid(inTicks));
        for (const auto& p : t.points) {
            QCOMPARE(p.results.front().goodput->good, std::int64_t{2});
            QCOMPARE(p.results.front().goodput->missed_ttft, std::int64_t{1});
        }
        // TPOT <= 2 ms alone: every completed request meets it at 1 ms a tick (3 of 4), misses it at 3 ms (0 of 4).
        review::Slos tpot;
        tpot.tpot = ms(2000);
        const SweepResult u = mustRun(handWorkload(), tickGrid(tpot));
        QCOMPARE(u.points[0].results.front().goodput->good, std::int64_t{3});
        QCOMPARE(u.points[1].results.front().goodput->good, std::int64_t{0});
        QCOMPARE(u.points[1].results.front().goodput->missed_tpot, std::int64_t{3});
        // The CSV's new columns and the JSON's keys carry the same figures.
        const std::string csv = sweepCsv(r);
        QVERIFY(csv.find(",flip_axes,goodput_percent,goodput_good,goodput_requests\n") != std::string::npos);
        QVERIFY(csv.find(",50.000000,2,4\n") != std::string::npos);
        QVERIFY(csv.find(",25.000000,1,4\n") != std::string::npos);
        const nlohmann::json j = sweepJson(r);
        QCOMPARE(j["slos"], nlohmann::json::parse(R"({"ttft": {"us": 2000}, "tpot": {"us": 3000}})"));
        QCOMPARE(j["metric"], nlohmann::json("slo-misses"));
        const auto& g = j["points"][1]["results"]["hybrid"]["goodput"];
        QCOMPARE(g, nlohmann::json::parse(R"({"requests": 4, "good": 1, "censored": 1, "missed_ttft": 2,
                                              "missed_tpot": 0, "percent": "25.000000"})"));
        QCOMPARE(j["points"][1]["results"]["hybrid"]["metric"], nlohmann::json("75.000000"));
    }

    // Under pressure the modes differ: the winner is the mode with the lowest share of misses, ties joined.
    void sloMissesWinners() {
        review::Slos slos;
        slos.ttft = ticks(20);
        slos.tpot = ticks(2);
        SweepSpec spec;
        spec.axes.push_back(std::get<SweepAxis>(parseSweepAxis("capacity-blocks=12:28:4")));
        spec.axes.push_back(std::get<SweepAxis>(parseSweepAxis("transfer_bytes_per_tick=1024:16384:5120")));
        spec.slos = slos;
        spec.metric = SweepMetric::SloMisses;
        spec.threads = 2;
        const SweepResult r = mustRun(pltest::pressuredSweepWorkload("slo-winners"), spec);
        std::set<std::string> winners;
        std::set<std::int64_t> goods;
        for (const auto& p : r.points) {
            double best = 1e300;
            for (const auto& m : p.results) {
                QCOMPARE(m.goodput->requests, std::int64_t{8});
                const double share = static_cast<double>(m.goodput->requests - m.goodput->good) * 100.0 / 8.0;
                QCOMPARE(m.metric, share);
                best = std::min(best, m.metric);
                goods.insert(m.goodput->good);
            }
            std::string winner;
            for (const auto& m : p.results) {
                if (m.metric == best) {
                    winner += (winner.empty() ? "" : "=") + std::string(toString(m.mode));
                }
            }
            QCOMPARE(p.winner, winner);
            winners.insert(p.winner);
        }
        QVERIFY2(goods.size() > 1, "the SLOs must separate some runs");
        QVERIFY2(winners.size() > 1, "the winner must change somewhere on the grid");
    }

    // Without SLOs nothing changes; with them, the old columns and keys are the same and the new ones follow.
    void withoutSlosTheOutputIsUnchanged() {
        const Workload w = pltest::pressuredSweepWorkload("slo-bytes");
        SweepSpec plain;
        plain.axes.push_back(std::get<SweepAxis>(parseSweepAxis("capacity-blocks=12:28:8")));
        plain.threads = 2;
        SweepSpec with = plain;
        with.slos.ttft = ticks(10);
        const SweepResult a = mustRun(w, plain);
        const SweepResult b = mustRun(w, with);
        for (const auto& p : a.points) {
            for (const auto& m : p.results) {
                QVERIFY(!m.goodput);
            }
        }
        const std::string csv = sweepCsv(a);
        QVERIFY(csv.find("goodput") == std::string::npos);
        QCOMPARE(withoutLastColumns(sweepCsv(b), 3), csv);
        nlohmann::json jb = sweepJson(b);
        const nlohmann::json ja = sweepJson(a);
        QVERIFY(!ja.contains("slos"));
        jb.erase("slos");
        for (auto& p : jb["points"]) {
            for (auto& [mode, res] : p["results"].items()) {
                QVERIFY(res.contains("goodput"));
                res.erase("goodput");
            }
        }
        QCOMPARE(jb.dump(2), ja.dump(2));
    }

    // The result file records the SLOs and every goodput; a file without them still reads.
    void resultReadsBackWithSlos() {
        review::Slos slos;
        slos.ttft = ms(4000);
        slos.tpot = ticks(1);
        const SweepResult r = mustRun(handWorkload(), tickGrid(slos, SweepMetric::SloMisses));
        const std::string text = sweepJson(r).dump(2) + "\n";
        auto read = parseSweepResult(text, "s.json");
        QVERIFY2(std::holds_alternative<SweepResult>(read),
                 std::get_if<InputError>(&read) ? std::get<InputError>(read).message().c_str() : "");
        const auto& back = std::get<SweepResult>(read);
        QVERIFY(back.spec.slos.ttft && back.spec.slos.ttft->unit == SloUnit::Micros && back.spec.slos.ttft->value == 4000);
        QVERIFY(back.spec.slos.tpot && back.spec.slos.tpot->unit == SloUnit::Ticks && back.spec.slos.tpot->value == 1);
        QVERIFY(back.spec.metric == SweepMetric::SloMisses);
        QVERIFY(*back.points[1].results[2].goodput == *r.points[1].results[2].goodput);
        QCOMPARE(sweepJson(back).dump(2) + "\n", text);
        QCOMPARE(sweepCsv(back), sweepCsv(r));
        const auto errorOf = [](const nlohmann::json& j) {
            auto got = parseSweepResult(j.dump(), "bad.json");
            return std::holds_alternative<InputError>(got) ? std::get<InputError>(got).message() : std::string("read");
        };
        const nlohmann::json good = sweepJson(r);
        auto j = good;
        j["points"][0]["results"]["swap"].erase("goodput");
        QCOMPARE(errorOf(j), std::string("bad.json: /points/0/results/swap/goodput: missing"));
        j = good;
        j["points"][0]["results"]["swap"]["goodput"]["good"] = 9;
        QCOMPARE(errorOf(j), std::string("bad.json: /points/0/results/swap/goodput: more good or censored requests than requests"));
        j = good;
        j.erase("slos");
        QCOMPARE(errorOf(j), std::string("bad.json: /metric: slo-misses without the sweep's SLOs (/slos)"));
        j["metric"] = "ticks";
        QCOMPARE(errorOf(j), std::string("bad.json: /points/0/results/recompute/goodput: a goodput, but the sweep names no SLOs"));
        j = good;
        j["slos"] = nlohmann::json::parse(R"({"ttft": {"ms": 4}})");
        QCOMPARE(errorOf(j), std::string("bad.json: /slos/ttft: not {\"ticks\": N} or {\"us\": N}"));
        j["slos"] = nlohmann::json::object();
        QCOMPARE(errorOf(j), std::string("bad.json: /slos: names no SLO"));
    }

    void checksBeforeRunning() {
        // slo-misses needs SLOs.
        SweepSpec spec = tickGrid({}, SweepMetric::SloMisses);
        auto r = runSweep(handWorkload(), spec);
        QVERIFY(std::holds_alternative<InputError>(r));
        QCOMPARE(std::get<InputError>(r).path, std::string("--metric"));
        QVERIFY(std::get<InputError>(r).reason.find("--slo-ttft-ms") != std::string::npos);
        // An SLO in ms without the tick's length: the workload's, or at a point that sets none.
        review::Slos slos;
        slos.tpot = ms(2000);
        Workload noTick = handWorkload();
        noTick.config.tick_us = 0;
        SweepSpec capacity = tickGrid(slos);
        capacity.axes = {std::get<SweepAxis>(parseSweepAxis("capacity_blocks=32,64"))};
        r = runSweep(noTick, capacity);
        QVERIFY(std::holds_alternative<InputError>(r));
        QCOMPARE(std::get<InputError>(r).path, std::string("/config/tick_us"));
        QVERIFY(std::get<InputError>(r).reason.rfind("--slo-tpot-ms: ", 0) == 0);
        // In ticks it runs without tick_us.
        slos.tpot = ticks(1);
        capacity.slos = slos;
        QVERIFY(std::holds_alternative<SweepResult>(runSweep(noTick, capacity)));
    }
};

QTEST_APPLESS_MAIN(TestSweepSlos)
#include "test_sweep_slos.moc"
