// import-trace and generate end to end through preemptlab-cli: exit codes, "file, line, column" messages,
// nothing written on bad input, the written workload re-read by the strict reader, byte-identical reruns.
#include "tests/cli_runner.h"
#include "core/workload_io.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace {

pltest::CliRun cli(const QStringList& args) { return pltest::runCli(args); }

QString writeTemp(const QTemporaryDir& dir, const char* name, const std::string& text) {
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString(), std::ios::binary) << text;
    return path;
}

std::string slurp(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

class TestTraceCli : public QObject {
    Q_OBJECT
  private slots:
    void brokenRowWritesNothing() {
        QTemporaryDir dir;
        const QString csv = writeTemp(dir, "t.csv",
                                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:15:46.6805900,374,44\n"
                                      "2023-11-16 18:15:47.0000000,37x4,44\n");
        const QString out = dir.filePath("out.workload.json");
        const auto r = cli({"import-trace", "--format", "azure", csv, "--out", out, "--capacity-blocks", "1000"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("t.csv: line 3, column 29: ContextTokens"), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).size() == 1); // no temporary left behind
    }

    void badFlagsAndOversized() {
        QTemporaryDir dir;
        const QString csv = writeTemp(dir, "t.csv",
                                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:15:46.6805900,374,44\n"
                                      "2023-11-16 18:15:47.0000000,3000,44\n");
        const QString out = dir.filePath("o.json");
        auto r = cli({"import-trace", "--format", "azure", csv, "--out", out, "--capacity-blocks", "100"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("t.csv: line 3: request needs 381 blocks"), qPrintable(r.err));
        r = cli({"import-trace", "--format", "azure", csv, "--out", out, "--capacity-blocks", "100",
                 "--skip-oversized"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains("1 skipped as oversized"), qPrintable(r.err));
        QFile::remove(out);
        for (const QStringList& bad : {QStringList{"--tick-ms", "0"}, QStringList{"--rate-scale", "-1"},
                                       QStringList{"--no-such-flag", "1"}, QStringList{"--capacity-blocks", "x"}}) {
            r = cli(QStringList{"import-trace", "--format", "azure", csv, "--out", out} + bad);
            QCOMPARE(r.code, 2);
            QVERIFY(!QFile::exists(out));
        }
    }

    // Issue 21: values too large for the exact parsers were called badly formatted; they are out of range, and
    // the message gives the limit.
    void tooLargeValuesAreOutOfRange_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("words");
        QTest::newRow("tick-ms") << QStringList{"--tick-ms", "1e300"}
                                 << "--tick-ms '1e300': out of range: at most 9007199254740.991";
        QTest::newRow("rate-scale") << QStringList{"--rate-scale", "1e18"}
                                    << "--rate-scale '1e18': out of range: at most 9007199254740991 (2^53-1)";
        QTest::newRow("spread") << QStringList{"--format", "mooncake", "--spread", "9223372036854775807"}
                                << "--spread '9223372036854775807': out of range: at most 9007199254740.991 ms";
        QTest::newRow("limit") << QStringList{"--limit", "99999999999999999999"}
                               << "--limit '99999999999999999999': out of range: at most 2^53-1";
        QTest::newRow("still badly formatted") << QStringList{"--tick-ms", "12abc"}
                                               << "--tick-ms '12abc': expected a non-negative decimal number";
    }
    void tooLargeValuesAreOutOfRange() {
        QFETCH(QStringList, flags);
        QFETCH(QString, words);
        QTemporaryDir dir;
        const QString csv = writeTemp(dir, "t.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n");
        QStringList args = {"import-trace", csv, "--out", dir.filePath("o.json")};
        if (!flags.contains("--format")) args += QStringList{"--format", "azure"};
        const auto r = cli(args + flags);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(words.toUtf8()), qPrintable(r.err));
    }

    void hugeGeneratorValuesAreOutOfRange() {
        QTemporaryDir dir;
        const QString out = dir.filePath("g.json");
        auto r = cli({"generate", "--priority-mix", "0:1,1:99999999999999999999", "--out", out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--priority-mix '0:1,1:99999999999999999999': weight 99999999999999999999 is out of "
                                "range: at most 2^53-1"),
                 qPrintable(r.err));
        r = cli({"generate", "--rate", "1e999", "--out", out});
        QVERIFY2(r.err.contains("--rate '1e999': out of range"), qPrintable(r.err));
        r = cli({"generate", "--model", "llama-3.1-8b", "--tick-ms", "1e300", "--out", out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--tick-ms '1e300': out of range: at most 9007199254740.991"), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
    }

    // Issue 21: --skip-oversized that skipped every request said only "the slice holds no requests".
    void skippingEverythingSaysSo() {
        QTemporaryDir dir;
        const QString csv = writeTemp(dir, "t.csv",
                                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:15:46.6805900,3000,44\n"
                                      "2023-11-16 18:15:47.0000000,3000,44\n");
        const auto r = cli({"import-trace", "--format", "azure", csv, "--out", dir.filePath("o.json"),
                            "--capacity-blocks", "100", "--skip-oversized"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("all 2 requests in the slice were skipped as oversized (--skip-oversized): each needs "
                                "more than capacity_blocks 100"),
                 qPrintable(r.err));
    }

    // A request arriving at or after max_ticks would be censored without ever arriving: import-trace and generate
    // refuse to write one, naming --max-ticks and how to take fewer requests; validate refuses a file holding one,
    // naming the file, the request's arrival_tick and max_ticks.
    void lateArrivalsAreRefused() {
        QTemporaryDir dir;
        const QString csv = writeTemp(dir, "t.csv",
                                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:15:46.0000000,374,44\n"
                                      "2023-11-16 18:15:47.0000000,300,44\n"
                                      "2023-11-16 18:15:48.0000000,300,44\n");
        const QString out = dir.filePath("o.json");
        const QStringList import = {"import-trace", "--format", "azure", csv, "--out", out, "--capacity-blocks", "100"};
        auto r = cli(import + QStringList{"--max-ticks", "60"}); // 20 ms ticks: arrivals 0, 50, 100
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("1 of 3 requests arrive at or after --max-ticks 60 (last arrival tick 100) and would "
                                "never run; raise --max-ticks above 100 or take fewer with --limit N"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
        QCOMPARE(cli(import + QStringList{"--max-ticks", "101"}).code, 0);
        r = cli({"validate", out, "--max-ticks", "100"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains((out + " (after command-line overrides): /requests/2/arrival_tick: is 100, at or after "
                                      "max_ticks (100)").toUtf8()),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("raise max_ticks above the last arrival (--max-ticks)"), qPrintable(r.err));
        r = cli({"generate", "--count", "50", "--max-ticks", "20", "--out", dir.filePath("g.json")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("requests arrive at or after --max-ticks 20") && r.err.contains("--count"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("g.json")));
    }

    // --model/--gpu imply a host that can swap: vLLM's --swap-space default, 4 GiB per GPU (the workload default,
    // 1 MiB, holds 8 tokens of llama-3.1-8b's KV, less than a block, so every swap fell back to recompute); an
    // explicit --host-capacity-bytes still wins; without a model the default stays the seed example's 1 MiB.
    void aModelImpliesASwapSpace() {
        QTemporaryDir dir;
        const QString csv = writeTemp(dir, "t.csv",
                                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:15:46.0000000,374,44\n");
        const QStringList model = {"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--capacity-blocks", "1000"};
        const auto hostOf = [&](const char* name) {
            return nlohmann::json::parse(slurp(dir.filePath(name)))["config"]["host_capacity_bytes"].get<long long>();
        };
        auto r = cli(QStringList{"import-trace", "--format", "azure", csv, "--out", dir.filePath("a.json")} + model);
        QCOMPARE(r.code, 0);
        QCOMPARE(hostOf("a.json"), 4294967296LL);
        QVERIFY2(!r.err.contains("host_capacity_bytes"), r.err.constData()); // not "left at the default" any more
        r = cli(QStringList{"import-trace", "--format", "azure", csv, "--out", dir.filePath("b.json"),
                            "--host-capacity-bytes", "1073741824"} + model);
        QCOMPARE(r.code, 0);
        QCOMPARE(hostOf("b.json"), 1073741824LL);
        r = cli({"import-trace", "--format", "azure", csv, "--out", dir.filePath("c.json"), "--capacity-blocks", "100"});
        QCOMPARE(r.code, 0);
        QCOMPARE(hostOf("c.json"), 1048576LL);
        r = cli({"generate", "--count", "5", "--model", "llama-3.1-8b", "--capacity-blocks", "1000", "--out",
                 dir.filePath("g.json")});
        QCOMPARE(r.code, 0);
        QCOMPARE(hostOf("g.json"), 4294967296LL);
    }

    // import-trace's config defaults are the seed example's tiny machine: --help says so, stderr names the keys a
    // run left there, and --model/--gpu fill the machine from the cost model's rates (what `rates` prints at the
    // same tick), explicit flags still winning. `rates` takes the tick as --tick-ms too.
    void machineFromRates() {
        QTemporaryDir dir;
        const QString csv = writeTemp(dir, "t.csv",
                                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:15:46.0000000,374,44\n");
        const auto help = cli({"import-trace", "--help"});
        QVERIFY2(help.out.contains("config defaults (without --model/--gpu: the seed example's small machine") &&
                     help.out.contains("block_size_tokens 8, capacity_blocks 16, kv_bytes_per_token 512,") &&
                     help.out.contains("prefill_tokens_per_tick 64, transfer_bytes_per_tick 16384, "
                                       "host_capacity_bytes 1048576"),
                 help.out.constData());
        const QString plain = dir.filePath("plain.json");
        auto r = cli({"import-trace", "--format", "azure", csv, "--out", plain, "--capacity-blocks", "100"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains("note: config left at the defaults (the seed example's small machine): "
                                "block_size_tokens 8, kv_bytes_per_token 512, prefill_tokens_per_tick 64, "
                                "transfer_bytes_per_tick 16384, host_capacity_bytes 1048576"),
                 r.err.constData());
        QVERIFY(!r.err.contains("capacity_blocks 16"));
        const auto rates = cli({"rates", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tick-ms", "10"});
        QCOMPARE(rates.code, 0);
        QCOMPARE(rates.out, cli({"rates", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tick-us", "10000"}).out);
        const auto fragment = nlohmann::json::parse(rates.out.toStdString())["config"];
        const QString fromRates = dir.filePath("rates.json");
        r = cli({"import-trace", "--format", "azure", csv, "--out", fromRates, "--model", "llama-3.1-8b", "--gpu",
                 "h100-sxm", "--tick-ms", "10", "--capacity-blocks", "1000"});
        QCOMPARE(r.code, 0);
        QVERIFY2(!r.err.contains("block_size_tokens") && !r.err.contains("host_capacity_bytes"), r.err.constData());
        const auto config = nlohmann::json::parse(slurp(fromRates))["config"];
        for (const char* key : {"block_size_tokens", "kv_bytes_per_token", "prefill_tokens_per_tick",
                                "transfer_bytes_per_tick"}) {
            QCOMPARE(config[key], fragment[key]);
        }
        QCOMPARE(config["capacity_blocks"].get<int>(), 1000); // the flag wins over the rates' 26,674
        // The tick the trace was converted at is the workload's tick_us (10 ms here, 20 ms by default), as in the
        // rates fragment.
        QCOMPARE(config["tick_us"].get<int>(), 10000);
        QCOMPARE(fragment["tick_us"].get<int>(), 10000);
        QCOMPARE(nlohmann::json::parse(slurp(plain))["config"]["tick_us"].get<int>(), 20000);
        r = cli({"generate", "--tick-ms", "10", "--out", dir.filePath("g.json")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--tick-ms sets the tick that --model/--gpu rates are computed at"),
                 r.err.constData());
        r = cli({"generate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tick-ms", "10", "--out",
                 dir.filePath("g.json")});
        QCOMPARE(r.code, 0);
        QCOMPARE(nlohmann::json::parse(slurp(dir.filePath("g.json")))["config"]["prefill_tokens_per_tick"],
                 fragment["prefill_tokens_per_tick"]);
        QCOMPARE(nlohmann::json::parse(slurp(dir.filePath("g.json")))["config"]["tick_us"].get<int>(), 10000);
        // Without --tick-ms, generate does not know the tick: no tick_us.
        r = cli({"generate", "--out", dir.filePath("g2.json")});
        QCOMPARE(r.code, 0);
        QVERIFY(!nlohmann::json::parse(slurp(dir.filePath("g2.json")))["config"].contains("tick_us"));
    }

    void importedWorkloadRereadsAndIsDeterministic() {
        const QString trace = "/work/shared/data/traces/mooncake_conversation_trace.jsonl";
        if (!QFile::exists(trace)) {
            QSKIP("the public traces are not on this machine");
        }
        QTemporaryDir dir;
        const QStringList args = {"import-trace", "--format", "mooncake", trace, "--start", "30", "--limit",
                                  "50", "--spread", "auto", "--block-size-tokens", "64", "--capacity-blocks",
                                  "4096", "--recovery", "swap"};
        QCOMPARE(cli(args + QStringList{"--out", dir.filePath("a.json")}).code, 0);
        QCOMPARE(cli(args + QStringList{"--out", dir.filePath("b.json")}).code, 0);
        const std::string a = slurp(dir.filePath("a.json"));
        QVERIFY(!a.empty());
        auto w = pl::parseWorkload(a, "a.json");
        if (const auto* e = std::get_if<pl::InputError>(&w)) {
            QFAIL(e->message().c_str());
        }
        const auto& workload = std::get<pl::Workload>(w);
        QCOMPARE(workload.requests.size(), std::size_t{50});
        QVERIFY(workload.policy.recovery == pl::Recovery::Swap);
        QVERIFY(!workload.requests.front().prefix_blocks.empty());
        // The notes differ only in the --out path; everything else is byte-identical.
        const std::string b = slurp(dir.filePath("b.json"));
        QCOMPARE(a.size(), b.size());
        QCOMPARE(a.substr(a.find("\"policy\"")), b.substr(b.find("\"policy\"")));
    }

    void generateIsSeeded() {
        QTemporaryDir dir;
        const QStringList args = {"generate", "--seed", "7", "--count", "100", "--arrivals", "gamma",
                                  "--tenant-mix", "a:1,b:1", "--prefix-groups", "2", "--prefix-tokens", "64",
                                  "--prefix-share", "50"};
        QCOMPARE(cli(args + QStringList{"--out", dir.filePath("a.json")}).code, 0);
        QCOMPARE(cli(args + QStringList{"--out", dir.filePath("b.json")}).code, 0);
        const std::string a = slurp(dir.filePath("a.json"));
        const std::string b = slurp(dir.filePath("b.json"));
        QCOMPARE(a.substr(a.find("\"policy\"")), b.substr(b.find("\"policy\"")));
        QVERIFY(std::holds_alternative<pl::Workload>(pl::parseWorkload(a, "a.json")));
        const auto bad = cli({"generate", "--out", dir.filePath("c.json"), "--rate", "abc"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains("--rate"));
        QVERIFY(!QFile::exists(dir.filePath("c.json")));
    }
};

QTEST_GUILESS_MAIN(TestTraceCli)
#include "test_trace_cli.moc"
