// The Sweep view (issue 26's crossover map, issue 28's lab part): the heat map holds the winners core's runSweep
// gives and the flip boundary where flip_axes says (a hand-made 2 x 3 grid first, then a sweep run in the lab on
// a small workload); clicking a cell opens that point's run (the document's workload gets the point's values and
// its winner's mode, undoably); a Cancel leaves the view as it was; a JSON result written by the CLI shows the
// same map as running it; a damaged file is refused naming file and field; the shard plan is core's.
#include "ui/labdocument.h"
#include "ui/exportactions.h"
#include "ui/labslos.h"
#include "ui/mainwindow.h"
#include "ui/modecolors.h"
#include "ui/sweepactions.h"
#include "ui/sweepview.h"
#include "tests/ui/uitestutil.h"

#include "tests/core/cost/sweep_fixtures.h"
#include "core/cost/sweep.h"
#include "core/cost/sweep_output.h"
#include "core/cost/sweep_shards.h"
#include "core/session.h"
#include "core/workload_io.h"

#include <qcustomplot.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>
#include <QSettings>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace plui;
using pl::cost::SweepResult;

namespace {

// A small pool under pressure (sweep_fixtures.h).
pl::Workload pressured() { return pltest::pressuredSweepWorkload("sweep-view-test"); }

const QStringList kVary{QStringLiteral("capacity_blocks=12,20,28"), QStringLiteral("transfer_bytes_per_tick=1024,16384")};

pl::cost::SweepSpec specOf(const QStringList& vary) {
    pl::cost::SweepSpec spec;
    for (const QString& v : vary) spec.axes.push_back(std::get<pl::cost::SweepAxis>(pl::cost::parseSweepAxis(v.toStdString())));
    return spec;
}

// The cell values of the heat map, row by row (y the first axis), as point order has them.
std::vector<int> cells(const SweepView* view) {
    std::vector<int> out;
    auto* data = view->heatMap()->data();
    for (int y = 0; y < data->valueSize(); ++y) {
        for (int x = 0; x < data->keySize(); ++x) out.push_back(static_cast<int>(data->cell(x, y)));
    }
    return out;
}

std::vector<std::pair<double, double>> sortedEnds(const std::vector<QLineF>& lines) {
    std::vector<std::pair<double, double>> out;
    for (const QLineF& l : lines) {
        out.emplace_back(l.x1() * 10 + l.y1(), l.x2() * 10 + l.y2());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The boundary segments flip_axes names (x the last axis, y the first), in cell coordinates.
std::vector<QLineF> expectedBoundary(const SweepResult& r) {
    std::vector<QLineF> out;
    const std::size_t nx = r.spec.axes.back().values.size();
    for (std::size_t i = 0; i < r.points.size(); ++i) {
        const double x = static_cast<double>(i % nx);
        const double y = static_cast<double>(i / nx);
        for (const std::size_t a : r.points[i].flip_axes) {
            out.push_back(a == 1 ? QLineF(x - 0.5, y - 0.5, x - 0.5, y + 0.5) : QLineF(x - 0.5, y - 0.5, x + 0.5, y - 0.5));
        }
    }
    return out;
}

void writeFile(const QString& path, const std::string& text) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(text.data(), static_cast<qint64>(text.size()));
}

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

std::unique_ptr<MainWindow> windowWith(const pl::Workload& w) {
    auto win = uitest::openWindow({});
    QString error;
    if (!win->document()->setWorkload(w, QStringLiteral("sweep-view-test"), &error)) qFatal("%s", qPrintable(error));
    QApplication::processEvents();
    return win;
}

bool runAndWait(MainWindow* win, const SweepRequest& request) {
    QSignalSpy done(win->sweepActions(), &SweepActions::finished);
    if (!win->sweepActions()->runSweep(request)) return false;
    win->sweepActions()->waitForIdle();
    return done.count() == 1 && done.front().front().toBool();
}

} // namespace

class TestSweepView : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { uitest::isolateSettings(QStringLiteral("test_sweep_view")); }

    void theMenuEntryHasItsOwnShortcut() {
        auto w = uitest::openWindow({});
        auto* action = w->findChild<QAction*>(QStringLiteral("sweepAction"));
        QVERIFY(action != nullptr);
        QCOMPARE(action->shortcut().toString(QKeySequence::PortableText), QStringLiteral("Ctrl+Shift+M"));
        for (const QAction* other : w->findChildren<QAction*>()) {
            if (other != action) QVERIFY(!other->shortcuts().contains(action->shortcut()));
        }
    }

    // Review > Sweep...: the dialog names a value core's axis parser refuses under its fields and stays open; with
    // good values for two axes it runs the sweep the CLI's flags would, and the view shows it.
    void theDialogRunsWhatItIsGiven() {
        auto win = windowWith(pressured());
        QString problem;
        QTimer::singleShot(0, [&problem]() {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            if (!dialog || dialog->objectName() != QLatin1String("sweepDialog")) return;
            auto* buttons = dialog->findChild<QDialogButtonBox*>();
            dialog->findChild<QComboBox*>(QStringLiteral("sweepAxis1Key"))->setCurrentText(QStringLiteral("capacity_blocks"));
            dialog->findChild<QLineEdit*>(QStringLiteral("sweepAxis1Values"))->setText(QStringLiteral("12:28"));
            buttons->button(QDialogButtonBox::Ok)->click();
            problem = dialog->findChild<QLabel*>(QStringLiteral("sweepProblem"))->text();
            dialog->findChild<QLineEdit*>(QStringLiteral("sweepAxis1Values"))->setText(QStringLiteral("12,20,28"));
            dialog->findChild<QCheckBox*>(QStringLiteral("sweepSecondAxis"))->setChecked(true);
            dialog->findChild<QComboBox*>(QStringLiteral("sweepAxis2Key"))->setCurrentText(QStringLiteral("transfer_bytes_per_tick"));
            dialog->findChild<QLineEdit*>(QStringLiteral("sweepAxis2Values"))->setText(QStringLiteral("1024,16384"));
            buttons->button(QDialogButtonBox::Ok)->click();
        });
        QSignalSpy done(win->sweepActions(), &SweepActions::finished);
        win->sweepActions()->sweepAction()->trigger();
        win->sweepActions()->waitForIdle();
        QCOMPARE(problem, QStringLiteral("--vary capacity_blocks: '12:28' is not LO:HI:STEP"));
        QCOMPARE(done.count(), 1);
        const auto core = std::get<SweepResult>(pl::cost::runSweep(pressured(), specOf(kVary)));
        QVERIFY(win->sweep()->result().has_value());
        QCOMPARE(pl::cost::sweepCsv(*win->sweep()->result()), pl::cost::sweepCsv(core));
    }

    // The 2 x 3 grid of core's test (axes a = {0, 1}, b = {0, 1, 2}; recompute and swap, metrics chosen):
    //        b=0            b=1             b=2
    //   a=0  rc 1 / sw 3    rc 2 / sw 2     rc 5 / sw 1
    //   a=1  rc 4 / sw 1    rc 1 / sw 2.5   rc 0 / sw 9
    // Winners: a=0: recompute, tie, swap; a=1: swap, recompute, recompute (categories rc 0, sw 1, tie 2).
    // Boundary: along b between (0,0)|(0,1), (0,1)|(0,2), (1,0)|(1,1); along a under every cell of row 1.
    void heatMapOfAHandMadeGrid() {
        SweepResult r;
        r.workload_name = "hand-made";
        r.spec.axes = {{"watermark_blocks", {"0", "1"}}, {"hybrid_swap_percent", {"0", "1", "2"}}};
        r.spec.modes = {pl::Recovery::Recompute, pl::Recovery::Swap};
        const double rc[] = {1, 2, 5, 4, 1, 0};
        const double sw[] = {3, 2, 1, 1, 2.5, 9};
        r.points.resize(6);
        for (std::size_t i = 0; i < 6; ++i) {
            r.points[i].values = {std::to_string(i / 3), std::to_string(i % 3)};
            r.points[i].results = {pl::cost::ModeResult{}, pl::cost::ModeResult{}};
            r.points[i].results[0].mode = pl::Recovery::Recompute;
            r.points[i].results[0].metric = rc[i];
            r.points[i].results[1].mode = pl::Recovery::Swap;
            r.points[i].results[1].metric = sw[i];
        }
        pl::cost::finishSweepPoints(r.spec, r.points);
        SweepView view;
        view.resize(800, 500);
        view.setResult(r, QStringLiteral("a hand-made grid"));
        QVERIFY(view.heatMap() != nullptr);
        QCOMPARE(view.heatMap()->data()->keySize(), 3);
        QCOMPARE(view.heatMap()->data()->valueSize(), 2);
        QCOMPARE(cells(&view), (std::vector<int>{0, 2, 1, 1, 0, 0}));
        const std::vector<QLineF> boundary{QLineF(0.5, -0.5, 0.5, 0.5),  QLineF(1.5, -0.5, 1.5, 0.5),
                                           QLineF(0.5, 0.5, 0.5, 1.5),   QLineF(-0.5, 0.5, 0.5, 0.5),
                                           QLineF(0.5, 0.5, 1.5, 0.5),   QLineF(1.5, 0.5, 2.5, 0.5)};
        QCOMPARE(sortedEnds(view.boundary()), sortedEnds(boundary));
        // One colour per category: the modes' own, and for the tie a blend of its two, unlike either.
        QCOMPARE(view.categories(), (std::vector<std::string>{"recompute", "swap", "recompute=swap"}));
        const QCPRange range(0, 2);
        QCOMPARE(QColor(view.heatMap()->gradient().color(0, range)), modeColor(pl::Recovery::Recompute));
        QCOMPARE(QColor(view.heatMap()->gradient().color(1, range)), modeColor(pl::Recovery::Swap));
        const QColor tie(view.heatMap()->gradient().color(2, range));
        QCOMPARE(tie, SweepView::categoryColor("recompute=swap"));
        QVERIFY(tie != modeColor(pl::Recovery::Recompute) && tie != modeColor(pl::Recovery::Swap));
        // The margin reads in the tooltip: point (1,1) is recompute's by 1.5.
        QVERIFY(view.pointText(4).contains(QStringLiteral("winner: recompute, ahead by 1.50")));
        QVERIFY(view.pointText(1).contains(QStringLiteral("(a tie)")));
    }

    // A sweep run in the lab: the same winners and flips as core's runSweep of the same grid, drawn as such.
    void theLabsSweepIsCoresSweep() {
        auto win = windowWith(pressured());
        QVERIFY(runAndWait(win.get(), {kVary, {}, pl::cost::SweepMetric::MeanCompletion, 2}));
        const auto core = std::get<SweepResult>(pl::cost::runSweep(pressured(), specOf(kVary)));
        const auto& shown = win->sweep()->result();
        QVERIFY(shown.has_value());
        QCOMPARE(pl::cost::sweepCsv(*shown), pl::cost::sweepCsv(core));
        // Core's winners here: ties at capacity 12 (all four) and 20 (recompute=adaptive), recompute=adaptive then
        // hybrid at 28: categories are the four modes, then the ties in point order.
        const std::vector<std::string> categories{"recompute", "swap", "adaptive", "hybrid",
                                                  "recompute=swap=adaptive=hybrid", "recompute=adaptive"};
        QCOMPARE(win->sweep()->categories(), categories);
        std::vector<int> expected;
        for (const auto& p : core.points) {
            expected.push_back(static_cast<int>(std::find(categories.begin(), categories.end(), p.winner) - categories.begin()));
        }
        QCOMPARE(expected, (std::vector<int>{4, 4, 5, 5, 5, 3}));
        QCOMPARE(cells(win->sweep()), expected);
        // Flips: 12 -> 20 in both columns, and 28's second column against the first and against 20.
        QCOMPARE(win->sweep()->boundary().size(), std::size_t{4});
        QCOMPARE(sortedEnds(win->sweep()->boundary()), sortedEnds(expectedBoundary(core)));
        // Determinism: the same sweep again draws the same map.
        QVERIFY(runAndWait(win.get(), {kVary, {}, pl::cost::SweepMetric::MeanCompletion, 1}));
        QCOMPARE(cells(win->sweep()), expected);
    }

    // The review bundle carries the crossover map when the Sweep view shows one: sweep.png, sweep.json (the bytes
    // `sweep --out F.json` writes: core's sweepJson of the same result) and a summary.md section; a bundle written
    // into the same folder once the view is empty again removes both files.
    void theBundleCarriesTheCrossoverMap() {
        auto win = windowWith(pressured());
        QTemporaryDir dir;
        QVERIFY(runAndWait(win.get(), {kVary, {}, pl::cost::SweepMetric::MeanCompletion, 2}));
        const auto error = win->exportActions()->writeBundleNow(dir.path());
        QVERIFY2(!error, error ? qPrintable(*error) : "");
        const auto core = std::get<SweepResult>(pl::cost::runSweep(pressured(), specOf(kVary)));
        QCOMPARE(readAll(dir.filePath(QStringLiteral("sweep.json"))),
                 QString::fromStdString(pl::cost::sweepJson(core).dump(2) + "\n"));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("sweep.png"))).size() > 0);
        const QString md = readAll(dir.filePath(QStringLiteral("summary.md")));
        QVERIFY2(md.contains(QStringLiteral("## Crossover map")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("6 points over `capacity_blocks` x `transfer_bytes_per_tick`")), qPrintable(md));
        // Flips: 20 (along capacity), 28's two points (along capacity, and the second along transfer too).
        std::size_t flips = 0;
        for (const auto& p : core.points) flips += p.flip_axes.empty() ? 0 : 1;
        QVERIFY2(md.contains(QStringLiteral("at %1 of them").arg(flips)), qPrintable(md));
        // Without a result on screen (a fresh window, same workload) the bundle leaves both out and removes the old ones.
        auto fresh = windowWith(pressured());
        QVERIFY(!fresh->sweep()->result());
        const auto again = fresh->exportActions()->writeBundleNow(dir.path());
        QVERIFY2(!again, again ? qPrintable(*again) : "");
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("sweep.json"))));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("sweep.png"))));
        QVERIFY(!readAll(dir.filePath(QStringLiteral("summary.md"))).contains(QStringLiteral("Crossover map")));
    }

    // Clicking a cell opens that point's run: capacity 28 and transfer 1024 (point 4), the winner's mode; Undo
    // returns to the workload as it was.
    void clickingACellOpensItsRun() {
        auto win = windowWith(pressured());
        QVERIFY(runAndWait(win.get(), {kVary, {}, pl::cost::SweepMetric::MeanCompletion, 2}));
        win->view(QStringLiteral("sweep"));
        QApplication::processEvents();
        const auto& r = *win->sweep()->result();
        const std::size_t index = 4;
        QCOMPARE(r.points[index].values, (std::vector<std::string>{"28", "1024"}));
        QTest::mouseClick(win->sweep()->plot(), Qt::LeftButton, {}, win->sweep()->pixelOf(index));
        const pl::Workload& w = win->document()->workload();
        QCOMPARE(w.config.capacity_blocks, std::int64_t{28});
        QCOMPARE(w.config.transfer_bytes_per_tick, std::int64_t{1024});
        const std::string winner = r.points[index].winner.substr(0, r.points[index].winner.find('='));
        QVERIFY(w.policy.recovery == *pl::parseRecovery(winner));
        QVERIFY(win->document()->sessionShowsWorkload());
        QCOMPARE(win->document()->session()->workload().config.capacity_blocks, std::int64_t{28});
        win->document()->undoStack()->undo();
        QVERIFY(win->document()->workload() == pressured());
    }

    // A Cancel drops the sweep: the view keeps the map it had, and finished(false) says so.
    void cancelLeavesTheViewUnchanged() {
        auto win = windowWith(pressured());
        QVERIFY(runAndWait(win.get(), {kVary, {}, pl::cost::SweepMetric::MeanCompletion, 2}));
        const std::string before = pl::cost::sweepCsv(*win->sweep()->result());
        const QString caption = win->sweep()->caption();
        QSignalSpy done(win->sweepActions(), &SweepActions::finished);
        QVERIFY(win->sweepActions()->runSweep({{QStringLiteral("capacity_blocks=12:4000:1"),
                                                QStringLiteral("transfer_bytes_per_tick=1024:16384:1024")},
                                               {}, pl::cost::SweepMetric::Ticks, 2}));
        QVERIFY(win->sweepActions()->busy());
        win->sweepActions()->cancel();
        win->sweepActions()->waitForIdle();
        QCOMPARE(done.count(), 1);
        QCOMPARE(done.front().front().toBool(), false);
        QCOMPARE(pl::cost::sweepCsv(*win->sweep()->result()), before);
        QCOMPARE(win->sweep()->caption(), caption);
    }

    // The CLI's JSON (sweepJson, what `sweep --out F.json` writes) opens to the same map as running the sweep.
    void aJsonResultShowsTheSameMap() {
        QTemporaryDir dir;
        const auto core = std::get<SweepResult>(pl::cost::runSweep(pressured(), specOf(kVary)));
        const QString file = dir.filePath(QStringLiteral("sweep.json"));
        writeFile(file, pl::cost::sweepJson(core).dump(2) + "\n");
        auto ran = windowWith(pressured());
        QVERIFY(runAndWait(ran.get(), {kVary, {}, pl::cost::SweepMetric::MeanCompletion, 2}));
        auto opened = uitest::openWindow({});
        QSignalSpy done(opened->sweepActions(), &SweepActions::finished);
        QVERIFY(opened->sweepActions()->openResult(file));
        opened->sweepActions()->waitForIdle();
        QCOMPARE(done.count(), 1);
        QVERIFY(done.front().front().toBool());
        QCOMPARE(cells(opened->sweep()), cells(ran->sweep()));
        QCOMPARE(sortedEnds(opened->sweep()->boundary()), sortedEnds(ran->sweep()->boundary()));
        QVERIFY(opened->sweep()->caption().contains(QStringLiteral("sweep.json")));
        // A point of a result read from a file opens on the open workload when it is the sweep's.
        QVERIFY(!opened->sweepActions()->openPoint(0));
        QVERIFY(opened->sweepActions()->lastError().contains(QStringLiteral("sweep-view-test")));
        QString error;
        QVERIFY(opened->document()->setWorkload(pressured(), QStringLiteral("sweep-view-test"), &error));
        QVERIFY(opened->sweepActions()->openPoint(1));
        QCOMPARE(opened->document()->workload().config.capacity_blocks, std::int64_t{12});
        QCOMPARE(opened->document()->workload().config.transfer_bytes_per_tick, std::int64_t{16384});
    }

    // A damaged file is refused with the file, the JSON path and the reason; the view keeps what it showed.
    void aBadJsonFileNamesFileAndField() {
        QTemporaryDir dir;
        const auto core = std::get<SweepResult>(pl::cost::runSweep(pressured(), specOf(kVary)));
        auto j = pl::cost::sweepJson(core);
        j["points"][1]["winner"] = 7;
        const QString file = dir.filePath(QStringLiteral("bad.json"));
        writeFile(file, j.dump(2));
        auto win = uitest::openWindow({});
        QVERIFY(win->sweepActions()->openResult(file));
        win->sweepActions()->waitForIdle();
        QCOMPARE(win->sweepActions()->lastError(), file + QStringLiteral(": /points/1/winner: not a string"));
        QVERIFY(!win->sweep()->result().has_value());
        QCOMPARE(win->lastError(), win->sweepActions()->lastError());
    }

    // One axis: a line per mode, the winners marked, a dashed line at each flip.
    void oneAxisIsALinePlot() {
        auto win = windowWith(pressured());
        QVERIFY(runAndWait(win.get(), {{QStringLiteral("capacity_blocks=12:28:4")}, {pl::Recovery::Recompute, pl::Recovery::Swap},
                                       pl::cost::SweepMetric::MeanCompletion, 2}));
        const auto core = std::get<SweepResult>(pl::cost::runSweep(pressured(), [] {
            auto s = specOf({QStringLiteral("capacity_blocks=12:28:4")});
            s.modes = {pl::Recovery::Recompute, pl::Recovery::Swap};
            return s;
        }()));
        QVERIFY(win->sweep()->heatMap() == nullptr);
        QCustomPlot* plot = win->sweep()->plot();
        QCOMPARE(plot->graph(0)->name(), QStringLiteral("recompute"));
        QCOMPARE(plot->graph(0)->data()->size(), 5);
        QCOMPARE(plot->graph(0)->data()->at(2)->value, core.points[2].results[0].metric);
        std::size_t flips = 0;
        for (const auto& p : core.points) flips += p.flip ? 1 : 0;
        QCOMPARE(win->sweep()->boundary().size(), flips);
    }

    // Export Shard Plan: core's plan for the shown sweep (what `sweep --shard-plan N` prints), and the commands.
    void theShardPlanIsCores() {
        QTemporaryDir dir;
        auto win = windowWith(pressured());
        QVERIFY(runAndWait(win.get(), {kVary, {}, pl::cost::SweepMetric::MeanCompletion, 2}));
        const QString plan = dir.filePath(QStringLiteral("plan.json"));
        QVERIFY(win->sweepActions()->exportShardPlan(plan, 3));
        auto spec = specOf(kVary);
        const auto expected = std::get<nlohmann::json>(pl::cost::sweepShardPlan(pressured(), spec, 3)).dump(2) + "\n";
        QCOMPARE(readAll(plan).toStdString(), expected);
        const QString commands = readAll(dir.filePath(QStringLiteral("plan-submit.txt")));
        QVERIFY(commands.contains(QStringLiteral("scripts/slurm/submit-sweep.sh --shards 3 ")));
        QVERIFY(commands.contains(QStringLiteral("--vary capacity_blocks=12,20,28 --vary transfer_bytes_per_tick=1024,16384")));
        QVERIFY(commands.contains(QStringLiteral("\nsqueue --me\n")));
        QVERIFY(!win->sweepActions()->exportShardPlan(dir.filePath(QStringLiteral("plan.txt")), 3));
    }

    // The metric slo-misses ranks by the lab's SLOs (the Distributions view's fields): none set, nothing runs and
    // the reason says where to set them; set, the sweep is core's with those SLOs, and the shard plan's command
    // carries them as the CLI takes them (ticks, or ms written exactly).
    void sloMissesUsesTheLabsSlos() {
        auto clear = qScopeGuard([] { QSettings().clear(); });
        auto win = windowWith(pressured());
        const SweepRequest request{kVary, {}, pl::cost::SweepMetric::SloMisses, 2};
        QVERIFY(!win->sweepActions()->runSweep(request));
        QVERIFY2(win->sweepActions()->lastError().contains(QStringLiteral("Distributions view")),
                 qPrintable(win->sweepActions()->lastError()));
        QString error;
        QVERIFY(win->slos()->setText(false, SloKind::Ttft, QStringLiteral("20"), &error));
        QVERIFY(win->slos()->setText(false, SloKind::Tpot, QStringLiteral("2"), &error));
        QVERIFY(runAndWait(win.get(), request));
        auto spec = specOf(kVary);
        spec.metric = pl::cost::SweepMetric::SloMisses;
        spec.slos.ttft = pl::review::Slo{20, pl::review::SloUnit::Ticks};
        spec.slos.tpot = pl::review::Slo{2, pl::review::SloUnit::Ticks};
        const auto core = std::get<SweepResult>(pl::cost::runSweep(pressured(), spec));
        QCOMPARE(pl::cost::sweepCsv(*win->sweep()->result()), pl::cost::sweepCsv(core));
        QVERIFY(win->sweepActions()->submitCommands(2).contains(
            QStringLiteral("--metric slo-misses --slo-ttft-ticks 20 --slo-tpot-ticks 2\n")));
        // Another metric does not take the lab's SLOs: the sweep is the one without them.
        QVERIFY(runAndWait(win.get(), {kVary, {}, pl::cost::SweepMetric::Ticks, 2}));
        QVERIFY(!win->sweep()->result()->spec.slos.any());
        // With tick_us the ms pair applies: 12.5 ms is written as typed.
        pl::Workload timed = pressured();
        timed.config.tick_us = 1000;
        auto msWin = windowWith(timed);
        QVERIFY(msWin->slos()->setText(true, SloKind::Ttft, QStringLiteral("12.5"), &error));
        QVERIFY(runAndWait(msWin.get(), request));
        QCOMPARE(msWin->sweep()->result()->spec.slos.ttft->value, std::int64_t{12500});
        QVERIFY(!msWin->sweep()->result()->spec.slos.tpot);
        QVERIFY(msWin->sweepActions()->submitCommands(2).contains(QStringLiteral("--metric slo-misses --slo-ttft-ms 12.5\n")));
    }
};

QTEST_MAIN(TestSweepView)
#include "test_sweep_view.moc"
