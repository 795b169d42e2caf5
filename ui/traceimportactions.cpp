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

TraceImportActions::~TraceImportActions() {
    if (stop_) stop_->store(true);
}

QAction* TraceImportActions::addTo(QMenu* menu) {
    action_ = menu->addAction(tr("&Import Trace..."), this, &TraceImportActions::chooseAndImport);
    action_->setObjectName(QStringLiteral("importTraceAction"));
    action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    action_->setStatusTip(tr("Open a slice of an Azure CSV or Mooncake JSONL trace as a workload"));
    action_->setEnabled(!busy_);
    return action_;
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
    setBusy(true);
    undoIndexAtStart_ = window_->document()->undoStack()->index();
    auto stop = std::make_shared<std::atomic<bool>>(false);
    stop_ = stop;
    // Busy indicator: an indeterminate bar (core reports no fraction); Cancel stops the worker.
    progress_ = new QProgressDialog(tr("Importing %1...").arg(QFileInfo(job.path).fileName()), tr("Cancel"), 0, 0,
                                    window_);
    progress_->setObjectName(QStringLiteral("importProgress"));
    progress_->setWindowModality(Qt::WindowModal);
    progress_->setMinimumDuration(300);
    connect(progress_, &QProgressDialog::canceled, this, &TraceImportActions::cancel);
    window_->statusBar()->showMessage(tr("Importing %1...").arg(job.path));
    auto* watcher = new QFutureWatcher<TraceImportOutcome>(this);
    connect(watcher, &QFutureWatcher<TraceImportOutcome>::finished, this, [this, watcher, stop, job]() {
        watcher->deleteLater();
        stop_.reset();
        setBusy(false);
        // A Cancel that came after the worker's last check still drops whatever it produced.
        if (stop->load()) {
            window_->statusBar()->showMessage(tr("Import cancelled"), 4000);
            emit finished(false);
            return;
        }
        onDone(job, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([job, stop]() { return runTraceImport(job, stop.get()); }));
    return true;
}

void TraceImportActions::cancel() {
    if (!stop_) return;
    stop_->store(true);
    closeProgress();
    // Until the worker has returned (within a few thousand rows), busy() holds and no new import starts.
    window_->statusBar()->showMessage(tr("Stopping the import..."));
}

void TraceImportActions::setBusy(bool busy) {
    busy_ = busy;
    if (action_) action_->setEnabled(!busy);
}

void TraceImportActions::onDone(const TraceImportJob& job, TraceImportOutcome outcome) {
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
