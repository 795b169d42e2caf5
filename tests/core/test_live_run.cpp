// Live runs without a device: a fake LiveBackend stands in for the GPU. What a live run adds to a receipt
// ("live") sits beside the simulation: the hashes and every other byte equal the simulated receipt, verify
// ignores it, and the annotations follow the events they measure. Through the CLI binary, `run --live` on a
// machine without a usable device exits 3 with the device error and writes nothing.
#include "tests/core/engine_fixtures.h"

#include "tests/cli_runner.h"
#include "gpu/device_api.h"
#include "gpu/live_backend_core.h"
#include "core/live_backend.h"
#include "core/receipt.h"
#include "core/verify.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace pl;
using namespace pltest;

namespace {

// Records every call; measurements are simple functions of the call so the test can check each one.
class FakeBackend : public LiveBackend {
  public:
    struct Call {
        std::string kind;
        std::int32_t request;
        std::int64_t tokens;
    };
    std::vector<Call> calls;
    std::int64_t kvBytesPerToken = 1;
    std::size_t failAt = static_cast<std::size_t>(-1); // index of the measuring call that fails
    std::string voidError;

    std::string deviceName() const override { return "Fake GPU 0"; }
    void onContextGrown(std::int32_t, std::int64_t) override {}
    LiveMeasurement swapOut(std::int32_t r, std::int64_t t) override { return measure("swap_out", r, t, true); }
    LiveMeasurement swapIn(std::int32_t r, std::int64_t t) override { return measure("swap_in", r, t, true); }
    LiveMeasurement dropAndReplay(std::int32_t r, std::int64_t t) override { return measure("replay", r, t, false); }
    void onFinished(std::int32_t) override {}
    std::string lastError() const override { return voidError; }

  private:
    LiveMeasurement measure(const char* kind, std::int32_t r, std::int64_t t, bool copy) {
        LiveMeasurement m;
        m.measured_us = static_cast<double>(t) * 1.5 + 0.25;
        m.modelled_us = static_cast<double>(t) * 2.0;
        m.bytes_moved = copy ? t * kvBytesPerToken : 0;
        m.tokens_computed = copy ? 0 : t;
        if (calls.size() == failAt) {
            m.ok = false;
            m.error = "cudaErrorIllegalAddress: an illegal memory access was encountered";
        }
        calls.push_back({kind, r, t});
        return m;
    }
};

// The receipt text without its "live" line.
std::string withoutLiveLine(const std::string& text) {
    const auto at = text.find("\n  \"live\": ");
    if (at == std::string::npos) {
        return text;
    }
    const auto end = text.find('\n', at + 1);
    return text.substr(0, at) + text.substr(end);
}

Workload withRecovery(const std::string& sample, Recovery mode) {
    Workload w = loadSample(sample);
    w.policy.recovery = mode;
    return w;
}

} // namespace

class TestLiveRun : public QObject {
    Q_OBJECT

  private slots:
    void liveReceiptKeepsTheSimulation_data();
    void liveReceiptKeepsTheSimulation();
    void verifyIgnoresLiveButNotEvents();
    void failedDeviceCallsAreRecorded();
    void cliWithoutDeviceExits3AndWritesNothing();
    void livePlanNeedsNoDevice();
};

void TestLiveRun::liveReceiptKeepsTheSimulation_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<int>("mode");
    QTest::newRow("swap-wins/swap") << "swap-wins" << static_cast<int>(Recovery::Swap);
    QTest::newRow("swap-wins/hybrid") << "swap-wins" << static_cast<int>(Recovery::Hybrid);
    QTest::newRow("seed-example/recompute") << "seed-example" << static_cast<int>(Recovery::Recompute);
    QTest::newRow("burst-recompute-wave/adaptive") << "burst-recompute-wave" << static_cast<int>(Recovery::Adaptive);
}

void TestLiveRun::liveReceiptKeepsTheSimulation() {
    QFETCH(QString, sample);
    QFETCH(int, mode);
    const Workload w = withRecovery(sample.toStdString(), static_cast<Recovery>(mode));
    FakeBackend fake;
    fake.kvBytesPerToken = w.config.kv_bytes_per_token;
    const RunResult live = runWorkload(w, &fake);
    const RunResult sim = runWorkload(w);
    const std::string liveText = receiptText(w, live);
    const std::string simText = receiptText(w, sim);

    const auto lh = receiptHashes(w, live);
    const auto sh = receiptHashes(w, sim);
    QCOMPARE(lh.event_hash, sh.event_hash);
    QCOMPARE(lh.input_hash, sh.input_hash);
    QCOMPARE(lh.policy_hash, sh.policy_hash);
    QVERIFY(simText.find("\"live\"") == std::string::npos);
    QVERIFY(liveText != simText);
    QVERIFY2(withoutLiveLine(liveText) == simText, "a live receipt differs from the simulated one beyond \"live\"");

    const auto doc = nlohmann::json::parse(liveText);
    QVERIFY(doc["checks"]["conservation"]["passed"].get<bool>());
    const auto& l = doc.at("live");
    QCOMPARE(l.at("device").get<std::string>(), std::string("Fake GPU 0"));
    QVERIFY(!l.contains("error"));
    const auto& anns = l.at("annotations");
    QVERIFY2(!fake.calls.empty(), "the sample must evict so the backend is exercised");
    QCOMPARE(anns.size(), fake.calls.size());
    const auto& events = doc.at("events");
    std::int64_t lastSeq = -1;
    for (std::size_t i = 0; i < anns.size(); ++i) {
        const auto& a = anns[i];
        const auto& call = fake.calls[i];
        const auto seq = a.at("seq").get<std::int64_t>();
        QVERIFY2(seq >= lastSeq, "annotations are ordered by seq");
        lastSeq = seq;
        const auto& ev = events.at(static_cast<std::size_t>(seq));
        QCOMPARE(a.at("kind").get<std::string>(), call.kind);
        QCOMPARE(a.at("request").get<std::string>(), w.requests[static_cast<std::size_t>(call.request)].id);
        QCOMPARE(ev.at("request"), a.at("request"));
        QCOMPARE(a.at("tokens").get<std::int64_t>(), call.tokens);
        QCOMPARE(a.at("measured_us").get<double>(), static_cast<double>(call.tokens) * 1.5 + 0.25);
        QCOMPARE(a.at("modelled_us").get<double>(), static_cast<double>(call.tokens) * 2.0);
        QVERIFY(a.at("ok").get<bool>());
        const std::int64_t kvb = w.config.kv_bytes_per_token;
        if (call.kind == "swap_out") {
            QCOMPARE(ev.at("kind").get<std::string>(), std::string("evict"));
            QCOMPARE(call.tokens * kvb, ev.at("swap_out_bytes").get<std::int64_t>());
            QCOMPARE(a.at("bytes_moved").get<std::int64_t>(), call.tokens * kvb);
        } else if (call.kind == "replay") {
            QCOMPARE(ev.at("kind").get<std::string>(), std::string("evict"));
            // The tokens this eviction dropped (its replay less what it carried from an unfinished one).
            const std::int64_t context = ev.at("context_tokens").get<std::int64_t>();
            const std::string used = ev.at("mode").get<std::string>();
            const std::int64_t kept = used == "swap"     ? context
                                      : used == "hybrid" ? ev.at("swap_blocks").get<std::int64_t>() * w.config.block_size_tokens
                                                         : 0;
            QCOMPARE(call.tokens, context - kept);
            QVERIFY(call.tokens <= ev.at("replay_tokens").get<std::int64_t>());
            QCOMPARE(a.at("tokens_computed").get<std::int64_t>(), call.tokens);
        } else {
            QCOMPARE(call.kind, std::string("swap_in"));
            QCOMPARE(ev.at("kind").get<std::string>(), std::string("resume"));
            QCOMPARE(call.tokens * kvb, ev.at("swap_in_bytes").get<std::int64_t>());
        }
    }
    // Every evict that moved or dropped KV, and every swap resume, has its annotation.
    std::size_t expected = 0;
    for (const auto& ev : events) {
        if (ev["kind"] == "evict") {
            expected += (ev["swap_out_bytes"].get<std::int64_t>() > 0 ? 1u : 0u) +
                        (ev["replay_tokens"].get<std::int64_t>() > 0 ? 1u : 0u);
        } else if (ev["kind"] == "resume" && ev["swap_in_bytes"].get<std::int64_t>() > 0) {
            expected += 1;
        }
    }
    QCOMPARE(anns.size(), expected);
}

void TestLiveRun::verifyIgnoresLiveButNotEvents() {
    const Workload w = withRecovery("swap-wins", Recovery::Swap);
    FakeBackend fake;
    const std::string text = receiptText(w, runWorkload(w, &fake));
    auto ok = verifyReceiptText(text, "live.json");
    QVERIFY(std::holds_alternative<VerifyOutcome>(ok));
    QVERIFY2(std::get<VerifyOutcome>(ok).identical, std::get<VerifyOutcome>(ok).first_difference.c_str());
    QVERIFY(std::get<VerifyOutcome>(ok).conservation_passed);

    // Measurements are not replayable: changing one is not a difference.
    auto doc = nlohmann::json::parse(text);
    doc["live"]["annotations"][0]["measured_us"] = 123456.5;
    auto changedLive = verifyReceipt(doc, "live.json");
    QVERIFY(std::get<VerifyOutcome>(changedLive).identical);

    // An event changed beside a "live" member still is.
    doc["events"][0]["tick"] = 99;
    auto changedEvent = verifyReceipt(doc, "live.json");
    QVERIFY(!std::get<VerifyOutcome>(changedEvent).identical);
    QVERIFY2(std::get<VerifyOutcome>(changedEvent).first_difference.find("/events/0") != std::string::npos,
             std::get<VerifyOutcome>(changedEvent).first_difference.c_str());
}

void TestLiveRun::failedDeviceCallsAreRecorded() {
    const Workload w = withRecovery("swap-wins", Recovery::Swap);
    FakeBackend fake;
    fake.failAt = 1;
    fake.voidError = "cudaMalloc: out of memory";
    const RunResult run = runWorkload(w, &fake);
    QVERIFY(run.live.size() >= 2);
    QVERIFY(run.live[0].ok);
    QVERIFY(!run.live[1].ok);
    const auto doc = nlohmann::json::parse(receiptText(w, run));
    const auto& a = doc["live"]["annotations"][1];
    QVERIFY(!a["ok"].get<bool>());
    QCOMPARE(a["error"].get<std::string>(), std::string("cudaErrorIllegalAddress: an illegal memory access was encountered"));
    QVERIFY(!doc["live"]["annotations"][0].contains("error"));
    QCOMPARE(doc["live"]["error"].get<std::string>(), std::string("cudaMalloc: out of memory"));
    QCOMPARE(receiptHashes(w, run).event_hash, receiptHashes(w, runWorkload(w)).event_hash);
}

void TestLiveRun::cliWithoutDeviceExits3AndWritesNothing() {
    std::string why;
    if (gpu::probeDevice(&why)) {
        QSKIP("a CUDA device is usable here: run --live really runs (scripts/device-check.sh checks it)");
    }
    QTemporaryDir dir;
    const QString out = dir.filePath("live.receipt.json");
    const pltest::CliRun r = pltest::runCli({"run", QString(PREEMPTLAB_SOURCE_DIR) + "/samples/swap-wins.workload.json",
                                             "--recovery", "swap", "--live", "--out", out});
    const QString err = QString::fromUtf8(r.err);
    QCOMPARE(r.code, 3);
    QVERIFY2(err.contains(QString::fromStdString(why)), qPrintable(err + " / expected: " + QString::fromStdString(why)));
    QVERIFY(!QFile::exists(out));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
    QVERIFY(r.out.isEmpty());
}

// live-plan says what run --live would allocate, on any machine: the arena from the workload (larger than the
// pool for shared prefixes, as gpu::sizeLiveRun says), the pinned pool, the weights, the device memory to have
// free; bad input is exit 2.
void TestLiveRun::livePlanNeedsNoDevice() {
    const QString shared = QString(PREEMPTLAB_SOURCE_DIR) + "/samples/generated-bursty-shared-prefix.workload.json";
    const pltest::CliRun r = pltest::runCli({"live-plan", shared});
    QCOMPARE(r.code, 0);
    const QString out = QString::fromUtf8(r.out);
    const Workload w = loadSample("generated-bursty-shared-prefix");
    std::string error;
    const auto plan = gpu::sizeLiveRun(w, gpu::LiveOptions{}, &error);
    QVERIFY2(plan.has_value(), error.c_str());
    QVERIFY(plan->arena.num_blocks > w.config.capacity_blocks);
    QVERIFY2(out.contains(QStringLiteral("arena      %1 blocks of 16 tokens").arg(plan->arena.num_blocks)), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("shared prefixes kept per request")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("GiB of pinned host memory")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("model      llama-3.1-8b: 32 layers, 8 KV heads x 128, bf16 KV")), qPrintable(out));
    // Overrides and --model apply; a bad model or file is exit 2 naming it.
    const QString swapWins = QString(PREEMPTLAB_SOURCE_DIR) + "/samples/swap-wins.workload.json";
    const pltest::CliRun big = pltest::runCli({"live-plan", swapWins, "--model", "llama-3.1-8b", "--capacity-blocks", "4096"});
    QCOMPARE(big.code, 0);
    QVERIFY2(QString::fromUtf8(big.out).contains(QStringLiteral("4096 blocks of 16 tokens, 2097152 B per block: 8.00 GiB")),
             big.out.constData());
    // The device memory to have free: the 8.00 GiB arena, 13.00 GiB of weights and the 1 GiB scratch reserve.
    QVERIFY2(QString::fromUtf8(big.out).contains(QStringLiteral("device     needs 22.00 GiB free")), big.out.constData());
    // Every model the cost model prices: the 70B preset plans as well (about 128 GiB of weights).
    const pltest::CliRun large = pltest::runCli({"live-plan", swapWins, "--model", "llama-3.1-70b"});
    QCOMPARE(large.code, 0);
    QVERIFY2(QString::fromUtf8(large.out).contains(QStringLiteral("127.50 GiB of synthetic bf16 layer weights")),
             large.out.constData());
    const pltest::CliRun bad = pltest::runCli({"live-plan", swapWins, "--model", "gpt-7"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(QString::fromUtf8(bad.err).contains(QStringLiteral("'gpt-7' is not a preset")), bad.err.constData());
    QCOMPARE(pltest::runCli({"live-plan", QStringLiteral("/nonexistent/w.json")}).code, 2);
    // The pinned pool is host_capacity_bytes over the workload's block, each slot a real block: where the capacity
    // holds no whole block (1 MiB against 16 x 131072 B) the one slot planned is explained, not left to look like
    // 2 MiB out of 1 MiB; where the model's block differs from the workload's, the division is shown.
    const QString seed = QString(PREEMPTLAB_SOURCE_DIR) + "/samples/seed-example.workload.json";
    const pltest::CliRun none = pltest::runCli({"live-plan", seed, "--block-size-tokens", "16", "--kv-bytes-per-token",
                                                "131072", "--capacity-blocks", "64"});
    QCOMPARE(none.code, 0);
    QVERIFY2(none.out.contains("host pool  1 slot: 2.00 MiB of pinned host memory\n"
                               "             host_capacity_bytes 1.00 MiB holds no whole block of 2.00 MiB "
                               "(16 tokens x 131072 B): the run\n             swaps nothing out"),
             none.out.constData());
    const pltest::CliRun scaled = pltest::runCli({"live-plan", seed, "--model", "llama-3.1-8b"});
    QVERIFY2(scaled.out.contains("host pool  256 slots: 256.00 MiB of pinned host memory\n"
                                 "             = host_capacity_bytes 1.00 MiB / 4.0 KiB per workload block "
                                 "(8 tokens x 512 B)"),
             scaled.out.constData());
}

QTEST_GUILESS_MAIN(TestLiveRun)
#include "test_live_run.moc"
