// Sweep shards (core/cost/sweep_shards.h): the merge of 1, 2, 3, 7 shards (and more shards than points) is
// byte-identical to the unsharded sweep in CSV and JSON; missing, doubled and foreign shards are refused with
// the reason; damaged shard files give an error naming the file and the field; the assignment is deterministic
// and balanced by estimated cost.
#include "core/cost/sweep_shards.h"

#include "tests/core/cost/sweep_fixtures.h"
#include "core/cost/sweep_output.h"
#include "core/hashing.h"
#include "core/workload_io.h"

#include <QtTest>

#include <algorithm>
#include <numeric>

using namespace pl;
using namespace pl::cost;

namespace {

// A small pool under pressure (sweep_fixtures.h).
Workload pressured() { return pltest::pressuredSweepWorkload("shard-test", true); }

// 5 x 4 = 20 points; with `slos`, TTFT <= 20 ticks and TPOT <= 2 ticks (each result's goodput, issue 26).
SweepSpec grid(SweepMetric metric = SweepMetric::MeanCompletion, bool slos = false) {
    SweepSpec s;
    if (slos) {
        s.slos.ttft = review::Slo{20, review::SloUnit::Ticks};
        s.slos.tpot = review::Slo{2, review::SloUnit::Ticks};
    }
    s.axes.push_back(std::get<SweepAxis>(parseSweepAxis("capacity-blocks=12:28:4")));
    s.axes.push_back(std::get<SweepAxis>(parseSweepAxis("transfer_bytes_per_tick=1024:16384:5120")));
    s.metric = metric;
    s.threads = 2;
    return s;
}

std::string jsonText(const SweepResult& r) { return sweepJson(r).dump(2) + "\n"; }

// Runs every shard of an N-split, writes each to text and reads it back, as the CLI does.
std::vector<SweepShard> shardsThroughText(const Workload& w, const SweepSpec& spec, std::size_t n,
                                          std::vector<std::string>* texts = nullptr) {
    std::vector<SweepShard> out;
    for (std::size_t k = 1; k <= n; ++k) {
        auto run = runSweepShard(w, spec, ShardRef{k, n});
        if (!std::holds_alternative<SweepShard>(run)) {
            qFatal("shard %zu/%zu: %s", k, n, std::get<InputError>(run).message().c_str());
        }
        const std::string text = sweepShardText(std::get<SweepShard>(run));
        if (texts) {
            texts->push_back(text);
        }
        auto back = parseSweepShard(text, std::string("s") + std::to_string(k) + ".json");
        if (!std::holds_alternative<SweepShard>(back)) {
            qFatal("shard %zu/%zu read back: %s", k, n, std::get<InputError>(back).message().c_str());
        }
        out.push_back(std::get<SweepShard>(std::move(back)));
    }
    return out;
}

std::vector<std::string> names(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t k = 1; k <= n; ++k) {
        out.push_back(std::string("s") + std::to_string(k) + ".json");
    }
    return out;
}

std::string mergeError(const std::vector<SweepShard>& shards, const std::vector<std::string>& files) {
    auto merged = mergeSweepShards(shards, files);
    if (!std::holds_alternative<InputError>(merged)) {
        return {};
    }
    return std::get<InputError>(merged).message();
}

} // namespace

class TestSweepShards : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QVERIFY2(!validateWorkload(pressured()), "test workload must validate"); }

    void parsesShardRefs() {
        const auto r = std::get<ShardRef>(parseShardRef("2/7"));
        QCOMPARE(r.index, std::size_t{2});
        QCOMPARE(r.count, std::size_t{7});
        for (const char* bad : {"0/3", "4/3", "3", "/3", "1/", "a/3", "1/0", "1/100001", "-1/3", "1/3/4", "1 /3"}) {
            QVERIFY2(std::holds_alternative<InputError>(parseShardRef(bad)), bad);
        }
    }

    void mergeIsByteIdentical_data() {
        QTest::addColumn<int>("shards");
        QTest::addColumn<bool>("slos");
        for (int n : {1, 2, 3, 7, 20, 33}) { // 33: more shards than the 20 points (some are empty)
            QTest::newRow(std::to_string(n).c_str()) << n << false;
        }
        for (int n : {1, 2, 3, 7}) { // with SLOs: the goodput columns and keys, and slo-misses as the metric
            QTest::newRow((std::to_string(n) + " with SLOs").c_str()) << n << true;
        }
    }
    void mergeIsByteIdentical() {
        QFETCH(int, shards);
        QFETCH(bool, slos);
        const auto n = static_cast<std::size_t>(shards);
        const SweepSpec spec = grid(slos ? SweepMetric::SloMisses : SweepMetric::MeanCompletion, slos);
        const auto whole = std::get<SweepResult>(runSweep(pressured(), spec));
        QCOMPARE(whole.points.size(), std::size_t{20});
        QCOMPARE(sweepCsv(whole).find("goodput_percent") != std::string::npos, slos);
        const auto parts = shardsThroughText(pressured(), spec, n);
        std::size_t points = 0;
        for (const auto& s : parts) {
            points += s.points.size();
        }
        QCOMPARE(points, std::size_t{20});
        // Any order of the files merges the same.
        auto reversed = parts;
        std::reverse(reversed.begin(), reversed.end());
        for (const std::vector<SweepShard>* set : {&parts, static_cast<const std::vector<SweepShard>*>(&reversed)}) {
            auto merged = mergeSweepShards(*set, names(n));
            QVERIFY2(std::holds_alternative<SweepResult>(merged), mergeError(*set, names(n)).c_str());
            const auto& m = std::get<SweepResult>(merged);
            QCOMPARE(sweepCsv(m), sweepCsv(whole));
            QCOMPARE(jsonText(m), jsonText(whole));
        }
    }

    void everyMetricMerges() {
        // Winners and flips are recomputed at the merge: each metric's must be the unsharded one's.
        for (auto metric : {SweepMetric::P95Queue, SweepMetric::Evictions, SweepMetric::SwapBytes}) {
            SweepSpec spec = grid(metric);
            spec.modes = {Recovery::Swap, Recovery::Recompute};
            const auto whole = std::get<SweepResult>(runSweep(pressured(), spec));
            const auto merged = std::get<SweepResult>(mergeSweepShards(shardsThroughText(pressured(), spec, 3), names(3)));
            QCOMPARE(sweepCsv(merged), sweepCsv(whole));
            QCOMPARE(jsonText(merged), jsonText(whole));
        }
    }

    void splitEqualsShardRuns() {
        // splitSweep (the merge benchmark's shard files) writes what the shard runs write.
        auto planned = planSweep(pressured(), grid());
        auto& plan = std::get<SweepPlan>(planned);
        std::vector<std::size_t> all(plan.points.size());
        std::iota(all.begin(), all.end(), std::size_t{0});
        QVERIFY(!runSweepPoints(pressured(), plan, all, {}));
        std::vector<std::string> texts;
        shardsThroughText(pressured(), grid(), 3, &texts);
        const auto split = splitSweep(pressured(), plan, 3);
        QCOMPARE(split.size(), std::size_t{3});
        for (std::size_t k = 0; k < 3; ++k) {
            QCOMPARE(sweepShardText(split[k]), texts[k]);
        }
    }

    void missingShardsAreNamed() {
        auto parts = shardsThroughText(pressured(), grid(), 7);
        auto files = names(7);
        parts.erase(parts.begin() + 4); // shard 5
        files.erase(files.begin() + 4);
        parts.erase(parts.begin() + 1); // shard 2
        files.erase(files.begin() + 1);
        const std::string err = mergeError(parts, files);
        QVERIFY2(err.find("shards 2, 5 of 7 are missing") != std::string::npos, err.c_str());
        const auto one = shardsThroughText(pressured(), grid(), 2);
        const std::string err1 = mergeError({one[1]}, {"b.json"});
        QVERIFY2(err1.find("shard 1 of 2 is missing") != std::string::npos, err1.c_str());
        QVERIFY(!mergeError({}, {}).empty());
    }

    void doubledShardIsRefused() {
        auto parts = shardsThroughText(pressured(), grid(), 3);
        parts.push_back(parts[1]);
        const std::string err = mergeError(parts, {"a.json", "b.json", "c.json", "b-copy.json"});
        QVERIFY2(err.find("b-copy.json") != std::string::npos && err.find("shard 2 of 3 is given twice (also b.json)") !=
                                                                      std::string::npos,
                 err.c_str());
        // A shard of another split of the same sweep.
        auto mixed = shardsThroughText(pressured(), grid(), 3);
        mixed[2] = shardsThroughText(pressured(), grid(), 4)[2];
        const std::string err2 = mergeError(mixed, names(3));
        QVERIFY2(err2.find("s3.json: /shard/count") != std::string::npos, err2.c_str());
    }

    void foreignShardIsRefused() {
        auto parts = shardsThroughText(pressured(), grid(), 2);
        auto other = shardsThroughText(pressured(), grid(SweepMetric::Ticks), 2);
        std::string err = mergeError({parts[0], other[1]}, {"a.json", "b.json"});
        QVERIFY2(err.find("b.json: /sweep: a shard of another sweep: its metric differs") != std::string::npos,
                 err.c_str());
        Workload w = pressured();
        w.requests[3].output_tokens = 41;
        auto changed = shardsThroughText(w, grid(), 2);
        err = mergeError({parts[0], changed[1]}, {"a.json", "b.json"});
        QVERIFY2(err.find("its workload_hash differs") != std::string::npos, err.c_str());
        SweepSpec modes = grid();
        modes.modes = {Recovery::Swap};
        auto fewer = shardsThroughText(pressured(), modes, 2);
        err = mergeError({fewer[0], parts[1]}, {"a.json", "b.json"});
        QVERIFY2(err.find("its modes differ") != std::string::npos || err.find("its modes differs") != std::string::npos,
                 err.c_str());
        // The SLOs are part of the sweep: other SLOs, or none, are another sweep.
        auto withSlos = shardsThroughText(pressured(), grid(SweepMetric::MeanCompletion, true), 2);
        QVERIFY(withSlos[0].id != parts[0].id);
        QVERIFY(withSlos[0].sweep.contains("slos") && !parts[0].sweep.contains("slos"));
        err = mergeError({withSlos[0], parts[1]}, {"a.json", "b.json"});
        QVERIFY2(err.find(R"(b.json: /sweep: a shard of another sweep: its SLOs differ (none here, {"tpot":{"ticks":2},"ttft":{"ticks":20}} there))") !=
                     std::string::npos,
                 err.c_str());
        SweepSpec otherSlos = grid(SweepMetric::MeanCompletion, true);
        otherSlos.slos.tpot = review::Slo{3, review::SloUnit::Ticks};
        auto other3 = shardsThroughText(pressured(), otherSlos, 2);
        err = mergeError({withSlos[0], other3[1]}, {"a.json", "b.json"});
        QVERIFY2(err.find(R"(its SLOs differ ({"tpot":{"ticks":3},"ttft":{"ticks":20}} here, {"tpot":{"ticks":2},"ttft":{"ticks":20}} there))") !=
                     std::string::npos,
                 err.c_str());
        // A shard whose goodput was removed (and rehashed) is refused, naming the field.
        std::vector<std::string> texts;
        shardsThroughText(pressured(), grid(SweepMetric::MeanCompletion, true), 2, &texts);
        auto doc = nlohmann::json::parse(texts[0]);
        doc["points"][0]["results"][1].erase("goodput");
        Sha256 hash;
        for (const auto& pj : doc["points"]) {
            hash.update(pj.dump());
            hash.update("\n");
        }
        doc["shard"]["points_hash"] = hash.finishTagged();
        const auto bad = parseSweepShard(doc.dump(), "g.json");
        QVERIFY(std::holds_alternative<InputError>(bad));
        QCOMPARE(std::get<InputError>(bad).message(), std::string("g.json: /points/0/results/1/goodput: missing"));
    }

    void damagedFilesNameFileAndField() {
        std::vector<std::string> texts;
        shardsThroughText(pressured(), grid(), 2, &texts);
        const std::string& text = texts[0];
        // Truncated anywhere: an error naming the file, never a crash or a shard.
        for (std::size_t cut = 0; cut < text.size(); cut += 37) {
            auto r = parseSweepShard(std::string_view(text).substr(0, cut), "cut.json");
            QVERIFY2(std::holds_alternative<InputError>(r), std::to_string(cut).c_str());
            QVERIFY(std::get<InputError>(r).message().rfind("cut.json: ", 0) == 0);
        }
        const auto errorOf = [](const std::string& t) {
            auto r = parseSweepShard(t, "bad.json");
            return std::holds_alternative<InputError>(r) ? std::get<InputError>(r).message() : std::string();
        };
        const auto replaced = [&text](const std::string& from, const std::string& to) {
            std::string t = text;
            const auto at = t.find(from);
            if (at == std::string::npos) {
                qFatal("no '%s' in the shard file", from.c_str());
            }
            return t.replace(at, from.size(), to);
        };
        // A changed figure: the points no longer match their hash.
        const auto at = text.find("\"evictions\":") + 12;
        std::string flipped = text;
        flipped[at] = flipped[at] == '7' ? '8' : '7';
        QCOMPARE(errorOf(flipped),
                 std::string("bad.json: /shard/points_hash: does not match the points (the file was altered or damaged)"));
        // Mutated anywhere: an error or a shard, never a crash or an exception.
        for (std::size_t pos = 0; pos < text.size(); pos += 17) {
            for (char c : {'9', '"', '{', '-', ']', 'x'}) {
                std::string t = text;
                t[pos] = c;
                auto r = parseSweepShard(t, "m.json");
                QVERIFY(std::holds_alternative<InputError>(r) || std::get<SweepShard>(r).points.size() == 10);
            }
        }
        // Field checks run on a file whose points_hash matches (a writer of another program, a hand edit).
        const auto rehashed = [](const std::string& t) {
            auto doc = nlohmann::json::parse(t);
            Sha256 hash;
            for (const auto& pj : doc["points"]) {
                hash.update(pj.dump());
                hash.update("\n");
            }
            doc["shard"]["points_hash"] = hash.finishTagged();
            return doc.dump();
        };
        QCOMPARE(errorOf(rehashed(replaced("\"ticks\":", "\"ticks\":\"x\",\"was\":"))),
                 std::string("bad.json: /points/0/results/0/totals/ticks: not a whole number"));
        QCOMPARE(errorOf(replaced("\"metric\":\"mean-completion\"", "\"metric\":\"ticks\"")),
                 std::string("bad.json: /sweep/id: does not match the sweep described (the file was altered)"));
        QCOMPARE(errorOf(replaced("preemptlab.sweep-shard.v1", "preemptlab.sweep.v1")),
                 std::string("bad.json: /format: 'preemptlab.sweep.v1' is not preemptlab.sweep-shard.v1"));
        QCOMPARE(errorOf(rehashed(replaced("\"mode\":\"recompute\"", "\"mode\":\"swap\""))),
                 std::string("bad.json: /points/0/results/0/mode: is not recompute, the sweep's mode 1"));
        QVERIFY(errorOf(replaced("\"count\":2,\"index\":1", "\"count\":2,\"index\":3")).find("bad.json: /shard:") == 0);
        QVERIFY(errorOf("[]").find("bad.json: not a JSON object") == 0);
        QVERIFY(errorOf("").find("bad.json: byte") == 0);
        // A point line dropped: the count in the header says so.
        const auto lastLine = text.rfind(",\n{");
        std::string dropped = text.substr(0, lastLine) + "\n]}\n";
        QVERIFY2(errorOf(dropped).find("bad.json: /shard/points: says") == 0, errorOf(dropped).c_str());
    }

    void assignmentIsBalancedAndDeterministic() {
        // A skewed grid: the prefill rate changes a point's estimated cost by up to 64x.
        SweepSpec spec;
        spec.axes.push_back(std::get<SweepAxis>(parseSweepAxis("prefill-tokens-per-tick=1,2,3,4,6,8,16,32,64")));
        spec.axes.push_back(std::get<SweepAxis>(parseSweepAxis("capacity-blocks=16:40:8")));
        Workload w = pressured();
        for (auto& r : w.requests) {
            r.prompt_tokens *= 4;
            r.output_tokens = 4;
            r.max_output_tokens = 4;
        }
        w.config.capacity_blocks = 64;
        QVERIFY(!validateWorkload(w));
        spec.axes[1].values = {"64", "72", "80", "88"};
        auto planned = planSweep(w, spec);
        QVERIFY2(std::holds_alternative<SweepPlan>(planned),
                 std::holds_alternative<InputError>(planned) ? std::get<InputError>(planned).message().c_str() : "");
        const auto& costs = std::get<SweepPlan>(planned).costs;
        QCOMPARE(costs.size(), std::size_t{36});
        const auto [lo, hi] = std::minmax_element(costs.begin(), costs.end());
        QVERIFY2(*hi >= 10 * *lo, "the grid must be skewed");
        const std::int64_t sum = std::accumulate(costs.begin(), costs.end(), std::int64_t{0});
        for (std::size_t n : {2u, 3u, 4u, 7u}) {
            const auto shardOf = assignShards(costs, n);
            QVERIFY(shardOf == assignShards(costs, n));
            std::vector<std::int64_t> load(n, 0);
            for (std::size_t i = 0; i < costs.size(); ++i) {
                QVERIFY(shardOf[i] < n);
                load[shardOf[i]] += costs[i];
            }
            const double mean = static_cast<double>(sum) / static_cast<double>(n);
            const auto maxLoad = static_cast<double>(*std::max_element(load.begin(), load.end()));
            // Longest processing time first: no shard exceeds the mean by more than one point's cost, and here,
            // with many small points, by no more than 15 %.
            QVERIFY2(maxLoad <= mean + static_cast<double>(*hi), std::to_string(n).c_str());
            QVERIFY2(maxLoad <= 1.15 * mean, (std::to_string(n) + std::string(": ") + std::to_string(maxLoad) + " vs mean " +
                                              std::to_string(mean))
                                                 .c_str());
        }
        // Ties go by point index then shard number: equal costs deal out round-robin.
        QVERIFY((assignShards({5, 5, 5, 5, 5}, 2) == std::vector<std::size_t>{0, 1, 0, 1, 0}));
        QVERIFY((assignShards({1, 9, 1}, 5) == std::vector<std::size_t>{1, 0, 2}));
    }
};

QTEST_GUILESS_MAIN(TestSweepShards)
#include "test_sweep_shards.moc"
