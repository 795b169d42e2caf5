// Compact axis labels: short at every magnitude, exact below 10,000, and what the lab's plots actually draw;
// the distributions' bins, and the plots' percentiles and empty axes.
#include "ui/adaptivepanes.h"
#include "ui/bytestext.h"
#include "ui/compactticker.h"
#include "ui/comparerun.h"
#include "ui/compareview.h"
#include "ui/distributions.h"
#include "ui/labdocument.h"
#include "ui/plotswidget.h"
#include "ui/timelinewidget.h"
#include "tests/ui/uitestutil.h"

#include "core/session.h"
#include "core/summary.h"

#include <QLabel>
#include <QScopeGuard>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>

using plui::compactNumber;

namespace {
// swap-wins in `doc`, run at once.
bool openSwapWins(plui::LabDocument& doc) {
    doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
    QString error;
    const bool ok = doc.setWorkload(uitest::loadSample(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json")),
                                    QStringLiteral("swap-wins"), &error);
    if (!ok) qWarning("%s", qPrintable(error));
    return ok;
}

// The entries of a legend (itemCount() counts a wrapped grid's empty cells too).
int legendEntries(QCPLegend* legend) {
    int n = 0;
    for (int i = 0; i < legend->itemCount(); ++i) n += legend->item(i) ? 1 : 0;
    return n;
}
} // namespace

class TestPlotLabels : public QObject {
    Q_OBJECT
  private slots:
    void compactNumbers() {
        QCOMPARE(compactNumber(0), QStringLiteral("0"));
        QCOMPARE(compactNumber(950), QStringLiteral("950"));
        QCOMPARE(compactNumber(2.5), QStringLiteral("2.5"));
        QCOMPARE(compactNumber(9999), QStringLiteral("9999"));
        QCOMPARE(compactNumber(10000), QStringLiteral("10k"));
        QCOMPARE(compactNumber(50000), QStringLiteral("50k"));
        QCOMPARE(compactNumber(125000), QStringLiteral("125k"));
        QCOMPARE(compactNumber(373699), QStringLiteral("374k"));
        QCOMPARE(compactNumber(1500000), QStringLiteral("1.5M"));
        QCOMPARE(compactNumber(68719476736.0), QStringLiteral("68.7G"));
        QCOMPARE(compactNumber(-20000), QStringLiteral("-20k"));
        QCOMPARE(compactNumber(3e12), QStringLiteral("3T"));
    }

    void plotsUseThem() {
        QCustomPlot plot;
        plot.resize(400, 300);
        plot.xAxis->setRange(0, 400000);
        plui::useCompactTicks(&plot);
        plot.replot();
        const QVector<QString> labels = plot.xAxis->tickVectorLabels();
        QVERIFY(!labels.isEmpty());
        for (const QString& l : labels) QVERIFY2(l.size() <= 4, qPrintable(l)); // "0", "100k", ...
        QVERIFY(labels.contains(QStringLiteral("200k")));
        // Value ticks follow the height: a short plot gets few labels, none drawn over another.
        plot.yAxis->setRange(0, 16);
        plot.show(); // a hidden plot keeps the viewport it was made with
        for (const int height : {60, 70, 120, 600}) {
            plot.resize(400, height);
            QCoreApplication::processEvents();
            plot.replot();
            QCoreApplication::processEvents(); // a changed tick count replots once more
            QCOMPARE(plot.viewport().height(), height);
            const QVector<double> ticks = plot.yAxis->tickVector();
            const int rectHeight = plot.axisRect()->height();
            QVERIFY2(ticks.size() >= 2, qPrintable(QString::number(height)));
            const double spacing = rectHeight * (ticks[1] - ticks[0]) / plot.yAxis->range().size();
            QVERIFY2(spacing >= QFontMetrics(plot.yAxis->tickLabelFont()).height(),
                     qPrintable(QStringLiteral("%1 px: %2 ticks in %3 px").arg(height).arg(ticks.size()).arg(rectHeight)));
            if (height == 600) QVERIFY(ticks.size() >= 4);
        }
        // Key ticks follow the width: labels of a narrow plot keep apart ("0 1002003004005000" was one smear).
        plot.xAxis->setRange(0, 5338);
        for (const int width : {180, 260, 900}) {
            plot.resize(width, 300);
            QCoreApplication::processEvents();
            plot.replot();
            QCoreApplication::processEvents();
            const QVector<double> ticks = plot.xAxis->tickVector();
            const QVector<QString> text = plot.xAxis->tickVectorLabels();
            QVERIFY2(ticks.size() >= 2, qPrintable(QString::number(width)));
            const QFontMetrics fm(plot.xAxis->tickLabelFont());
            int widest = 0;
            for (const QString& t : text) widest = std::max(widest, fm.horizontalAdvance(t));
            const double spacing = plot.axisRect()->width() * (ticks[1] - ticks[0]) / plot.xAxis->range().size();
            QVERIFY2(spacing >= widest + 6, qPrintable(QStringLiteral("%1 px: ticks %2 px apart, labels %3 px")
                                                           .arg(width).arg(spacing).arg(widest)));
        }
    }

    // Byte axes in binary units, as the ledger and the CLI print bytes.
    void byteAxesInBinaryUnits() {
        QCOMPARE(plui::compactBytes(0), QStringLiteral("0 B"));
        QCOMPARE(plui::compactBytes(1000), QStringLiteral("1000 B"));
        QCOMPARE(plui::compactBytes(512 * 1024), QStringLiteral("512 KiB"));
        QCOMPARE(plui::compactBytes(1.5 * 1024 * 1024), QStringLiteral("1.5 MiB"));
        QCOMPARE(plui::compactBytes(5e9), QStringLiteral("4.66 GiB"));
        QCustomPlot plot;
        plot.yAxis->setTicker(QSharedPointer<plui::BytesTicker>::create());
        plot.yAxis->setRange(0, 5.2 * 1024 * 1024);
        plot.replot();
        QVector<QString> labels = plot.yAxis->tickVectorLabels();
        QVERIFY(labels.size() >= 3);
        QCOMPARE(labels.front(), QStringLiteral("0 B"));
        for (qsizetype i = 1; i < labels.size(); ++i) QVERIFY2(labels[i].endsWith(QStringLiteral(" MiB")), qPrintable(labels[i]));
        QVERIFY(labels.contains(QStringLiteral("5 MiB")));
        // Steps are powers of two bytes: round figures in binary units, never "205 KiB, 410 KiB".
        plot.yAxis->setRange(0, 1.1 * 1024 * 1024);
        plot.replot();
        labels = plot.yAxis->tickVectorLabels();
        QCOMPARE(QStringList(labels.begin(), labels.end()),
                 (QStringList{"0 B", "256 KiB", "512 KiB", "768 KiB", "1 MiB"}));
    }

    // A log axis gets 1-2-5 ticks (powers only over many decades), never the stock ticker's linear fallback
    // that crowds "150000 200000 250000 300000" at the top of a short log range.
    void logAxesTickAtOneTwoFive() {
        QCustomPlot plot;
        plot.resize(300, 300);
        plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot.yAxis->setTicker(QSharedPointer<plui::LogTicker125>::create());
        const auto labelsFor = [&](double lo, double hi) {
            plot.yAxis->setRange(lo, hi);
            plot.replot();
            const QVector<QString> labels = plot.yAxis->tickVectorLabels();
            return QStringList(labels.begin(), labels.end());
        };
        QCOMPARE(labelsFor(12000, 350000), (QStringList{"20k", "50k", "100k", "200k"}));
        QCOMPARE(labelsFor(30, 20000), (QStringList{"50", "100", "200", "500", "1000", "2000", "5000", "10k", "20k"}));
        QCOMPARE(labelsFor(0.5, 5e6), (QStringList{"1", "10", "100", "1000", "10k", "100k", "1M"}));
        QCOMPARE(labelsFor(120, 480), (QStringList{"200", "300", "400"}));
        QVERIFY(labelsFor(120, 180).size() >= 2); // inside one step of 1-9 x 10^k: linear ticks, not none
        QVector<double> ticks, subTicks;
        plui::LogTicker125().generate(QCPRange(12000, 350000), QLocale::c(), QLatin1Char('g'), 6, ticks, &subTicks, nullptr);
        QCOMPARE(ticks.size(), 4);
        QVERIFY(subTicks.isEmpty());
    }

    // The running plots' legends sit under the axes in one row while it fits, and wrap into columns on a
    // plot too narrow for it (a laptop-sized window), so no entry is cut at the plot's edge.
    void legendsWrapToThePlotsWidth() {
        plui::LabDocument doc;
        QVERIFY(openSwapWins(doc));
        plui::PlotsWidget plots(&doc);
        QCustomPlot* occupancy = plots.plot(0);
        QCOMPARE(legendEntries(occupancy->legend), 4); // occupied, in flight, waiting, capacity
        auto* first = qobject_cast<QCPPlottableLegendItem*>(occupancy->legend->item(0));
        QVERIFY(first);
        QCOMPARE(first->plottable()->name(), QStringLiteral("occupied"));
        plots.show();
        for (const int window : {2400, 640, 400}) {
            plots.resize(window, 600);
            QCoreApplication::processEvents(); // the layout resizes the plots
            occupancy->replot();
            const int width = occupancy->width();
            QVERIFY2(width < window / 2 + 10, qPrintable(QString::number(width)));
            QCPLegend* legend = occupancy->legend;
            if (window == 2400) QCOMPARE(legend->rowCount(), 1);
            else QVERIFY2(legend->rowCount() > 1, qPrintable(QString::number(width)));
            for (int i = 0; i < legend->itemCount(); ++i) {
                if (!legend->item(i)) continue; // an empty cell of a wrapped grid
                const QRect r = legend->item(i)->outerRect();
                QVERIFY2(r.right() <= width, qPrintable(QStringLiteral("%1 px: entry %2 ends at %3").arg(width).arg(i).arg(r.right())));
                QVERIFY2(legend->item(i)->minimumOuterSizeHint().width() <= r.width(),
                         qPrintable(QStringLiteral("%1 px: entry %2 squeezed").arg(width).arg(i)));
            }
            QCOMPARE(legendEntries(legend), 4);
            QVERIFY(legend->rowCount() == 1 || legend->columnCount() <= 2); // 2 and 2, never 3 and a lone 1
        }
    }

    // A short dock (a 1024x700 window leaves the plots about 250 px for both rows) scrolls the plots instead of
    // squeezing them: the occupancy plot's axes had 35 px and its legend's second row was cut off.
    void shortDocksScrollThePlots() {
        plui::LabDocument doc;
        QVERIFY(openSwapWins(doc));
        plui::PlotsWidget plots(&doc);
        plots.show();
        for (const int height : {250, 700}) {
            plots.resize(480, height);
            QCoreApplication::processEvents();
            for (int i = 0; i < 4; ++i) {
                QCustomPlot* p = plots.plot(i);
                p->replot();
                QVERIFY2(p->height() >= (i < 2 ? plui::kLinePlotMinHeight : plui::kHistogramMinHeight),
                         qPrintable(QStringLiteral("plot %1: %2 px").arg(i).arg(p->height())));
                QVERIFY2(p->axisRect()->height() >= 50, qPrintable(QStringLiteral("plot %1: axes %2 px").arg(i).arg(p->axisRect()->height())));
                if (i < 2) {
                    QVERIFY2(p->legend->outerRect().bottom() <= p->height(),
                             qPrintable(QStringLiteral("plot %1: legend ends at %2 of %3 px").arg(i)
                                            .arg(p->legend->outerRect().bottom()).arg(p->height())));
                }
            }
            auto* scroll = plots.findChild<QScrollArea*>(QStringLiteral("plotsScroll"));
            QVERIFY(scroll);
            QCOMPARE(scroll->verticalScrollBar()->maximum() > 0, height == 250); // scrolls only when short
        }
    }

    // Without a run the plots and the timeline say so and draw no axes: QCustomPlot's own 0..5 scales read as
    // a run of nothing, and an empty legend narrowed the occupancy plot's layout to a third of its width.
    void withoutARunThePlotsSaySo() {
        plui::LabDocument doc;
        doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
        plui::PlotsWidget plots(&doc);
        plui::TimelineWidget timeline(&doc);
        plots.resize(900, 500);
        plots.show();
        QCoreApplication::processEvents();
        std::vector<QCustomPlot*> all = {plots.plot(0), plots.plot(1), plots.plot(2), plots.plot(3),
                                         timeline.findChild<QCustomPlot*>(QStringLiteral("timelinePlot"))};
        auto note = [](QCustomPlot* p) { return p->findChild<QCPItemText*>(QStringLiteral("emptyNote")); };
        for (QCustomPlot* p : all) {
            QVERIFY(note(p) && note(p)->visible());
            QVERIFY2(note(p)->text().contains(QStringLiteral("open a workload")), qPrintable(note(p)->text()));
            QVERIFY(!p->xAxis->visible() && !p->yAxis->visible() && !p->yAxis2->visible());
        }
        plots.plot(0)->replot();
        QVERIFY2(plots.plot(0)->axisRect()->width() > 300, qPrintable(QString::number(plots.plot(0)->axisRect()->width())));
        QCOMPARE(legendEntries(plots.plot(0)->legend), 4); // what a run will draw
        QVERIFY(openSwapWins(doc));
        for (QCustomPlot* p : all) {
            QVERIFY(!note(p)->visible());
            QVERIFY(p->xAxis->visible() && p->yAxis->visible());
        }
        QVERIFY(plots.plot(0)->yAxis2->visible() && !plots.plot(2)->yAxis2->visible());
        QVERIFY(plots.plot(2)->plottableCount() > 0);
    }

    // Host memory that holds no block (the seed example's block is 4 KiB): every swap falls back to recompute.
    // The table counts the fallbacks per mode (core's FallbackCounts) and the note under it names the mode and
    // the fix, as `preemptlab-cli compare` does; with the sample's own 1 MiB the rows read 0 and there is no note.
    void compareShowsFallbacks() {
        const QString seed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
        plui::LabDocument doc;
        doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
        QString error;
        QVERIFY2(doc.setWorkload(uitest::loadSample(seed), QStringLiteral("seed"), &error), qPrintable(error));
        QVERIFY2(doc.setSetting(QStringLiteral("host_capacity_bytes"), QStringLiteral("1000"), &error),
                 qPrintable(error));
        plui::CompareView view(&doc);
        plui::CompareView* cmp = &view;
        cmp->runNow();
        QTableWidget* t = cmp->totalsTable();
        auto row = [&](const QString& label) {
            for (int i = 0; i < t->rowCount(); ++i) {
                if (t->verticalHeaderItem(i)->text() == label) return i;
            }
            return -1;
        };
        const int hostFull = row(QStringLiteral("fallback: host full"));
        QVERIFY(hostFull >= 0 && row(QStringLiteral("fallback: prefix shrunk")) >= 0 &&
                row(QStringLiteral("fallback: no full block")) >= 0);
        const pl::Recovery modes[] = {pl::Recovery::Recompute, pl::Recovery::Swap, pl::Recovery::Adaptive,
                                      pl::Recovery::Hybrid};
        pl::Workload wl = uitest::loadSample(seed);
        wl.config.host_capacity_bytes = 1000;
        std::int64_t swapFallbacks = 0;
        for (int c = 0; c < 4; ++c) {
            wl.policy.recovery = modes[c];
            const pl::FallbackCounts f = pl::summarize(wl, pl::runWorkload(wl)).fallbacks;
            QCOMPARE(t->item(hostFull, c)->text(), plui::groupedNumber(f.host_full));
            QCOMPARE(t->item(row(QStringLiteral("fallback: no full block")), c)->text(), plui::groupedNumber(f.nothing_to_swap));
            if (modes[c] == pl::Recovery::Swap) swapFallbacks = f.host_full;
        }
        QVERIFY(swapFallbacks > 0);
        QCOMPARE(t->item(hostFull, 0)->text(), QStringLiteral("0"));
        QVERIFY(!t->item(hostFull, 0)->font().bold()); // fewer fallbacks is no better mode
        const QString note = cmp->fallbackNoteText();
        QVERIFY2(note.contains(QStringLiteral("swap: all %1 evictions fell back to recompute because host memory was "
                                              "full (host_capacity_bytes 1000")
                                   .arg(swapFallbacks)) &&
                     note.contains(QStringLiteral("--host-capacity-bytes")),
                 qPrintable(note));
        const auto* label = cmp->findChild<QLabel*>(QStringLiteral("compareFallbackNote"));
        QVERIFY(label && label->isVisibleTo(cmp));

        QVERIFY(doc.setSetting(QStringLiteral("host_capacity_bytes"), QStringLiteral("1048576"), &error));
        cmp->runNow();
        QCOMPARE(t->item(hostFull, 1)->text(), QStringLiteral("0"));
        QVERIFY(cmp->fallbackNoteText().isEmpty() && !label->isVisibleTo(cmp));
    }

    // The compare view's CDFs mark each mode's tail and name the request there: on the starvation sample the
    // one starving request (bg-report) is otherwise a 3% step at the right edge.
    void compareNamesTheTailRequest() {
        plui::LabDocument doc;
        doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
        QString error;
        QVERIFY2(doc.setWorkload(uitest::loadSample(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json")),
                                 QStringLiteral("starvation"), &error),
                 qPrintable(error));
        const plui::CompareResult r = plui::runCompareNow(doc.workload());
        QCOMPARE(r.entries.size(), std::size_t{4});
        for (const auto& e : r.entries) {
            QCOMPARE(e.slowestCompletion, QStringLiteral("bg-report"));
            QCOMPARE(e.longestQueue, QStringLiteral("bg-report"));
        }
        plui::CompareView view(&doc);
        // Short plots: the label's height in pixels is most of the room above 1. A view this small shows one
        // pane at a time (tabs, as in its dock at 1280x800): each plot is looked at in its own tab.
        view.resize(900, 300);
        view.QWidget::show();
        view.runNow();
        QVERIFY(view.panes()->tabbed());
        const auto showTab = [&view](QCustomPlot* p) {
            view.panes()->tabs()->setCurrentWidget(p);
            for (int k = 0; k < 3; ++k) QApplication::processEvents();
        };
        for (int i = 0; i < 2; ++i) {
            QCustomPlot* p = view.plot(i);
            showTab(p);
            p->replot();
            QVERIFY2(p->axisRect()->height() < 150, qPrintable(QString::number(p->axisRect()->height())));
            QVERIFY(qobject_cast<QCPItemText*>(p->item(0))->visible());
            QCOMPARE(p->itemCount(), 1); // one label: every mode's tail is bg-report
            auto* label = qobject_cast<QCPItemText*>(p->item(0));
            QVERIFY(label && label->text().startsWith(QStringLiteral("bg-report")));
            const auto& v = i == 0 ? r.entries[1].dist.completion : r.entries[1].dist.queueDelay;
            QCOMPARE(label->position->key(), *std::max_element(v.begin(), v.end())); // swap's tail is the longest
            QVERIFY(p->xAxis->range().upper > label->position->key()); // its marker is not cut at the edge
            // Above the curves, which stop at 1: no step runs through the text.
            QVERIFY2(label->bottom->pixelPosition().y() < p->yAxis->coordToPixel(1.0),
                     qPrintable(QStringLiteral("%1 >= %2").arg(label->bottom->pixelPosition().y()).arg(p->yAxis->coordToPixel(1.0))));
        }
        // A plot too short for a line of text above the curves keeps the circles and drops the label.
        view.resize(900, 190); // the flagged list has a tab of its own, not under the plots
        for (int i = 0; i < 2; ++i) {
            QCustomPlot* p = view.plot(i);
            showTab(p);
            p->replot();
            QVERIFY2(p->axisRect()->height() < 50, qPrintable(QString::number(p->axisRect()->height())));
            QVERIFY(!qobject_cast<QCPItemText*>(p->item(0))->visible());
        }
    }

    // The engines comparison names up to five runs in one tail label; in a 1024-wide window its text is wrapped
    // after a " · " to the room left of its circle, and the labels stack by their own heights, above the curves.
    void engineTailLabelsWrapInsideThePlot() {
        plui::LabDocument doc;
        doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
        QString error;
        QVERIFY2(doc.setWorkload(uitest::loadSample(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/engines-disagree.workload.json")),
                                 QStringLiteral("engines-disagree"), &error),
                 qPrintable(error));
        plui::CompareView view(&doc);
        view.setKind(plui::CompareKind::Engines);
        // The kind is kept in QSettings: the suites after this one expect the recovery modes.
        const auto restore = qScopeGuard([&view] { view.setKind(plui::CompareKind::Modes); });
        view.resize(460, 560); // narrow: in its tab each plot has the view's width
        view.QWidget::show();
        view.runNow();
        QVERIFY(view.panes()->tabbed());
        int wrapped = 0;
        for (int i = 0; i < 2; ++i) {
            QCustomPlot* p = view.plot(i);
            view.panes()->tabs()->setCurrentWidget(p);
            for (int k = 0; k < 3; ++k) QApplication::processEvents();
            p->replot();
            double below = -1; // the previous label's bottom
            for (int k = 0; k < p->itemCount(); ++k) {
                auto* label = qobject_cast<QCPItemText*>(p->item(k));
                if (!label || !label->visible()) continue;
                const QString whole = label->property("wholeText").toString();
                QCOMPARE(label->text().replace(QLatin1Char('\n'), QLatin1Char(' ')), whole); // nothing dropped
                wrapped += label->text().contains(QLatin1Char('\n')) ? 1 : 0;
                QVERIFY2(label->left->pixelPosition().x() >= p->axisRect()->left() - 1,
                         qPrintable(QStringLiteral("%1 starts at x %2, the plot at %3")
                                        .arg(whole).arg(label->left->pixelPosition().x()).arg(p->axisRect()->left())));
                QVERIFY(label->top->pixelPosition().y() >= below - 1); // stacked, not overlapping
                below = label->bottom->pixelPosition().y();
                QVERIFY(below < p->yAxis->coordToPixel(1.0));
            }
        }
        QVERIFY2(wrapped > 0, "no label needed wrapping at this width: the test checks nothing");
    }

    // On livelock-next-block hybrid completes nothing: its completion percentiles are a dash, never the row's
    // bold best (they read 0 and bold), the rows over different numbers of requests are starred and explained,
    // and the CDF's legend says why hybrid has no curve.
    void compareShowsNoFigureWhereNoRequestGotThere() {
        plui::LabDocument doc;
        QVERIFY(uitest::openSample(doc, QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/livelock-next-block.workload.json")));
        plui::CompareView view(&doc);
        view.runNow();
        QTableWidget* t = view.totalsTable();
        QCOMPARE(t->horizontalHeaderItem(3)->text(), QStringLiteral("hybrid"));
        const plui::CompareResult r = plui::runCompareNow(doc.workload());
        QCOMPARE(r.entries[3].summary.totals.completed, 0);
        int starred = 0;
        for (int i = 0; i < t->rowCount(); ++i) {
            const QString label = t->verticalHeaderItem(i)->text();
            if (!label.startsWith(QStringLiteral("completion p"))) continue;
            ++starred;
            QVERIFY2(label.endsWith(QStringLiteral(" *")), qPrintable(label));
            QCOMPARE(t->item(i, 3)->text(), QStringLiteral("\u2013"));
            QVERIFY(!t->item(i, 3)->font().bold());
            QVERIFY2(t->item(i, 3)->toolTip().startsWith(QStringLiteral("none: no request got there under hybrid")),
                     qPrintable(t->item(i, 3)->toolTip()));
            // Bold goes to the best of the modes that have a figure (swap and adaptive: one run).
            QVERIFY(t->item(i, 1)->font().bold() && !t->item(i, 0)->font().bold());
            QVERIFY2(t->item(i, 1)->toolTip().startsWith(QStringLiteral("over 2 requests: the completed requests")),
                     qPrintable(t->item(i, 1)->toolTip()));
        }
        QCOMPARE(starred, 2);
        QVERIFY(view.statusText().contains(QStringLiteral("over different numbers of requests")));
        // TTFT: every mode's two requests produced a token; same population, no star.
        for (int i = 0; i < t->rowCount(); ++i)
            if (t->verticalHeaderItem(i)->text().startsWith(QStringLiteral("TTFT"))) QVERIFY(!t->verticalHeaderItem(i)->text().endsWith(QLatin1Char('*')));
        QCOMPARE(view.plot(0)->graph(0)->name(), QStringLiteral("recompute"));
        bool named = false;
        for (int g = 0; g < view.plot(0)->graphCount(); ++g)
            named = named || view.plot(0)->graph(g)->name() == QStringLiteral("hybrid (none completed)");
        QVERIFY(named);
    }

    void histogramBins() {
        // Fractions: the first bar starts at the smallest value, never left of it (ticks per token of 1.0 drew a
        // bar from 0.99, reading as values under 1).
        const plui::Histogram frac = plui::histogram({1.0, 1.2, 1.6}, 0.01);
        QCOMPARE(frac.width, 0.015);
        QCOMPARE(frac.centers.front() - frac.width / 2, 1.0);
        QCOMPARE(frac.counts.front(), 1.0);
        QCOMPARE(std::accumulate(frac.counts.begin(), frac.counts.end(), 0.0), 3.0);
        // Ticks per token that differ in the third decimal share one bar (a bar 0.0001 wide is invisible).
        const plui::Histogram tpot = plui::histogram({1.0, 1.001, 1.002, 1.003}, 0.01);
        QCOMPARE(tpot.width, 0.01);
        QCOMPARE(tpot.counts, (std::vector<double>{4}));
        // One value: one bar of one tick, holding all of them, standing on that value.
        const plui::Histogram same = plui::histogram({0, 0, 0}, 1);
        QCOMPARE(same.width, 1.0);
        QCOMPARE(same.counts, (std::vector<double>{3}));
        QCOMPARE(same.centers, (std::vector<double>{0}));
        // A wide range: whole-tick bins of span / 40 (the largest value opens a 41st), every value counted once.
        std::vector<double> wide;
        for (int i = 0; i <= 1000; ++i) wide.push_back(i);
        const plui::Histogram w = plui::histogram(wide, 1);
        QCOMPARE(w.width, 25.0);
        QCOMPARE(w.counts.size(), std::size_t{41});
        QCOMPARE(w.counts.back(), 1.0);
        QCOMPARE(std::accumulate(w.counts.begin(), w.counts.end(), 0.0), 1001.0);
        QCOMPARE(w.centers.front(), 12.0); // 0..24: the bar covers their unit cells, -0.5 to 24.5
        QCOMPARE(w.centers.back(), 1000.0 + 12.0);
        QVERIFY(plui::histogram({}, 1).counts.empty());
    }

    // Whole tick counts used to get bars centred at v + 0.5, so the bar of 3 ticks stood between 3 and 4 on
    // the axis. Each bar now stands on the whole numbers it holds; measurements keep bin midpoints.
    void wholeNumberBarsStandOnTheirValues() {
        const plui::Histogram ticks = plui::histogram({3, 3, 4, 7}, 1);
        QCOMPARE(ticks.width, 1.0);
        QCOMPARE(ticks.centers, (std::vector<double>{3, 4, 5, 6, 7}));
        QCOMPARE(ticks.counts, (std::vector<double>{2, 1, 0, 0, 1}));
        // Ticks per token that came out whole: bins of 1, not 0.01 (a bar 0.01 wide under a whole value is a
        // sliver), each on its value.
        const plui::Histogram whole = plui::histogram({1, 1, 2}, 0.01);
        QCOMPARE(whole.width, 1.0);
        QCOMPARE(whole.centers, (std::vector<double>{1, 2}));
        QCOMPARE(whole.counts, (std::vector<double>{2, 1}));
        // Any range of whole numbers: every value lies under the bar that counts it, its unit cell included.
        for (const std::vector<double>& values : {std::vector<double>{0, 5, 17, 60, 61, 119},
                                                  std::vector<double>{412, 413, 980, 1999, 2000}}) {
            const plui::Histogram h = plui::histogram(values, 1);
            for (double v : values) {
                const auto bar = std::find_if(h.centers.begin(), h.centers.end(), [&](double c) {
                    return v - 0.5 >= c - h.width / 2 && v + 0.5 <= c + h.width / 2;
                });
                QVERIFY2(bar != h.centers.end(), qPrintable(QString::number(v)));
                QVERIFY(h.counts[static_cast<std::size_t>(bar - h.centers.begin())] >= 1);
            }
        }
        // Measurements: bins from the first value's bin edge, centres at their midpoints, each value inside.
        const std::vector<double> tpot{1.0, 1.125, 1.5, 3.5};
        const plui::Histogram m = plui::histogram(tpot, 0.01);
        QCOMPARE(m.width, 2.5 / 40);
        QCOMPARE(m.centers.front(), 1.0 + m.width / 2);
        for (double v : tpot) {
            const auto i = static_cast<std::size_t>(std::floor((v - 1.0) / m.width));
            QVERIFY2(std::abs(v - m.centers[i]) <= m.width / 2 + 1e-12, qPrintable(QString::number(v)));
            QVERIFY(m.counts[i] >= 1);
        }
    }

    // Cumulative recovery cost: the tokens dropped step up at the evictions (the receipt's replay_tokens), the
    // tokens re-prefilled when each replay finishes; with prefix sharing the cache gives part of the dropped
    // context back, so less is re-prefilled than dropped (the line was once called "replayed" and showed the
    // dropped count).
    void replayLinesTellDroppedFromRePrefilled() {
        struct Case {
            const char* sample;
            bool cacheGivesBack;
        };
        for (const Case& c : {Case{"recompute-wins", false}, Case{"mooncake-conv-slice", true}}) {
            plui::LabDocument doc;
            QVERIFY(uitest::openSample(doc, QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/%1.workload.json").arg(QLatin1String(c.sample))));
            plui::PlotsWidget plots(&doc);
            QCustomPlot* cost = plots.plot(1);
            QCPGraph* dropped = cost->graph(0);
            QCPGraph* rePrefilled = cost->graph(1);
            QCOMPARE(dropped->name(), QStringLiteral("dropped for replay"));
            QCOMPARE(rePrefilled->name(), QStringLiteral("replays finished"));
            const auto& result = doc.session()->result();
            std::int64_t atResume = 0;
            for (const pl::Event& e : result.ledger.events)
                if (e.kind == pl::EventKind::Resume) atResume += e.replay_tokens;
            const double lastDropped = (dropped->data()->end() - 1)->value;
            const double lastRe = (rePrefilled->data()->end() - 1)->value;
            QCOMPARE(lastDropped, static_cast<double>(result.totals.replay_tokens));
            QCOMPARE(lastRe, static_cast<double>(atResume)); // every replay finished
            QVERIFY(c.cacheGivesBack ? lastRe < lastDropped : lastRe == lastDropped);
            // Never more re-prefilled than dropped so far, and it lags: the replay follows the eviction.
            bool lagged = false;
            for (auto d = dropped->data()->begin(), r = rePrefilled->data()->begin(); d != dropped->data()->end(); ++d, ++r) {
                QVERIFY(r->value <= d->value);
                lagged = lagged || r->value < d->value;
            }
            QVERIFY(lagged);
        }
    }

    // The plots print core's percentiles (nearest rank): the numbers `preemptlab-cli compare` prints, not an
    // interpolation between them. An axis with only zero series shows 0..1 and keeps them out of the legend.
    void plotsShowCoresPercentilesAndNoInventedAxes() {
        for (const char* mode : {"recompute", "swap"}) {
            plui::LabDocument doc;
            doc.setRunMode(plui::LabDocument::RunMode::Synchronous);
            pl::Workload w = uitest::loadSample(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json"));
            w.policy.recovery = pl::parseRecovery(mode).value();
            QString error;
            QVERIFY2(doc.setWorkload(w, QStringLiteral("swap-wins"), &error), qPrintable(error));
            plui::PlotsWidget plots(&doc);
            plots.resize(900, 600);
            const pl::RunSummary sum = pl::summarize(w, doc.session()->result());
            const QString ttft = plots.plot(2)->xAxis->label();
            // Two lines: the unit and the count, then the percentiles.
            QCOMPARE(ttft.split(QLatin1Char('\n')).value(0),
                     QStringLiteral("ticks (n=%1)").arg(w.requests.size()));
            QCOMPARE(ttft.split(QLatin1Char('\n')).value(1),
                     QStringLiteral("p50 %1 \u00b7 p90 %2 \u00b7 p99 %3")
                         .arg(sum.ttft_ticks.p50).arg(sum.ttft_ticks.p90).arg(sum.ttft_ticks.p99));
            const QString tpot = plots.plot(3)->xAxis->label();
            QVERIFY2(tpot.contains(QString::number(static_cast<double>(sum.tpot_ticks_x100.p50) / 100.0, 'f', 2)), qPrintable(tpot));
            // Narrow plots break the percentiles over more lines rather than cut them at the edge ("p99 4856"
            // read "p99 485"): every line fits the plot, and every figure is whole.
            plots.show();
            for (const int width : {900, 520, 420, 300}) {
                plots.resize(width, 600);
                QCoreApplication::processEvents();
                for (const int i : {2, 3}) {
                    QCustomPlot* h = plots.plot(i);
                    h->replot(); // lays the axes out
                    QCoreApplication::processEvents();
                    const QString label = h->xAxis->label();
                    const QFontMetrics metrics(h->xAxis->labelFont());
                    const QStringList lines = label.split(QLatin1Char('\n'));
                    // Each line is centred under the axes: it shows whole when half of it fits either side.
                    const int centre = h->axisRect()->rect().center().x();
                    for (const QString& line : lines) {
                        QVERIFY2(metrics.horizontalAdvance(line) / 2 <= std::min(centre, h->width() - centre),
                                 qPrintable(QStringLiteral("%1 px plot, centre %2: '%3'").arg(h->width()).arg(centre).arg(line)));
                    }
                    const pl::Percentiles& pct = i == 2 ? sum.ttft_ticks : sum.tpot_ticks_x100;
                    const int scale = i == 2 ? 1 : 100;
                    for (const std::int64_t v : {pct.p50, pct.p90, pct.p99}) {
                        const QString figure = QString::number(static_cast<double>(v) / scale, 'f', i == 2 ? 0 : 2);
                        QVERIFY2(lines.mid(1).join(QLatin1Char(' ')).split(QLatin1Char(' ')).contains(figure),
                                 qPrintable(label));
                    }
                    if (width == 900) QCOMPARE(lines.size(), 2);
                    if (width == 300) QVERIFY2(lines.size() > 2, qPrintable(label));
                }
            }
            QCustomPlot* cost = plots.plot(1);
            const bool swap = std::string(mode) == "swap";
            QCOMPARE(legendEntries(cost->legend), 2); // the swap lines, or the replay lines
            QCOMPARE((swap ? cost->yAxis : cost->yAxis2)->range().upper, 1.0);
            // No invented scale on it ("0 B" to "1 B"): no tick labels, and the label says so.
            QVERIFY(!(swap ? cost->yAxis : cost->yAxis2)->tickLabels());
            QCOMPARE((swap ? cost->yAxis : cost->yAxis2)->label(), swap ? QStringLiteral("no replay") : QStringLiteral("no swap"));
            QVERIFY((swap ? cost->yAxis2 : cost->yAxis)->tickLabels());
            // In flight is in the occupancy legend only when a copy was: never in a recompute run.
            QCOMPARE(legendEntries(plots.plot(0)->legend), swap ? 4 : 3);
            QVERIFY((swap ? cost->yAxis2 : cost->yAxis)->range().upper > 1.0);
        }
    }
};

QTEST_MAIN(TestPlotLabels)
#include "test_plot_labels.moc"
