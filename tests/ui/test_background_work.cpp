// The lab's file work in the background (BackgroundJob). File > Import Trace: a small Azure CSV and Mooncake
// JSONL slice written into a temporary directory, imported through the dialog's options on a worker thread;
// the document then holds the slice with its provenance in the notes. A broken row names file, line and column
// and keeps the open workload; Cancel (and closing the window) stops the worker on a 300,000-row trace and sets
// nothing; options survive a restart. File > Open of a workload file over 8 MiB: read on a worker, with the
// same Cancel, errors and command-line flags as a small one. Export of a receipt or a review bundle: the text
// made on a worker, the file written after it, nothing written on Cancel.
#include "ui/backgroundjob.h"
#include "ui/exportactions.h"
#include "ui/exporter.h"
#include "ui/fileactions.h"
#include "ui/importtracedialog.h"
#include "ui/labcommandline.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "ui/traceimportactions.h"
#include "ui/traceimportjob.h"
#include "tests/ui/uitestutil.h"

#include "core/trace/generator.h"
#include "core/workload_io.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QTest>
#include <QThreadPool>
#include <QUndoStack>

#include <atomic>
#include <cstdio>
#include <memory>

using namespace plui;

namespace {

const QString kSample = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");

// Rows as the Azure 2023 trace writes them (7 fraction digits); offsets from the first arrival: 0, 47.434 ms,
// 319.410 ms, 1819.410 ms and 2419.410 ms, so at 20 ms ticks the arrivals are 0, 2, 15, 90 and 120.
const char* kAzureCsv =
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:15:46.6805900,374,44\n"
    "2023-11-16 18:15:46.7280240,396,109\n"
    "2023-11-16 18:15:47.0000000,879,63\n"
    "2023-11-16 18:15:48.5000000,91,12\n"
    "2023-11-16 18:15:49.1000000,1200,30\n";

// `rows` Azure rows 12 ms apart (an hour for 300,000), prompts 100-3099 and outputs 1-400 tokens.
QByteArray bigAzureCsv(int rows) {
    QByteArray text("TIMESTAMP,ContextTokens,GeneratedTokens\n");
    text.reserve(rows * 40);
    char line[80];
    for (long long i = 0; i < rows; ++i) {
        const long long us = 12'000 * i;
        const long long s = us / 1'000'000;
        std::snprintf(line, sizeof line, "2023-11-16 %02lld:%02lld:%02lld.%06lld0,%lld,%lld\n", 18 + s / 3600,
                      s / 60 % 60, s % 60, us % 1'000'000, 100 + i * 7919 % 3000, 1 + i * 104729 % 400);
        text += line;
    }
    return text;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) qFatal("cannot write %s", qPrintable(path));
    return path;
}

} // namespace

class TestBackgroundWork : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir dir_;

    std::unique_ptr<MainWindow> makeWindow() {
        auto w = std::make_unique<MainWindow>();
        w->document()->setRunMode(LabDocument::RunMode::Synchronous);
        w->resize(1200, 800);
        w->show();
        return w;
    }

    static bool importAndWait(MainWindow& w, const TraceImportJob& job) {
        TraceImportActions* imports = w.fileActions()->traceImports();
        bool ok = false;
        const auto c = QObject::connect(imports, &TraceImportActions::finished, &w, [&ok](bool r) { ok = r; });
        const bool started = imports->start(job) && imports->busy(); // the import runs in the background
        imports->waitForIdle();
        QObject::disconnect(c);
        return started && ok;
    }

  private slots:
    void initTestCase() {
        uitest::isolateSettings(QStringLiteral("test_background_work"));
        QVERIFY(dir_.isValid());
    }

    void menuEntryWithShortcut() {
        auto w = makeWindow();
        auto* action = w->findChild<QAction*>(QStringLiteral("importTraceAction"));
        QVERIFY(action != nullptr);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_I));
        QVERIFY(action->isEnabled());
    }

    void dialogOptionsAreExact() {
        QSettings().clear();
        ImportTraceDialog d(QStringLiteral("/tmp/x.jsonl"));
        QCOMPARE(d.format()->currentIndex(), 1); // .jsonl: Mooncake
        d.tickMs()->setValue(12.5);
        d.startS()->setValue(1.5);
        d.durationS()->setValue(0.25);
        d.limit()->setValue(9);
        d.rateScale()->setValue(1.5);
        const TraceImportJob job = d.job();
        QVERIFY(job.format == pl::trace::TraceFormat::Mooncake);
        QCOMPARE(job.options.tick_us, std::int64_t{12'500});
        QCOMPARE(job.options.start_us, std::int64_t{1'500'000});
        QCOMPARE(job.options.duration_us.value_or(-1), std::int64_t{250'000});
        QCOMPARE(job.options.limit.value_or(-1), std::int64_t{9});
        QVERIFY((job.options.rate_scale == pl::trace::Rational{3, 2}));
        const QString cli = importCommandLine(job);
        QVERIFY2(cli.contains(QStringLiteral("--format mooncake /tmp/x.jsonl --tick-ms 12.5 --start 1.5 "
                                             "--duration 0.25 --limit 9 --rate-scale 1.5")),
                 qPrintable(cli));
        // Thousands grouped, as the policy panel and the CLI print them.
        d.limit()->setValue(20000);
        QCOMPARE(d.limit()->cleanText(), QStringLiteral("20,000"));
        QCOMPARE(d.job().options.limit.value_or(-1), std::int64_t{20'000});
        // Zero means "to the end" and "no limit".
        d.durationS()->setValue(0);
        d.limit()->setValue(0);
        QVERIFY(!d.job().options.duration_us);
        QVERIFY(!d.job().options.limit);
    }

    void importsSliceAsUnsavedWorkload() {
        QSettings().clear();
        const QString path = writeFile(dir_, QStringLiteral("tiny.csv"), kAzureCsv);
        auto w = makeWindow();
        ImportTraceDialog d(path, w.get());
        QCOMPARE(d.format()->currentIndex(), 0); // .csv: Azure
        d.limit()->setValue(4);
        d.tickMs()->setValue(20);
        d.capacity()->setValue(256);
        QVERIFY2(importAndWait(*w, d.job()), qPrintable(w->lastError()));
        LabDocument* doc = w->document();
        QVERIFY(doc->hasWorkload());
        QVERIFY(doc->session() != nullptr);
        const pl::Workload& wl = doc->workload();
        QCOMPARE(wl.requests.size(), std::size_t{4});
        QCOMPARE(wl.config.capacity_blocks, std::int64_t{256});
        std::vector<std::int64_t> arrivals, prompts;
        for (const auto& r : wl.requests) {
            arrivals.push_back(r.arrival_tick);
            prompts.push_back(r.prompt_tokens);
        }
        QVERIFY((arrivals == std::vector<std::int64_t>{0, 2, 15, 90}));
        QVERIFY((prompts == std::vector<std::int64_t>{374, 396, 879, 91}));
        // Provenance: the importer's summary (file, lines, trace times, source) and the equivalent command.
        const QString notes = QString::fromStdString(wl.notes);
        QVERIFY2(notes.contains(QStringLiteral("Imported from tiny.csv (azure trace, 5 requests): 4 requests, "
                                               "lines 2-5")),
                 qPrintable(notes));
        QVERIFY2(notes.contains(QStringLiteral("--limit 4")), qPrintable(notes));
        QVERIFY(doc->sourceName().contains(QStringLiteral("unsaved")));
        const QString summary = w->fileActions()->traceImports()->lastSummary();
        QVERIFY(summary.startsWith(QStringLiteral("Imported from tiny.csv")));
        QCOMPARE(w->statusBar()->currentMessage(), summary);
        QVERIFY(doc->undoStack()->count() == 0);
    }

    // The command the notes give rebuilds the same slice with the CLI: same requests, config and policy.
    void notesCommandRebuildsTheSliceWithTheCli() {
        QSettings().clear();
        const QString path = writeFile(dir_, QStringLiteral("cli.csv"), kAzureCsv);
        auto w = makeWindow();
        ImportTraceDialog d(path, w.get());
        d.startS()->setValue(0.04);
        d.durationS()->setValue(2.0);
        d.limit()->setValue(3);
        d.rateScale()->setValue(1.5);
        d.tickMs()->setValue(7.5);
        d.capacity()->setValue(300);
        d.blockSize()->setValue(32);
        const TraceImportJob job = d.job();
        QVERIFY2(importAndWait(*w, job), qPrintable(w->lastError()));
        const QString out = dir_.filePath(QStringLiteral("cli.workload.json"));
        QStringList args = QProcess::splitCommand(importCommandLine(job));
        QCOMPARE(args.takeFirst(), QStringLiteral("preemptlab-cli"));
        args << QStringLiteral("--out") << out;
        QProcess cli;
        cli.start(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli"), args);
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        auto loaded = pl::loadWorkloadFile(out.toStdString());
        QVERIFY(std::holds_alternative<pl::Workload>(loaded));
        const pl::Workload& fromCli = std::get<pl::Workload>(loaded);
        const pl::Workload& fromLab = w->document()->workload();
        QCOMPARE(fromLab.requests.size(), std::size_t{3});
        QCOMPARE(pl::workloadJson(fromLab).dump(), pl::workloadJson(fromCli).dump());
        QCOMPARE(pl::policyJson(fromLab.policy).dump(), pl::policyJson(fromCli.policy).dump());

        // A GPU's machine (Llama 3.1 8B on an H200 at 20 ms ticks, the pool from its memory, 64 GiB of host
        // memory): the same config as the CLI's --model/--gpu, and a host that holds a swap.
        d.model()->setCurrentIndex(d.model()->findData(QStringLiteral("llama-3.1-8b")));
        QCOMPARE(d.capacity()->value(), 0); // the machine's now
        QCOMPARE(d.blockSize()->value(), 0);
        d.gpu()->setCurrentIndex(d.gpu()->findData(QStringLiteral("h200")));
        d.tickMs()->setValue(20);
        d.hostGiB()->setValue(64);
        const TraceImportJob gpuJob = d.job();
        QCOMPARE(gpuJob.host_capacity_bytes, std::int64_t{64} << 30);
        const QString line = importCommandLine(gpuJob);
        QVERIFY2(line.contains(QStringLiteral("--model llama-3.1-8b --gpu h200 --host-capacity-bytes 68719476736")) &&
                     !line.contains(QStringLiteral("--capacity-blocks")),
                 qPrintable(line));
        auto fresh = makeWindow(); // the first slice is unsaved: importing over it would ask first
        QVERIFY2(importAndWait(*fresh, gpuJob), qPrintable(fresh->lastError()));
        args = QProcess::splitCommand(line);
        args.takeFirst();
        args << QStringLiteral("--out") << out;
        cli.start(QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab-cli"), args);
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        auto again = pl::loadWorkloadFile(out.toStdString());
        QVERIFY(std::holds_alternative<pl::Workload>(again));
        const pl::Workload& gpuLab = fresh->document()->workload();
        QCOMPARE(pl::workloadJson(gpuLab).dump(), pl::workloadJson(std::get<pl::Workload>(again)).dump());
        QCOMPARE(gpuLab.config.kv_bytes_per_token, std::int64_t{131072});
        QVERIFY(gpuLab.config.capacity_blocks > 10000); // from 141 GB, not the box's 1024
        QCOMPARE(gpuLab.config.host_capacity_bytes, std::int64_t{64} << 30);
    }

    void mooncakeSliceWithPrefixBlocks() {
        QSettings().clear();
        const QString path = writeFile(dir_, QStringLiteral("tiny.jsonl"),
                                       "{\"timestamp\": 0, \"input_length\": 1100, \"output_length\": 20, "
                                       "\"hash_ids\": [7, 8, 9]}\n"
                                       "{\"timestamp\": 100, \"input_length\": 600, \"output_length\": 5, "
                                       "\"hash_ids\": [7, 10]}\n");
        auto w = makeWindow();
        ImportTraceDialog d(path, w.get());
        QVERIFY(d.job().format == pl::trace::TraceFormat::Mooncake);
        QVERIFY2(importAndWait(*w, d.job()), qPrintable(w->lastError()));
        const pl::Workload& wl = w->document()->workload();
        QCOMPARE(wl.requests.size(), std::size_t{2});
        QCOMPARE(wl.requests[1].arrival_tick, std::int64_t{5}); // 100 ms at 20 ms ticks
        // Both share the first 512-token hash block: 32 shared 16-token prefix block ids.
        QVERIFY(!wl.requests[0].prefix_blocks.empty());
        QCOMPARE(wl.requests[0].prefix_blocks.front(), wl.requests[1].prefix_blocks.front());
    }

    void brokenRowKeepsTheOpenWorkload() {
        auto w = makeWindow();
        QVERIFY(w->openPath(kSample));
        const std::string name = w->document()->workload().name;
        const std::size_t count = w->document()->workload().requests.size();
        const QString path = writeFile(dir_, QStringLiteral("broken.csv"),
                                       "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                       "2023-11-16 18:15:46.6805900,374,44\n"
                                       "2023-11-16 18:15:46.7280240,39x6,109\n");
        ImportTraceDialog d(path, w.get());
        QVERIFY(!importAndWait(*w, d.job()));
        const QString error = w->lastError();
        QVERIFY2(error.startsWith(path) && error.contains(QStringLiteral("line 3")) &&
                     error.contains(QStringLiteral("column")),
                 qPrintable(error));
        QVERIFY(w->findChild<QMessageBox*>(QStringLiteral("errorDialog")) != nullptr);
        QCOMPARE(w->document()->workload().name, name);
        QCOMPARE(w->document()->workload().requests.size(), count);
        QVERIFY(w->document()->session() != nullptr);
        // A missing file and an empty slice are errors too, and the workload still stays.
        TraceImportJob missing = d.job();
        missing.path = dir_.filePath(QStringLiteral("nope.csv"));
        QVERIFY(!importAndWait(*w, missing));
        QVERIFY2(w->lastError().contains(QStringLiteral("nope.csv")), qPrintable(w->lastError()));
        TraceImportJob empty = d.job();
        empty.path = writeFile(dir_, QStringLiteral("ok.csv"), kAzureCsv);
        empty.options.start_us = 3'600'000'000;
        QVERIFY(!importAndWait(*w, empty));
        QVERIFY2(w->lastError().contains(QStringLiteral("no requests")), qPrintable(w->lastError()));
        QCOMPARE(w->document()->workload().name, name);
    }

    void cancelDropsTheResult() {
        auto w = makeWindow();
        QVERIFY(w->openPath(kSample));
        const std::string name = w->document()->workload().name;
        TraceImportActions* imports = w->fileActions()->traceImports();
        ImportTraceDialog d(writeFile(dir_, QStringLiteral("cancel.csv"), kAzureCsv), w.get());
        QVERIFY(imports->start(d.job()));
        QVERIFY(!imports->start(d.job())); // one import at a time
        auto* progress = w->findChild<QProgressDialog*>(QStringLiteral("importProgress"));
        QVERIFY(progress != nullptr);
        auto* cancel = progress->findChild<QPushButton*>();
        QVERIFY(cancel != nullptr);
        cancel->click(); // the user's Cancel, before the worker's result is delivered
        imports->waitForIdle(); // the worker returns; whatever it produced is dropped
        QCOMPARE(w->document()->workload().name, name);
        QTRY_VERIFY(w->findChild<QProgressDialog*>(QStringLiteral("importProgress")) == nullptr);
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Import cancelled"));
    }

    // Cancel stops the worker itself, not only its result: on 300,000 rows (11 MB of Azure CSV) the worker
    // returns in a small part of a whole import's time, no workload is set, and no second import starts while
    // it is stopping.
    void cancelStopsTheWorker() {
        QSettings().clear();
        const QString path = writeFile(dir_, QStringLiteral("big.csv"), bigAzureCsv(300'000));
        auto w = makeWindow();
        QVERIFY(w->openPath(kSample));
        const std::string name = w->document()->workload().name;
        const std::size_t count = w->document()->workload().requests.size();
        ImportTraceDialog d(path); // no parent: the window is destroyed below, before the dialogs
        d.capacity()->setValue(4096);
        d.limit()->setValue(0);
        const TraceImportJob job = d.job();
        // A whole import on this machine, now, for the bound below; and a set flag stops it with no result.
        QElapsedTimer whole;
        whole.start();
        const TraceImportOutcome all = runTraceImport(job);
        const qint64 wholeMs = whole.elapsed();
        QVERIFY2(all.value && all.value->workload.requests.size() == 300'000, qPrintable(all.error));
        const std::atomic<bool> set{true};
        const TraceImportOutcome stopped = runTraceImport(job, &set);
        QVERIFY(stopped.cancelled && !stopped.value && stopped.error.isEmpty());

        TraceImportActions* imports = w->fileActions()->traceImports();
        auto* action = w->findChild<QAction*>(QStringLiteral("importTraceAction"));
        int finishedCount = 0;
        bool ok = true;
        QElapsedTimer stopping;
        qint64 stoppingMs = -1;
        connect(imports, &TraceImportActions::finished, w.get(), [&](bool r) {
            ++finishedCount;
            ok = r;
            stoppingMs = stopping.elapsed();
        });
        QVERIFY(imports->start(job));
        QVERIFY(!action->isEnabled());
        QTest::qWait(static_cast<int>(wholeMs / 4)); // the worker is reading or converting by now
        QCOMPARE(finishedCount, 0);
        auto* progress = w->findChild<QProgressDialog*>(QStringLiteral("importProgress"));
        QVERIFY(progress != nullptr);
        stopping.start();
        progress->findChild<QPushButton*>()->click();
        // The worker's return is delivered through this thread's event loop, which has not run since the click.
        QVERIFY(imports->busy());
        QVERIFY(!imports->start(job));
        QVERIFY(!action->isEnabled());
        imports->waitForIdle();
        QCOMPARE(finishedCount, 1);
        QVERIFY(!ok);
        // Without the flag the worker runs on for the remaining three quarters of a whole import (a margin of
        // two for a loaded machine: that still fails without the flag).
        QVERIFY2(stoppingMs * 2 < wholeMs, qPrintable(QStringLiteral("stopped in %1 ms, a whole import takes %2 ms")
                                                          .arg(stoppingMs).arg(wholeMs)));
        qInfo("300,000 rows: a whole import %lld ms, stopped %lld ms after Cancel", wholeMs, stoppingMs);
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Import cancelled"));
        QCOMPARE(w->document()->workload().name, name);
        QCOMPARE(w->document()->workload().requests.size(), count);
        QTRY_VERIFY(w->findChild<QProgressDialog*>(QStringLiteral("importProgress")) == nullptr);
        QVERIFY(action->isEnabled());
        // Once it has stopped, the next import runs.
        ImportTraceDialog small(writeFile(dir_, QStringLiteral("after.csv"), kAzureCsv));
        QVERIFY2(importAndWait(*w, small.job()), qPrintable(w->lastError()));
        QCOMPARE(w->document()->workload().requests.size(), std::size_t{5});
        // Closing the window mid-import stops the worker too, instead of leaving it to run on (the thread pool
        // waits for it at exit); the worker keeps its own share of the flag, so this is safe under ASan.
        w->document()->markSaved(dir_.filePath(QStringLiteral("after.workload.json"))); // else starting asks first
        QVERIFY(imports->start(job));
        QTest::qWait(static_cast<int>(wholeMs / 4));
        QElapsedTimer closing;
        closing.start();
        w.reset();
        // It returns (a generous bound: the read, sort and final check do not look at the flag); the time is
        // printed, the ratio above is what the test holds it to.
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60'000));
        qInfo("the worker returned %lld ms after the window was destroyed", closing.elapsed());
    }

    // A workload file over 8 MiB (80,000 generated requests, about 11 MB) is read on a worker: openPath returns
    // at once with the open workload still shown, and the new one replaces it when read; Cancel keeps the open
    // one and ends the worker early; an error at the file's end names file and field; a tick on the command
    // line applies once it is open.
    void bigWorkloadFilesOpenInTheBackground() {
        QSettings().clear();
        pl::trace::GeneratorParams p;
        p.seed = 3;
        p.count = 80'000;
        p.name = "big";
        p.config.max_ticks = 200; // the runs are beside the point: keep them short (tick 7 is shown below)
        p.rate_per_tick = 1000.0;  // every request arrives before max_ticks (a later one is refused)
        auto generated = pl::trace::generateWorkload(p);
        QVERIFY(std::holds_alternative<pl::Workload>(generated));
        pl::Workload big = std::get<pl::Workload>(std::move(generated));
        const QByteArray bigText = QByteArray::fromStdString(pl::fullWorkloadJson(big).dump(2));
        const QString path = writeFile(dir_, QStringLiteral("big.workload.json"), bigText);
        QVERIFY(QFileInfo(path).size() > (qint64{8} << 20));
        big.requests.back().prompt_tokens = 0;
        const QString bad = writeFile(dir_, QStringLiteral("bad.workload.json"),
                                      QByteArray::fromStdString(pl::fullWorkloadJson(big).dump(2)));
        QElapsedTimer whole;
        whole.start();
        QVERIFY(std::holds_alternative<pl::Workload>(pl::loadWorkloadFile(path.toStdString())));
        const qint64 wholeMs = whole.elapsed();

        auto w = makeWindow();
        QVERIFY(w->openPath(kSample));
        QVERIFY(!w->opening());
        QVERIFY(w->openPath(path));
        QVERIFY(w->opening());
        QVERIFY(w->findChild<QProgressDialog*>(QStringLiteral("openProgress")) != nullptr);
        QCOMPARE(w->document()->workload().name, std::string("swap-wins")); // shown until the new one is read
        w->waitForOpen();
        QCOMPARE(w->document()->workload().name, std::string("big"));
        QCOMPARE(w->document()->workload().requests.size(), std::size_t{80'000});
        QCOMPARE(w->document()->sourceName(), path);
        QVERIFY(w->windowTitle().contains(QStringLiteral("big.workload.json")));
        QCOMPARE(w->fileActions()->recentFiles().value(0), path);
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Opened %1").arg(path));

        // Cancel: the shown workload stays, the worker stops early, and no second read starts meanwhile. The file
        // writes its policy's watermark as -0 (a sign), which the fast path leaves to the strict reader (several
        // times slower, so a quarter of its read is long enough to click Cancel in; core's test_workload_plain
        // checks the fast path's own stop flag).
        QByteArray signedText = bigText;
        QVERIFY(signedText.contains("\"watermark_blocks\": 0\n"));
        signedText.replace("\"watermark_blocks\": 0\n", "\"watermark_blocks\": -0\n");
        const QString signedZero = writeFile(dir_, QStringLiteral("big-signed.workload.json"), signedText);
        whole.restart();
        QVERIFY(std::holds_alternative<pl::Workload>(pl::loadWorkloadFile(signedZero.toStdString())));
        const qint64 strictMs = whole.elapsed();
        QVERIFY(w->openPath(kSample));
        QVERIFY(w->openPath(signedZero));
        QTest::qWait(static_cast<int>(strictMs / 4));
        auto* progress = w->findChild<QProgressDialog*>(QStringLiteral("openProgress"));
        QVERIFY(progress != nullptr);
        QElapsedTimer stopping;
        stopping.start();
        progress->findChild<QPushButton*>()->click();
        QVERIFY(w->opening());
        QVERIFY(!w->openPath(signedZero)); // said in the error dialog
        QVERIFY2(w->lastError().contains(QStringLiteral("still being read")), qPrintable(w->lastError()));
        w->waitForOpen();
        const qint64 stoppingMs = stopping.elapsed();
        QCOMPARE(w->document()->workload().name, std::string("swap-wins"));
        QCOMPARE(w->statusBar()->currentMessage(),
                 QStringLiteral("Open cancelled: big-signed.workload.json was not opened"));
        // Without the flag the worker reads on for the remaining three quarters (a margin of two).
        QVERIFY2(stoppingMs * 2 < strictMs, qPrintable(QStringLiteral("stopped in %1 ms, a whole read takes %2 ms")
                                                            .arg(stoppingMs).arg(strictMs)));
        qInfo("an 11 MB workload file: read in %lld ms (%lld ms by the strict reader), stopped %lld ms after Cancel",
              wholeMs, strictMs, stoppingMs);

        // An error at the end of a big file: named like a small file's, and the shown workload stays.
        QVERIFY(w->openPath(bad));
        w->waitForOpen();
        QVERIFY2(w->lastError().startsWith(bad + QStringLiteral(": /requests/79999/prompt_tokens: ")),
                 qPrintable(w->lastError()));
        QCOMPARE(w->document()->workload().name, std::string("swap-wins"));

        // While it is read no import starts; a workload made meanwhile (Generate does this) wins over it.
        QVERIFY(w->openPath(path));
        QVERIFY(!w->fileActions()->traceImports()->start(TraceImportJob{}));
        QString error;
        QVERIFY(w->document()->loadFile(kSample, &error));
        w->waitForOpen();
        QCOMPARE(w->document()->workload().name, std::string("swap-wins"));
        QVERIFY2(w->statusBar()->currentMessage().contains(QStringLiteral("another workload was opened meanwhile")),
                 qPrintable(w->statusBar()->currentMessage()));

        // Closing the window stops the read: it never lands under the close's questions or after them.
        QVERIFY(w->openPath(path));
        QVERIFY(w->close());
        w->waitForOpen();
        QCOMPARE(w->document()->workload().name, std::string("swap-wins"));
        w->show();

        // The command line's tick and flags apply once the file is open.
        LabOptions options;
        options.workload = path;
        options.tick = 7;
        options.overrides.append({QStringLiteral("capacity_blocks"), QStringLiteral("2048")});
        w->applyStartupOptions(options);
        w->waitForOpen();
        w->document()->waitForIdle();
        QCOMPARE(w->document()->workload().name, std::string("big"));
        QCOMPARE(w->document()->workload().config.capacity_blocks, std::int64_t{2048});
        QCOMPARE(w->document()->currentTick(), pl::Tick{7});
    }

    // The busy dialog shows once the work has lasted 300 ms (Qt's default is 4 s, which left the window open
    // to edits that long); Cancel ends the work through its flag and drops its result.
    void backgroundJobShowsItsDialogAndCancels() {
        auto w = makeWindow();
        BackgroundJob job(w.get(), w->statusBar(), QStringLiteral("testJob"), nullptr);
        bool done = false;
        int cancelled = 0;
        connect(&job, &BackgroundJob::cancelled, w.get(), [&cancelled]() { ++cancelled; });
        QVERIFY(job.start({QStringLiteral("Working..."), QStringLiteral("Stopping..."), QStringLiteral("Stopped")},
                          [](const std::atomic<bool>* stop) {
                              QElapsedTimer t;
                              t.start();
                              while (!stop->load() && t.elapsed() < 10'000) QThread::msleep(5);
                              return t.elapsed();
                          },
                          [&done](qint64) { done = true; }));
        QVERIFY(!job.start({}, [](const std::atomic<bool>*) { return 0; }, [](int) {})); // one at a time
        auto* dialog = w->findChild<QProgressDialog*>(QStringLiteral("testJob"));
        QVERIFY(dialog != nullptr);
        QElapsedTimer shown;
        shown.start();
        // Well before Qt's 4 s, with room for a slow sanitizer build on loaded cores.
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isVisible(), 3500);
        QVERIFY2(shown.elapsed() < 3500, qPrintable(QString::number(shown.elapsed())));
        QCOMPARE(dialog->minimumDuration(), 300);
        QCOMPARE(dialog->labelText(), QStringLiteral("Working..."));
        dialog->findChild<QPushButton*>()->click();
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Stopping..."));
        job.waitForIdle();
        QVERIFY(!done);
        QCOMPARE(cancelled, 1);
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Stopped"));
        // The closed dialog waits for its deferred delete nameless: a lookup finds only a live job's dialog
        // (a test clicking the dead one's Cancel once let a receipt it meant to cancel be written).
        QCOMPARE(w->findChild<QProgressDialog*>(QStringLiteral("testJob")), nullptr);
    }

    // A job that counts its steps: the bar follows the count, and reaching the last step neither closes nor
    // resets it (the result is still to come).
    void aCountingJobsBarFollowsItsSteps() {
        auto w = makeWindow();
        BackgroundJob job(w.get(), w->statusBar(), QStringLiteral("stepJob"), nullptr);
        auto release = std::make_shared<std::atomic<bool>>(false);
        int result = 0;
        QVERIFY(job.start({QStringLiteral("Working..."), QStringLiteral("Stopping..."), QStringLiteral("Stopped"), 3},
                          [release](const std::atomic<bool>* stop, std::atomic<int>* steps) {
                              for (int i = 1; i <= 3; ++i) {
                                  steps->store(i);
                                  while (i == 3 && !release->load() && !stop->load()) QThread::msleep(2);
                              }
                              return 7;
                          },
                          [&result](int value) { result = value; }));
        auto* dialog = w->findChild<QProgressDialog*>(QStringLiteral("stepJob"));
        QVERIFY(dialog != nullptr);
        QCOMPARE(dialog->maximum(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(dialog->value(), 3, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isVisible(), 3500); // shown after its 300 ms, still at the last step
        QVERIFY(job.busy());
        QCOMPARE(dialog->value(), 3);
        release->store(true);
        job.waitForIdle();
        QCOMPARE(result, 7);
    }

    // A job that ends before its dialog's 300 ms and whose result then asks a question in a modal box (as an
    // import over unsaved edits does): the closed dialog, still awaiting its deferred delete there, stays hidden.
    void aQuickJobsDialogStaysClosedUnderAModalQuestion() {
        auto w = makeWindow();
        BackgroundJob job(w.get(), w->statusBar(), QStringLiteral("quickJob"), nullptr);
        bool dialogShown = false;
        QVERIFY(job.start({QStringLiteral("Working..."), QStringLiteral("Stopping..."), QStringLiteral("Stopped")},
                          [](const std::atomic<bool>*) { return 1; },
                          [&w, &dialogShown](int) {
                              QEventLoop question; // what QMessageBox::exec runs
                              QTimer::singleShot(600, &question, &QEventLoop::quit);
                              QTimer poll;
                              QObject::connect(&poll, &QTimer::timeout, [&w, &dialogShown]() {
                                  for (auto* d : w->findChildren<QProgressDialog*>()) dialogShown |= d->isVisible();
                              });
                              poll.start(10);
                              question.exec();
                          }));
        job.waitForIdle();
        QVERIFY(!dialogShown);
    }

    // The receipt is made on a worker and written once made: the file is the shown run's receipt, byte for
    // byte; a Cancel writes nothing; the bundle holds the same receipt beside its ledger, images and summary.
    void exportsMakeTheReceiptInTheBackground() {
        QSettings().clear();
        auto w = makeWindow();
        QVERIFY(w->openPath(kSample));
        ExportActions* exports = w->exportActions();
        QTemporaryDir out;
        const QString receipt = out.filePath(QStringLiteral("receipt.json"));
        QVERIFY(exports->writeReceipt(receipt));
        QVERIFY(exports->busy());
        QVERIFY(!exports->writeReceipt(receipt)); // one at a time
        exports->waitForIdle();
        QFile f(receipt);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().toStdString(), receiptTextOf(*w->document()));
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Wrote %1").arg(receipt));

        // Cancelled before the worker's result is taken (the event loop has not run): nothing is written.
        const QString cancelled = out.filePath(QStringLiteral("cancelled.json"));
        QVERIFY(exports->writeReceipt(cancelled));
        auto* progress = w->findChild<QProgressDialog*>(QStringLiteral("exportProgress"));
        QVERIFY(progress != nullptr);
        progress->findChild<QPushButton*>()->click();
        exports->waitForIdle();
        QVERIFY(!QFile::exists(cancelled));
        QCOMPARE(w->statusBar()->currentMessage(), QStringLiteral("Receipt not written: cancelled"));

        const QString bundle = out.filePath(QStringLiteral("bundle"));
        QVERIFY(exports->writeBundle(bundle));
        exports->waitForIdle();
        for (const char* name : {"receipt.json", "ledger.csv", "summary.md", "window.png", "pool.png"}) {
            QVERIFY2(QFile::exists(QDir(bundle).filePath(QString::fromLatin1(name))), name);
        }
        QFile b(QDir(bundle).filePath(QStringLiteral("receipt.json")));
        QVERIFY(b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll().toStdString(), receiptTextOf(*w->document()));
        b.close();

        // Into a folder holding that bundle: asked first (Cancel by default), nothing replaced on Cancel.
        // The timeline beside it, the bytes Export > Timeline writes for the same run.
        QFile t(QDir(bundle).filePath(QStringLiteral("trace.json")));
        QVERIFY(t.open(QIODevice::ReadOnly));
        QVERIFY(t.readAll().toStdString() == timelineTextOf(*w->document()));
        t.close();
        QCOMPARE(exports->bundleFilesIn(bundle).size(), exports->bundleViews().size() + 5); // + receipt, ledger, trace, distributions, summary
        QVERIFY(exports->bundleFilesIn(out.filePath(QStringLiteral("nothing-here"))).isEmpty());
        QVERIFY(QFile::resize(QDir(bundle).filePath(QStringLiteral("summary.md")), 0)); // to see a replacement
        // What the box showed, checked once it is answered (a failed check inside the timer would leave the box
        // open and the test waiting on it).
        struct Seen {
            QString name, text;
            bool cancelIsDefault = false;
        } seen;
        auto answer = [&seen](const char* role) {
            QTimer::singleShot(0, [&seen, role]() {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                if (!box) return; // no box: writeBundleAsking returns without one, and the checks below fail
                seen = {box->objectName(), box->text(), box->defaultButton() == box->button(QMessageBox::Cancel)};
                QAbstractButton* chosen = box->button(QMessageBox::Cancel);
                for (QAbstractButton* button : box->buttons()) {
                    if (button->text().remove(QLatin1Char('&')) == QString::fromLatin1(role)) chosen = button;
                }
                chosen->click();
            });
        };
        answer("Cancel");
        QVERIFY(!exports->writeBundleAsking(bundle));
        QCOMPARE(seen.name, QStringLiteral("replaceBundle"));
        QVERIFY2(seen.text.contains(QStringLiteral("summary.md")), qPrintable(seen.text));
        QVERIFY(seen.cancelIsDefault);
        QCOMPARE(QFileInfo(QDir(bundle).filePath(QStringLiteral("summary.md"))).size(), qint64{0});
        QVERIFY(w->statusBar()->currentMessage().startsWith(QStringLiteral("Review bundle not written")));
        answer("Replace");
        QVERIFY(exports->writeBundleAsking(bundle));
        exports->waitForIdle();
        QVERIFY(QFileInfo(QDir(bundle).filePath(QStringLiteral("summary.md"))).size() > 0);
    }

    void optionsSurviveARestart() {
        QSettings().clear();
        {
            ImportTraceDialog d(QStringLiteral("a.csv"));
            d.tickMs()->setValue(50);
            d.limit()->setValue(7);
            d.capacity()->setValue(4096);
            d.blockSize()->setValue(32);
            d.rateScale()->setValue(2.5);
            d.saveSettings();
        }
        QSettings().sync();
        ImportTraceDialog again(QStringLiteral("b.csv"));
        const TraceImportJob job = again.job();
        QCOMPARE(job.options.tick_us, std::int64_t{50'000});
        QCOMPARE(job.options.limit.value_or(-1), std::int64_t{7});
        QCOMPARE(job.capacity_blocks, std::int64_t{4096});
        QCOMPARE(job.block_size_tokens, std::int64_t{32});
        QVERIFY((job.options.rate_scale == pl::trace::Rational{5, 2}));
        QCOMPARE(job.path, QStringLiteral("b.csv")); // the file is chosen each time, not remembered
    }
};

QTEST_MAIN(TestBackgroundWork)
#include "test_background_work.moc"
