// File > Import Trace: a small Azure CSV and Mooncake JSONL slice written into a temporary directory, imported
// through the dialog's options on a worker thread; the document then holds the slice with its provenance in
// the notes. A broken row names file, line and column and keeps the open workload; options survive a restart.
#include "fileactions.h"
#include "importtracedialog.h"
#include "labdocument.h"
#include "mainwindow.h"
#include "traceimportactions.h"
#include "traceimportjob.h"

#include "workload_io.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

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

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) qFatal("cannot write %s", qPrintable(path));
    return path;
}

} // namespace

class TestImportTraceAction : public QObject {
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
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("PreemptLabTest"));
        QApplication::setApplicationName(QStringLiteral("test_import_trace_action"));
        QSettings().clear();
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
        QVERIFY(!imports->busy());
        QTest::qWait(300); // the worker finishes; its result must be dropped
        QCOMPARE(w->document()->workload().name, name);
        QVERIFY(w->findChild<QProgressDialog*>(QStringLiteral("importProgress")) == nullptr);
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

QTEST_MAIN(TestImportTraceAction)
#include "test_import_trace_action.moc"
