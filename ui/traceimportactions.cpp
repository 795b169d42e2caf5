#include "ui/traceimportactions.h"

#include "ui/backgroundjob.h"
#include "ui/importtracedialog.h"
#include "ui/labdocument.h"
#include "ui/mainwindow.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>

namespace plui {

namespace {
const QString kDirKey = QStringLiteral("import/lastDirectory");
}

TraceImportActions::TraceImportActions(MainWindow* window)
    : QObject(window), window_(window),
      job_(new BackgroundJob(window, window->statusBar(), QStringLiteral("importProgress"), this)) {
    connect(job_, &BackgroundJob::busyChanged, this, [this](bool busy) {
        if (action_) action_->setEnabled(!busy);
    });
    connect(job_, &BackgroundJob::cancelled, this, [this]() { emit finished(false); });
}

QAction* TraceImportActions::addTo(QMenu* menu) {
    action_ = menu->addAction(tr("&Import Trace..."), this, &TraceImportActions::chooseAndImport);
    action_->setObjectName(QStringLiteral("importTraceAction"));
    action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    action_->setStatusTip(tr("Open a slice of an Azure CSV or Mooncake JSONL trace as a workload"));
    action_->setEnabled(!job_->busy());
    return action_;
}

void TraceImportActions::chooseAndImport() {
    if (window_->readingFile()) return;
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
    if (window_->readingFile()) return false;
    // The slice replaces the open workload, so unsaved edits get the same Save / Discard / Cancel as Open.
    if (!window_->confirmDiscardEdits()) return false;
    start_ = window_->readStart();
    const QString name = QFileInfo(job.path).fileName();
    return job_->start({tr("Importing %1...").arg(name), tr("Stopping the import..."), tr("Import cancelled")},
                       [job](const std::atomic<bool>* stop) { return runTraceImport(job, stop); },
                       [this, job](TraceImportOutcome outcome) { onDone(job, std::move(outcome)); });
}

bool TraceImportActions::busy() const { return job_->busy(); }

void TraceImportActions::cancel() { job_->cancel(); }

void TraceImportActions::onDone(const TraceImportJob& job, TraceImportOutcome outcome) {
    if (!outcome.value) {
        window_->reportError(tr("Cannot import trace"), outcome.error);
        emit finished(false);
        return;
    }
    if (!window_->mayReplace(start_, tr("Import dropped"))) {
        emit finished(false);
        return;
    }
    const QString summary = QString::fromStdString(outcome.value->report.summary());
    QString error;
    const QString source = tr("%1 (imported, unsaved)").arg(QFileInfo(job.path).fileName());
    if (!window_->document()->setWorkload(std::move(outcome.value->workload), source, &error)) {
        window_->reportError(tr("Cannot import trace"), error);
        emit finished(false);
        return;
    }
    lastSummary_ = summary;
    window_->statusBar()->showMessage(summary, 30000);
    emit finished(true);
}

void TraceImportActions::waitForIdle() { job_->waitForIdle(); }

} // namespace plui
