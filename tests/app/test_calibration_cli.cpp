// `--calibration FILE --tick-ms MS` end to end through preemptlab-cli (no device needed): the rates derived
// from the committed synthetic calibration are the hand-computed ones, they reach the run (the receipt equals
// one with the same rates given by hand), the adaptive policy follows the measured costs, compare and validate
// take the flags, and every bad input is exit 2 naming the file, the JSON pointer or flag, and the reason,
// with no receipt written.
#include "tests/cli_runner.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <map>

namespace {

pltest::CliRun cli(const QStringList& args) { return pltest::runCli(args); }

const QString kCalibration = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/synthetic.calibration.json");
const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");

// The synthetic calibration with every gather copy `factor` times slower.
QString slowerGather(const QTemporaryDir& dir, double factor) {
    QFile in(kCalibration);
    in.open(QIODevice::ReadOnly);
    auto j = nlohmann::json::parse(in.readAll().toStdString());
    for (auto& s : j["measurements"]["swap"]) {
        if (s["method"] == "gather") s["us"] = s["us"].get<double>() * factor;
    }
    const QString path = dir.filePath(QStringLiteral("slow.calibration.json"));
    QFile out(path);
    out.open(QIODevice::WriteOnly);
    out.write(QByteArray::fromStdString(j.dump()));
    return path;
}

std::map<std::string, int> evictModes(const QByteArray& receipt) {
    std::map<std::string, int> modes;
    const auto doc = nlohmann::json::parse(receipt.toStdString());
    for (const auto& e : doc["events"]) {
        if (e["kind"] == "evict") modes[e["mode"].get<std::string>()] += 1;
    }
    return modes;
}

} // namespace

class TestCalibrationCli : public QObject {
    Q_OBJECT
  private slots:
    // breakeven --calibration: the measured per-token costs and crossings beside the model's. By hand, for a
    // model with 1,048,576 B of KV per token (32 layers x 32 KV heads x 128 x 2 x fp32) at L = 4096 and the
    // gather fits at 16-token blocks (d2h 5 us + bytes / 51.2 GB/s, h2d 6 us + bytes / 25.6 GB/s):
    //   swap  = (11 + 4096 x 1,048,576 x (1/51,200 + 1/25,600)) / 4096 = 61.44 + 11/4096 = 61.44269 us/token
    //   replay = (900 + 30 x 4096 + 0.0005 x 4096^2) / 4096 = 32.26773 us/token
    //   crossings: 0.0005 L^2 + (30 - 61.44) L + (900 - 11) = 0  ->  L = 28.289 and 62,851.7
    void breakevenShowsTheMeasuredCurves() {
        const QStringList model{"--layers", "32", "--heads", "32", "--kv-heads", "32", "--head-dim", "128",
                                "--params", "8e9", "--kv-bytes", "fp32"};
        const auto r = cli(QStringList{"breakeven", "--json", "--calibration", kCalibration} + model);
        QCOMPARE(r.code, 0);
        const auto m = nlohmann::json::parse(r.out.toStdString()).at("measured");
        QCOMPARE(m.at("kv_bytes_per_token").get<std::int64_t>(), 1048576);
        QVERIFY(qAbs(m.at("swap_us_per_token").get<double>() - (61.44 + 11.0 / 4096)) < 1e-9);
        QVERIFY(qAbs(m.at("recompute_us_per_token").get<double>() - (900.0 + 30 * 4096 + 0.0005 * 4096 * 4096) / 4096) <
                1e-9);
        const auto roots = m.at("breakeven_context_tokens").get<std::vector<double>>();
        QCOMPARE(roots.size(), std::size_t{2});
        QVERIFY2(qAbs(roots[0] - 28.2888) < 1e-3 && qAbs(roots[1] - 62851.711) < 1e-2, r.out.constData());
        const auto text = cli(QStringList{"breakeven", "--calibration", kCalibration} + model);
        QVERIFY2(text.out.contains("cheaper here        recompute") && text.out.contains("28 and 62,852 tokens"),
                 text.out.constData());
        // The synthetic file at Llama 3.1 8B: swap is cheaper at every length.
        const auto llama = cli({"breakeven", "--calibration", kCalibration});
        QVERIFY2(llama.out.contains("none: the measured curves never cross"), llama.out.constData());
    }

    // rates --calibration: the config fragment's two rates are the measured ones (same arithmetic as run's:
    // L = 1000, 131,072 B per token, 10 ms: floor(1e4 x 2 x 131,072,000 / (2565 + 5126)) and 318).
    void ratesTakeTheMeasuredRates() {
        const auto r = cli({"rates", "--calibration", kCalibration, "--tick-us", "10000", "--context", "1000"});
        QCOMPARE(r.code, 0);
        const auto config = nlohmann::json::parse(r.out.toStdString()).at("config");
        QCOMPARE(config.at("transfer_bytes_per_tick").get<std::int64_t>(), 340845143);
        QCOMPARE(config.at("prefill_tokens_per_tick").get<std::int64_t>(), 318);
        QVERIFY(r.err.contains("transfer_bytes_per_tick = 340845143"));
        const auto plain = cli({"rates", "--tick-us", "10000", "--context", "1000"});
        QVERIFY(nlohmann::json::parse(plain.out.toStdString()).at("config").at("prefill_tokens_per_tick") != 318);
    }

    void costCommandsRefuseBadCalibrationFlags() {
        for (const char* command : {"breakeven", "rates"}) {
            const auto lone = cli({command, "--swap-method", "gather"});
            QCOMPARE(lone.code, 2);
            QVERIFY2(lone.err.contains("--swap-method: only with --calibration FILE"), lone.err.constData());
            const auto size = cli({command, "--calibration", kCalibration, "--block-size", "64"});
            QCOMPARE(size.code, 2);
            QVERIFY2(size.err.contains("--block-size: the calibration has no gather swap fit"), size.err.constData());
            const auto missing = cli({command, "--calibration", "/nonexistent/c.json"});
            QCOMPARE(missing.code, 2);
            QVERIFY2(missing.err.contains("/nonexistent/c.json"), missing.err.constData());
            QVERIFY(missing.out.isEmpty());
        }
    }

    void derivedRatesFeedTheRun() {
        // By hand (gather at 8-token blocks: out 5 us + bytes / 51.2 GB/s, in 6 us + bytes / 25.6 GB/s; prefill
        // 900 + 30 T + 0.0005 T^2 us), seed-example's 512 B per token, L = 1000, 10 ms ticks:
        //   C = 512,000 B; out 5 + 10 = 15 us; in 6 + 20 = 26 us; floor(10,000 x 1,024,000 / 41) = 249,756,097
        //   p(1000) = 900 + 30,000 + 500 = 31,400 us; floor(10,000 x 1000 / 31,400) = 318
        const auto r = cli({"run", kSeed, "--calibration", kCalibration, "--tick-ms", "10", "--calibration-context",
                            "1000", "--recovery", "adaptive"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains("transfer_bytes_per_tick = 249756097 = floor("), r.err.constData());
        QVERIFY(r.err.contains("prefill_tokens_per_tick = 318 = floor("));
        QVERIFY(r.err.contains("SYNTHETIC - not a measurement"));
        QVERIFY(r.err.contains("d2h 5.000 us + bytes / 51.200 GB/s"));
        const auto config = nlohmann::json::parse(r.out.toStdString())["workload"]["config"];
        QCOMPARE(config["transfer_bytes_per_tick"].get<long long>(), 249756097LL);
        QCOMPARE(config["prefill_tokens_per_tick"].get<long long>(), 318LL);
        // --tick-ms 10 is the workload's tick length too: config.tick_us 10000 (its latencies read in ms).
        QCOMPARE(config["tick_us"].get<long long>(), 10000LL);
        const auto byHand = cli({"run", kSeed, "--transfer-bytes-per-tick", "249756097", "--prefill-tokens-per-tick",
                                 "318", "--tick-us", "10000", "--recovery", "adaptive"});
        QCOMPARE(byHand.code, 0);
        QCOMPARE(r.out, byHand.out); // byte-identical receipts
        // Deterministic: the same flags give the same bytes.
        QCOMPARE(cli({"run", kSeed, "--calibration", kCalibration, "--tick-ms", "10", "--calibration-context", "1000",
                      "--recovery", "adaptive"}).out,
                 r.out);
        // The default victim length is the workload's mean prompt + output, rounded down:
        // (48+40 + 16+56 + 24+12) / 3 = 65.3.
        const auto dflt = cli({"validate", kSeed, "--calibration", kCalibration, "--tick-ms", "10"});
        QCOMPARE(dflt.code, 0);
        QVERIFY2(dflt.err.contains("victim length L = 65 tokens"), dflt.err.constData());
    }

    void adaptiveFollowsTheMeasuredCosts() {
        QTemporaryDir dir;
        const auto fast = cli({"run", kSwapWins, "--recovery", "adaptive", "--calibration", kCalibration, "--tick-ms", "1"});
        QCOMPARE(fast.code, 0);
        auto fastModes = evictModes(fast.out);
        QVERIFY(fastModes.at("swap") > 10 * fastModes["recompute"]);
        // The same device with gather copies a thousand times slower: the policy recomputes instead.
        const auto slow = cli({"run", kSwapWins, "--recovery", "adaptive", "--calibration", slowerGather(dir, 1000.0),
                               "--tick-ms", "1"});
        QCOMPARE(slow.code, 0);
        const auto slowModes = evictModes(slow.out);
        QVERIFY(slowModes.at("recompute") > 0);
        QCOMPARE(slowModes.count("swap"), std::size_t{0});
        QVERIFY(slow.err.contains("transfer_bytes_per_tick = 15813 "));
    }

    void compareTakesTheCalibration() {
        QTemporaryDir dir;
        const auto c = cli({"compare", kSeed, "--calibration", kCalibration, "--tick-ms", "10", "--receipts", dir.path()});
        QCOMPARE(c.code, 0);
        QVERIFY(c.err.contains("transfer_bytes_per_tick = "));
        QFile adaptive(dir.filePath(QStringLiteral("adaptive.receipt.json")));
        QVERIFY(adaptive.open(QIODevice::ReadOnly));
        const auto run = cli({"run", kSeed, "--recovery", "adaptive", "--calibration", kCalibration, "--tick-ms", "10"});
        QCOMPARE(adaptive.readAll(), run.out);
    }

    void badInputIsExit2WithNoReceipt() {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("receipt.json"));
        QFile bad(dir.filePath(QStringLiteral("bad.calibration.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        QFile good(kCalibration);
        QVERIFY(good.open(QIODevice::ReadOnly));
        auto j = nlohmann::json::parse(good.readAll().toStdString());
        j["measurements"]["prefill"][2]["us"] = "fast";
        bad.write(QByteArray::fromStdString(j.dump()));
        bad.close();
        const struct {
            QStringList args;
            QString expected;
        } cases[] = {
            {{"--calibration", bad.fileName(), "--tick-ms", "10"},
             bad.fileName() + QStringLiteral(": /measurements/prefill/2/us: must be a number")},
            {{"--calibration", kCalibration}, QStringLiteral("--calibration needs --tick-ms MS")},
            {{"--tick-ms", "10"}, QStringLiteral("--tick-ms: only with --calibration FILE")},
            {{"--calibration", kCalibration, "--tick-ms", "-1"}, QStringLiteral("--tick-ms: expected milliseconds above 0")},
            {{"--calibration", kCalibration, "--tick-ms", "10", "--transfer-bytes-per-tick", "5"},
             QStringLiteral("--transfer-bytes-per-tick: --calibration derives it")},
            {{"--calibration", kCalibration, "--tick-ms", "10", "--swap-method", "memcpy"},
             QStringLiteral("--swap-method: must be per-block, batched or gather")},
            {{"--calibration", kCalibration, "--tick-ms", "1e-9"}, QStringLiteral("--tick-ms: a tick of 1e-09 ms")},
            {{"--calibration", kCalibration, "--tick-ms", "10", "--block-size-tokens", "32", "--capacity-blocks", "64"},
             kSeed + QStringLiteral(": /config/block_size_tokens: the calibration has no gather swap fit")},
            {{"--calibration", dir.filePath(QStringLiteral("absent.json")), "--tick-ms", "10"},
             dir.filePath(QStringLiteral("absent.json")) + QStringLiteral(": cannot open: No such file or directory")},
        };
        for (const auto& c : cases) {
            const auto r = cli(QStringList{"run", kSeed, "--out", out} + c.args);
            QCOMPARE(r.code, 2);
            QVERIFY2(QString::fromUtf8(r.err).contains(c.expected), r.err.constData());
            QVERIFY(!QFile::exists(out));
        }
    }
};

QTEST_GUILESS_MAIN(TestCalibrationCli)
#include "test_calibration_cli.moc"
