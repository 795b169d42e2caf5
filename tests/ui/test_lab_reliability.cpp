// The lab under hostile files and interrupted work (docs/reliability.md): corrupt, truncated, huge and
// wrong-format files get a dialog naming the file and leave the open workload as it was; editing works after
// a failed load; unsaved edits prompt before a close or an open loses them; a long run can be cancelled, and
// closing the window in the middle of one is safe (the sanitizer build checks the "safe").
#include "tests/comma_locale.h"
#include "ui/editcommands.h"
#include "ui/exporter.h"
#include "ui/labcommandline.h"
#include "ui/fileactions.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"
#include "ui/traceimportactions.h"
#include "tests/ui/uitestutil.h"

#include "core/receipt.h"
#include "core/session.h"

#include <QAbstractButton>
#include <QApplication>
#include <QElapsedTimer>
#include <QLocale>
#include <QProcess>
#include <QFile>
#include <QMessageBox>
#include <QScreen>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTimer>
#include <QUndoGroup>
#include <QUndoStack>
#include <QtTest>

#include <fcntl.h>
#include <unistd.h>

using plui::LabDocument;
using plui::MainWindow;

namespace {

const QString kSeed = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/seed-example.workload.json");
const QString kSwapWins = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/swap-wins.workload.json");

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

std::unique_ptr<MainWindow> makeWindow(const QString& file) {
    auto w = std::make_unique<MainWindow>();
    w->document()->setRunMode(LabDocument::RunMode::Synchronous);
    w->show();
    if (!w->openPath(file)) qFatal("cannot open %s", qPrintable(file));
    return w;
}

// Answers the next unsaved-edits box with `button` once it appears (it may come from a background job's end);
// counts the boxes it answered.
struct PromptAnswerer {
    int answered = 0;
    QString lastName;
    void answerNext(QMessageBox::StandardButton button, int triesLeft = 500) {
        QTimer::singleShot(triesLeft == 500 ? 0 : 10, [this, button, triesLeft]() {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) {
                if (triesLeft == 0) qFatal("no modal box appeared");
                answerNext(button, triesLeft - 1);
                return;
            }
            lastName = box->objectName();
            ++answered;
            box->button(button)->click();
        });
    }
};

} // namespace

class TestLabReliability : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void badFileKeepsTheOpenWorkload_data();
    void badFileKeepsTheOpenWorkload();
    void hugeFileIsRefusedQuickly();
    void unsavedEditsPromptBeforeClose();
    void unsavedEditsPromptBeforeOpen();
    void unsavedEditsPromptBeforeImport();
    void noPromptWithoutEdits();
    void cancellingALongRunKeepsTheShownRun();
    void aCancelledLoadKeepsTheUndoSteps();
    void closingMidRunIsSafe();
    void aRunThatOutgrowsMemoryFailsWithFigures();
    void screenshotsDependOnTheCommandLineOnly();
    void numbersReadAsTheCliPrintsThem();
    void unwritableSettingsAreSaid();
    void aFirstStartFillsMostOfTheScreen();
    void theLastWorkloadComesBackAtItsTick();
    void aRestartKeepsTheWindowsSize();
};

void TestLabReliability::initTestCase() {
    uitest::isolateSettings(QStringLiteral("test_lab_reliability"));
}

void TestLabReliability::badFileKeepsTheOpenWorkload_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected"); // a fragment of the message, besides the file name
    const QByteArray sample = readAll(kSwapWins);
    QVERIFY(sample.size() > 100);
    QByteArray binary;
    for (int i = 0; i < 4096; ++i) binary.append(static_cast<char>((i * 7919) & 0xff));
    QTest::newRow("corrupt (binary)") << binary << "invalid JSON";
    QTest::newRow("truncated") << sample.left(sample.size() / 2) << "invalid JSON";
    QTest::newRow("empty") << QByteArray()
                           << "the file is empty (a preemptlab.workload.v1 JSON document was expected)";
    QTest::newRow("bit flip in a key") << QByteArray(sample).replace("\"prompt_tokens\"", "\"prompt_tokenz\"")
                                       << "unknown key \"prompt_tokenz\"";
    QTest::newRow("duplicate key") << QByteArray(sample).replace("\"name\":", "\"name\": \"a\", \"name\":")
                                   << "duplicate key";
    QTest::newRow("number beyond a double") << QByteArray(sample).replace("\"max_ticks\": ", "\"max_ticks\": 1e999")
                                            << "invalid JSON";
    const pl::Workload w = uitest::loadSample(kSeed);
    QTest::newRow("a receipt, not a workload")
        << QByteArray::fromStdString(pl::receiptText(w, pl::runWorkload(w))) << "/format";
    QTest::newRow("an Azure trace CSV") << QByteArray("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 "
                                                      "18:15:46.6805900,374,44\n")
                                        << "invalid JSON";
    QTest::newRow("deep nesting") << QByteArray(100000, '[') << "nesting deeper";
}

// The open workload, its run, its cursor and its undo history survive a failed open, and editing still works.
void TestLabReliability::badFileKeepsTheOpenWorkload() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    auto w = makeWindow(kSeed);
    LabDocument* doc = w->document();
    QString error;
    QVERIFY(doc->setSetting(QStringLiteral("recovery"), QStringLiteral("swap"), &error));
    doc->seek(12);
    const std::string before = plui::receiptTextOf(*doc);
    const int undoCount = doc->undoStack()->count();
    doc->undoStack()->setClean(); // saved: no prompt before the open
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.workload.json"));
    writeAll(bad, bytes);
    QVERIFY(!w->openPath(bad));
    QVERIFY2(w->lastError().contains(bad) && w->lastError().contains(expected), qPrintable(w->lastError()));
    auto* box = w->findChild<QMessageBox*>(QStringLiteral("errorDialog"));
    QVERIFY(box != nullptr);
    box->close();
    QCOMPARE(plui::receiptTextOf(*doc), before);
    QCOMPARE(doc->currentTick(), 12);
    QCOMPARE(doc->undoStack()->count(), undoCount);
    QCOMPARE(doc->workload().name, std::string("seed-example"));
    // Editing after the failed load: the edit runs, and undo goes back through the earlier edit too.
    QVERIFY2(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("20"), &error), qPrintable(error));
    QCOMPARE(doc->session()->workload().config.capacity_blocks, std::int64_t{20});
    doc->undoStack()->undo();
    QCOMPARE(plui::receiptTextOf(*doc), before);
    doc->undoStack()->undo();
    QVERIFY(doc->workload().policy.recovery == pl::Recovery::Recompute);
}

// A file past the 2 GiB cap (sparse here) is refused from its size, before any byte is read.
void TestLabReliability::hugeFileIsRefusedQuickly() {
    auto w = makeWindow(kSeed);
    QTemporaryDir dir;
    const QString huge = dir.filePath(QStringLiteral("huge.workload.json"));
    writeAll(huge, "{\"format\": \"preemptlab.workload.v1\", \"requests\": [");
    const QByteArray native = QFile::encodeName(huge);
    if (::truncate(native.constData(), off_t{3} << 30) != 0) QSKIP("no sparse files here");
    QVERIFY(!w->openPath(huge)); // refused by its size, before a byte is read (no wall-time bound: the message)
    QVERIFY2(w->lastError().contains(QStringLiteral("3221225472 bytes, over the cap")), qPrintable(w->lastError()));
    QCOMPARE(w->document()->workload().name, std::string("seed-example"));
}

void TestLabReliability::unsavedEditsPromptBeforeClose() {
    auto w = makeWindow(kSeed);
    LabDocument* doc = w->document();
    QString error;
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("24"), &error));
    PromptAnswerer prompt;
    prompt.answerNext(QMessageBox::Cancel);
    QVERIFY(!w->close());
    QCOMPARE(prompt.answered, 1);
    QCOMPARE(prompt.lastName, QStringLiteral("unsavedEditsDialog"));
    QVERIFY(w->isVisible());
    QCOMPARE(doc->workload().config.capacity_blocks, std::int64_t{24}); // the edit is still there
    prompt.answerNext(QMessageBox::Discard);
    QVERIFY(w->close());
    QCOMPARE(prompt.answered, 2);
    QVERIFY(!w->isVisible());
}

void TestLabReliability::unsavedEditsPromptBeforeOpen() {
    auto w = makeWindow(kSeed);
    LabDocument* doc = w->document();
    QString error;
    QVERIFY(doc->setSetting(QStringLiteral("recovery"), QStringLiteral("hybrid"), &error));
    PromptAnswerer prompt;
    prompt.answerNext(QMessageBox::Cancel);
    QVERIFY(!w->openPath(kSwapWins));
    QCOMPARE(prompt.answered, 1);
    QCOMPARE(doc->workload().name, std::string("seed-example"));
    QVERIFY(doc->workload().policy.recovery == pl::Recovery::Hybrid);
    prompt.answerNext(QMessageBox::Discard);
    QVERIFY(w->openPath(kSwapWins));
    QCOMPARE(prompt.answered, 2);
    QCOMPARE(doc->workload().name, std::string("swap-wins"));
    QVERIFY(doc->undoStack()->isClean());
}

// Import Trace replaces the open workload too, so it asks like Open: Cancel keeps the edits and imports nothing.
void TestLabReliability::unsavedEditsPromptBeforeImport() {
    auto w = makeWindow(kSeed);
    LabDocument* doc = w->document();
    QString error;
    QVERIFY(doc->setSetting(QStringLiteral("recovery"), QStringLiteral("hybrid"), &error));
    QTemporaryDir dir;
    plui::TraceImportJob job;
    job.path = dir.filePath(QStringLiteral("tiny.csv"));
    job.format = pl::trace::TraceFormat::Azure;
    writeAll(job.path, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n");
    plui::TraceImportActions* imports = w->fileActions()->traceImports();
    PromptAnswerer prompt;
    prompt.answerNext(QMessageBox::Cancel);
    QVERIFY(!imports->start(job));
    QCOMPARE(prompt.answered, 1);
    QCOMPARE(prompt.lastName, QStringLiteral("unsavedEditsDialog"));
    QVERIFY(!imports->busy());
    QCOMPARE(doc->workload().name, std::string("seed-example"));
    QVERIFY(doc->workload().policy.recovery == pl::Recovery::Hybrid);
    prompt.answerNext(QMessageBox::Discard);
    QVERIFY(imports->start(job));
    QCOMPARE(prompt.answered, 2);
    imports->waitForIdle();
    QVERIFY2(w->lastError().isEmpty(), qPrintable(w->lastError()));
    QVERIFY(doc->sourceName().contains(QStringLiteral("tiny.csv")));
    QCOMPARE(doc->workload().requests.size(), std::size_t{1});
    QVERIFY(doc->undoStack()->isClean());
    // An imported slice is not on disk: replacing it would lose it, so it counts as unsaved until saved.
    QVERIFY(!doc->onDisk() && !doc->nothingUnsaved());
    QVERIFY(w->windowTitle().contains(QStringLiteral("tiny.csv (imported, unsaved)")));
    doc->markSaved(dir.filePath(QStringLiteral("tiny.workload.json"))); // as Save As does
    QVERIFY(doc->nothingUnsaved());
    QVERIFY(w->windowTitle().contains(QStringLiteral(" - tiny.workload.json - ")));
    // An edit made while the import runs (before its modal progress dialog shows) is asked about again:
    // Cancel keeps the edit and drops the slice; Discard takes the slice.
    QVERIFY(imports->start(job)); // nothing unsaved: no prompt
    QCOMPARE(prompt.answered, 2);
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("333"), &error));
    prompt.answerNext(QMessageBox::Cancel);
    imports->waitForIdle();
    QCOMPARE(prompt.answered, 3);
    QCOMPARE(doc->workload().config.capacity_blocks, 333);
    QVERIFY(!doc->undoStack()->isClean());
    doc->undoStack()->setClean();
    QVERIFY(imports->start(job));
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("334"), &error));
    prompt.answerNext(QMessageBox::Discard);
    imports->waitForIdle();
    QCOMPARE(prompt.answered, 4);
    QVERIFY(doc->undoStack()->isClean());
    QVERIFY(doc->workload().config.capacity_blocks != 334);
}

void TestLabReliability::noPromptWithoutEdits() {
    auto w = makeWindow(kSeed);
    LabDocument* doc = w->document();
    QString error;
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("24"), &error));
    doc->undoStack()->undo(); // back to the saved state: nothing to lose
    QVERIFY(doc->undoStack()->isClean());
    QVERIFY(QApplication::activeModalWidget() == nullptr);
    QVERIFY(w->openPath(kSwapWins)); // would block in exec() if it prompted
    QVERIFY(w->close());
}

// A run on a worker thread (large workload) can be cancelled at once. Cancelling an edit's re-run keeps the run
// on screen (workload, receipt, cursor and the drawn views), goes back to its workload and moves the undo stack
// back to match (the edit can be redone, and the title is not "edited"); cancelling a new load brings back the
// workload shown before (it was emptied, the previous run gone). Either way the worker's engine is stopped (pl::RunCancelled, counted
// by stoppedRuns) rather than left to run to the end, and nothing of it lands. A superseded run is stopped too.
void TestLabReliability::cancellingALongRunKeepsTheShownRun() {
    auto w = makeWindow(kSeed);
    w->resize(1200, 800);
    LabDocument* doc = w->document();
    QString error;
    // As if read from a file (onDisk): nothing to save when it is replaced.
    QVERIFY2(doc->setWorkload(uitest::syntheticWorkload(512, 4000), QStringLiteral("big"), &error, true),
             qPrintable(error));
    QVERIFY(!doc->busy()); // ran synchronously
    doc->seek(doc->lastTick() / 2);
    const std::int64_t tick = doc->currentTick();
    const std::string before = plui::receiptTextOf(*doc);
    const auto drawn = [&w]() {
        QApplication::processEvents(); // views redraw from queued updates
        return std::make_pair(w->view(QStringLiteral("pool"))->grab().toImage(),
                              w->view(QStringLiteral("timeline"))->grab().toImage());
    };
    const auto viewsBefore = drawn();
    doc->setRunMode(LabDocument::RunMode::Background);
    // Runs wait at their start until `open`: each cancel and supersede below meets a run still running (a run
    // that finished first is dropped without being stopped, and the counts below came up short once).
    const auto open = std::make_shared<std::atomic<bool>>(false);
    const auto runToTheEnd = [doc, &open]() {
        open->store(true);
        doc->waitForIdle();
        open->store(false);
    };
    doc->holdRunsUntil(open);
    QVERIFY2(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("600"), &error), qPrintable(error));
    QVERIFY(doc->busy());
    doc->cancelRun();
    QCOMPARE(doc->workload().config.capacity_blocks, std::int64_t{512});
    QCOMPARE(plui::receiptTextOf(*doc), before);
    doc->waitForIdle();
    QVERIFY(!doc->busy());
    QCOMPARE(doc->stoppedRuns(), 1);
    QCOMPARE(doc->session()->workload().config.capacity_blocks, std::int64_t{512});
    QCOMPARE(plui::receiptTextOf(*doc), before);
    QCOMPARE(doc->currentTick(), tick);
    QVERIFY(drawn() == viewsBefore);
    QVERIFY(doc->undoStack()->isClean());
    QCOMPARE(doc->undoStack()->index(), 0);
    QVERIFY(!w->windowTitle().contains(QStringLiteral("(edited)")));
    // Redo re-applies the cancelled edit, and it runs.
    QVERIFY(doc->undoStack()->canRedo());
    doc->undoStack()->redo();
    runToTheEnd();
    QCOMPARE(doc->session()->workload().config.capacity_blocks, std::int64_t{600});
    QCOMPARE(doc->stoppedRuns(), 1);
    // An undone edit cancelled: the stack goes forward again to what is shown.
    doc->undoStack()->undo();
    QVERIFY(doc->busy());
    doc->cancelRun();
    QCOMPARE(doc->undoStack()->index(), 1);
    QCOMPARE(doc->workload().config.capacity_blocks, std::int64_t{600});
    doc->waitForIdle();
    QCOMPARE(doc->stoppedRuns(), 2);
    // Two edits in a row: the older run is stopped, the newer one lands.
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("700"), &error));
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("800"), &error));
    runToTheEnd();
    QCOMPARE(doc->stoppedRuns(), 3);
    QCOMPARE(doc->session()->workload().config.capacity_blocks, std::int64_t{800});
    const std::string shown = plui::receiptTextOf(*doc);
    const std::int64_t shownTick = doc->currentTick();

    // A new load cancelled: the workload and run shown before come back, not an empty lab; not an edit whose
    // run was still pending when the load came (capacity 900 here, never shown).
    pl::Workload big2 = uitest::syntheticWorkload(512, 4000, 9);
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("900"), &error));
    QVERIFY(doc->busy());
    QVERIFY(doc->setWorkload(std::move(big2), QStringLiteral("big2"), &error, true));
    QVERIFY(doc->busy());
    QVERIFY(doc->session() == nullptr);
    doc->cancelRun();
    QVERIFY(doc->hasWorkload() && doc->session() != nullptr);
    QCOMPARE(doc->sourceName(), QStringLiteral("big"));
    QCOMPARE(doc->workload().config.capacity_blocks, std::int64_t{800});
    QCOMPARE(plui::receiptTextOf(*doc), shown);
    QCOMPARE(doc->currentTick(), shownTick);
    doc->waitForIdle();
    QCOMPARE(doc->sourceName(), QStringLiteral("big"));
    QCOMPARE(doc->stoppedRuns(), 5); // the edit's run and the load's
    doc->holdRunsUntil(nullptr);
    // It had unsaved edits (capacity 800): it is "edited", asked about before a load.
    QVERIFY(!doc->nothingUnsaved());
    QVERIFY(doc->onDisk());
    QVERIFY2(w->windowTitle().contains(QStringLiteral("(edited)")), qPrintable(w->windowTitle()));
    doc->markSaved(QStringLiteral("big.workload.json"));
    // A cancelled re-run that changed no workload (live mode switched) leaves the undo stack where it is, even
    // when an older step holds an equal workload (capacity 800 -> 700 -> 800 after pauses).
    const int start = doc->undoStack()->index(); // the steps made before the cancelled load are kept
    QTest::qWait(static_cast<int>(plui::kMergeWindowMs) + 100);
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("700"), &error));
    doc->waitForIdle();
    QTest::qWait(static_cast<int>(plui::kMergeWindowMs) + 100);
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("800"), &error));
    doc->waitForIdle();
    const int at = doc->undoStack()->index();
    QCOMPARE(at, start + 2);
    doc->setLiveMode(true);
    QVERIFY(doc->busy());
    doc->cancelRun();
    QCOMPARE(doc->undoStack()->index(), at);
    QVERIFY(!doc->liveMode()); // the switch goes back with the run on screen
    doc->waitForIdle();
    doc->markSaved(QStringLiteral("big.workload.json"));
    // And the lab goes on: open a file.
    doc->setRunMode(LabDocument::RunMode::Synchronous);
    QVERIFY(w->openPath(kSwapWins));
    QCOMPARE(doc->session()->workload().name, std::string("swap-wins"));
}

// A cancelled load brings the shown workload back with its undo stack (the steps, where it stood and where it
// was saved), not just "edited": every edit can still be undone back to the saved file, and an edit whose run
// was pending when the load came can be redone. A load that lands starts an empty stack.
void TestLabReliability::aCancelledLoadKeepsTheUndoSteps() {
    auto w = makeWindow(kSeed);
    LabDocument* doc = w->document();
    QString error;
    QVERIFY2(doc->setWorkload(uitest::syntheticWorkload(512, 4000), QStringLiteral("big"), &error, true),
             qPrintable(error));
    const std::string saved = plui::receiptTextOf(*doc);
    const auto capacity = [doc]() { return doc->workload().config.capacity_blocks; };
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("600"), &error));
    QTest::qWait(static_cast<int>(plui::kMergeWindowMs) + 100); // two steps, not one merged drag
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("700"), &error));
    QCOMPARE(doc->undoStack()->count(), 2);
    const std::string shown = plui::receiptTextOf(*doc);

    doc->setRunMode(LabDocument::RunMode::Background);
    QVERIFY(doc->setWorkload(uitest::syntheticWorkload(512, 4000, 9), QStringLiteral("big2"), &error, true));
    QVERIFY(doc->busy());
    QCOMPARE(doc->undoStack()->count(), 0); // the new workload's own
    QVERIFY(!doc->undoGroup()->canUndo());
    doc->cancelRun();
    doc->waitForIdle();
    QCOMPARE(doc->sourceName(), QStringLiteral("big"));
    QCOMPARE(capacity(), std::int64_t{700});
    QCOMPARE(plui::receiptTextOf(*doc), shown);
    QCOMPARE(doc->undoStack()->count(), 2);
    QCOMPARE(doc->undoStack()->index(), 2);
    QVERIFY(doc->undoGroup()->activeStack() == doc->undoStack()); // the Undo action and the title follow it
    QVERIFY(!doc->undoStack()->isClean());
    QVERIFY2(w->windowTitle().contains(QStringLiteral("(edited)")), qPrintable(w->windowTitle()));

    // An edit pending when the load came: back to the step shown, the edit redoable.
    QTest::qWait(static_cast<int>(plui::kMergeWindowMs) + 100);
    QVERIFY(doc->setSetting(QStringLiteral("capacity_blocks"), QStringLiteral("800"), &error));
    QVERIFY(doc->busy());
    QVERIFY(doc->setWorkload(uitest::syntheticWorkload(512, 4000, 9), QStringLiteral("big2"), &error, true));
    doc->cancelRun();
    doc->waitForIdle();
    QCOMPARE(capacity(), std::int64_t{700});
    QCOMPARE(plui::receiptTextOf(*doc), shown);
    QCOMPARE(doc->undoStack()->index(), 2);
    QVERIFY(doc->undoGroup()->canRedo());

    // Undo goes back step by step to the file as opened: clean, and the title says so.
    doc->setRunMode(LabDocument::RunMode::Synchronous);
    doc->undoGroup()->undo();
    QCOMPARE(capacity(), std::int64_t{600});
    doc->undoGroup()->undo();
    QCOMPARE(capacity(), std::int64_t{512});
    QVERIFY(doc->undoStack()->isClean());
    QVERIFY(!w->windowTitle().contains(QStringLiteral("(edited)")));
    QCOMPARE(plui::receiptTextOf(*doc), saved);
    doc->undoGroup()->redo();
    QCOMPARE(capacity(), std::int64_t{600});

    // A load that lands: its own empty stack, the old steps gone with the old workload.
    QVERIFY(doc->setWorkload(uitest::syntheticWorkload(512, 4000, 9), QStringLiteral("big2"), &error, true));
    QCOMPARE(doc->sourceName(), QStringLiteral("big2"));
    QCOMPARE(doc->undoStack()->count(), 0);
    QVERIFY(!doc->undoGroup()->canUndo());
    QVERIFY(w->close());
}

// Closing (and destroying) the window while a run is on a worker thread: the run's result has nowhere to go
// and is dropped; nothing touches the destroyed document (ASan would report it in the sanitizer build).
void TestLabReliability::closingMidRunIsSafe() {
    auto w = makeWindow(kSeed);
    LabDocument* doc = w->document();
    doc->setRunMode(LabDocument::RunMode::Background);
    QString error;
    QVERIFY(doc->setWorkload(uitest::syntheticWorkload(512, 4000), QStringLiteral("big"), &error, true));
    QVERIFY(doc->busy());
    QVERIFY(w->close()); // a freshly loaded workload (from a file) has no unsaved edits
    w.reset(); // the document's destructor stops the worker's engine (its next check)
    QElapsedTimer timer;
    timer.start();
    QVERIFY(QThreadPool::globalInstance()->waitForDone(120'000));
    qInfo("the worker ended %lld ms after the window was destroyed", static_cast<long long>(timer.elapsed()));
    QApplication::processEvents();
    auto again = makeWindow(kSwapWins); // the lab still works
    QCOMPARE(again->document()->workload().name, std::string("swap-wins"));
}

// The lab's runs carry the CLI's memory bound (pl::eventBudget): a run whose ledger would outgrow the machine
// fails with the figures (shown to the user) instead of the lab being killed. PREEMPTLAB_MAX_EVENTS makes the
// bound small here; the same workload runs once it is lifted.
void TestLabReliability::aRunThatOutgrowsMemoryFailsWithFigures() {
    LabDocument doc;
    doc.setRunMode(LabDocument::RunMode::Synchronous);
    QSignalSpy failed(&doc, &LabDocument::runFailed);
    qputenv("PREEMPTLAB_MAX_EVENTS", "200");
    QString error;
    doc.loadFile(QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/livelock-next-block.workload.json"), &error);
    qunsetenv("PREEMPTLAB_MAX_EVENTS");
    QCOMPARE(failed.size(), 1);
    const QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(QStringLiteral("over the 200 this run may hold")), qPrintable(message));
    QVERIFY(doc.session() == nullptr);
    QVERIFY2(doc.setSetting(QStringLiteral("max_ticks"), QStringLiteral("2500"), &error), qPrintable(error));
    QVERIFY(doc.session() != nullptr);
    QCOMPARE(failed.size(), 1);
}

void TestLabReliability::screenshotsDependOnTheCommandLineOnly() {
    // A saved calibration used to reach a headless screenshot: the same command drew measured curves on one
    // machine and none on another. Now the settings are neither read nor written; --calibration loads one.
    const QString exe = QStringLiteral(PREEMPTLAB_BINARY_DIR "/bin/preemptlab");
    const QString calibration = QStringLiteral(PREEMPTLAB_SOURCE_DIR "/samples/synthetic.calibration.json");
    QTemporaryDir dir;
    const QString saved = dir.filePath(QStringLiteral("used/PreemptLab/preemptlab.conf"));
    QVERIFY(QDir().mkpath(QFileInfo(saved).path()));
    const QByteArray settings = "[calibration]\nfile=" + calibration.toUtf8() + "\n[transport]\nspeed=40\n";
    writeAll(saved, settings);
    auto shoot = [&](const QString& config, const QStringList& extra, const QString& png, QString* err) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(config));
        p.setProcessEnvironment(env);
        p.start(exe, QStringList{QStringLiteral("--workload"), kSeed, QStringLiteral("--view"),
                                 QStringLiteral("breakeven"), QStringLiteral("--size"), QStringLiteral("900x600"),
                                 QStringLiteral("--screenshot"), dir.filePath(png)} +
                         extra);
        if (!p.waitForFinished(60'000)) return -1;
        *err = QString::fromUtf8(p.readAllStandardError());
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    };
    QString err;
    QCOMPARE(shoot(QStringLiteral("clean"), {}, QStringLiteral("clean.png"), &err), 0);
    QCOMPARE(shoot(QStringLiteral("used"), {}, QStringLiteral("used.png"), &err), 0);
    QCOMPARE(readAll(dir.filePath(QStringLiteral("used.png"))), readAll(dir.filePath(QStringLiteral("clean.png"))));
    QCOMPARE(readAll(saved), settings); // not rewritten
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("clean/PreemptLab")))); // nor created
    QCOMPARE(shoot(QStringLiteral("clean"), {QStringLiteral("--calibration"), calibration},
                   QStringLiteral("measured.png"), &err),
             0);
    QVERIFY(readAll(dir.filePath(QStringLiteral("measured.png"))) != readAll(dir.filePath(QStringLiteral("clean.png"))));
    const QString missing = dir.filePath(QStringLiteral("missing.calibration.json"));
    QCOMPARE(shoot(QStringLiteral("clean"), {QStringLiteral("--calibration"), missing}, QStringLiteral("no.png"), &err), 2);
    QVERIFY2(err.contains(QStringLiteral("--calibration: ")) && err.contains(missing), qPrintable(err));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("no.png"))));
    // A Latin-1 byte in a path (QProcess cannot pass one: the shell does) is refused by name, nothing written.
    QProcess sh;
    sh.setWorkingDirectory(dir.path());
    sh.start(QStringLiteral("bash"), {QStringLiteral("-c"),
                                      QStringLiteral("QT_QPA_PLATFORM=offscreen '%1' --workload '%2' --screenshot "
                                                     "\"$(printf 'x\\351.png')\"; echo \"rc=$?\"; ls")
                                          .arg(exe, kSeed)});
    QVERIFY(sh.waitForFinished(60'000));
    const QString out = QString::fromUtf8(sh.readAllStandardOutput());
    const QString shErr = QString::fromUtf8(sh.readAllStandardError());
    QVERIFY2(out.contains(QStringLiteral("rc=2")) && !out.contains(QStringLiteral("x")), qPrintable(out + shErr));
    QVERIFY2(shErr.contains(QStringLiteral("argument 4 is not valid UTF-8")), qPrintable(shErr));
}

void TestLabReliability::numbersReadAsTheCliPrintsThem() {
    // QApplication set the C library's locale from the environment; on a German desktop "%.2f" gave "5,24".
    QTemporaryDir dir;
    const bool comma = pltest::useCommaLocale(dir);
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    QCOMPARE(QLocale().toString(1.5), QStringLiteral("1,5"));
    plui::useCliNumberFormat();
    QCOMPARE(QLocale().toString(1.5), QStringLiteral("1.5"));
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.2f", 5.2421);
    QCOMPARE(QByteArray(buf), QByteArray("5.24"));
    if (!comma) QSKIP("no de_DE locale installed and localedef could not make one: checked Qt's side only");
}

// With no saved geometry the window takes nine tenths of the screen, up to 1600x1000 (Qt alone gives a top
// level two thirds of it); a saved one wins (test_lab_gui::settingsSurviveARestart).
void TestLabReliability::aFirstStartFillsMostOfTheScreen() {
    QSettings().clear();
    MainWindow w;
    w.show();
    QApplication::processEvents();
    const QSize avail = w.screen()->availableGeometry().size();
    const QSize wanted = (avail * 9 / 10).boundedTo(QSize(1600, 1000)).expandedTo(w.minimumSizeHint());
    QCOMPARE(w.size(), wanted);
    QVERIFY2(w.width() > avail.width() * 2 / 3, qPrintable(QStringLiteral("%1 of %2").arg(w.width()).arg(avail.width())));
    // Centred: no edge hangs off the screen.
    QVERIFY(w.screen()->availableGeometry().contains(w.geometry().center()));
    QVERIFY2(w.geometry().left() >= w.screen()->availableGeometry().left() &&
                 w.geometry().right() <= w.screen()->availableGeometry().right(),
             qPrintable(QStringLiteral("%1,%2 %3x%4").arg(w.x()).arg(w.y()).arg(w.width()).arg(w.height())));
    QVERIFY(w.close());
}

void TestLabReliability::unwritableSettingsAreSaid() {
    // A config folder that cannot be made (here under /proc, even for root) lost recent files and the layout
    // without a word; the window now says so in the status bar at start.
    const QString home = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, QStringLiteral("/proc/preemptlab-nope"));
    {
        MainWindow w;
        const QString message = w.statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Settings cannot be saved to /proc/preemptlab-nope/")), qPrintable(message));
    }
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, home);
    MainWindow w;
    QVERIFY(w.statusBar()->currentMessage().startsWith(QStringLiteral("Open a workload")));
}

void TestLabReliability::theLastWorkloadComesBackAtItsTick() {
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("mine.workload.json"));
    QVERIFY(QFile::copy(kSwapWins, copy));
    {
        auto w = makeWindow(copy);
        w->document()->seek(42);
        w->close();
    }
    {
        MainWindow w;
        w.applyStartupOptions(plui::LabOptions{}); // started with no workload argument
        QVERIFY(w.document()->hasWorkload());
        QCOMPARE(w.document()->sourceName(), copy);
        w.document()->waitForIdle();
        QCOMPARE(w.document()->currentTick(), 42);
        w.close();
    }
    QVERIFY(QFile::remove(copy)); // gone by the next start: said, and dropped from Open Recent
    MainWindow w;
    w.applyStartupOptions(plui::LabOptions{});
    QVERIFY(!w.document()->hasWorkload());
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("is gone")),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(!w.fileActions()->recentFiles().contains(copy));
}

// The window comes back at the size and place it was closed at, start after start, docks and all: it grew by
// a third on every second start (921 px wide closed, 1,259 px back, off a 1024x768 projector's screen).
void TestLabReliability::aRestartKeepsTheWindowsSize() {
    QSettings().clear();
    QSize closedAt;
    {
        auto w = makeWindow(kSwapWins);
        w->resize(w->minimumSizeHint().expandedTo(QSize(900, 640)));
        QApplication::processEvents();
        closedAt = w->size();
        QVERIFY(w->close());
    }
    for (int start = 0; start < 3; ++start) {
        MainWindow w;
        w.applyStartupOptions(plui::LabOptions{});
        w.show();
        QApplication::processEvents();
        w.document()->waitForIdle();
        QApplication::processEvents();
        QCOMPARE(w.size(), closedAt);
        QVERIFY(w.isVisible());
        int shown = 0;
        for (auto* dock : w.findChildren<QDockWidget*>()) {
            // (A dock tabbed behind another is "visible" but placed off the window: nothing of it shows.)
            if (!dock->isVisible() || dock->isFloating() || dock->visibleRegion().isEmpty()) continue;
            ++shown;
            QVERIFY2(w.rect().contains(QRect(dock->mapTo(&w, QPoint(0, 0)), dock->size())) && dock->width() > 50,
                     qPrintable(QStringLiteral("%1 at %2,%3 %4x%5 in %6x%7").arg(dock->objectName()).arg(dock->mapTo(&w, QPoint(0, 0)).x()).arg(dock->mapTo(&w, QPoint(0, 0)).y()).arg(dock->width()).arg(dock->height()).arg(w.width()).arg(w.height())));
        }
        QVERIFY2(shown >= 4, qPrintable(QString::number(shown))); // policy, ledger, timeline, plots at least
        QVERIFY(w.close());
    }
}

QTEST_MAIN(TestLabReliability)
#include "test_lab_reliability.moc"
