// Headless rendering (ui/headless.cpp) through the real program: every single view is written at exactly
// --size. The pool, the window's centre rather than a dock, used to be drawn inside a window 5/3 of --size
// and came out at whatever the docks left it (1048x709 for --size 1200x800). The whole window fits a 1024-px
// screen (it was drawn at least 1,235 px wide, then 1,064, from the docks' first layout); it cannot be
// narrower than its docks' least widths (about 580 px): a smaller --size is drawn larger, and the program
// says so. Also the files the lab writes beside the CLI's: the review bundle, and the comparison export.
#include "ui/compareview.h"
#include "ui/exportactions.h"
#include "ui/exporter.h"
#include "ui/labcommandline.h"
#include "ui/labdocument.h"
#include "ui/ledgerview.h"
#include "ui/mainwindow.h"
#include "ui/plotswidget.h"
#include "tests/cli_runner.h"
#include "tests/ui/uitestutil.h"

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QGuiApplication>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <unistd.h>
#include <memory>

namespace {

const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");

} // namespace

class TestHeadless : public QObject {
    Q_OBJECT
  private slots:
    void everyViewIsWrittenAtSize_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("exact");
        for (const QString& view : plui::labViewNames()) {
            if (view == QLatin1String("window")) continue;
            QTest::newRow(qPrintable(view + QStringLiteral(" 1000x700"))) << view << QSize(1000, 700) << true;
        }
        // The whole window at the README's size, a projector's, and narrower than its docks allow.
        QTest::newRow("window 1600x1000") << QStringLiteral("window") << QSize(1600, 1000) << true;
        QTest::newRow("window 1024x768") << QStringLiteral("window") << QSize(1024, 768) << true;
        QTest::newRow("window 800x700") << QStringLiteral("window") << QSize(800, 700) << true;
        QTest::newRow("window 500x700") << QStringLiteral("window") << QSize(500, 700) << false;
        // The size the pool was reported at, and one taller than wide.
        QTest::newRow("pool 1200x800") << QStringLiteral("pool") << QSize(1200, 800) << true;
        QTest::newRow("pool 700x900") << QStringLiteral("pool") << QSize(700, 900) << true;
    }

    void everyViewIsWrittenAtSize() {
        QFETCH(QString, view);
        QFETCH(QSize, size);
        QFETCH(bool, exact);
        const QString exe = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
        if (!QFileInfo::exists(exe)) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        const QString out = dir.filePath(view + QStringLiteral(".png"));
        const QString sizeArg = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        QString err;
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), kSeed, QStringLiteral("--tick"), QStringLiteral("9"),
                              QStringLiteral("--view"), view, QStringLiteral("--size"), sizeArg,
                              QStringLiteral("--screenshot"), out},
                        &err),
                 0);
        const QImage img(out);
        QVERIFY2(!img.isNull(), qPrintable(err));
        const QString note = QStringLiteral("cannot be drawn at --size %1 (its layout needs more room); it was drawn at %2x%3")
                                 .arg(sizeArg).arg(img.width()).arg(img.height());
        if (exact) {
            QCOMPARE(img.size(), size);
            QVERIFY2(!err.contains(QStringLiteral("note:")), qPrintable(err));
        } else {
            QCOMPARE(img.height(), size.height());
            QVERIFY2(img.width() > size.width(), qPrintable(QString::number(img.width())));
            QVERIFY2(err.contains(note), qPrintable(err));
        }
        QVERIFY2(uitest::distinctColours(img) > 8, qPrintable(view)); // drawn, not a blank frame
    }

    // --sweep shows the CLI's sweep result in the Sweep view (no workload needed for its screenshot); a damaged
    // result is exit 2 naming the file and the field, and no image.
    void aSweepResultIsDrawnFromTheClisFile() {
        const QString cli = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli");
        if (!QFileInfo::exists(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab")) || !QFileInfo::exists(cli)) {
            QSKIP("preemptlab or preemptlab-cli not built");
        }
        QTemporaryDir dir;
        const QString result = dir.filePath(QStringLiteral("sweep.json"));
        const auto made = pltest::runCli({QStringLiteral("sweep"), kSwapWins, QStringLiteral("--vary"),
                                          QStringLiteral("capacity_blocks=56:80:8"), QStringLiteral("--vary"),
                                          QStringLiteral("transfer_bytes_per_tick=65536,262144"), QStringLiteral("--out"), result});
        QVERIFY2(made.code == 0, made.err.constData());
        const QString shot = dir.filePath(QStringLiteral("sweep.png"));
        QString err;
        QCOMPARE(runLab(dir, {QStringLiteral("--sweep"), result, QStringLiteral("--view"), QStringLiteral("sweep"),
                              QStringLiteral("--size"), QStringLiteral("1000x700"), QStringLiteral("--screenshot"), shot},
                        &err),
                 0);
        const QImage img(shot);
        QCOMPARE(img.size(), QSize(1000, 700));
        QVERIFY2(uitest::distinctColours(img) > 8, qPrintable(err));
        QFile file(result);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray text = file.readAll();
        file.close();
        text.replace("\"metric\": \"mean-completion\"", "\"metric\": \"fastest\"");
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        QFile out(bad);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        const QString badShot = dir.filePath(QStringLiteral("bad.png"));
        QCOMPARE(runLab(dir, {QStringLiteral("--sweep"), bad, QStringLiteral("--view"), QStringLiteral("sweep"),
                              QStringLiteral("--screenshot"), badShot},
                        &err),
                 2);
        QVERIFY2(err.contains(bad + QStringLiteral(": /metric: not one of")), qPrintable(err));
        QVERIFY(!QFileInfo::exists(badShot));
    }

    // A tick past the run's end is drawn at the last tick, and stderr says so (it was clamped silently).
    void aTickPastTheEndIsDrawnAtTheLastAndSaidSo() {
        if (!QFileInfo::exists(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab"))) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        QString err;
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), kSeed, QStringLiteral("--tick"), QStringLiteral("99999"),
                              QStringLiteral("--view"), QStringLiteral("pool"), QStringLiteral("--size"),
                              QStringLiteral("600x400"), QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("p.png"))},
                        &err),
                 0);
        QVERIFY2(err.contains(QStringLiteral("note: --tick 99999 is past the run's last tick; drawn at tick 62")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("(pool view, tick 62, 600x400)")), qPrintable(err));
    }

    // Issue 21: `cp seed.json w.png; preemptlab --workload w.png --tick 1 --screenshot w.png` overwrote the workload
    // with exit 0. The lab refuses an output that is its input as the CLI does, by any path: a relative path, a
    // symbolic link, a hard link; --bundle --replace likewise for a workload inside the bundle's folder.
    void outputsNeverOverwriteTheWorkload() {
        if (!QFileInfo::exists(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab"))) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        const QString w = dir.filePath(QStringLiteral("w.png"));
        QVERIFY(QFile::copy(kSeed, w));
        const QByteArray before = readFile(w);
        QVERIFY(QFile::link(w, dir.filePath(QStringLiteral("link.png"))));
        QVERIFY(::link(QFile::encodeName(w).constData(), QFile::encodeName(dir.filePath(QStringLiteral("hard.png"))).constData()) == 0);
        for (const QString& shot : {w, dir.path() + QStringLiteral("/./w.png"), dir.filePath(QStringLiteral("link.png")),
                                    dir.filePath(QStringLiteral("hard.png"))}) {
            QString err;
            QCOMPARE(runLab(dir, {QStringLiteral("--workload"), w, QStringLiteral("--tick"), QStringLiteral("1"),
                                  QStringLiteral("--screenshot"), shot},
                            &err),
                     2);
            QVERIFY2(err.contains(QStringLiteral("--screenshot: %1: is the input file %2; writing it would destroy the input")
                                      .arg(shot, w)),
                     qPrintable(err));
            QCOMPARE(readFile(w), before);
        }
        const QString bundle = dir.filePath(QStringLiteral("review"));
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("review")));
        const QString inBundle = bundle + QStringLiteral("/receipt.json");
        QVERIFY(QFile::copy(kSeed, inBundle));
        QString err;
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), inBundle, QStringLiteral("--bundle"), bundle,
                              QStringLiteral("--replace")},
                        &err),
                 2);
        QVERIFY2(err.contains(QStringLiteral("--bundle: %1: is the input file").arg(inBundle)), qPrintable(err));
        QCOMPARE(readFile(inBundle), before);
    }

    // Issue 21: a screenshot of a run that failed (past the event limit) drew tick -1 with a note and exited 0;
    // --bundle on the same run exits 2. Now both do, with the reason, and write nothing.
    void aFailedRunGivesNoScreenshot() {
        if (!QFileInfo::exists(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab"))) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        const QString shot = dir.filePath(QStringLiteral("s.png"));
        QString err;
        const QString slice = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/mooncake-conv-slice.workload.json");
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), slice, QStringLiteral("--screenshot"), shot}, &err,
                        {{QStringLiteral("PREEMPTLAB_MAX_EVENTS"), QStringLiteral("50")}}),
                 2);
        QVERIFY2(err.contains(QStringLiteral("--screenshot: no run to draw: ")) && err.contains(QStringLiteral("the run failed")),
                 qPrintable(err));
        QVERIFY(!QFileInfo::exists(shot));
    }

    // Issue 21: --screenshot DIR said "unknown image format ''" after the whole run.
    void aScreenshotNamesAnImageFile() {
        if (!QFileInfo::exists(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab"))) QSKIP("preemptlab not built");
        QTemporaryDir dir;
        QString err;
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), kSeed, QStringLiteral("--screenshot"), dir.path()}, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("--screenshot: '%1' is a folder; name an image file in it ending in .png, "
                                             ".svg or .pdf").arg(dir.path())),
                 qPrintable(err));
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), kSeed, QStringLiteral("--screenshot"),
                              dir.filePath(QStringLiteral("shot.jpg"))}, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("does not end in .png, .svg or .pdf")), qPrintable(err));
    }

    // --bundle: Export > Review Bundle from the command line, with the comparison run first. Its receipt is the
    // CLI's byte for byte; an earlier bundle is kept unless --replace; summary.md lists 20 flagged requests and
    // counts the rest (a sliced trace flags 88 of 100; every one was listed).
    void bundleWritesTheReviewFolder() {
        const QString exe = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
        const QString cli = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli");
        if (!QFileInfo::exists(exe) || !QFileInfo::exists(cli)) QSKIP("preemptlab or preemptlab-cli not built");
        const QString slice = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/mooncake-conv-slice.workload.json");
        QTemporaryDir dir;
        const QString bundle = dir.filePath(QStringLiteral("review"));
        const QStringList args = {QStringLiteral("--workload"), slice, QStringLiteral("--recovery"), QStringLiteral("swap"),
                                  QStringLiteral("--host-capacity-bytes"), QStringLiteral("64G"), QStringLiteral("--tick"),
                                  QStringLiteral("300"), QStringLiteral("--size"), QStringLiteral("1024x700"),
                                  QStringLiteral("--bundle"), bundle};
        QString err;
        QCOMPARE(runLab(dir, args, &err), 0);
        const QDir out(bundle);
        for (const char* f : {"receipt.json", "ledger.csv", "trace.json", "distributions.csv", "window.png", "pool.png", "timeline.png", "ledger.png",
                              "plots.png", "distributions.png", "compare.png", "summary.md"}) {
            QVERIFY2(QFileInfo(out.filePath(QString::fromLatin1(f))).size() > 100, f);
        }
        // The comparison was drawn at the window's size, not at the size of the tab it hides behind; the plots
        // whole, though their dock in a 1024x700 window shows part of them (the picture was cut at the dock).
        QCOMPARE(QImage(out.filePath(QStringLiteral("compare.png"))).size(), QSize(1024, 700));
        QVERIFY2(QImage(out.filePath(QStringLiteral("plots.png"))).height() >= plui::kLinePlotMinHeight + plui::kHistogramMinHeight,
                 qPrintable(QString::number(QImage(out.filePath(QStringLiteral("plots.png"))).height())));
        QVERIFY(uitest::distinctColours(QImage(out.filePath(QStringLiteral("compare.png")))) > 8);
        QProcess p;
        p.start(cli, {QStringLiteral("run"), slice, QStringLiteral("--recovery"), QStringLiteral("swap"),
                      QStringLiteral("--host-capacity-bytes"), QStringLiteral("68719476736")});
        QVERIFY(p.waitForFinished(60'000));
        QCOMPARE(readFile(out.filePath(QStringLiteral("receipt.json"))), p.readAllStandardOutput());
        // ledger.csv: the CLI's `run --ledger-csv` of the same run, byte for byte (core's ledgerCsv for both).
        const QString cliLedger = dir.filePath(QStringLiteral("cli-ledger.csv"));
        QCOMPARE(pltest::runCli({QStringLiteral("run"), slice, QStringLiteral("--recovery"), QStringLiteral("swap"),
                                 QStringLiteral("--host-capacity-bytes"), QStringLiteral("64G"), QStringLiteral("--out"),
                                 dir.filePath(QStringLiteral("cli.receipt.json")), QStringLiteral("--ledger-csv"), cliLedger})
                     .code,
                 0);
        QCOMPARE(readFile(cliLedger).count('\n'), 3); // the header and this run's two evictions
        QVERIFY(readFile(cliLedger).startsWith("tick,victim,mode,fallback,freed_blocks,"));
        QCOMPARE(readFile(out.filePath(QStringLiteral("ledger.csv"))), readFile(cliLedger));
        // compare.json beside compare.png: the CLI's compare file of the same workload (the base recovery mode
        // is no part of a comparison; compare refuses --recovery).
        const QString cliCompare = dir.filePath(QStringLiteral("cli-compare.json"));
        QCOMPARE(pltest::runCli({QStringLiteral("compare"), slice, QStringLiteral("--host-capacity-bytes"),
                                 QStringLiteral("64G"), QStringLiteral("--out"), cliCompare})
                     .code,
                 0);
        QVERIFY(readFile(cliCompare).size() > 500);
        QCOMPARE(readFile(out.filePath(QStringLiteral("compare.json"))), readFile(cliCompare));
        const QString md = QString::fromUtf8(readFile(out.filePath(QStringLiteral("summary.md"))));
        QVERIFY2(md.contains(QStringLiteral("88 of 100 requests: 88 for excessive wait")), qPrintable(md));
        QCOMPARE(md.count(QStringLiteral("- `mc-")), 20);
        QVERIFY2(md.contains(QStringLiteral("- ... and 68 more")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("## Recovery modes compared")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("|  | recompute | swap | adaptive | hybrid |")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("![compare.png](compare.png)")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("cursor at tick 300")), qPrintable(md));
        // Again into the same folder: refused, naming the files, and nothing replaced.
        QVERIFY(QFile::resize(out.filePath(QStringLiteral("summary.md")), 0));
        QCOMPARE(runLab(dir, args, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("already holds a review bundle's files (receipt.json, ledger.csv")) &&
                     err.contains(QStringLiteral("add --replace")),
                 qPrintable(err));
        QCOMPARE(QFileInfo(out.filePath(QStringLiteral("summary.md"))).size(), qint64{0});
        QCOMPARE(runLab(dir, args + QStringList{QStringLiteral("--replace")}, &err), 0);
        QVERIFY(QFileInfo(out.filePath(QStringLiteral("summary.md"))).size() > 100);
        // --replace alone, and --bundle without a workload, are usage errors.
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), slice, QStringLiteral("--replace")}, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("--replace is for --bundle DIR")), qPrintable(err));
        QCOMPARE(runLab(dir, {QStringLiteral("--bundle"), bundle}, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("--bundle needs a workload")), qPrintable(err));
        // An empty folder or file name (a script's unset variable) ran an unseen window that never ended.
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), slice, QStringLiteral("--bundle"), QString()}, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("--bundle needs a folder, got an empty value")), qPrintable(err));
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), slice, QStringLiteral("--screenshot=")}, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("--screenshot needs a file name")), qPrintable(err));
        // A run that fails (more events than this machine allows) is said, and no bundle is written.
        const QString failed = dir.filePath(QStringLiteral("failed"));
        QCOMPARE(runLab(dir, {QStringLiteral("--workload"), slice, QStringLiteral("--bundle"), failed}, &err,
                        {{QStringLiteral("PREEMPTLAB_MAX_EVENTS"), QStringLiteral("50")}}),
                 2);
        QVERIFY2(err.contains(QStringLiteral("--bundle: no run to put in it:")) && err.contains(QStringLiteral("the run failed")),
                 qPrintable(err));
        QVERIFY(QDir(failed).isEmpty());
    }

    // In the lab the bundle has compare.png only while the comparison is of the workload as it is; a bundle
    // without one removes an earlier bundle's, which showed another run.
    void theComparisonIsInTheBundleOnlyWhileCurrent() {
        uitest::isolateSettings(QStringLiteral("test_headless"));
        plui::MainWindow w;
        w.document()->setRunMode(plui::LabDocument::RunMode::Synchronous);
        w.resize(1200, 800);
        w.show();
        QVERIFY(w.openPath(kSeed));
        QTemporaryDir dir;
        const QDir out(dir.path());
        auto stems = [&] {
            QStringList names;
            for (const auto& view : w.exportActions()->bundleViews()) names << view.first;
            return names;
        };
        auto write = [&] {
            return plui::exportReviewBundle(*w.document(), *w.ledger()->model(), w.exportActions()->bundleViews(),
                                            dir.path(), nullptr, w.compare()->markdown());
        };
        QFile old(out.filePath(QStringLiteral("compare.png")));
        QVERIFY(old.open(QIODevice::WriteOnly) && old.write("another run's picture") > 0);
        old.close();
        QVERIFY(!w.compare()->isCurrent() && !stems().contains(QStringLiteral("compare")));
        QVERIFY(w.exportActions()->bundleFilesIn(dir.path()).contains(QStringLiteral("compare.png")));
        QVERIFY(!write());
        QVERIFY(!QFileInfo::exists(out.filePath(QStringLiteral("compare.png"))));
        QVERIFY(!readFile(out.filePath(QStringLiteral("summary.md"))).contains("## Recovery modes compared"));
        w.compare()->runNow();
        QVERIFY(w.compare()->isCurrent() && stems().contains(QStringLiteral("compare")));
        QVERIFY(!write());
        QVERIFY(QFileInfo(out.filePath(QStringLiteral("compare.png"))).size() > 1000);
        QCOMPARE(readFile(out.filePath(QStringLiteral("compare.json"))),
                 QByteArray::fromStdString(plui::comparisonText(w.document()->workload(), false)));
        QVERIFY(readFile(out.filePath(QStringLiteral("summary.md"))).contains("| evictions |"));
        // Ctrl+C on the table copies all of it, tab-separated, for a spreadsheet.
        auto* copy = w.compare()->findChild<QAction*>(QStringLiteral("copyCompareTable"));
        QVERIFY(copy && copy->shortcut() == QKeySequence(QKeySequence::Copy));
        copy->trigger();
        const QStringList lines = QGuiApplication::clipboard()->text().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), QStringLiteral("\trecompute\tswap\tadaptive\thybrid"));
        QVERIFY2(lines.value(2).startsWith(QStringLiteral("evictions\t")) && lines.value(2).count(QLatin1Char('\t')) == 4,
                 qPrintable(lines.value(2)));
        QString error;
        QVERIFY2(w.document()->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("48"), &error), qPrintable(error));
        QVERIFY(!w.compare()->isCurrent() && w.compare()->markdown().isEmpty());
        // A bundle of the edited run has no comparison: the earlier bundle's picture and file go.
        QVERIFY(!write());
        QVERIFY(!QFileInfo::exists(out.filePath(QStringLiteral("compare.png"))));
        QVERIFY(!QFileInfo::exists(out.filePath(QStringLiteral("compare.json"))));
        // A comparison of an edit whose run is still pending: of the workload, not of the run on screen, whose
        // receipt the bundle holds; it joins the bundle once that run is in.
        auto open = std::make_shared<std::atomic<bool>>(false);
        w.document()->holdRunsUntil(open);
        w.document()->setRunMode(plui::LabDocument::RunMode::Background);
        QVERIFY2(w.document()->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("40"), &error), qPrintable(error));
        QVERIFY(w.document()->busy() && !w.document()->sessionShowsWorkload());
        w.compare()->runNow();
        QVERIFY(w.compare()->isCurrent());
        QVERIFY(w.exportActions()->compareMarkdown().isEmpty() && !stems().contains(QStringLiteral("compare")));
        open->store(true);
        QTRY_VERIFY_WITH_TIMEOUT(!w.document()->busy(), 20'000);
        QVERIFY(w.document()->sessionShowsWorkload() && stems().contains(QStringLiteral("compare")));
        // Every line of the workload's notes is quoted in summary.md: a "# ..." line was a heading of its own.
        pl::Workload edited = w.document()->workload();
        edited.notes = "first line\n# not a heading";
        QVERIFY(w.document()->setWorkload(edited, QStringLiteral("notes"), &error));
        QTRY_VERIFY_WITH_TIMEOUT(w.document()->session() != nullptr, 20'000);
        const QString md = plui::reviewSummaryMarkdown(*w.document(), {});
        QVERIFY2(md.contains(QStringLiteral("> first line\n> # not a heading\n")), qPrintable(md));
    }

    // Export > Comparison writes the very bytes `preemptlab-cli compare --out` writes, JSON and CSV, for the
    // workload as edited on screen (the CLI given the same key as a flag); a wrong extension and a Cancel write
    // nothing.
    void theComparisonExportIsTheClisFile() {
        uitest::isolateSettings(QStringLiteral("test_headless"));
        plui::MainWindow w;
        w.document()->setRunMode(plui::LabDocument::RunMode::Synchronous);
        plui::ExportActions* exports = w.exportActions();
        QAction* entry = nullptr;
        for (QAction* a : w.findChildren<QAction*>()) {
            if (a->text() == QStringLiteral("&Comparison (JSON or CSV)...")) entry = a;
        }
        QVERIFY(entry && entry->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
        QVERIFY(!entry->isEnabled()); // no run yet
        QVERIFY(w.compare()->totalsTable()->actions().contains(entry)); // the table's context menu offers it too
        QVERIFY(w.openPath(kSwapWins));
        QVERIFY(entry->isEnabled());
        QString error;
        QVERIFY2(w.document()->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("56"), &error),
                 qPrintable(error));
        QTemporaryDir dir;
        const QDir out(dir.path());
        for (const QString& name : {QStringLiteral("lab.json"), QStringLiteral("lab.csv")}) {
            QVERIFY(exports->writeComparison(out.filePath(name)));
            exports->waitForIdle();
            QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
            const QString cliFile = out.filePath(QStringLiteral("cli.") + QFileInfo(name).suffix());
            const auto cli = pltest::runCli({QStringLiteral("compare"), kSwapWins, QStringLiteral("--capacity-blocks"),
                                             QStringLiteral("56"), QStringLiteral("--out"), cliFile});
            QVERIFY2(cli.code == 0, cli.err.constData());
            const QByteArray lab = readFile(out.filePath(name));
            QVERIFY(lab.size() > 500);
            QCOMPARE(lab, readFile(cliFile));
        }
        QVERIFY(readFile(out.filePath(QStringLiteral("lab.json"))).contains("\"format\": \"preemptlab.compare.v1\""));
        // The edit matters: the file as it stands on disk compares otherwise.
        const QString unedited = out.filePath(QStringLiteral("unedited.json"));
        QCOMPARE(pltest::runCli({QStringLiteral("compare"), kSwapWins, QStringLiteral("--out"), unedited}).code, 0);
        QVERIFY(readFile(unedited) != readFile(out.filePath(QStringLiteral("lab.json"))));
        QVERIFY(readFile(out.filePath(QStringLiteral("lab.csv"))).startsWith("mode,policy_hash,event_hash,"));
        // The review bundle made in the background, with the comparison current, holds the same file.
        w.compare()->runNow();
        QVERIFY(exports->comparisonInBundle());
        QVERIFY(exports->writeBundle(out.filePath(QStringLiteral("bundle"))));
        exports->waitForIdle();
        QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
        QCOMPARE(readFile(out.filePath(QStringLiteral("bundle/compare.json"))), readFile(out.filePath(QStringLiteral("lab.json"))));

        QVERIFY(!exports->writeComparison(out.filePath(QStringLiteral("table.txt"))));
        QVERIFY2(w.lastError().contains(QStringLiteral("table.txt: a comparison is written as .json or .csv")),
                 qPrintable(w.lastError()));
        QVERIFY(!QFileInfo::exists(out.filePath(QStringLiteral("table.txt"))));
        QVERIFY(!exports->writeComparison(out.filePath(QStringLiteral("compare.")))); // an empty extension, as the CLI

        const QString cancelled = out.filePath(QStringLiteral("cancelled.json"));
        QVERIFY(exports->writeComparison(cancelled));
        QVERIFY(exports->busy() && !exports->writeComparison(cancelled)); // one export at a time
        auto* progress = w.findChild<QProgressDialog*>(QStringLiteral("exportProgress"));
        QVERIFY(progress != nullptr);
        QCOMPARE(progress->maximum(), 4); // a step a mode, not an indeterminate bar
        progress->findChild<QPushButton*>()->click();
        exports->waitForIdle();
        QVERIFY(!QFileInfo::exists(cancelled));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Comparison not written: cancelled"));
    }

  private:
    static QByteArray readFile(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    // Runs the lab headless with a settings folder of its own; its exit code, stderr in `err`.
    static int runLab(const QTemporaryDir& dir, const QStringList& args, QString* err,
                      const QList<QPair<QString, QString>>& extraEnv = {}) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const auto& [key, value] : extraEnv) env.insert(key, value);
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab"), args);
        if (!p.waitForFinished(60'000)) return -1;
        *err = QString::fromUtf8(p.readAllStandardError());
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }
};

QTEST_MAIN(TestHeadless)
#include "test_headless.moc"
