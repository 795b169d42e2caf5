#include "ui/backgroundjob.h"

#include <QCoreApplication>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>

namespace plui {

BackgroundJob::BackgroundJob(QWidget* window, QStatusBar* statusBar, QString dialogName, QObject* parent)
    : QObject(parent), window_(window), statusBar_(statusBar), dialogName_(std::move(dialogName)) {}

BackgroundJob::~BackgroundJob() {
    if (stop_) stop_->store(true);
}

void BackgroundJob::begin(const Text& text, std::shared_ptr<std::atomic<bool>> stop,
                          std::shared_ptr<std::atomic<int>> steps) {
    text_ = text;
    stop_ = std::move(stop);
    steps_ = std::move(steps);
    busy_ = true;
    // An indeterminate bar where the work counts no steps; it shows only for work that lasts 300 ms and more,
    // and from then on blocks edits to what the result would replace.
    progress_ = new QProgressDialog(text.running, tr("Cancel"), 0, std::max(0, text.steps), window_);
    // The last step done is not the end (the result is still to be taken): the bar neither closes nor resets.
    progress_->setAutoClose(false);
    progress_->setAutoReset(false);
    progress_->setObjectName(dialogName_);
    progress_->setWindowModality(Qt::WindowModal);
    progress_->setMinimumDuration(300);
    // The dialog's show timer runs from its construction with the 4 s default; setMinimumDuration restarts it
    // only once the value is the minimum, which a new bar's is not (-1): setting 0 starts the 300 ms.
    progress_->setValue(0);
    connect(progress_, &QProgressDialog::canceled, this, &BackgroundJob::cancel);
    if (text.steps > 0) {
        if (!stepTimer_) {
            stepTimer_ = new QTimer(this);
            stepTimer_->setInterval(100);
            connect(stepTimer_, &QTimer::timeout, this, &BackgroundJob::showSteps);
        }
        stepTimer_->start();
    }
    statusBar_->showMessage(text.running);
    emit busyChanged(true);
}

void BackgroundJob::showSteps() {
    if (!progress_ || !steps_) return;
    const int done = std::clamp(steps_->load(), 0, progress_->maximum());
    // setValue on a modal bar runs the event loop, which can end the job: nothing of this job is used after.
    if (done != progress_->value()) progress_->setValue(done);
}

void BackgroundJob::end(bool stopped) {
    if (stepTimer_) stepTimer_->stop();
    closeProgress();
    stop_.reset();
    steps_.reset();
    busy_ = false;
    if (stopped) {
        statusBar_->showMessage(text_.cancelled, 4000);
    } else if (statusBar_->currentMessage() == text_.running) {
        statusBar_->clearMessage(); // what the result says comes next
    }
    emit busyChanged(false);
}

void BackgroundJob::cancel() {
    if (!stop_ || stop_->exchange(true)) return;
    closeProgress();
    statusBar_->showMessage(text_.stopping);
}

void BackgroundJob::closeProgress() {
    if (!progress_) return;
    progress_->disconnect(this); // closing is not a cancel
    // reset() stops the 300 ms show timer, which hide() leaves running: a job that ended before it fired, its
    // result then asking a question in a modal box (unsaved edits), had the dead dialog pop up over the box.
    progress_->reset();
    progress_->hide();
    // Until its deferred delete runs the closed dialog is still a child of the window: without its name a
    // lookup by name (the next job's dialog, in the tests) finds only the live one.
    progress_->setObjectName(QString());
    progress_->deleteLater();
    progress_ = nullptr;
}

void BackgroundJob::waitForIdle() {
    while (busy_) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

} // namespace plui
