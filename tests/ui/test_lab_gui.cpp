// The lab as a user drives it (offscreen): load every sample, step, scrub, change a slider, select a ledger
// row, compare, a bad file, menus and settings. Exports and screenshots are in test_lab_exports.cpp.
#include "ui/breakevenview.h"
#include "ui/bytestext.h"
#include "ui/blockgridwidget.h"
#include "ui/compareview.h"
#include "ui/exportactions.h"
#include "ui/exporter.h"
#include "ui/fileactions.h"
#include "ui/generatordialog.h"
#include "ui/helpactions.h"
#include "ui/labdocument.h"
#include "ui/ledgermodel.h"
#include "ui/ledgerview.h"
#include "ui/mainwindow.h"
#include "ui/plotswidget.h"
#include "ui/policypanel.h"
#include "ui/poolview.h"
#include "ui/timelinewidget.h"
#include "ui/transportbar.h"
#include "tests/ui/uitestutil.h"
#include "ui/requesttablemodel.h"
#include "ui/workloadpanel.h"
#include "ui/timelinemodel.h"
#include "ui/labcommandline.h"

#include "core/compare_report.h"
#include "ui/comparerun.h"
#include "core/receipt.h"
#include "core/review/outcomes.h"
#include "core/review/report.h"
#include "core/session.h"

#include <nlohmann/json.hpp>
#include "core/summary.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QSignalSpy>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QTest>
#include <QUndoStack>

#include <qcustomplot.h>

#include <cmath>

using namespace plui;

namespace {
const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");
const QString kWave = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/burst-recompute-wave.workload.json");

void settle() {
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
}
} // namespace

class TestLabGui : public QObject {
    Q_OBJECT
  private:
    std::unique_ptr<MainWindow> makeWindow(const QString& file = kWave) { return uitest::openWindow(file); }

  private slots:
    void initTestCase() {
        uitest::isolateSettings(QStringLiteral("test_lab_gui"));
    }

    void loadsEverySample() {
        auto w = makeWindow(QString());
        for (const QString& f : uitest::sampleFiles()) {
            QVERIFY2(w->openPath(f), qPrintable(w->lastError()));
            settle();
            const pl::Session* s = w->document()->session();
            QVERIFY(s != nullptr);
            QVERIFY(w->windowTitle().contains(QString::fromStdString(s->workload().name)));
            QCOMPARE(w->ledger()->model()->rowCount(), static_cast<int>(s->result().totals.evictions));
            QCOMPARE(w->timeline()->model().lanes.size(), s->workload().requests.size());
            QCOMPARE(w->poolView()->grid()->blockCount(), static_cast<int>(s->workload().config.capacity_blocks));
        }
        // The pool's legend explains the prefix-sharing marks only where a workload shares prefixes.
        QVERIFY(w->openPath(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json")));
        settle();
        QVERIFY(!w->poolView()->legendText().contains(QStringLiteral("prefix")));
        QVERIFY(w->openPath(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/mooncake-conv-slice.workload.json")));
        settle();
        QVERIFY(w->poolView()->legendText().contains(QStringLiteral("shared&nbsp;prefix&nbsp;block")));
        // Lines break between entries only: no symbol is left at the end of a line without its words.
        QVERIFY(!w->poolView()->legendText().contains(QStringLiteral("</span> ")));
        QVERIFY(!w->poolView()->legendText().contains(QStringLiteral("victim this")));
        QVERIFY(!w->poolView()->legendText().contains(QStringLiteral("swap-out"))); // nor after a hyphen
        QVERIFY(w->poolView()->legendText().contains(QStringLiteral("swap\u2011out")));
        // The bundled samples are in the menu, each with its notes.
        const auto samples = FileActions::bundledSamples();
        QCOMPARE(samples.size(), uitest::sampleFiles().size());
        for (const auto& s : samples) QVERIFY2(!s.notes.isEmpty(), qPrintable(s.name));
        QVERIFY(w->openPath(samples.first().path));
        // Recent files survive a restart.
        QVERIFY(w->fileActions()->recentFiles().contains(QFileInfo(uitest::sampleFiles().last()).absoluteFilePath()));
    }

    // 200 requests do not fit: seeking to a tick where the lanes in view are all done (or not yet arrived) brings
    // the requests then in the system into view; a view that already shows one is left alone.
    void timelineFollowsTheCursorToLiveRequests() {
        auto w = makeWindow(QString());
        QVERIFY2(w->openPath(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/azure-conv-slice.workload.json")),
                 qPrintable(w->lastError()));
        settle();
        const TimelineModel& m = w->timeline()->model();
        QCPAxis* y = w->timeline()->plot()->yAxis;
        QVERIFY(y->range().size() < static_cast<double>(m.lanes.size()));
        const std::int64_t late = w->document()->lastTick() * 3 / 4;
        QVERIFY(m.firstActiveLane(late, 0, static_cast<int>(std::floor(y->range().upper)) + 1) < 0);
        const int first = m.firstActiveLane(late);
        QVERIFY(first > 0);
        w->transport()->scrubber()->setValue(static_cast<int>(late + 1));
        QCOMPARE(w->document()->currentTick(), late);
        QCOMPARE(y->range().lower, first - 0.5);
        // The user scrolls to other live lanes: one step on, the view stays.
        const int other = m.firstActiveLane(late + 1, first + 1);
        QVERIFY(other > first);
        y->setRange(other - 0.5, other - 0.5 + 10);
        w->transport()->scrubber()->setValue(static_cast<int>(late + 2));
        QCOMPARE(y->range().lower, other - 0.5);
    }

    // Issue 27: a sample opened at tick -1 on an empty pool with its notes behind the Policy tab. A workload
    // opened from File > Open (openPath) or the command line without --tick opens at its first eviction, or tick
    // 0 without one, with the Workload tab (its notes) raised; --tick still wins. The transport buttons' tooltips
    // name their keys.
    void aWorkloadOpensAtItsFirstEviction() {
        const auto firstEvict = [](const LabDocument& doc) {
            for (const pl::Event& e : doc.session()->result().ledger.events) {
                if (e.kind == pl::EventKind::Evict) return e.tick;
            }
            return pl::Tick{-2};
        };
        auto w = makeWindow(QString());
        QVERIFY(w->openPath(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json")));
        LabDocument* doc = w->document();
        QVERIFY(firstEvict(*doc) > 0);
        QCOMPARE(doc->currentTick(), firstEvict(*doc));
        QVERIFY(!doc->victimsAtCursor().empty());
        for (int i = 0; i < 3; ++i) QApplication::processEvents(); // the dock area lays its tabs out
        const auto* notes = w->workloadPanel()->findChild<QLabel*>(QStringLiteral("workloadNotes"));
        // A dock tab behind another is moved off the window, not hidden: what shows is what has a visible region.
        QVERIFY(notes && !notes->visibleRegion().isEmpty() && !notes->text().isEmpty());
        QVERIFY(w->policy()->visibleRegion().isEmpty()); // the Policy tab is behind it
        // A workload that never evicts (the same with a pool large enough) opens at tick 0.
        QTemporaryDir dir;
        const QString roomy = dir.filePath(QStringLiteral("roomy.workload.json"));
        {
            QFile in(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/starvation.workload.json"));
            QVERIFY(in.open(QIODevice::ReadOnly));
            auto j = nlohmann::json::parse(in.readAll().toStdString());
            j["config"]["capacity_blocks"] = 100000;
            QFile out(roomy);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(j.dump(2)));
        }
        QVERIFY(w->openPath(roomy));
        QCOMPARE(firstEvict(*doc), pl::Tick{-2});
        QCOMPARE(doc->currentTick(), 0);
        // The command line: without --tick at the first eviction (a background run too), with it where it says.
        for (const auto mode : {LabDocument::RunMode::Synchronous, LabDocument::RunMode::Background}) {
            auto cli = uitest::openWindow(QString());
            cli->document()->setRunMode(mode);
            LabOptions options;
            options.workload = kWave;
            cli->applyStartupOptions(options);
            cli->document()->waitForIdle();
            QCOMPARE(cli->document()->currentTick(), firstEvict(*cli->document()));
            for (int i = 0; i < 3; ++i) QApplication::processEvents();
            QVERIFY(!cli->workloadPanel()->visibleRegion().isEmpty());
            options.tick = 5;
            cli->applyStartupOptions(options);
            cli->document()->waitForIdle();
            QCOMPARE(cli->document()->currentTick(), pl::Tick{5});
        }
        // Every transport button says what it does and its key.
        for (QAction* a : w->transport()->transportActions()) {
            const QString key = a->shortcut().toString(QKeySequence::NativeText);
            QVERIFY2(!key.isEmpty() && a->toolTip() == QStringLiteral("%1 (%2)").arg(a->text(), key), qPrintable(a->toolTip()));
            auto* button = qobject_cast<QToolButton*>(w->transport()->widgetForAction(a));
            QVERIFY(button && button->toolTip() == a->toolTip());
        }
    }

    void stepsScrubsAndJumpsWithTheKeyboard() {
        auto w = makeWindow();
        LabDocument* doc = w->document();
        w->activateWindow();
        QTest::keyClick(w.get(), Qt::Key_Home); // it opened at its first eviction
        QCOMPARE(doc->currentTick(), -1);
        QTest::keyClick(w.get(), Qt::Key_Right);
        QCOMPARE(doc->currentTick(), 0);
        QTest::keyClick(w.get(), Qt::Key_Right);
        QTest::keyClick(w.get(), Qt::Key_Left);
        QCOMPARE(doc->currentTick(), 0);
        w->transport()->scrubber()->setValue(51);
        QCOMPARE(doc->currentTick(), 50);
        QTest::keyClick(w.get(), Qt::Key_PageDown);
        const auto& pressure = doc->session()->pressureTicks();
        const auto next = std::upper_bound(pressure.begin(), pressure.end(), 50);
        QVERIFY(next != pressure.end());
        QCOMPARE(doc->currentTick(), *next);
        QCOMPARE(w->transport()->scrubber()->value(), static_cast<int>(*next + 1));
        QTest::keyClick(w.get(), Qt::Key_End);
        QCOMPARE(doc->currentTick(), doc->lastTick());
        QTest::keyClick(w.get(), Qt::Key_Home);
        QCOMPARE(doc->currentTick(), -1);
        // Play advances the cursor on its own.
        w->transport()->speedSlider()->setValue(20); // 100 ticks/s
        w->transport()->playAction()->setChecked(true);
        QTRY_VERIFY_WITH_TIMEOUT(doc->currentTick() >= 3, 3000);
        w->transport()->playAction()->setChecked(false);
        const auto stopped = doc->currentTick();
        QTest::qWait(100);
        QCOMPARE(doc->currentTick(), stopped);
    }

    void focusedControlsKeepTheirKeys() {
        // The transport's plain keys were the window's everywhere: Right on a focused slider stepped the tick,
        // Space on a check box started playback, End in the ledger jumped to the last tick.
        auto w = makeWindow();
        LabDocument* doc = w->document();
        w->activateWindow();
        doc->seek(5);
        QSlider* speed = w->transport()->speedSlider();
        const int before = speed->value();
        speed->setFocus();
        QTest::keyClick(speed, Qt::Key_Right);
        QCOMPARE(speed->value(), before + 1);
        QCOMPARE(doc->currentTick(), 5);
        QTableView* ledger = w->ledger()->table();
        ledger->setFocus();
        QTest::keyClick(ledger, Qt::Key_End);
        QTest::keyClick(ledger, Qt::Key_PageDown);
        QVERIFY(doc->currentTick() != doc->lastTick());
        auto* check = w->findChild<QCheckBox*>();
        QVERIFY(check != nullptr);
        const bool was = check->isChecked();
        check->setFocus();
        QTest::keyClick(check, Qt::Key_Space);
        QCOMPARE(check->isChecked(), !was);
        QVERIFY(!w->transport()->playAction()->isChecked());
        // Off such controls the keys are the transport's, and a slider leaves Space to it.
        w->poolView()->setFocus();
        const auto tick = doc->currentTick();
        QTest::keyClick(w->poolView(), Qt::Key_Right);
        QCOMPARE(doc->currentTick(), tick + 1);
        QVERIFY(!plui::controlKeepsKey(speed, Qt::Key_Space));
        QVERIFY(plui::controlKeepsKey(speed, Qt::Key_Home));
        QVERIFY(!plui::controlKeepsKey(check, Qt::Key_Left));
        QVERIFY(!plui::controlKeepsKey(w->poolView(), Qt::Key_Left));
        QVERIFY(plui::controlKeepsKey(w->findChild<QDoubleSpinBox*>(), Qt::Key_Escape));
        QVERIFY(!plui::controlKeepsKey(ledger, Qt::Key_Escape));
        // A click on the timeline takes the focus (and so the keys) back from a slider.
        speed->setFocus();
        QTRY_VERIFY(speed->hasFocus());
        QTest::mouseClick(w->timeline()->plot(), Qt::LeftButton, {}, QPoint(40, 20));
        QTRY_VERIFY(!speed->hasFocus());
    }

    void clickingSelectsEverywhere() {
        auto w = makeWindow();
        w->document()->seek(60);
        settle();
        BlockGridWidget* grid = w->poolView()->grid();
        const auto owners = w->document()->session()->cursor().blockOwners();
        const int b = static_cast<int>(std::find_if(owners.begin(), owners.end(), [](auto o) { return o >= 0; }) - owners.begin());
        QVERIFY(b < static_cast<int>(owners.size()));
        const int c = grid->effectiveCellSize();
        const int cols = std::max(1, grid->width() / c);
        QTest::mouseClick(grid, Qt::LeftButton, {}, QPoint((b % cols) * c + c / 2, (b / cols) * c + c / 2));
        QCOMPARE(w->document()->selectedRequest(), owners[static_cast<std::size_t>(b)]);
    }

    void badFilesGetADialogNotACrash() {
        auto w = makeWindow();
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.workload.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format":"preemptlab.workload.v1","name":"x","requests":[)"
                R"({"id":"a","arrival_tick":0,"prompt_tokens":"ten","output_tokens":4}]})");
        f.close();
        const std::string before = receiptTextOf(*w->document());
        QVERIFY(!w->openPath(bad));
        QVERIFY2(w->lastError().contains(bad) && w->lastError().contains(QStringLiteral("/requests/0/prompt_tokens")),
                 qPrintable(w->lastError()));
        auto* box = w->findChild<QMessageBox*>(QStringLiteral("errorDialog"));
        QVERIFY(box != nullptr);
        QVERIFY(box->text().contains(QStringLiteral("prompt_tokens")));
        box->close();
        QCOMPARE(receiptTextOf(*w->document()), before); // the open workload is untouched
        QVERIFY(!w->openPath(dir.filePath(QStringLiteral("nope.json"))));
        QVERIFY(w->lastError().contains(QStringLiteral("nope.json")));
    }

    void dropAFileToOpenIt() {
        auto w = makeWindow(QString());
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(kSwapWins)});
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(w.get(), &drop);
        QVERIFY2(w->document()->hasWorkload(), qPrintable(w->lastError()));
        QCOMPARE(w->document()->sourceName(), kSwapWins);
    }

    // The engines, as `compare --engines`: one column per profile (core's engineVariant), each holding core's
    // summary of that engine's run; the choice survives a restart and keeps the bundle's comparison out.
    void compareRunsTheEnginesToo() {
        const QString disagree = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/engines-disagree.workload.json");
        auto w = makeWindow(disagree);
        CompareView* cmp = w->compare();
        auto* kind = cmp->findChild<QComboBox*>(QStringLiteral("compareKind"));
        QVERIFY(kind);
        kind->setCurrentIndex(1);
        QVERIFY(cmp->kind() == CompareKind::Engines);
        QSignalSpy finished(cmp, &CompareView::finished);
        cmp->start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QTableWidget* t = cmp->totalsTable();
        QCOMPARE(t->columnCount(), static_cast<int>(pl::comparedProfiles().size()));
        const pl::Workload base = uitest::loadSample(disagree);
        int evictionsRow = -1;
        for (int i = 0; i < t->rowCount(); ++i) {
            if (t->verticalHeaderItem(i)->text() == QStringLiteral("evictions")) evictionsRow = i;
        }
        QVERIFY(evictionsRow >= 0);
        for (int c = 0; c < t->columnCount(); ++c) {
            const pl::EngineProfile profile = pl::comparedProfiles()[static_cast<std::size_t>(c)];
            QCOMPARE(t->horizontalHeaderItem(c)->text(), QString::fromUtf8(pl::toString(profile).data()));
            const pl::Workload v = pl::engineVariant(base, profile);
            const pl::RunSummary s = pl::summarize(v, pl::runWorkload(v));
            QCOMPARE(t->item(evictionsRow, c)->text(), groupedNumber(s.totals.evictions));
        }
        QVERIFY(cmp->showsEngines());
        QVERIFY(cmp->statusText().contains(QStringLiteral("engine profiles")));
        // A new window starts on the engines again (QSettings).
        auto again = makeWindow(disagree);
        QVERIFY(again->compare()->kind() == CompareKind::Engines);
        again->compare()->setKind(CompareKind::Modes);
    }

    void compareRunsFourModesOffTheUiThread() {
        auto w = makeWindow(kSwapWins);
        CompareView* cmp = w->compare();
        cmp->setKind(CompareKind::Modes);
        QSignalSpy finished(cmp, &CompareView::finished);
        cmp->start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QVERIFY(cmp->hasResult());
        QTableWidget* t = cmp->totalsTable();
        QCOMPARE(t->columnCount(), 4);
        QCOMPARE(t->horizontalHeaderItem(1)->text(), QStringLiteral("swap"));
        // Every column holds core's summary of that mode's run: the numbers `preemptlab-cli compare` prints
        // (nearest-rank percentiles, binary byte units).
        auto row = [&](const QString& label) {
            for (int i = 0; i < t->rowCount(); ++i) {
                if (t->verticalHeaderItem(i)->text() == label) return i;
            }
            return -1;
        };
        const pl::Recovery modes[] = {pl::Recovery::Recompute, pl::Recovery::Swap, pl::Recovery::Adaptive,
                                      pl::Recovery::Hybrid};
        std::int64_t slowest[4] = {}; // 12 requests: nearest-rank p99 is the largest
        for (int c = 0; c < 4; ++c) {
            pl::Workload wl = uitest::loadSample(kSwapWins);
            wl.policy.recovery = modes[c];
            const pl::RunSummary s = pl::summarize(wl, pl::runWorkload(wl));
            slowest[c] = s.completion_ticks.p99;
            QCOMPARE(t->item(row(QStringLiteral("ticks")), c)->text(), groupedNumber(s.totals.ticks));
            QCOMPARE(t->item(row(QStringLiteral("replay tokens")), c)->text(), groupedNumber(s.totals.replay_tokens));
            QCOMPARE(t->item(row(QStringLiteral("swap out")), c)->text(),
                     QString::fromStdString(pl::formatBytes(s.totals.swap_out_bytes)));
            QCOMPARE(t->item(row(QStringLiteral("queue delay p50 (ticks)")), c)->text(), groupedNumber(s.queue_ticks.p50));
            QCOMPARE(t->item(row(QStringLiteral("queue delay p99 (ticks)")), c)->text(), groupedNumber(s.queue_ticks.p99));
            QCOMPARE(t->item(row(QStringLiteral("TTFT p99 (ticks)")), c)->text(), groupedNumber(s.ttft_ticks.p99));
            QCOMPARE(t->item(row(QStringLiteral("completion p99 (ticks)")), c)->text(),
                     groupedNumber(s.completion_ticks.p99));
            QCOMPARE(t->item(row(QStringLiteral("flagged requests")), c)->text(), groupedNumber(s.flagged_any));
        }
        QVERIFY(t->item(row(QStringLiteral("swap out")), 1)->text().endsWith(QStringLiteral("MiB")));
        // Bold marks the best; where all four agree (all 12 completed) nothing is.
        QVERIFY(t->item(row(QStringLiteral("ticks")), 1)->font().bold() && !t->item(row(QStringLiteral("ticks")), 0)->font().bold());
        QVERIFY(!t->item(row(QStringLiteral("completed")), 0)->font().bold());
        // The request at the tail is named once, with the modes it ends (placed above the curves:
        // test_plot_labels).
        const auto tails = cmp->plot(0)->findChildren<QCPItemText*>(QStringLiteral("tailLabel"));
        QCOMPARE(tails.size(), 1);
        // Each mode with its own value, largest first: recompute, hybrid, then swap and adaptive (one run).
        QVERIFY(slowest[0] > slowest[3] && slowest[3] > slowest[1] && slowest[1] == slowest[2]);
        QCOMPARE(tails[0]->text().replace(QLatin1Char('\n'), QLatin1Char(' ')), QStringLiteral("q02: recompute %1 \u00b7 hybrid %2 \u00b7 swap, adaptive %3 ticks \u2198")
                                       .arg(groupedNumber(slowest[0]), groupedNumber(slowest[3]), groupedNumber(slowest[1])));
        // On swap-wins adaptive chooses swap every time: the two runs are one, and the view says so.
        QVERIFY2(cmp->statusText().contains(QStringLiteral("adaptive = swap")), qPrintable(cmp->statusText()));
        // Cancel right after starting: it ends cleanly either way.
        cmp->start();
        cmp->cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        // An edit while it runs: the result is shown, flagged as from the workload before the edit.
        cmp->start();
        QString error;
        QVERIFY(w->document()->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("200"), &error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 60000);
        QVERIFY2(cmp->statusText().contains(QStringLiteral("before your last change")), qPrintable(cmp->statusText()));
    }

    void menusHaveOneActionPerKey() {
        // Ctrl+Shift+S was both Save As (on Linux desktops) and the window screenshot: Qt fires neither.
        auto w = makeWindow(QString());
        QHash<QString, QString> owner;
        for (const QAction* a : w->findChildren<QAction*>()) {
            for (const QKeySequence& k : a->shortcuts()) {
                const QString key = k.toString(QKeySequence::PortableText);
                QVERIFY2(!owner.contains(key) || owner[key] == a->text(),
                         qPrintable(key + QStringLiteral(": ") + owner[key] + QStringLiteral(" and ") + a->text()));
                owner[key] = a->text();
            }
        }
        for (const char* key : {"Ctrl+O", "Ctrl+Shift+S", "Ctrl+Q", "Ctrl+Z", "Ctrl+Shift+Z", "Ctrl+Y", "Ctrl+K",
                                "Esc", "Ctrl+T", "Ctrl+E", "Ctrl+Shift+L", "Ctrl+Shift+P", "Ctrl+Shift+B", "F1",
                                "Ctrl+1", "Ctrl+7", "Ctrl+0", "Space", "PgDown"}) {
            QVERIFY2(owner.contains(QString::fromLatin1(key)), key);
        }
        // Help > Keyboard Shortcuts lists them from the menus.
        const QString help = plui::HelpActions(w.get()).shortcutsText();
        for (const char* line : {"Ctrl+Shift+S\tSave Workload As", "Ctrl+Shift+P\tWhole window", "Esc\tCancel Run",
                                 "Ctrl+Shift+Z or Ctrl+Y\tRedo", "Left\tStep back", "Ctrl+3\tShow Victim ledger"}) {
            QVERIFY2(help.contains(QString::fromLatin1(line)), qPrintable(QString::fromLatin1(line) + QStringLiteral(" in\n") + help));
        }
        // With nothing open, what needs a run is disabled and says why.
        auto action = [&w](const QString& text) {
            for (QAction* a : w->findChildren<QAction*>()) {
                if (a->text() == text) return a;
            }
            return static_cast<QAction*>(nullptr);
        };
        QAction* receipt = action(QStringLiteral("&Receipt..."));
        QVERIFY(receipt && !receipt->isEnabled() && receipt->toolTip().startsWith(QStringLiteral("There is no run to export yet")));
        QVERIFY(!action(QStringLiteral("&Compare recovery modes"))->isEnabled());
        QVERIFY(!action(QStringLiteral("C&ancel Run"))->isEnabled());
        QAction* step = w->transport()->transportActions().at(2);
        QVERIFY2(!step->isEnabled() && step->toolTip() == QStringLiteral("Step back (Left): open a workload first"),
                 qPrintable(step->toolTip()));
        QAction* apply = w->findChild<QAction*>(QStringLiteral("applyCalibrationAction"));
        QVERIFY(!apply->isEnabled() && apply->toolTip().startsWith(QStringLiteral("Load a calibration first")));
        QVERIFY(w->openPath(kSwapWins));
        QVERIFY(receipt->isEnabled());
        QCOMPARE(step->toolTip(), QStringLiteral("Step back (Left)"));
        QVERIFY(action(QStringLiteral("&Compare recovery modes"))->isEnabled());
        QVERIFY(w->windowTitle().startsWith(QStringLiteral("swap-wins - swap-wins.workload.json - PreemptLab")));
        // Ctrl+3 shows, raises and focuses the ledger.
        QTest::keyClick(w.get(), Qt::Key_3, Qt::ControlModifier);
        QVERIFY(w->ledger()->isVisible());
        // A remembered file that is gone leaves Open Recent when it fails to open.
        QTemporaryDir dir;
        const QString gone = dir.filePath(QStringLiteral("gone.workload.json"));
        w->fileActions()->addRecent(gone);
        QVERIFY(w->fileActions()->recentFiles().contains(gone));
        QVERIFY(!w->openPath(gone));
        QVERIFY(!w->fileActions()->recentFiles().contains(gone));
    }

    void breakevenPresetsReproduceTheSeed() {
        BreakevenView v;
        v.resize(900, 500);
        v.applyPreset(0);
        QVERIFY2(v.verdictText().contains(QStringLiteral("swap")), qPrintable(v.verdictText()));
        // The preset prices the seed's exact numbers, as `preemptlab-cli breakeven --link-gbps 50 --context 4096`
        // does (5.24 and 34.65 us/token), not the nearest slider step (49.7 GB/s, 4,110 tokens).
        for (const char* figure : {"4,096 tokens", "5.24", "34.65", "50.0 GB/s"}) {
            QVERIFY2(v.verdictText().contains(QLatin1String(figure)), qPrintable(v.verdictText()));
        }
        v.applyPreset(2); // per-block copies at 10 us: recompute wins at 4K context
        QVERIFY2(v.verdictText().contains(QStringLiteral("recompute.")), qPrintable(v.verdictText()));
        v.slider(QStringLiteral("overhead"))->setValue(0);
        QVERIFY2(v.verdictText().contains(QStringLiteral("swap")), qPrintable(v.verdictText()));
        QVERIFY(uitest::distinctColours(v.grab().toImage()) > 8);
        // The CLI's report, every line readable without scrolling sideways: its values wrap in a table.
        v.show();
        QApplication::processEvents();
        auto* report = v.findChild<QLabel*>(QStringLiteral("breakevenReport"));
        QVERIFY(report);
        QVERIFY2(report->text().contains(QStringLiteral(">spare compute</td>")), qPrintable(report->text()));
        QVERIFY2(report->width() <= report->parentWidget()->width(), qPrintable(QString::number(report->width())));
    }

    void helpAndVersionNeedNoDisplay() {
        const QString exe = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
        if (!QFileInfo::exists(exe)) QSKIP("preemptlab not built");
        for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("--version")}) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
                env.remove(QString::fromLatin1(name));
            }
            p.setProcessEnvironment(env);
            p.start(exe, {flag});
            QVERIFY(p.waitForFinished(30000));
            const QString out = QString::fromUtf8(p.readAllStandardOutput());
            QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                     qPrintable(flag + QStringLiteral(": ") + QString::fromUtf8(p.readAllStandardError())));
            QVERIFY2(out.contains(flag == QStringLiteral("--help") ? QStringLiteral("--screenshot")
                                                                     : QStringLiteral("0.1.0")),
                     qPrintable(out));
        }
    }

    void editingTheRequestTableIsUndoable() {
        auto w = makeWindow(kSwapWins);
        RequestTableModel* m = w->workloadPanel()->model();
        QCOMPARE(m->rowCount(), static_cast<int>(w->document()->workload().requests.size()));
        const auto before = w->document()->workload().requests[0].output_tokens;
        QVERIFY(m->setData(m->index(0, RequestTableModel::Output), QVariant::fromValue<qlonglong>(before - 1), Qt::EditRole));
        QCOMPARE(w->document()->workload().requests[0].output_tokens, before - 1);
        QCOMPARE(m->data(m->index(0, RequestTableModel::Output), Qt::DisplayRole).toLongLong(), before - 1);
        QVERIFY(w->windowTitle().contains(QStringLiteral("(edited)")));
        QTest::keyClick(w.get(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w->document()->workload().requests[0].output_tokens, before);
        QSignalSpy refused(m, &RequestTableModel::editRejected);
        QVERIFY(!m->setData(m->index(0, RequestTableModel::Prompt), QStringLiteral("lots"), Qt::EditRole));
        QVERIFY(!m->setData(m->index(0, RequestTableModel::Id), QStringLiteral("bad id!"), Qt::EditRole));
        QCOMPARE(refused.size(), 2);
        QVERIFY(refused.at(1).at(0).toString().contains(QStringLiteral("/requests/0/id")));
        // Selecting a row selects the request everywhere.
        w->workloadPanel()->table()->selectRow(2);
        QCOMPARE(w->document()->selectedRequest(), 2);
    }

    void generatorDialogMakesAWorkload() {
        GeneratorDialog dialog;
        dialog.count()->setValue(150);
        dialog.seed()->setValue(42);
        QString error;
        auto a = dialog.generate(&error);
        QVERIFY2(a.has_value(), qPrintable(error));
        QCOMPARE(a->requests.size(), std::size_t{150});
        auto b = dialog.generate(&error);
        QVERIFY(a->requests == b->requests); // seeded: the same settings give the same workload
        dialog.rate()->setValue(dialog.rate()->value() * 4);
        auto c = dialog.generate(&error);
        QVERIFY(c->requests.back().arrival_tick < a->requests.back().arrival_tick); // faster arrivals
        dialog.tenants()->setText(QStringLiteral("chat:3,batch"));
        QVERIFY(!dialog.generate(&error));
        QVERIFY(error.contains(QStringLiteral("tenant")));
        auto w = makeWindow(QString());
        QVERIFY(w->document()->setWorkload(std::move(*a), QStringLiteral("generated"), &error));
        QVERIFY(w->document()->session() != nullptr);
    }

    void settingsSurviveARestart() {
        {
            auto w = makeWindow(kSwapWins);
            w->resize(1234, 777);
            w->transport()->speedSlider()->setValue(27);
            w->close();
        }
        auto w = std::make_unique<MainWindow>();
        QCOMPARE(w->transport()->speedSlider()->value(), 27);
        w->show();
        settle();
        QVERIFY2(std::abs(w->width() - 1234) <= 2 && std::abs(w->height() - 777) <= 2, "the window size is restored");
        QVERIFY(w->fileActions()->recentFiles().first().endsWith(QStringLiteral("swap-wins.workload.json")));
    }
};

QTEST_MAIN(TestLabGui)
#include "test_lab_gui.moc"
