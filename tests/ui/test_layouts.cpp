// The lab's layouts (issue 27): Compare and Break-even read in the default dock layout at 1024x768, 1280x800
// and 1600x1000; View > Maximise View and Pop Out View; the theme (a dark palette gives dark plots).
#include "tests/ui/uitestutil.h"

#include "ui/adaptivepanes.h"
#include "ui/breakevenview.h"
#include "ui/compareview.h"
#include "ui/labcommandline.h"
#include "ui/labtheme.h"
#include "ui/ledgerview.h"
#include "ui/poolview.h"
#include "ui/viewlayoutactions.h"

#include <qcustomplot.h>

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

using namespace plui;

namespace {

const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");
const QList<QSize> kSizes{QSize(1024, 768), QSize(1280, 800), QSize(1600, 1000)};

void settle() {
    for (int i = 0; i < 4; ++i) QApplication::processEvents();
}

// Tick labels along an axis: each pair of neighbours apart by at least half their widths (x) or their line
// height (y), as drawn at the plot's size now.
QString overlappingTickLabels(QCPAxis* axis) {
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const QFontMetrics fm(axis->tickLabelFont());
    double lastPx = 0;
    int lastExtent = 0;
    bool first = true;
    for (int i = 0; i < ticks.size(); ++i) {
        if (!axis->range().contains(ticks[i])) continue;
        const double px = axis->coordToPixel(ticks[i]);
        const int extent = axis->orientation() == Qt::Horizontal ? fm.horizontalAdvance(labels.value(i)) : fm.height();
        if (!first && std::abs(px - lastPx) < (extent + lastExtent) / 2.0) {
            return QStringLiteral("%1 at %2 px and the previous at %3 px").arg(labels.value(i)).arg(px).arg(lastPx);
        }
        first = false;
        lastPx = px;
        lastExtent = extent;
    }
    return {};
}

} // namespace

class TestLayouts : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_layouts")); }

    // Compare in its dock (about 600x280 px at 1280x800): one pane at a time in tabs, every mode's column in
    // the table's view, each CDF's tick labels apart. On its own at 1280x800: side by side, as before.
    void compareReadsInTheDefaultLayout() {
        for (const QSize& size : kSizes) {
            auto w = uitest::openWindow(kSwapWins);
            w->resize(size);
            settle();
            QVERIFY(w->view(QStringLiteral("compare")));
            w->compare()->runNow();
            settle();
            AdaptivePanes* panes = w->compare()->panes();
            QVERIFY2(panes->tabbed(), qPrintable(QStringLiteral("%1x%2: the dock is %3x%4")
                                                     .arg(size.width()).arg(size.height())
                                                     .arg(panes->width()).arg(panes->height())));
            panes->tabs()->setCurrentIndex(0);
            settle();
            QTableWidget* table = w->compare()->totalsTable();
            QCOMPARE(table->columnCount(), 4); // recompute, swap, adaptive, hybrid
            for (int c = 0; c < table->columnCount(); ++c) {
                const int right = table->columnViewportPosition(c) + table->columnWidth(c);
                QVERIFY2(right <= table->viewport()->width(),
                         qPrintable(QStringLiteral("%1x%2: column %3 ends at %4 of %5 px").arg(size.width())
                                        .arg(size.height()).arg(table->horizontalHeaderItem(c)->text())
                                        .arg(right).arg(table->viewport()->width())));
            }
            for (int i = 0; i < 2; ++i) {
                QCustomPlot* p = w->compare()->plot(i);
                panes->tabs()->setCurrentWidget(p);
                settle();
                p->replot(QCustomPlot::rpImmediateRefresh);
                QVERIFY2(p->width() > 400, qPrintable(QString::number(p->width())));
                for (QCPAxis* axis : {p->xAxis, p->yAxis}) {
                    QVERIFY(axis->tickVector().size() >= 3); // drawn, so there is something to check
                    const QString overlap = overlappingTickLabels(axis);
                    QVERIFY2(overlap.isEmpty(), qPrintable(QStringLiteral("%1x%2 plot %3: %4").arg(size.width())
                                                               .arg(size.height()).arg(i).arg(overlap)));
                }
            }
        }
        // The tab chosen stays chosen, and a roomy view puts the panes side by side again.
        LabDocument doc;
        CompareView alone(&doc);
        alone.resize(1280, 800);
        alone.QWidget::show();
        settle();
        QVERIFY(!alone.panes()->tabbed());
        alone.resize(600, 280);
        settle();
        QVERIFY(alone.panes()->tabbed());
    }

    // Break-even in its dock: the legend under the axes (covering no curve), the plot's note and the verdict
    // whole inside the view.
    void breakevenReadsInTheDefaultLayout() {
        for (const QSize& size : kSizes) {
            auto w = uitest::openWindow(kSwapWins);
            w->resize(size);
            settle();
            QVERIFY(w->view(QStringLiteral("breakeven")));
            settle();
            QCustomPlot* p = w->breakeven()->plot();
            p->replot(QCustomPlot::rpImmediateRefresh);
            const QRect axes = p->axisRect()->rect();
            const QRect legend = p->legend->outerRect();
            QVERIFY2(!legend.intersects(axes), qPrintable(QStringLiteral("%1x%2: legend %3,%4 %5x%6 in the axes")
                                                              .arg(size.width()).arg(size.height()).arg(legend.x())
                                                              .arg(legend.y()).arg(legend.width()).arg(legend.height())));
            QVERIFY(legend.bottom() <= p->height());
            int notes = 0;
            for (int i = 0; i < p->itemCount(); ++i) {
                auto* text = qobject_cast<QCPItemText*>(p->item(i));
                if (!text || !text->visible() || text->text().isEmpty()) continue;
                ++notes;
                const QPointF tl = text->topLeft->pixelPosition();
                const QPointF br = text->bottomRight->pixelPosition();
                QVERIFY2(axes.adjusted(-1, -1, 1, 1).contains(tl.toPoint()) && axes.adjusted(-1, -1, 1, 1).contains(br.toPoint()),
                         qPrintable(QStringLiteral("%1x%2: '%3' from %4,%5 to %6,%7 outside the axes %8,%9 %10x%11")
                                        .arg(size.width()).arg(size.height()).arg(text->text()).arg(tl.x()).arg(tl.y())
                                        .arg(br.x()).arg(br.y()).arg(axes.x()).arg(axes.y()).arg(axes.width()).arg(axes.height())));
            }
            QVERIFY(notes >= 2); // the context, and the crossover or "no crossover"
            auto* verdict = w->breakeven()->findChild<QLabel*>(QStringLiteral("breakevenVerdict"));
            QVERIFY(verdict && verdict->isVisible());
            const QRect inView(verdict->mapTo(w->breakeven(), QPoint(0, 0)), verdict->size());
            QVERIFY2(w->breakeven()->rect().contains(inView), qPrintable(QString::number(inView.bottom())));
            QVERIFY(verdict->height() >= verdict->heightForWidth(verdict->width()));
        }
    }

    // View > Maximise View: the active dock fills the window's middle (where the pool and the docks were);
    // again, the layout comes back byte for byte. Pop Out floats it; a floating dock survives a restart.
    void maximiseAndRestore() {
        auto w = uitest::openWindow(kSwapWins);
        w->resize(1280, 800);
        settle();
        auto* compareDock = w->findChild<QDockWidget*>(QStringLiteral("compareDock"));
        QVERIFY(w->view(QStringLiteral("compare")));
        w->compare()->setFocus();
        settle();
        ViewLayoutActions* layouts = w->layoutActions();
        QCOMPARE(layouts->activeDock(), compareDock);
        const QByteArray before = w->saveState();
        const QRect pool = w->centralWidget()->geometry();
        layouts->maximiseAction()->trigger();
        settle();
        QCOMPARE(layouts->maximised(), compareDock);
        QVERIFY(!w->centralWidget()->isVisible());
        for (auto* dock : w->findChildren<QDockWidget*>()) QCOMPARE(dock->isVisible(), dock == compareDock);
        // It covers the pool's old place and reaches from the left edge to the right.
        const QRect filled = compareDock->geometry();
        QVERIFY2(filled.contains(pool.adjusted(0, 0, 0, -pool.height() / 4)) && filled.width() >= w->width() - 12,
                 qPrintable(QStringLiteral("%1,%2 %3x%4").arg(filled.x()).arg(filled.y()).arg(filled.width()).arg(filled.height())));
        QVERIFY(!w->compare()->panes()->tabbed()); // room for the table and the CDFs side by side
        layouts->maximiseAction()->trigger();
        settle();
        QVERIFY(!layouts->maximised());
        QVERIFY(w->centralWidget()->isVisible());
        QCOMPARE(w->saveState(), before);
        QCOMPARE(w->centralWidget()->geometry(), pool);

        // Pop out, then close: the next window brings the dock back floating.
        layouts->popOutAction()->trigger();
        settle();
        QVERIFY(compareDock->isFloating());
        // Maximised at close: the layout it came from is saved, with the floating dock.
        layouts->setActiveDock(w->findChild<QDockWidget*>(QStringLiteral("plotsDock")));
        layouts->maximiseAction()->trigger();
        settle();
        QVERIFY(w->close());
        w.reset();
        auto again = uitest::openWindow(QString());
        settle();
        QVERIFY(again->findChild<QDockWidget*>(QStringLiteral("compareDock"))->isFloating());
        QVERIFY(again->centralWidget()->isVisible());
        QVERIFY(again->findChild<QDockWidget*>(QStringLiteral("timelineDock"))->isVisible());
        // Docked back by the same action.
        again->layoutActions()->setActiveDock(again->findChild<QDockWidget*>(QStringLiteral("compareDock")));
        again->layoutActions()->popOutAction()->trigger();
        QVERIFY(!again->findChild<QDockWidget*>(QStringLiteral("compareDock"))->isFloating());
        QVERIFY(again->close());
        QSettings().clear();
    }

    // Under recovery: hybrid, the pool's and the timeline's legends say what the split shows, with the
    // policy's percentage; under the other modes they do not mention it.
    void hybridLegend() {
        auto w = uitest::openWindow(kSwapWins);
        auto* timelineLegend = w->findChild<QLabel*>(QStringLiteral("timelineLegend"));
        QVERIFY(timelineLegend);
        QVERIFY(!w->poolView()->legendText().contains(QStringLiteral("hybrid")));
        QVERIFY(!timelineLegend->text().contains(QStringLiteral("hybrid")));
        QString error;
        QVERIFY2(w->document()->setSetting(QStringLiteral("recovery"), QStringLiteral("hybrid"), &error), qPrintable(error));
        QVERIFY2(w->document()->setSetting(QStringLiteral("hybrid_swap_percent"), QStringLiteral("25"), &error), qPrintable(error));
        w->document()->waitForIdle();
        settle();
        const QString pool = w->poolView()->legendText();
        QVERIFY2(pool.contains(QStringLiteral("hybrid split (25%)")), qPrintable(pool));
        QVERIFY(pool.contains(QStringLiteral("first 25% of full blocks are swapped out")));
        QVERIFY(pool.contains(QStringLiteral("recomputed")));
        QVERIFY(timelineLegend->text().contains(QStringLiteral("hybrid split (25%)")));
        QVERIFY(timelineLegend->text().contains(QStringLiteral("then replaying (the rest, recomputed)")));
        QVERIFY(w->document()->setSetting(QStringLiteral("recovery"), QStringLiteral("swap"), &error));
        w->document()->waitForIdle();
        settle();
        QVERIFY(!w->poolView()->legendText().contains(QStringLiteral("hybrid")));
        QVERIFY(!timelineLegend->text().contains(QStringLiteral("hybrid")));
        // Not closed: its edits would ask to be saved (destroying the window asks nothing).
    }

    // A dark palette gives dark plots with light ink (the colours set, and the pixels drawn), hollow markers
    // filled with the dark paper, and the ledger's chosen-row tint a deep red; Light brings the white plots
    // back. View > Theme > Dark is saved and comes back in the next window.
    void darkTheme() {
        auto w = uitest::openWindow(kSwapWins);
        w->resize(1280, 800);
        QVERIFY(w->view(QStringLiteral("breakeven")));
        settle();
        QCustomPlot* plot = w->breakeven()->plot();
        const auto backgroundPixel = [plot]() {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const QImage image = plot->toPixmap().toImage();
            // Above the axes' rect (its top margin): the plot's background alone.
            return image.pixelColor(image.width() / 2, 1);
        };
        QVERIFY(backgroundPixel().lightness() > 240);
        w->setTheme(LabTheme::Dark);
        settle();
        QVERIFY(isDark(plot->palette()));
        QVERIFY2(backgroundPixel().lightness() < 60, qPrintable(backgroundPixel().name()));
        QVERIFY(plot->xAxis->tickLabelColor().lightness() > 200);
        QVERIFY(plot->xAxis->basePen().color().lightness() > 200);
        QVERIFY(plot->legend->item(0)->textColor().lightness() > 200);
        QVERIFY(plot->xAxis->grid()->pen().color() != QColor(200, 200, 200));
        // The CDFs' tail circles: filled with the plot's paper, not white.
        QVERIFY(w->view(QStringLiteral("compare")));
        w->compare()->runNow();
        settle();
        QCustomPlot* cdf = w->compare()->plot(0);
        cdf->replot(QCustomPlot::rpImmediateRefresh);
        int tails = 0;
        for (int i = 0; i < cdf->graphCount(); ++i) {
            const QCPScatterStyle s = cdf->graph(i)->scatterStyle();
            if (s.isNone()) continue;
            ++tails;
            QVERIFY2(s.brush().color().lightness() < 60, qPrintable(s.brush().color().name()));
        }
        QVERIFY(tails > 0);
        QVERIFY(chosenRowTint(w->palette()).lightness() < 100);
        // A light palette: every colour as the code chose it.
        w->setTheme(LabTheme::Light);
        settle();
        QVERIFY(backgroundPixel().lightness() > 240);
        QCOMPARE(plot->xAxis->tickLabelColor().lightness(), 0);
        QVERIFY(chosenRowTint(w->palette()).lightness() > 200);
        // The menu's choice is saved and applied by the next window.
        auto* dark = w->findChild<QAction*>(QStringLiteral("theme_dark"));
        QVERIFY(dark);
        dark->trigger();
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
        w->close();
        w.reset();
        applyTheme(LabTheme::System);
        auto again = uitest::openWindow(QString());
        QVERIFY(currentTheme() == LabTheme::Dark);
        QVERIFY(again->findChild<QAction*>(QStringLiteral("theme_dark"))->isChecked());
        QVERIFY(isDark(QApplication::palette()));
        again->findChild<QAction*>(QStringLiteral("theme_system"))->trigger();
        QVERIFY(currentTheme() == LabTheme::System);
        again->close();
        QSettings().clear();
    }

    // --theme and --docked: read, and refused with the flag and the reason when they make no sense.
    void themeAndDockedFlags() {
        const QString w = kSwapWins;
        LabOptions options;
        QString error;
        QVERIFY2(parseLabCommandLine({QStringLiteral("preemptlab"), QStringLiteral("--workload"), w, QStringLiteral("--theme"),
                                      QStringLiteral("dark"), QStringLiteral("--view"), QStringLiteral("compare"),
                                      QStringLiteral("--docked"), QStringLiteral("--screenshot"), QStringLiteral("/tmp/x.png")},
                                     &options, &error),
                 qPrintable(error));
        QCOMPARE(options.theme, QStringLiteral("dark"));
        QVERIFY(options.docked);
        const QList<QPair<QStringList, QString>> bad{
            {{QStringLiteral("--theme"), QStringLiteral("purple")}, QStringLiteral("--theme: unknown theme 'purple' (one of system, light, dark)")},
            {{QStringLiteral("--docked")}, QStringLiteral("--docked is for --screenshot of a docked view")},
            {{QStringLiteral("--docked"), QStringLiteral("--view"), QStringLiteral("pool"), QStringLiteral("--screenshot"),
              QStringLiteral("/tmp/x.png")},
             QStringLiteral("got --view pool")},
        };
        for (const auto& [flags, message] : bad) {
            LabOptions o;
            QString e;
            QVERIFY(!parseLabCommandLine(QStringList{QStringLiteral("preemptlab"), QStringLiteral("--workload"), w} + flags, &o, &e));
            QVERIFY2(e.contains(message), qPrintable(e));
        }
    }

    // The shortcuts are the window's only ones of their keys.
    void shortcutsDoNotClash() {
        auto w = uitest::openWindow(QString());
        QMap<QString, QString> seen;
        for (QAction* a : w->findChildren<QAction*>()) {
            for (const QKeySequence& k : a->shortcuts()) {
                const QString key = k.toString();
                QVERIFY2(!seen.contains(key) || seen[key] == a->text(),
                         qPrintable(QStringLiteral("%1: %2 and %3").arg(key, seen[key], a->text())));
                seen[key] = a->text();
            }
        }
        QCOMPARE(w->layoutActions()->maximiseAction()->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+Return")));
        QCOMPARE(w->layoutActions()->popOutAction()->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+U")));
        w->close();
    }
};

QTEST_MAIN(TestLayouts)
#include "test_layouts.moc"
