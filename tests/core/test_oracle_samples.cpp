// Every sample runs through the engine under every recovery mode, and the small teaching samples (at most
// kGridRequests requests) also under every victim rule, resume guard and preempt-ahead setting; every receipt
// passes the independent conservation oracle. The sweep must actually exercise
// what the oracle checks (evictions of every mode, swap copies, replays, fallbacks, censoring), and a real
// receipt with one byte of restore traffic removed must fail.
#include "tests/core/sanitizer_scale.h"
#include "core/engine.h"
#include "core/oracle.h"
#include "core/receipt.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <QtTest>

#include <map>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

QStringList samplePaths() {
    QDir dir(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples"));
    QStringList paths;
    for (const QString& name : dir.entryList({"*.workload.json"}, QDir::Files, QDir::Name)) {
        paths << dir.filePath(name);
    }
    return paths;
}

pl::Workload load(const QString& path) {
    auto result = pl::loadWorkloadFile(path.toStdString());
    if (auto* e = std::get_if<pl::InputError>(&result)) {
        qFatal("%s", e->message().c_str());
    }
    return std::get<pl::Workload>(std::move(result));
}

json receiptOf(const pl::Workload& w) { return json::parse(pl::receiptText(w, pl::runWorkload(w))); }

// Larger samples (trace slices) run the four recovery modes with their own policy otherwise: the full grid of
// 196 policies on each would take minutes in a debug build.
constexpr std::size_t kGridRequests = 50;

} // namespace

class TestOracleSamples : public QObject {
    Q_OBJECT
  private slots:
    void everySamplePassesUnderEveryPolicy();
    void realReceiptMutationsFail();
};

void TestOracleSamples::everySamplePassesUnderEveryPolicy() {
    const QStringList paths = samplePaths();
    QVERIFY2(paths.size() >= 5, qPrintable(QString("only %1 samples found").arg(paths.size())));
    std::map<std::string, std::int64_t> seen; // what the sweep exercised
    int runs = 0;
    const int scale = pltest::sanitizerScale();
    int sampleIndex = 0;
    for (const QString& path : paths) {
        ++sampleIndex;
        int combination = 0;
        const pl::Workload base = load(path);
        const bool grid = base.requests.size() <= kGridRequests;
        const std::string ownRule(pl::toString(base.policy.victim_rule));
        const std::string ownGuard(pl::toString(base.policy.resume_guard));
        const std::string ownAhead = base.policy.preempt_ahead ? "true" : "false";
        const std::vector<std::string> rules = grid ? std::vector<std::string>(pl::allVictimRules().begin(), pl::allVictimRules().end())
                                                    : std::vector<std::string>{ownRule};
        const std::vector<std::string> guards = grid ? std::vector<std::string>{"full-reservation", "next-block"}
                                                     : std::vector<std::string>{ownGuard};
        const std::vector<std::string> aheads = grid ? std::vector<std::string>{"false", "true"}
                                                     : std::vector<std::string>{ownAhead};
        for (auto recovery : pl::allRecoveries()) {
            for (const auto& rule : rules) {
                for (const auto& guard : guards) {
                    for (const auto& ahead : aheads) {
                        // Under sanitizers, 1 grid combination in `scale`, rotating with the sample index.
                        if (grid && (combination++ + sampleIndex) % scale != 0) {
                            continue;
                        }
                        pl::Workload w = base;
                        QVERIFY(!pl::applyOverride(w, "recovery", recovery));
                        QVERIFY(!pl::applyOverride(w, "victim_rule", rule));
                        QVERIFY(!pl::applyOverride(w, "resume_guard", guard));
                        QVERIFY(!pl::applyOverride(w, "preempt_ahead", ahead));
                        if (pl::validateWorkload(w)) {
                            continue;
                        }
                        const json receipt = receiptOf(w);
                        const pl::OracleReport report = pl::checkReceipt(receipt);
                        ++runs;
                        if (!report.passed) {
                            QFAIL(qPrintable(QString("%1 recovery=%2 rule=%3 guard=%4 ahead=%5: %6")
                                                 .arg(path, QString::fromUtf8(recovery.data(), qsizetype(recovery.size())),
                                                      QString::fromStdString(rule), QString::fromStdString(guard),
                                                      QString::fromStdString(ahead),
                                                      QString::fromStdString(report.violations.front()))));
                        }
                        QCOMPARE(receipt["checks"]["conservation"]["passed"], json(true));
                        for (const auto& e : receipt["events"]) {
                            std::string key = e["kind"].get<std::string>();
                            if (key == "evict") {
                                key += ':'; // appended in two steps: GCC 12 warns falsely on ":" + std::string
                                key += e["mode"].get<std::string>();
                                if (e.contains("fallback")) {
                                    ++seen["fallback"];
                                }
                            }
                            ++seen[key];
                        }
                    }
                }
            }
        }
    }
    qInfo("%d runs checked; events seen: evict:recompute=%lld evict:swap=%lld evict:hybrid=%lld swap_in_done=%lld "
          "replay_done=%lld fallback=%lld censor=%lld",
          runs, static_cast<long long>(seen["evict:recompute"]), static_cast<long long>(seen["evict:swap"]),
          static_cast<long long>(seen["evict:hybrid"]), static_cast<long long>(seen["swap_in_done"]),
          static_cast<long long>(seen["replay_done"]), static_cast<long long>(seen["fallback"]),
          static_cast<long long>(seen["censor"]));
    for (const char* kind : {"evict:recompute", "evict:swap", "evict:hybrid", "swap_out_done", "resume", "swap_in_done",
                             "replay_done", "pressure", "complete"}) {
        QVERIFY2(seen[kind] > 0, kind); // the sweep is not vacuous
    }
}

void TestOracleSamples::realReceiptMutationsFail() {
    // Find a real swap run and break its restore accounting in two ways.
    for (const QString& path : samplePaths()) {
        pl::Workload w = load(path);
        QVERIFY(!pl::applyOverride(w, "recovery", "swap"));
        const json receipt = receiptOf(w);
        auto& events = receipt["events"];
        const auto swapIn = std::find_if(events.begin(), events.end(), [](const json& e) { return e["kind"] == "swap_in_done"; });
        if (swapIn == events.end()) {
            continue;
        }
        const auto index = static_cast<std::size_t>(swapIn - events.begin());
        json dropped = receipt;
        dropped["events"][index]["swap_in_bytes"] = (*swapIn)["swap_in_bytes"].get<std::int64_t>() - 1;
        QVERIFY(!pl::checkReceipt(dropped).passed);

        json lost = receipt;
        const auto completion = std::find_if(events.begin(), events.end(), [](const json& e) { return e["kind"] == "complete"; });
        QVERIFY(completion != events.end());
        lost["events"][static_cast<std::size_t>(completion - events.begin())]["generated_tokens"] =
            (*completion)["generated_tokens"].get<std::int64_t>() - 1;
        const pl::OracleReport report = pl::checkReceipt(lost);
        QVERIFY(!report.passed);
        return;
    }
    QFAIL("no sample produced a swap-in under recovery=swap");
}

QTEST_APPLESS_MAIN(TestOracleSamples)
#include "test_oracle_samples.moc"
