// Review > Gate Against a Baseline Receipt: the run on screen against a receipt file gives the verdict core's
// gate gives for the two receipt files (what `preemptlab-cli gate` prints), the review bundle's summary.md carries
// the table while that run is on screen, and a baseline of another input is refused with the reason.
#include "ui/exportactions.h"
#include "ui/gateactions.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "tests/ui/uitestutil.h"

#include "core/engine.h"
#include "core/receipt.h"
#include "core/review/gate.h"
#include "core/session.h"
#include "core/workload_io.h"

#include <QAction>
#include <QFile>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace plui;

namespace {

// `workload` under `recovery`, run by core and written as a receipt file (a baseline made outside the lab).
QString writeBaseline(const QTemporaryDir& dir, const QString& name, pl::Workload w, pl::Recovery recovery) {
    w.policy.recovery = recovery;
    const pl::RunResult run = pl::runWorkload(w);
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(QByteArray::fromStdString(pl::receiptText(w, run)));
    return path;
}

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestGateActions : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_gate_actions")); }

    void theMenuEntryHasItsOwnShortcut() {
        auto w = uitest::openWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"));
        auto* action = w->findChild<QAction*>(QStringLiteral("gateAction"));
        QVERIFY(action != nullptr);
        QCOMPARE(action->shortcut().toString(QKeySequence::PortableText), QStringLiteral("Ctrl+Shift+G"));
        for (const QAction* other : w->findChildren<QAction*>()) {
            if (other != action) QVERIFY(!other->shortcuts().contains(action->shortcut()));
        }
    }

    // The lab's verdict equals core's over the two receipt files, row for row; the bundle carries it.
    void theLabsVerdictIsTheClisAndGoesInTheBundle() {
        auto w = uitest::openWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"));
        QTemporaryDir dir;
        const pl::Workload& shown = w->document()->session()->workload();
        const QString baseline = writeBaseline(dir, QStringLiteral("recompute.receipt.json"), shown, pl::Recovery::Recompute);
        pl::review::GateCriteria criteria;
        criteria.max_preemptions = 0;                 // swap-wins preempts: this criterion fails
        criteria.max_queue_regression_bp = 1000000;   // 10,000%: passes
        criteria.slos.ttft = pl::review::Slo{100000, pl::review::SloUnit::Ticks};
        criteria.slos.tpot = pl::review::Slo{100000, pl::review::SloUnit::Ticks};
        criteria.min_goodput_bp = 10000;              // every request completes within loose SLOs: passes

        GateActions* gate = w->gateActions();
        bool passed = true;
        connect(gate, &GateActions::finished, w.get(), [&passed](bool p) { passed = p; });
        QVERIFY(gate->runGate(baseline, criteria));
        gate->waitForIdle();
        QVERIFY2(gate->lastResult().has_value(), qPrintable(gate->lastError()));
        QVERIFY(!passed);
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Gate: FAIL"));
        // The verdict window lists core's rows, the verdict beside each criterion.
        auto* table = w->findChild<QTableWidget*>(QStringLiteral("gateTable"));
        QVERIFY(table != nullptr);
        QCOMPARE(table->rowCount(), static_cast<int>(gate->lastResult()->rows.size()));
        for (int r = 0; r < table->rowCount(); ++r) {
            const auto& row = gate->lastResult()->rows[static_cast<std::size_t>(r)];
            QCOMPARE(table->item(r, 0)->text(), QString::fromStdString(row.criterion));
            QCOMPARE(table->item(r, 1)->text(), row.passed ? QStringLiteral("pass") : QStringLiteral("FAIL"));
        }

        // The CLI's way: the lab's receipt written as a file, then core's gate over the two files.
        const QString candidate = dir.filePath(QStringLiteral("lab.receipt.json"));
        QVERIFY(w->exportActions()->writeReceipt(candidate));
        w->exportActions()->waitForIdle();
        const auto cli = pl::review::runGateFiles(baseline.toStdString(), candidate.toStdString(), criteria);
        QVERIFY(std::holds_alternative<pl::review::GateResult>(cli));
        const auto& expected = std::get<pl::review::GateResult>(cli);
        const auto& got = *gate->lastResult();
        QCOMPARE(got.rows.size(), expected.rows.size());
        QVERIFY(got.rows.size() >= 5); // conservation, replay, goodput, queue delay, preemptions
        for (std::size_t i = 0; i < got.rows.size(); ++i) {
            QCOMPARE(got.rows[i].criterion, expected.rows[i].criterion);
            QCOMPARE(got.rows[i].baseline, expected.rows[i].baseline);
            QCOMPARE(got.rows[i].candidate, expected.rows[i].candidate);
            QCOMPARE(got.rows[i].passed, expected.rows[i].passed);
        }
        QCOMPARE(got.passed(), expected.passed());

        // The bundle's summary.md carries the table while this run is on screen.
        const QString md = w->document()->gateMarkdown();
        QVERIFY(md.contains(QStringLiteral("| criterion | baseline | candidate | threshold | verdict |")));
        QVERIFY(md.contains(QStringLiteral("**Gate: FAIL**")));
        const QString folder = dir.filePath(QStringLiteral("bundle"));
        QVERIFY(!w->exportActions()->writeBundleNow(folder).has_value());
        const QString summary = readAll(QDir(folder).filePath(QStringLiteral("summary.md")));
        QVERIFY2(summary.contains(QStringLiteral("## Rollout gate")) && summary.contains(md), qPrintable(summary));

        // Another run on screen: the verdict is no longer its own, and the next bundle leaves it out.
        QString error;
        QVERIFY2(w->document()->setSetting(QStringLiteral("watermark_blocks"), QStringLiteral("1"), &error), qPrintable(error));
        QVERIFY(w->document()->gateMarkdown().isEmpty());
    }

    // A baseline of another input (a different workload) is refused with core's reason; so is a file that is
    // no receipt. No verdict is kept.
    void aBaselineOfAnotherInputIsRefused() {
        auto w = uitest::openWindow(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"));
        QTemporaryDir dir;
        pl::Workload other = w->document()->session()->workload();
        other.config.capacity_blocks += 1;
        const QString baseline = writeBaseline(dir, QStringLiteral("other.receipt.json"), other, pl::Recovery::Recompute);
        GateActions* gate = w->gateActions();
        QVERIFY(gate->runGate(baseline, {}));
        gate->waitForIdle();
        QVERIFY(!gate->lastResult().has_value());
        QVERIFY2(gate->lastError().contains(QStringLiteral("input_hash")), qPrintable(gate->lastError()));
        QVERIFY(w->document()->gateMarkdown().isEmpty());
        const QString junk = dir.filePath(QStringLiteral("junk.json"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"not\": \"a receipt\"}");
        f.close();
        QVERIFY(gate->runGate(junk, {}));
        gate->waitForIdle();
        QVERIFY(!gate->lastResult().has_value());
        QVERIFY2(gate->lastError().contains(QStringLiteral("junk.json")), qPrintable(gate->lastError()));
    }
};

QTEST_MAIN(TestGateActions)
#include "test_gate_actions.moc"
