// The cost commands end to end through preemptlab-cli: breakeven --json, rates, sweep; exit codes and the
// flag named on bad input; sweep output identical for 1 and 2 threads, and no file on bad input; sweep --shard
// and sweep-merge give the unsharded bytes.
#include "tests/cli_runner.h"

#include <QRegularExpression>
#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

pltest::CliRun cli(const QStringList& args) { return pltest::runCli(args); }

const char* kWorkload = R"({
  "format": "preemptlab.workload.v1", "name": "cli-sweep",
  "config": { "block_size_tokens": 8, "capacity_blocks": 16, "kv_bytes_per_token": 512,
              "prefill_tokens_per_tick": 64, "transfer_bytes_per_tick": 16384, "host_capacity_bytes": 1048576,
              "max_ticks": 20000, "wait_threshold_ticks": 50, "preemption_threshold": 3 },
  "requests": [
    { "id": "a", "arrival_tick": 0, "prompt_tokens": 24, "output_tokens": 40, "max_output_tokens": 64 },
    { "id": "b", "arrival_tick": 1, "prompt_tokens": 24, "output_tokens": 40, "max_output_tokens": 64 },
    { "id": "c", "arrival_tick": 2, "prompt_tokens": 24, "output_tokens": 40, "max_output_tokens": 64, "priority": 1 },
    { "id": "d", "arrival_tick": 3, "prompt_tokens": 24, "output_tokens": 40, "max_output_tokens": 64 }
  ]
})";

// kWorkload written as w.json in `dir`; empty when it could not be.
QString writeWorkload(const QTemporaryDir& dir) {
    const QString path = dir.filePath("w.json");
    QFile f(path);
    if (!dir.isValid() || !f.open(QIODevice::WriteOnly) || f.write(kWorkload) < 0) return {};
    return path;
}

} // namespace

class TestCostCli : public QObject {
    Q_OBJECT
  private slots:
    // The text report is written from core's structured rows (pl::cost::costReport, which the lab's break-even
    // table reads too): byte for byte what `breakeven` printed before, pinned from that build's output.
    void breakevenTextIsPinned_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("flags");
        QTest::newRow("default") << "breakeven-default.txt" << QStringList{};
        QTest::newRow("tp2 together") << "breakeven-tp2-together.txt"
                                      << QStringList{"--link-gbps", "4", "--tp", "2", "--kv-layout", "together",
                                                     "--copy-overhead-us", "10", "--model", "llama-3.1-70b"};
        QTest::newRow("batched fp8") << "breakeven-batched-fp8.txt"
                                     << QStringList{"--link-gbps", "50", "--kv-layout", "batched", "--kv-bytes", "fp8",
                                                    "--context", "32768"};
    }
    void breakevenTextIsPinned() {
        QFETCH(QString, file);
        QFETCH(QStringList, flags);
        QFile pinned(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/tests/core/cost/data/") + file);
        QVERIFY2(pinned.open(QIODevice::ReadOnly), qPrintable(pinned.fileName()));
        const auto r = cli(QStringList{"breakeven"} + flags);
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, pinned.readAll());
    }

    void breakevenJson() {
        const auto r = cli({"breakeven", "--link-gbps", "50", "--json"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        for (const char* key : {"kv_bytes_per_token", "swap_us_per_token", "recompute_us_per_token",
                                "breakeven_link_gbps", "breakeven_context_tokens", "effective_link_gbps",
                                "spare_compute_tokens", "verdict"}) {
            QVERIFY2(j.contains(key), key);
        }
        QCOMPARE(j["kv_bytes_per_token"].get<long long>(), 131072LL);
        QVERIFY(j["breakeven_context_tokens"].is_null());
        QCOMPARE(j["verdict"].get<std::string>(), std::string("swap"));
        const auto slow = nlohmann::json::parse(
            cli({"breakeven", "--link-gbps", "4", "--json"}).out.toStdString());
        QCOMPARE(std::llround(slow["breakeven_context_tokens"].get<double>()), 62361LL);
        QCOMPARE(slow["verdict"].get<std::string>(), std::string("recompute"));
        const auto text = cli({"breakeven", "--link-gbps", "50"});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("verdict: swap"));
    }

    // The report's break-even context and the verdict's are one figure (they said 99,535 and "above 99,536").
    void breakevenReportAndVerdictAgree() {
        for (const QStringList& flags : {QStringList{"--link-gbps", "50", "--copy-overhead-us", "10"},
                                         QStringList{"--link-gbps", "50", "--copy-overhead-us", "5"},
                                         QStringList{"--link-gbps", "3"}}) {
            const auto r = cli(QStringList{"breakeven"} + flags);
            QCOMPARE(r.code, 0);
            const QString out = QString::fromUtf8(r.out);
            const auto report = QRegularExpression("break-even context  ([0-9,.]+) tokens").match(out);
            const auto verdict = QRegularExpression("swap wins above ([0-9,.]+) tokens").match(out);
            QVERIFY2(report.hasMatch() && verdict.hasMatch(), qPrintable(out));
            QCOMPARE(verdict.captured(1), report.captured(1));
        }
        QVERIFY(cli({"breakeven", "--link-gbps", "50", "--copy-overhead-us", "10"})
                    .out.contains("break-even context  99,535 tokens"));
        const auto twice = cli({"breakeven", "--json", "--json"});
        QCOMPARE(twice.code, 2);
        QVERIFY2(twice.err.contains("option --json is given twice"), twice.err.constData());
    }

    void badInputNamesTheFlag_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("flag");
        QTest::newRow("kv-heads") << QStringList{"breakeven", "--model", "llama-3.1-8b", "--kv-heads", "64"} << "--kv-heads";
        QTest::newRow("mfu") << QStringList{"breakeven", "--mfu", "abc"} << "--mfu";
        QTest::newRow("gpu") << QStringList{"breakeven", "--gpu", "b200x"} << "--gpu";
        QTest::newRow("custom model") << QStringList{"breakeven", "--layers", "32"} << "--heads";
        QTest::newRow("unknown") << QStringList{"breakeven", "--colour", "red"} << "--colour";
        QTest::newRow("tick") << QStringList{"rates", "--tick-us", "1"} << "--tick-us";
        QTest::newRow("layout") << QStringList{"rates", "--kv-layout", "tiled"} << "--kv-layout";
    }
    void badInputNamesTheFlag() {
        QFETCH(QStringList, args);
        QFETCH(QString, flag);
        const auto r = cli(args);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(flag.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    // Issue 21: `rates --tick-ms` errors named --tick-us and gave the tick in microseconds.
    void ratesTickMsErrorsNameTickMs() {
        const auto tiny = cli({"rates", "--tick-ms", "0.001"});
        QCOMPARE(tiny.code, 2);
        QVERIFY2(tiny.err.contains("--tick-ms: a tick of 0.001 ms prefills less than one token"), tiny.err.constData());
        QVERIFY2(!tiny.err.contains("--tick-us"), tiny.err.constData());
        const auto huge = cli({"rates", "--tick-ms", "1e300"});
        QCOMPARE(huge.code, 2);
        QVERIFY2(huge.err.contains("--tick-ms: out of range: must be a finite number of milliseconds, at most 1e9"),
                 huge.err.constData());
        const auto us = cli({"rates", "--tick-us", "1"});
        QVERIFY2(us.err.contains("--tick-us: a tick of 1 us prefills less than one token"), us.err.constData());
    }

    void ratesFragment() {
        const auto r = cli({"rates", "--link-gbps", "50"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& c = j.at("config");
        // The four rates, capacity_blocks, tick_us (whole microseconds) and the host's swap space (vLLM's 4 GiB per GPU).
        QCOMPARE(c.size(), std::size_t{7});
        QCOMPARE(c["host_capacity_bytes"].get<long long>(), 4294967296LL);
        QVERIFY(c["tick_us"].is_number_integer() && c["tick_us"].get<long long>() >= 1);
        QCOMPARE(c["prefill_tokens_per_tick"].get<long long>(), 286LL);
        QCOMPARE(c["kv_bytes_per_token"].get<long long>(), 131072LL);
        QVERIFY(c["transfer_bytes_per_tick"].is_number_integer());
    }

    void sweepFiles() {
        QTemporaryDir dir;
        const QString wl = writeWorkload(dir);
        QVERIFY(!wl.isEmpty());
        const QStringList base{"sweep", wl, "--vary", "capacity_blocks=12:24:4", "--vary", "watermark-blocks=0:2:1",
                               "--quiet"};
        const auto one = cli(base + QStringList{"--threads", "1", "--out", dir.filePath("one.csv")});
        const auto two = cli(base + QStringList{"--threads", "2", "--out", dir.filePath("two.csv")});
        QCOMPARE(one.code, 0);
        QCOMPARE(two.code, 0);
        QFile a(dir.filePath("one.csv")), b(dir.filePath("two.csv"));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const auto csv = a.readAll();
        QCOMPARE(csv, b.readAll());
        QCOMPARE(csv.count('\n'), 1 + 4 * 3 * 4);
        const auto js = cli(base + QStringList{"--out", dir.filePath("s.json"), "--metric", "p95-queue"});
        QCOMPARE(js.code, 0);
        QFile jf(dir.filePath("s.json"));
        QVERIFY(jf.open(QIODevice::ReadOnly));
        const auto j = nlohmann::json::parse(jf.readAll().toStdString());
        QCOMPARE(j["points"].size(), std::size_t{12});
        QCOMPARE(j["metric"].get<std::string>(), std::string("p95-queue"));
        // Bad input: exit 2, the flag named, no file.
        for (const QStringList& bad :
             {QStringList{"sweep", wl, "--vary", "capacity_blocks=2:4:1", "--out", dir.filePath("bad.csv")},
              QStringList{"sweep", wl, "--vary", "no_such=1:2:1", "--out", dir.filePath("bad.csv")},
              QStringList{"sweep", wl, "--vary", "capacity_blocks=12:16:4", "--modes", "swap,teleport", "--out",
                          dir.filePath("bad.csv")},
              QStringList{"sweep", wl, "--vary", "capacity_blocks=12:16:4", "--out", dir.filePath("bad.txt")}}) {
            const auto r = cli(bad);
            QCOMPARE(r.code, 2);
            QVERIFY(!r.err.isEmpty());
            QVERIFY(!QFile::exists(dir.filePath("bad.csv")) && !QFile::exists(dir.filePath("bad.txt")));
        }
    }

    void shardsMergeThroughTheCli() {
        QTemporaryDir dir;
        const QString wl = writeWorkload(dir);
        QVERIFY(!wl.isEmpty());
        const QStringList base{"sweep", wl, "--vary", "capacity_blocks=12:24:4", "--vary", "watermark-blocks=0:2:1"};
        const auto readAll = [&dir](const QString& name) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        QCOMPARE(cli(base + QStringList{"--quiet", "--out", dir.filePath("whole.csv")}).code, 0);
        QCOMPARE(cli(base + QStringList{"--quiet", "--out", dir.filePath("whole.json")}).code, 0);
        QStringList shards;
        for (int i = 1; i <= 3; ++i) {
            const QString name = dir.filePath(QString("s%1.json").arg(i));
            const auto r = cli(base + QStringList{"--shard", QString("%1/3").arg(i), "--out", name});
            QCOMPARE(r.code, 0);
            QVERIFY2(r.err.contains(QString("shard %1/3: ").arg(i).toUtf8()), r.err.constData()); // progress
            shards << name;
        }
        for (const char* out : {"merged.csv", "merged.json"}) {
            const auto r = cli(QStringList{"sweep-merge"} + shards + QStringList{"--out", dir.filePath(out)});
            QCOMPARE(r.code, 0);
            QVERIFY2(r.err.contains("shards 1-3 of 3 present"), r.err.constData());
        }
        QCOMPARE(readAll("merged.csv"), readAll("whole.csv"));
        QCOMPARE(readAll("merged.json"), readAll("whole.json"));
        // The plan: three shards, every point in one.
        const auto plan = cli(base + QStringList{"--shard-plan", "3"});
        QCOMPARE(plan.code, 0);
        const auto j = nlohmann::json::parse(plan.out.toStdString());
        QCOMPARE(j["shards"].size(), std::size_t{3});
        QCOMPARE(j["points"].get<int>(), 12);
        // A missing shard: exit 2, named, no file.
        const auto missing = cli({"sweep-merge", shards[0], shards[2], "--out", dir.filePath("bad.csv")});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.contains("shard 2 of 3 is missing"), missing.err.constData());
        QVERIFY2(missing.err.contains("shards 1, 3 of 3 present"), missing.err.constData());
        QVERIFY(!QFile::exists(dir.filePath("bad.csv")));
        // A shard is JSON; a bad --shard is named.
        QCOMPARE(cli(base + QStringList{"--shard", "1/3", "--out", dir.filePath("s.csv")}).code, 2);
        const auto bad = cli(base + QStringList{"--shard", "4/3", "--out", dir.filePath("s.json")});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains("--shard"));
        QVERIFY(!QFile::exists(dir.filePath("s.json")) && !QFile::exists(dir.filePath("s.csv")));
    }

    // sweep with SLOs (issue 26): goodput columns and keys, slo-misses, shards of the same SLOs merge to the
    // unsharded bytes, other SLOs are refused, and bad flag combinations name the flag and write nothing.
    void sweepWithSlos() {
        QTemporaryDir dir;
        const QString wl = writeWorkload(dir);
        QVERIFY(!wl.isEmpty());
        const auto readAll = [&dir](const QString& name) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        const QStringList base{"sweep", wl, "--vary", "capacity_blocks=12:24:4", "--vary", "watermark-blocks=0:2:1",
                               "--quiet", "--slo-ttft-ticks", "20", "--slo-tpot-ticks", "2", "--metric", "slo-misses"};
        QCOMPARE(cli(base + QStringList{"--out", dir.filePath("whole.csv")}).code, 0);
        QCOMPARE(cli(base + QStringList{"--out", dir.filePath("whole.json")}).code, 0);
        const QByteArray csv = readAll("whole.csv");
        QVERIFY2(csv.startsWith("point,capacity_blocks,watermark_blocks,mode,") &&
                     csv.contains(",metric_slo-misses,winner,flip,margin,flip_axes,goodput_percent,goodput_good,goodput_requests\n"),
                 csv.left(400).constData());
        const auto j = nlohmann::json::parse(readAll("whole.json").toStdString());
        QCOMPARE(j["slos"], nlohmann::json::parse(R"({"ttft": {"ticks": 20}, "tpot": {"ticks": 2}})"));
        QCOMPARE(j["points"][0]["results"]["swap"]["goodput"]["requests"].get<int>(), 4);
        QStringList shards;
        for (int i = 1; i <= 2; ++i) {
            shards << dir.filePath(QString("s%1.json").arg(i));
            QCOMPARE(cli(base + QStringList{"--shard", QString("%1/2").arg(i), "--out", shards.back()}).code, 0);
        }
        for (const char* out : {"merged.csv", "merged.json"}) {
            QCOMPARE(cli(QStringList{"sweep-merge"} + shards + QStringList{"--out", dir.filePath(out)}).code, 0);
        }
        QCOMPARE(readAll("merged.csv"), csv);
        QCOMPARE(readAll("merged.json"), readAll("whole.json"));
        // A shard of the same grid under another TPOT SLO is another sweep.
        QStringList other = base;
        other[other.indexOf("2")] = "3";
        QCOMPARE(cli(other + QStringList{"--shard", "2/2", "--out", dir.filePath("o2.json")}).code, 0);
        const auto foreign = cli({"sweep-merge", shards[0], dir.filePath("o2.json"), "--out", dir.filePath("bad.csv")});
        QCOMPARE(foreign.code, 2);
        QVERIFY2(foreign.err.contains("/sweep: a shard of another sweep: its SLOs differ"), foreign.err.constData());
        // An SLO in ms with tick_us varied: every point has a tick length.
        QCOMPARE(cli({"sweep", wl, "--vary", "tick_us=1000,2000", "--slo-ttft-ms", "30", "--quiet", "--out",
                      dir.filePath("ms.csv")})
                     .code,
                 0);
        QVERIFY(readAll("ms.csv").contains("goodput_percent"));
        // Bad combinations: exit 2, the flag named, nothing written.
        const QStringList grid{"sweep", wl, "--vary", "capacity_blocks=12:16:4"};
        const std::pair<QStringList, QByteArray> bad[] = {
            {{"--metric", "slo-misses"}, "--metric: slo-misses is the share of requests that miss the SLOs: give --slo-ttft-ms"},
            {{"--slo-ttft-ms", "5"}, "w.json: /config/tick_us: --slo-ttft-ms: the workload has no tick length"},
            {{"--slo-tpot-ms", "5", "--shard", "1/2"}, "--slo-tpot-ms: the workload has no tick length"},
            {{"--slo-ttft-ms", "5", "--slo-ttft-ticks", "3"}, "--slo-ttft-ms and --slo-ttft-ticks both give the ttft SLO"},
            {{"--slo-tpot-ticks", "fast"}, "--slo-tpot-ticks: expected a whole number of ticks"},
            {{"--slo-ttft-ms", "soon", "--vary", "tick_us=1000"}, "--slo-ttft-ms: expected milliseconds"},
        };
        for (const auto& [flags, message] : bad) {
            const QString out = dir.filePath(flags.contains("--shard") ? "bad.json" : "bad.csv");
            const auto r = cli(grid + flags + QStringList{"--out", out});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(message), r.err.constData());
            QVERIFY(!QFile::exists(dir.filePath("bad.csv")) && !QFile::exists(dir.filePath("bad.json")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCostCli)
#include "test_cost_cli.moc"
