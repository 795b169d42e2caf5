// Sweep (core/cost/sweep.h): grid parsing, same input per point, winners and flips, and determinism
// whatever the number of threads.
#include "core/cost/sweep.h"
#include "core/cost/sweep_output.h"
#include "core/cost/sweep_read.h"

#include "tests/core/cost/sweep_fixtures.h"
#include "core/receipt.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <QtTest>

#include <atomic>
#include <thread>

using namespace pl;
using namespace pl::cost;

namespace {

// A small pool under pressure (sweep_fixtures.h).
Workload pressured() { return pltest::pressuredSweepWorkload("sweep-test"); }

SweepSpec grid(unsigned threads) {
    SweepSpec s;
    s.axes.push_back(std::get<SweepAxis>(parseSweepAxis("capacity-blocks=12:28:4")));
    s.axes.push_back(std::get<SweepAxis>(parseSweepAxis("transfer_bytes_per_tick=1024:16384:5120")));
    s.threads = threads;
    return s;
}

} // namespace

class TestSweep : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QVERIFY2(!validateWorkload(pressured()), "test workload must validate"); }

    // The crossover map on a hand-made 2 x 3 grid (axes a = {0, 1}, b = {0, 1, 2}; two modes, metrics chosen):
    //        b=0            b=1             b=2
    //   a=0  rc 1 / sw 3    rc 2 / sw 2     rc 5 / sw 1
    //   a=1  rc 4 / sw 1    rc 1 / sw 2.5   rc 0 / sw 9
    // Winners: a=0: recompute, recompute=swap, swap; a=1: swap, recompute, recompute. Margins: 2, 0, 4; 3, 1.5, 9.
    // Flips along b (the last axis, `flip`): (0,1) (0,2) (1,1); along a: (1,0) swap vs recompute, (1,1) recompute vs
    // recompute=swap, (1,2) recompute vs swap.
    void crossoverMapHasMarginsAndFlipsAlongEveryAxis() {
        SweepSpec spec;
        spec.axes = {{"watermark_blocks", {"0", "1"}}, {"hybrid_swap_percent", {"0", "1", "2"}}};
        spec.modes = {Recovery::Recompute, Recovery::Swap};
        const double rc[] = {1, 2, 5, 4, 1, 0};
        const double sw[] = {3, 2, 1, 1, 2.5, 9};
        std::vector<SweepPoint> points(6);
        for (std::size_t i = 0; i < 6; ++i) {
            points[i].values = {std::to_string(i / 3), std::to_string(i % 3)};
            points[i].results = {ModeResult{}, ModeResult{}};
            points[i].results[0].mode = Recovery::Recompute;
            points[i].results[0].metric = rc[i];
            points[i].results[1].mode = Recovery::Swap;
            points[i].results[1].metric = sw[i];
        }
        finishSweepPoints(spec, points);
        const std::vector<std::string> winners = {"recompute", "recompute=swap", "swap", "swap", "recompute", "recompute"};
        const double margins[] = {2, 0, 4, 3, 1.5, 9};
        const std::vector<std::vector<std::size_t>> axes = {{}, {1}, {1}, {0}, {0, 1}, {0}};
        const bool lastAxisFlip[] = {false, true, true, false, true, false};
        for (std::size_t i = 0; i < 6; ++i) {
            QCOMPARE(points[i].winner, winners[i]);
            QCOMPARE(points[i].margin, margins[i]);
            QCOMPARE(points[i].flip_axes, axes[i]);
            QCOMPARE(points[i].flip, lastAxisFlip[i]);
        }
        SweepResult r;
        r.workload_name = "hand";
        r.spec = spec;
        r.points = points;
        const std::string csv = sweepCsv(r);
        QVERIFY(csv.substr(0, csv.find('\n')).find(",winner,flip,margin,flip_axes") != std::string::npos);
        // Point 4's rows end with its winner, flip, margin and both axes.
        QVERIFY2(csv.find("\n4,1,1,swap,") != std::string::npos, csv.c_str());
        QVERIFY2(csv.find(",recompute,true,1.500000,watermark_blocks|hybrid_swap_percent\n") != std::string::npos, csv.c_str());
        const auto json = sweepJson(r);
        QCOMPARE(json["points"][4]["margin"].get<std::string>(), std::string("1.500000"));
        QCOMPARE(json["points"][4]["flip_axes"].size(), std::size_t{2});
        QCOMPARE(json["crossovers"].size(), std::size_t{6}); // 3 along a, 3 along b
        QCOMPARE(json["flips"].size(), std::size_t{3});      // the last axis only, as before
        QCOMPARE(json["crossovers"][0]["axis"].get<std::string>(), std::string("hybrid_swap_percent"));
        QCOMPARE(json["crossovers"][2]["from"].get<std::string>(), std::string("recompute"));
        QCOMPARE(json["crossovers"][2]["to"].get<std::string>(), std::string("swap"));
    }

    void parsesAxes() {
        auto a = std::get<SweepAxis>(parseSweepAxis("capacity_blocks=12:20:4"));
        QCOMPARE(a.key, std::string("capacity_blocks"));
        QCOMPARE(a.values, (std::vector<std::string>{"12", "16", "20"}));
        a = std::get<SweepAxis>(parseSweepAxis("watermark-blocks=0:5:2")); // HI not on the grid: 0 2 4
        QCOMPARE(a.key, std::string("watermark_blocks"));
        QCOMPARE(a.values, (std::vector<std::string>{"0", "2", "4"}));
        a = std::get<SweepAxis>(parseSweepAxis("victim_rule=priority-newest,longest-context"));
        QCOMPARE(a.values.size(), std::size_t{2});
        // A byte key's range takes units, as its flag does; a count's does not.
        a = std::get<SweepAxis>(parseSweepAxis("host-capacity-bytes=64K:256K:64K"));
        QCOMPARE(a.values, (std::vector<std::string>{"65536", "131072", "196608", "262144"}));
        for (const char* bad : {"capacity_blocks", "capacity_blocks=", "nosuchkey=1:2:1", "recovery=swap",
                                "capacity_blocks=5:1:1", "capacity_blocks=1:5:0", "capacity_blocks=1:x:1",
                                "capacity_blocks=1:2", "victim_rule=a,,b", "capacity_blocks=1K:2K:1K",
                                "host_capacity_bytes=1.3K:2K:1K"}) {
            QVERIFY2(std::holds_alternative<InputError>(parseSweepAxis(bad)), bad);
        }
        QVERIFY(parseSweepMetric("p95-queue") == SweepMetric::P95Queue);
        QVERIFY(!parseSweepMetric("fastest"));
    }

    void sameInputEveryModeAndWinners() {
        const auto r = std::get<SweepResult>(runSweep(pressured(), grid(2)));
        QCOMPARE(r.points.size(), std::size_t{5 * 4});
        std::int64_t evictions = 0;
        for (std::size_t i = 0; i < r.points.size(); ++i) {
            const auto& p = r.points[i];
            QCOMPARE(p.results.size(), std::size_t{4});
            double best = 1e300;
            for (const auto& m : p.results) {
                QCOMPARE(m.input_hash, p.input_hash);
                QCOMPARE(m.totals.completed + m.totals.censored, std::int64_t{8});
                best = std::min(best, m.metric);
                evictions += m.totals.evictions;
            }
            std::string winner;
            for (const auto& m : p.results) {
                if (m.metric == best) {
                    if (!winner.empty()) {
                        winner += '=';
                    }
                    winner.append(pl::toString(m.mode));
                }
            }
            QCOMPARE(p.winner, winner);
            const bool rowStart = i % 4 == 0;
            QCOMPARE(p.flip, !rowStart && r.points[i - 1].winner != p.winner);
        }
        QVERIFY2(evictions > 0, "the grid must exercise preemption");
        // A point's hash is the receipt's input_hash of that configuration (policy not included).
        Workload w = pressured();
        QVERIFY(!applyOverride(w, "capacity_blocks", "16"));
        QVERIFY(!applyOverride(w, "transfer_bytes_per_tick", "6144"));
        w.policy.recovery = Recovery::Swap;
        QCOMPARE(r.points[1 * 4 + 1].values, (std::vector<std::string>{"16", "6144"}));
        QCOMPARE(r.points[1 * 4 + 1].input_hash, receiptHashes(w, runWorkload(w)).input_hash);
        // Different configurations hash differently.
        QVERIFY(r.points[0].input_hash != r.points[1].input_hash);
    }

    void deterministicWhateverTheThreads() {
        const auto one = std::get<SweepResult>(runSweep(pressured(), grid(1)));
        const auto two = std::get<SweepResult>(runSweep(pressured(), grid(2)));
        const auto five = std::get<SweepResult>(runSweep(pressured(), grid(5)));
        QCOMPARE(sweepCsv(one), sweepCsv(two));
        QCOMPARE(sweepCsv(one), sweepCsv(five));
        QCOMPARE(sweepJson(one).dump(), sweepJson(two).dump());
        const auto csv = sweepCsv(one);
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), std::ptrdiff_t{1 + 20 * 4});
        QVERIFY(csv.rfind("point,capacity_blocks,transfer_bytes_per_tick,mode,input_hash,", 0) == 0);
    }

    void progressAndModes() {
        auto spec = grid(2);
        spec.modes = {Recovery::Swap, Recovery::Recompute};
        spec.metric = SweepMetric::Ticks;
        std::size_t calls = 0;
        std::size_t last = 0;
        const auto r = std::get<SweepResult>(runSweep(pressured(), spec, [&](std::size_t done, std::size_t total) {
            ++calls;
            QCOMPARE(total, std::size_t{20});
            QVERIFY(done > last);
            last = done;
        }));
        QCOMPARE(calls, std::size_t{20});
        QVERIFY(r.points.front().results.front().mode == Recovery::Swap);
        QCOMPARE(r.points.front().results.front().metric,
                 static_cast<double>(r.points.front().results.front().totals.ticks));
    }

    // The stop flag: set before the sweep, nothing runs; set while it runs (from the progress callback, after
    // the first point), it ends with Cancelled and no result; never set, the same bytes as without a flag.
    void stopFlagCancelsAndUnsetChangesNothing() {
        std::atomic<bool> stop{true};
        std::size_t progressed = 0;
        QVERIFY_THROWS_EXCEPTION(Cancelled, runSweep(pressured(), grid(2), [&](std::size_t, std::size_t) { ++progressed; }, &stop));
        QCOMPARE(progressed, std::size_t{0});
        stop = false;
        progressed = 0;
        QVERIFY_THROWS_EXCEPTION(Cancelled, runSweep(pressured(), grid(1), [&](std::size_t, std::size_t) {
            ++progressed;
            stop = true;
        }, &stop));
        QVERIFY(progressed >= 1 && progressed < 20);
        // Set from another thread while a longer sweep runs (with two workers).
        stop = false;
        SweepSpec big = grid(2);
        big.axes[0] = std::get<SweepAxis>(parseSweepAxis("capacity-blocks=12:2000:4"));
        std::atomic<std::size_t> done{0};
        std::thread canceller([&]() {
            while (done.load() < 3) std::this_thread::yield();
            stop = true;
        });
        bool cancelled = false;
        try {
            runSweep(pressured(), big, [&](std::size_t d, std::size_t) { done = d; }, &stop);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        canceller.join();
        QVERIFY(cancelled);
        QVERIFY(done.load() < 498 * 4);
        // Unset: byte-identical to no flag at all.
        std::atomic<bool> unset{false};
        const auto with = std::get<SweepResult>(runSweep(pressured(), grid(2), {}, &unset));
        const auto without = std::get<SweepResult>(runSweep(pressured(), grid(2)));
        QCOMPARE(sweepCsv(with), sweepCsv(without));
        QCOMPARE(sweepJson(with).dump(), sweepJson(without).dump());
    }

    // The lab opens a point of the map: the base workload with the point's values, as the sweep ran it.
    void pointWorkloadIsWhatTheSweepRan() {
        const auto r = std::get<SweepResult>(runSweep(pressured(), grid(1)));
        const auto& p = r.points[7];
        const auto w = std::get<Workload>(sweepPointWorkload(pressured(), r.spec.axes, p.values));
        QCOMPARE(std::to_string(w.config.capacity_blocks), p.values[0]);
        QCOMPARE(std::to_string(w.config.transfer_bytes_per_tick), p.values[1]);
        Workload run = w;
        run.policy.recovery = r.spec.modes.front();
        QCOMPARE(receiptHashes(run, runWorkload(run)).input_hash, p.input_hash);
        const auto bad = sweepPointWorkload(pressured(), r.spec.axes, {"13", "1024"});
        QVERIFY(std::holds_alternative<InputError>(bad));
        QVERIFY(std::get<InputError>(bad).reason.find("13 is not on the axis") != std::string::npos);
    }

    // The JSON result reads back: the same grid, winners, margins and flips, and the same JSON written again.
    void sweepJsonReadsBack() {
        const auto r = std::get<SweepResult>(runSweep(pressured(), grid(2)));
        const std::string text = sweepJson(r).dump(2) + "\n";
        auto read = parseSweepResult(text, "s.json");
        QVERIFY2(std::holds_alternative<SweepResult>(read), std::get_if<InputError>(&read) ? std::get<InputError>(read).message().c_str() : "");
        const auto& back = std::get<SweepResult>(read);
        QCOMPARE(back.workload_name, r.workload_name);
        QCOMPARE(back.points.size(), r.points.size());
        for (std::size_t i = 0; i < r.points.size(); ++i) {
            QCOMPARE(back.points[i].winner, r.points[i].winner);
            QCOMPARE(back.points[i].flip_axes, r.points[i].flip_axes);
            QCOMPARE(back.points[i].values, r.points[i].values);
        }
        QCOMPARE(sweepJson(back).dump(2) + "\n", text);
        QCOMPARE(sweepCsv(back), sweepCsv(r));
    }

    // Damaged result files: the error names the file, the JSON path and the reason.
    void badSweepJsonNamesFileAndField() {
        const auto r = std::get<SweepResult>(runSweep(pressured(), grid(2)));
        const nlohmann::json good = sweepJson(r);
        const auto errorOf = [](const nlohmann::json& j) {
            auto read = parseSweepResult(j.dump(), "bad.json");
            return std::holds_alternative<InputError>(read) ? std::get<InputError>(read).message() : std::string("read");
        };
        auto j = good;
        j["points"][3]["results"]["swap"]["metric"] = 5;
        QCOMPARE(errorOf(j), std::string("bad.json: /points/3/results/swap/metric: not a string"));
        j = good;
        j["points"][3]["results"]["swap"]["metric"] = "five";
        QVERIFY(errorOf(j).rfind("bad.json: /points/3/results/swap/metric: not a number", 0) == 0);
        j = good;
        j["points"][2]["winner"] = "fastest";
        QVERIFY(errorOf(j).rfind("bad.json: /points/2/winner: ", 0) == 0);
        j = good;
        j["points"][1]["values"]["capacity_blocks"] = "99";
        QVERIFY(errorOf(j).rfind("bad.json: /points/1/values/capacity_blocks: is 99", 0) == 0);
        j = good;
        j["points"].erase(4);
        QVERIFY(errorOf(j).rfind("bad.json: /points: holds 19 points, the grid has 20", 0) == 0);
        j = good;
        j.erase("metric");
        QCOMPARE(errorOf(j), std::string("bad.json: /metric: missing"));
        j = good;
        j["format"] = "preemptlab.sweep-shard.v1";
        QVERIFY(errorOf(j).find("sweep-merge") != std::string::npos);
        auto cut = parseSweepResult(good.dump().substr(0, 200), "cut.json");
        QVERIFY(std::get<InputError>(cut).message().rfind("cut.json: byte ", 0) == 0);
    }

    void badPointsRunNothing() {
        SweepSpec spec;
        spec.axes.push_back(std::get<SweepAxis>(parseSweepAxis("capacity_blocks=4:16:4"))); // 4 blocks cannot fit
        auto r = runSweep(pressured(), spec);
        QVERIFY(std::holds_alternative<InputError>(r));
        QVERIFY(std::get<InputError>(r).reason.find("capacity_blocks=4") != std::string::npos);
        spec.axes = {std::get<SweepAxis>(parseSweepAxis("victim_rule=priority-newest,nonsense"))};
        r = runSweep(pressured(), spec);
        QVERIFY(std::holds_alternative<InputError>(r));
        QVERIFY(std::get<InputError>(r).path.find("victim_rule") != std::string::npos);
        spec.axes = {std::get<SweepAxis>(parseSweepAxis("capacity_blocks=12:100000:1"))};
        spec.max_runs = 1000;
        QVERIFY(std::holds_alternative<InputError>(runSweep(pressured(), spec)));
    }
};

QTEST_APPLESS_MAIN(TestSweep)
#include "test_sweep.moc"
