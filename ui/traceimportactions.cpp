#include "traceimportactions.h"

#include "importtracedialog.h"
#include "labdocument.h"
#include "mainwindow.h"

#include <QAction>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMenu>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

namespace plui {

namespace {
const QString kDirKey = QStringLiteral("import/lastDirectory");
}

TraceImportActions::TraceImportActions(MainWindow* window) : QObject(window), window_(window) {}

QAction* TraceImportActions::addTo(QMenu* menu) {
    auto* action = menu->addAction(tr("&Import Trace..."), this, &TraceImportActions::chooseAndImport);
    action->setObjectName(QStringLiteral("importTraceAction"));
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    action->setStatusTip(tr("Open a slice of an Azure CSV or Mooncake JSONL trace as a workload"));
    return action;
}

void TraceImportActions::chooseAndImport() {
    if (busy_) return;
    const QString path = QFileDialog::getOpenFileName(
        window_, tr("Import trace"), QSettings().value(kDirKey).toString(),
        tr("Traces (*.csv *.jsonl);;Azure LLM inference CSV (*.csv);;Mooncake JSONL (*.jsonl);;All files (*)"));
    if (path.isEmpty()) return;
    QSettings().setValue(kDirKey, QFileInfo(path).absolutePath());
    ImportTraceDialog dialog(path, window_);
    if (dialog.exec() != QDialog::Accepted) return;
    start(dialog.job());
}

bool TraceImportActions::start(const TraceImportJob& job) {
    if (busy_) return false;
    // The slice replaces the open workload, so unsaved edits get the same Save / Discard / Cancel as Open.
    if (!window_->confirmDiscardEdits()) return false;
    busy_ = true;
    undoIndexAtStart_ = window_->document()->undoStack()->index();
    const std::uint64_t gen = ++generation_;
    // Busy indicator: an indeterminate bar (core reports no fraction); Cancel abandons the result.
    progress_ = new QProgressDialog(tr("Importing %1...").arg(QFileInfo(job.path).fileName()), tr("Cancel"), 0, 0,
                                    window_);
    progress_->setObjectName(QStringLiteral("importProgress"));
    progress_->setWindowModality(Qt::WindowModal);
    progress_->setMinimumDuration(300);
    connect(progress_, &QProgressDialog::canceled, this, [this]() {
        ++generation_; // the finishing import sees a stale generation and is dropped
        busy_ = false;
        closeProgress();
        window_->statusBar()->showMessage(tr("Import cancelled"), 4000);
        emit finished(false);
    });
    window_->statusBar()->showMessage(tr("Importing %1...").arg(job.path));
    auto* watcher = new QFutureWatcher<TraceImportOutcome>(this);
    connect(watcher, &QFutureWatcher<TraceImportOutcome>::finished, this, [this, watcher, gen, job]() {
        watcher->deleteLater();
        if (gen != generation_) return; // cancelled
        onDone(job, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([job]() { return runTraceImport(job); }));
    return true;
}

void TraceImportActions::onDone(const TraceImportJob& job, TraceImportOutcome outcome) {
    busy_ = false;
    closeProgress();
    if (!outcome.result) {
        window_->reportError(tr("Cannot import trace"), outcome.error);
        emit finished(false);
        return;
    }
    // The progress dialog blocks edits only once it shows (after 300 ms): an edit made before then is not lost
    // without the same question Open asks.
    if (window_->document()->undoStack()->index() != undoIndexAtStart_ && !window_->confirmDiscardEdits()) {
        window_->statusBar()->showMessage(tr("Import dropped: the edits made meanwhile are kept"), 8000);
        emit finished(false);
        return;
    }
    const QString summary = QString::fromStdString(outcome.result->report.summary());
    QString error;
    const QString source = tr("%1 (imported, unsaved)").arg(QFileInfo(job.path).fileName());
    if (!window_->document()->setWorkload(std::move(outcome.result->workload), source, &error)) {
        window_->reportError(tr("Cannot import trace"), error);
        emit finished(false);
        return;
    }
    lastSummary_ = summary;
    window_->statusBar()->showMessage(summary, 30000);
    emit finished(true);
}

void TraceImportActions::closeProgress() {
    if (!progress_) return;
    progress_->disconnect(this); // closing is not a cancel
    progress_->hide();
    progress_->deleteLater();
    progress_ = nullptr;
}

void TraceImportActions::waitForIdle() {
    while (busy_) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

} // namespace plui
