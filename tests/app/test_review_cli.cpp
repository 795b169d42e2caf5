// preemptlab-cli gate and report, and the SLO flags of run: exit codes 0 (every criterion passes), 1 (one
// fails: a criterion, or the conservation oracle on a tampered receipt), 2 (not receipts, not of one input, an
// SLO in ms without tick_us), each with a message naming the file and the reason, and nothing half-written.
#include "tests/cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using pltest::runCli;

namespace {

const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
const QString kStarvation = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json");

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(f.readAll()).object();
}

void writeJson(const QString& path, const QJsonObject& o) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(QJsonDocument(o).toJson());
}

} // namespace

class TestReviewCli : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void gatePassesAReceiptAgainstItself();
    void gateFailsACriterion();
    void gateFailsOnErasedProgress();
    void gateRefusesOtherInputsAndNonReceipts();
    void gateJson();
    void sloInMsNeedsTickUs();
    void runAndReportInMs();
    void compareShowsItlAndGoodputPerMode();
    void compareOutCarriesItlAndGoodput();

  private:
    QTemporaryDir dir_;
    QString recompute_, swap_, other_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
};

void TestReviewCli::initTestCase() {
    QVERIFY(dir_.isValid());
    recompute_ = path("recompute.receipt.json");
    swap_ = path("swap.receipt.json");
    other_ = path("starvation.receipt.json");
    QCOMPARE(runCli({"run", kSeed, "--out", recompute_}).code, 0);
    QCOMPARE(runCli({"run", kSeed, "--recovery", "swap", "--out", swap_}).code, 0);
    QCOMPARE(runCli({"run", kStarvation, "--out", other_}).code, 0);
}

void TestReviewCli::gatePassesAReceiptAgainstItself() {
    // The same receipt twice: no regression (0% allowed), goodput with SLOs nobody can miss here (every request
    // of the seed example completes within max_ticks 20000), preemptions bounded by the receipt's evictions.
    const auto evictions = readJson(recompute_)["totals"].toObject()["evictions"].toInt();
    const auto r = runCli({"gate", recompute_, recompute_, "--slo-ttft-ticks", "20000", "--slo-tpot-ticks", "20000",
                           "--min-goodput", "100", "--max-queue-delay-regression", "0", "--percentile", "99",
                           "--max-preemptions", QString::number(evictions)});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("gate: PASS (5 criteria)"), r.out.constData());
    QVERIFY(r.out.contains("replays identically"));
    QVERIFY(r.out.contains("no erased progress"));
    QVERIFY(r.out.contains("queue delay p99"));
}

void TestReviewCli::gateFailsACriterion() {
    // The seed example is built to need evictions (its requests' full contexts exceed the pool): with at most 0
    // preemptions per request, the gate fails and says which criterion.
    QVERIFY(readJson(swap_)["totals"].toObject()["evictions"].toInt() > 0);
    auto r = runCli({"gate", recompute_, swap_, "--max-preemptions", "0"});
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.contains("FAIL"));
    QVERIFY(r.out.contains("gate: FAIL (1 of 3 criteria failed)"));
    // A TPOT of 0 ticks cannot be met by a request of more than one token (one token a tick at best).
    r = runCli({"gate", recompute_, swap_, "--slo-tpot-ticks", "0", "--min-goodput", "1"});
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.contains("0.00% (0/3, 0 censored)"));
}

void TestReviewCli::gateFailsOnErasedProgress() {
    // The candidate's last complete event claims fewer tokens than the request generated: output progress
    // erased. The project's oracle notices; the gate fails (1), not refuses (2).
    QJsonObject receipt = readJson(swap_);
    QJsonArray events = receipt["events"].toArray();
    for (qsizetype i = events.size() - 1; i >= 0; --i) {
        QJsonObject e = events[i].toObject();
        if (e["kind"].toString() == "complete") {
            e["generated_tokens"] = e["generated_tokens"].toInt() - 1;
            events[i] = e;
            break;
        }
    }
    receipt["events"] = events;
    const QString tampered = path("tampered.receipt.json");
    writeJson(tampered, receipt);
    auto r = runCli({"gate", recompute_, tampered});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("FAILED"), r.out.constData());
    QVERIFY(r.out.contains("DIFFERS at /events/")); // the replay names the edited event
    // A record edited alone (a request's preemptions lowered, to pass --max-preemptions): the oracle sees the
    // record disagree with its events, and the replay differs.
    receipt = readJson(swap_);
    QJsonArray requests = receipt["requests"].toArray();
    for (qsizetype i = 0; i < requests.size(); ++i) {
        QJsonObject rec = requests[i].toObject();
        if (rec["preemptions"].toInt() > 0) {
            rec["preemptions"] = 0;
            requests[i] = rec;
        }
    }
    receipt["requests"] = requests;
    writeJson(tampered, receipt);
    r = runCli({"gate", recompute_, tampered, "--max-preemptions", "0"});
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.contains("DIFFERS at /requests/"));
}

void TestReviewCli::gateRefusesOtherInputsAndNonReceipts() {
    // Another workload's receipt: different input_hash.
    auto r = runCli({"gate", recompute_, other_});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("/input_hash"));
    QVERIFY(r.err.contains(other_.toUtf8()));
    QVERIFY(r.out.isEmpty());
    // A workload file is not a receipt.
    r = runCli({"gate", kSeed, recompute_});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("/format"));
    QVERIFY(r.err.contains("not a receipt"));
    QVERIFY(r.err.contains(kSeed.toUtf8()));
    // Text that is not JSON, a missing file.
    const QString junk = path("junk.receipt.json");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{ not json");
    f.close();
    r = runCli({"gate", recompute_, junk});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains(junk.toUtf8()));
    r = runCli({"gate", recompute_, path("missing.receipt.json")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("missing.receipt.json"));
    // Usage mistakes.
    QCOMPARE(runCli({"gate", recompute_}).code, 2);
    QCOMPARE(runCli({"gate", recompute_, swap_, "--percentile", "75", "--max-queue-delay-regression", "5"}).code, 2);
    QCOMPARE(runCli({"gate", recompute_, swap_, "--min-goodput", "101"}).code, 2);
    QCOMPARE(runCli({"gate", recompute_, swap_, "--slo-ttft-ticks", "5"}).code, 2); // SLO without --min-goodput
}

void TestReviewCli::gateJson() {
    const auto r = runCli({"gate", recompute_, swap_, "--max-preemptions", "0", "--json"});
    QCOMPARE(r.code, 1);
    const QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(o["format"].toString(), QStringLiteral("preemptlab.gate.v1"));
    QCOMPARE(o["passed"].toBool(), false);
    const QJsonArray criteria = o["criteria"].toArray();
    QCOMPARE(criteria.size(), 3);
    QCOMPARE(criteria[0].toObject()["passed"].toBool(), true); // conservation on untouched receipts
    QCOMPARE(criteria[1].toObject()["passed"].toBool(), true); // and they replay identically
    QCOMPARE(criteria[2].toObject()["passed"].toBool(), false);
    QCOMPARE(criteria[2].toObject()["threshold"].toString(), QStringLiteral("<= 0"));
    QCOMPARE(criteria[2].toObject()["threshold_value"].toDouble(), 0.0);
    QVERIFY(criteria[2].toObject()["candidate_value"].toDouble() >= 1.0); // the swap run evicts (checked above)
    QVERIFY(!criteria[0].toObject().contains("candidate_value"));
    QCOMPARE(o["input_hash"].toString(), readJson(recompute_)["input_hash"].toString());
}

void TestReviewCli::sloInMsNeedsTickUs() {
    for (const QString& cmd : {QStringLiteral("run"), QStringLiteral("compare")}) {
        const auto r = runCli({cmd, kSeed, "--slo-ttft-ms", "50"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("tick_us") && r.err.contains("--slo-ttft-ms"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
    auto r = runCli({"report", recompute_, "--slo-tpot-ms", "5"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("tick_us"));
    r = runCli({"gate", recompute_, swap_, "--slo-ttft-ms", "5", "--min-goodput", "50"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("tick_us"));
    // Ticks work without it.
    QCOMPARE(runCli({"report", recompute_, "--slo-tpot-ticks", "5"}).code, 0);
}

void TestReviewCli::runAndReportInMs() {
    // --tick-us 2000 on the command line: the workload then has a tick of 2 ms, hashed with the input.
    const QString withTick = path("tick.receipt.json");
    auto r = runCli({"run", kSeed, "--tick-us", "2000", "--out", withTick, "--slo-ttft-ms", "1000",
                     "--slo-tpot-ms", "1000"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains(" ms)") && r.err.contains("goodput"), r.err.constData());
    // Every request of the seed example completes; 1 s is 500 ticks, more than any of its latencies (its
    // max_ticks run is short): all 3 good.
    QVERIFY(r.err.contains("3 of 3 requests = 100.00%"));
    const QJsonObject receipt = readJson(withTick);
    QCOMPARE(receipt["workload"].toObject()["config"].toObject()["tick_us"].toInt(), 2000);
    QVERIFY(receipt["input_hash"].toString() != readJson(recompute_)["input_hash"].toString());
    r = runCli({"report", withTick, "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject report = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(report["tick_us"].toInt(), 2000);
    const QJsonObject all = report["groups"].toArray()[0].toObject();
    // ms is ticks x 2 for every figure.
    const QJsonObject completion = all["completion"].toObject();
    QCOMPARE(completion["p50_ms"].toDouble(), completion["p50_ticks"].toDouble() * 2.0);
    r = runCli({"report", withTick, "--csv"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.startsWith("dimension,group,requests,censored,queue_p50_ticks"));
    QCOMPARE(runCli({"report", withTick, "--csv", "--json"}).code, 2);
    QCOMPARE(runCli({"report", withTick, "--prompt-buckets", "5,3"}).code, 2);
    QCOMPARE(runCli({"run", kSeed, "--tick-us", "0"}).code, 2);
}

void TestReviewCli::compareShowsItlAndGoodputPerMode() {
    const auto r = runCli({"compare", kSeed, "--tick-us", "10000", "--slo-ttft-ms", "100", "--slo-tpot-ms", "30"});
    QCOMPARE(r.code, 0);
    const QString out = QString::fromUtf8(r.out);
    for (const char* mode : {"recompute", "swap", "adaptive", "hybrid"}) {
        QVERIFY2(out.contains(QStringLiteral("  %1: p50/p90/p99 TTFT ").arg(QLatin1String(mode))), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("  %1: goodput (TTFT <= 100 ms, TPOT <= 30 ms): ").arg(QLatin1String(mode))),
                 qPrintable(out));
    }
    QCOMPARE(out.count(QStringLiteral("longest gap")), 4);
    // Without SLOs, no goodput line.
    QVERIFY(!QString::fromUtf8(runCli({"compare", kSeed}).out).contains(QStringLiteral("goodput")));
}

void TestReviewCli::compareOutCarriesItlAndGoodput() {
    // compare --out with a 10 ms tick and SLOs: each mode's ITL (ticks and ms) and goodput are the figures
    // `report` gives for that mode's own receipt (core reads the receipt there, the run in memory here).
    const QString json = path("cmp.json");
    const QString receipts = path("cmp-receipts");
    const QStringList slo = {"--slo-ttft-ms", "100", "--slo-tpot-ms", "30"};
    auto r = runCli(QStringList{"compare", kSeed, "--tick-us", "10000", "--out", json, "--receipts", receipts} + slo);
    QCOMPARE(r.code, 0);
    const QJsonObject doc = readJson(json);
    QCOMPARE(doc["format"].toString(), QStringLiteral("preemptlab.compare.v1")); // additive keys: still v1
    QCOMPARE(doc["tick_us"].toInt(), 10000);
    QCOMPARE(doc["slos"].toObject()["ttft"].toObject()["ms"].toDouble(), 100.0);
    QCOMPARE(doc["slos"].toObject()["tpot"].toObject()["ms"].toDouble(), 30.0);
    const QJsonObject modes = doc["modes"].toObject();
    QCOMPARE(modes.size(), 4);
    for (const QString& mode : modes.keys()) {
        const QJsonObject col = modes[mode].toObject();
        const QString receipt = receipts + QStringLiteral("/") + mode + QStringLiteral(".receipt.json");
        const auto rep = runCli(QStringList{"report", receipt, "--json"} + slo);
        QCOMPARE(rep.code, 0);
        const QJsonObject all = QJsonDocument::fromJson(rep.out).object()["groups"].toArray()[0].toObject();
        const QJsonObject itl = all["itl"].toObject();
        const QJsonObject itlTicks = col["itl_ticks"].toObject();
        const QJsonObject itlMs = col["itl_ms"].toObject();
        QCOMPARE(itlTicks["count"].toInt(), itl["count"].toInt());
        for (const char* p : {"p50", "p90", "p99"}) {
            const QString k = QLatin1String(p);
            QCOMPARE(itlTicks[k].toDouble(), itl[k + QStringLiteral("_ticks")].toDouble());
            QCOMPARE(itlMs[k].toDouble(), itl[k + QStringLiteral("_ms")].toDouble());
            QCOMPARE(itlMs[k].toDouble(), itlTicks[k].toDouble() * 10.0); // 10 ms a tick
        }
        const QJsonObject good = col["goodput"].toObject();
        QCOMPARE(good["requests"].toInt(), 3); // every request of the seed example, censored ones included
        QCOMPARE(good["good"].toInt(), all["goodput"].toObject()["good"].toInt());
        QCOMPARE(good["percent"].toDouble(), all["goodput"].toObject()["percent"].toDouble());
        QCOMPARE(good["rate_unit"].toString(), QStringLiteral("req/s"));
        QCOMPARE(good["good"].toInt() + good["censored"].toInt() <= 3, true);
    }
    // The CSV: the new columns after the original ones (a script reading by position still finds those).
    const QString csv = path("cmp.csv");
    QCOMPARE(runCli(QStringList{"compare", kSeed, "--tick-us", "10000", "--out", csv} + slo).code, 0);
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray header = f.readLine().trimmed();
    QVERIFY2(header.contains("fallbacks_total,itl_ticks_p50,itl_ticks_p90,itl_ticks_p99,itl_ticks_max,itl_ticks_count,"
                             "itl_ms_p50"),
             header.constData());
    QVERIFY2(header.endsWith("goodput_percent,goodput_rate"), header.constData());
    // Without tick_us and SLOs: ITL in ticks only, no goodput, no slos.
    const QString plain = path("cmp-plain.json");
    QCOMPARE(runCli({"compare", kSeed, "--out", plain}).code, 0);
    const QJsonObject plainDoc = readJson(plain);
    QVERIFY(!plainDoc.contains("slos") && !plainDoc.contains("tick_us"));
    const QJsonObject recompute = plainDoc["modes"].toObject()["recompute"].toObject();
    QVERIFY(recompute.contains("itl_ticks") && !recompute.contains("itl_ms") && !recompute.contains("goodput"));
}

QTEST_GUILESS_MAIN(TestReviewCli)
#include "test_review_cli.moc"
