// Milliseconds and SLOs in the lab outside the gate (issue 26): with config.tick_us the running plots'
// distributions, the Compare table and CDFs and the review summary are in ms (ticks in tooltips), without it in
// ticks and saying so; the lab's SLOs (LabSlos) give Compare a goodput row and summary.md a goodput line, each
// core's pl::review::goodput for that run (censored requests as misses).
#include "ui/compareview.h"
#include "ui/exporter.h"
#include "ui/labdocument.h"
#include "ui/labslos.h"
#include "ui/mainwindow.h"
#include "ui/plotswidget.h"
#include "ui/timelinewidget.h"
#include "tests/ui/uitestutil.h"

#include "core/compare_report.h"
#include "core/engine.h"
#include "core/review/goodput.h"
#include "core/review/outcomes.h"
#include "core/session.h"
#include "core/summary.h"

#include <qcustomplot.h>

#include <QScopeGuard>
#include <QTableWidget>
#include <QtTest>

using namespace plui;

namespace {

const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");

QString title(QCustomPlot* p) {
    auto* t = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0));
    return t ? t->text() : QString();
}

int rowNamed(QTableWidget* t, const QString& prefix) {
    for (int i = 0; i < t->rowCount(); ++i) {
        if (t->verticalHeaderItem(i)->text().startsWith(prefix)) return i;
    }
    return -1;
}

// The compared workload under column `c`'s recovery mode, run by core.
pl::review::RunOutcomes modeRun(const pl::Workload& w, int c) {
    pl::Workload mode = w;
    mode.policy.recovery = pl::comparedModes()[static_cast<std::size_t>(c)];
    return pl::review::outcomesFromRun(mode, pl::runWorkload(mode));
}

} // namespace

class TestLabLatency : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_lab_latency")); }

    void plotsSayTicksOrMs() {
        auto w = uitest::openWindow(kSeed);
        PlotsWidget* plots = w->plots();
        QCOMPARE(title(plots->plot(2)), QStringLiteral("TTFT-like (ticks)"));
        QCOMPARE(title(plots->plot(3)), QStringLiteral("TPOT-like (ticks per token)"));
        QCOMPARE(plots->plot(0)->xAxis->label(), QStringLiteral("tick"));
        QCOMPARE(w->timeline()->plot()->xAxis->label(), QStringLiteral("tick"));
        QVERIFY(plots->plot(2)->xAxis->label().startsWith(QStringLiteral("ticks (n=")));
        QString error;
        QVERIFY(w->document()->setSetting(QStringLiteral("tick_us"), QStringLiteral("20000"), &error));
        QApplication::processEvents();
        QCOMPARE(title(plots->plot(2)), QStringLiteral("TTFT-like (ms)"));
        QCOMPARE(title(plots->plot(3)), QStringLiteral("TPOT-like (ms per token)"));
        QCOMPARE(plots->plot(0)->xAxis->label(), QStringLiteral("tick (1 tick = 20 ms)"));
        QCOMPARE(w->timeline()->plot()->xAxis->label(), QStringLiteral("tick (1 tick = 20 ms)"));
        // The caption's p50 is core's TTFT p50 in ticks x 20 ms; the tooltip keeps the ticks.
        const pl::Session* s = w->document()->session();
        const pl::RunSummary sum = pl::summarize(s->workload(), s->result());
        const QString caption = plots->plot(2)->xAxis->label();
        QVERIFY2(caption.startsWith(QStringLiteral("ms (n=")), qPrintable(caption));
        QVERIFY2(caption.contains(QStringLiteral("p50 %1").arg(static_cast<double>(sum.ttft_ticks.p50) * 20.0)),
                 qPrintable(caption));
        QVERIFY(plots->plot(2)->toolTip().contains(QStringLiteral("In ticks: p50 %1,").arg(sum.ttft_ticks.p50)));
        // Bars in ms: the largest bar's centre is within the run's TTFT range in ms.
        auto* bars = qobject_cast<QCPBars*>(plots->plot(2)->plottable(0));
        QVERIFY(bars && !bars->data()->isEmpty());
        QVERIFY((bars->data()->end() - 1)->key <= static_cast<double>(sum.ttft_ticks.max) * 20.0 + 20.0);
    }

    void compareInTicksOrMsWithGoodput() {
        auto clear = qScopeGuard([] { QSettings().clear(); });
        auto w = uitest::openWindow(kSeed);
        CompareView* compare = w->compare();
        compare->runNow();
        QTableWidget* t = compare->totalsTable();
        QVERIFY(rowNamed(t, QStringLiteral("TTFT p50 (ticks)")) >= 0);
        QVERIFY(rowNamed(t, QStringLiteral("ITL p50 (ticks)")) >= 0);
        QCOMPARE(rowNamed(t, QStringLiteral("goodput")), -1); // no SLO set
        QVERIFY(compare->plot(0)->xAxis->label().startsWith(QStringLiteral("completion (ticks")));
        // SLOs in ticks (the seed example has no tick_us): TTFT <= 5, TPOT <= 2 ticks.
        QString error;
        QVERIFY(w->slos()->setText(false, SloKind::Ttft, QStringLiteral("5"), &error));
        QVERIFY(w->slos()->setText(false, SloKind::Tpot, QStringLiteral("2"), &error));
        const int row = rowNamed(t, QStringLiteral("goodput (TTFT <= 5 ticks, TPOT <= 2 ticks)"));
        QVERIFY(row >= 0);
        pl::review::Slos slos;
        slos.ttft = pl::review::Slo{5, pl::review::SloUnit::Ticks};
        slos.tpot = pl::review::Slo{2, pl::review::SloUnit::Ticks};
        const pl::Workload& wl = w->document()->workload();
        for (int c = 0; c < t->columnCount(); ++c) {
            const pl::review::RunOutcomes run = modeRun(wl, c);
            const pl::review::Goodput g = pl::review::goodput(run, slos);
            QCOMPARE(t->item(row, c)->text(),
                     QStringLiteral("%1% (%2/%3)").arg(QString::number(g.percent(), 'f', 2)).arg(g.good).arg(g.requests));
            QCOMPARE(t->item(row, c)->toolTip(), goodputText(g));
            // ITL p99 in ticks is core's.
            const int itl = rowNamed(t, QStringLiteral("ITL p99 (ticks)"));
            QCOMPARE(t->item(itl, c)->text(), QString::number(pl::review::latencyFigures(run).itl_ticks.p99));
        }
        // summary.md carries the latency table in ticks and the goodput line.
        const QString md = reviewSummaryMarkdown(*w->document(), {});
        QVERIFY2(md.contains(QStringLiteral("## Latency\n\nIn ticks")), qPrintable(md));
        const pl::review::RunOutcomes shown = pl::review::outcomesFromRun(w->document()->session()->workload(),
                                                                          w->document()->session()->result());
        QVERIFY2(md.contains(QStringLiteral("Goodput (TTFT <= 5 ticks, TPOT <= 2 ticks): %1.")
                                 .arg(goodputText(pl::review::goodput(shown, slos)))),
                 qPrintable(md));
        // With tick_us 10000 (10 ms): latency rows and ITL in ms (ticks in the tooltips), the ms SLO pair
        // (none set yet: no goodput row), CDFs in ms.
        QVERIFY(w->document()->setSetting(QStringLiteral("tick_us"), QStringLiteral("10000"), &error));
        QApplication::processEvents();
        compare->runNow();
        QCOMPARE(rowNamed(t, QStringLiteral("goodput")), -1);
        const int ttft = rowNamed(t, QStringLiteral("TTFT p50 (ms)"));
        QVERIFY(ttft >= 0);
        QVERIFY(compare->plot(0)->xAxis->label().startsWith(QStringLiteral("completion (ms")));
        const pl::review::RunOutcomes recompute = modeRun(w->document()->workload(), 0);
        const pl::review::LatencyFigures f = pl::review::latencyFigures(recompute);
        QCOMPARE(t->item(ttft, 0)->text(), QString::number(static_cast<double>(f.ttft_ticks.p50) * 10.0));
        QVERIFY(t->item(ttft, 0)->toolTip().startsWith(QStringLiteral("%1 ticks").arg(f.ttft_ticks.p50)));
        QVERIFY(w->slos()->setText(true, SloKind::Ttft, QStringLiteral("50"), &error)); // 5 ticks of 10 ms
        const int msRow = rowNamed(t, QStringLiteral("goodput (TTFT <= 50 ms)"));
        QVERIFY(msRow >= 0);
        pl::review::Slos msSlos;
        msSlos.ttft = pl::review::Slo{50000, pl::review::SloUnit::Micros};
        QCOMPARE(t->item(msRow, 0)->toolTip(), goodputText(pl::review::goodput(recompute, msSlos)));
        const QString msMd = reviewSummaryMarkdown(*w->document(), {});
        QVERIFY2(msMd.contains(QStringLiteral("## Latency\n\nIn ms (1 tick = 10000 us)")), qPrintable(msMd));
        QVERIFY(msMd.contains(QStringLiteral("Goodput (TTFT <= 50 ms): ")));
    }
};

QTEST_MAIN(TestLabLatency)
#include "test_lab_latency.moc"
