#pragma once
// BackgroundJob: one long piece of work at a time on a worker thread (QtConcurrent), behind a window-modal busy
// dialog with Cancel, for the lab's file work (Import Trace, opening a big workload file). The work gets a stop
// flag (core's StopCheck reads it); Cancel sets it, closes the dialog and says "Stopping..." until the worker
// has returned, and until then busy() holds and start() refuses, so two jobs never hold their memory at once.
// A cancelled job's result is dropped, even one that finished after the click. Destroying the job sets the
// flag too: closing the lab does not wait for a whole import; the worker keeps its own share of the flag.

#include "core/stop_check.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

class QProgressDialog;
class QStatusBar;
class QTimer;
class QWidget;

namespace plui {

// What a job's worker hands back: its value, or why there is none ("FILE: field: reason"); neither, with
// `cancelled`, when the stop flag ended it (BackgroundJob drops that result).
template <typename T>
struct JobOutcome {
    std::optional<T> value;
    QString error;
    bool cancelled = false;
};

// On the worker: `make(out)` fills the outcome. A pl::Cancelled it throws leaves it cancelled; any other
// exception (bad_alloc on a huge input) becomes the error "`context`: what", never a crash of the lab.
template <typename T, typename Make>
JobOutcome<T> catchingOutcome(const QString& context, Make make) {
    JobOutcome<T> out;
    try {
        make(out);
    } catch (const pl::Cancelled&) {
        out = {};
        out.cancelled = true;
    } catch (const std::exception& ex) {
        out = {};
        out.error = context + QStringLiteral(": ") + QString::fromUtf8(ex.what());
    }
    return out;
}

class BackgroundJob : public QObject {
    Q_OBJECT
  public:
    // What the job says: in the dialog and the status bar while it runs ("Importing x.csv..."), after a
    // Cancel until the worker has returned ("Stopping the import..."), and once it has ("Import cancelled").
    struct Text {
        QString running;
        QString stopping;
        QString cancelled;
        // 0: an indeterminate bar. N: the work counts its steps done (0..N) in the std::atomic<int> it is given
        // as its second argument, and the bar shows them.
        int steps = 0;
    };

    // `window` parents the dialog and owns the status bar the messages go to; `dialogName` names the dialog
    // (tests find it by that name).
    BackgroundJob(QWidget* window, QStatusBar* statusBar, QString dialogName, QObject* parent);
    ~BackgroundJob() override;

    // Runs `work(const std::atomic<bool>* stop)`, or `work(stop, std::atomic<int>* stepsDone)`, on a worker;
    // `done(result)` on this thread when it returns, unless cancelled (then `cancelled()` is emitted instead).
    // False, doing nothing, while a job is busy.
    template <typename Work, typename Done>
    bool start(const Text& text, Work work, Done done);

    bool busy() const { return busy_; }
    void cancel();
    void waitForIdle();

  signals:
    void busyChanged(bool busy);
    void cancelled();

  private:
    void begin(const Text& text, std::shared_ptr<std::atomic<bool>> stop, std::shared_ptr<std::atomic<int>> steps);
    void showSteps(); // the bar follows the work's count
    void end(bool stopped); // the worker has returned
    void closeProgress();
    QWidget* window_;
    QStatusBar* statusBar_;
    QString dialogName_;
    Text text_;
    QProgressDialog* progress_ = nullptr;
    std::shared_ptr<std::atomic<bool>> stop_; // shared with the running worker
    std::shared_ptr<std::atomic<int>> steps_; // the worker's count of steps done
    QTimer* stepTimer_ = nullptr;
    bool busy_ = false;
};

template <typename Work, typename Done>
bool BackgroundJob::start(const Text& text, Work work, Done done) {
    if (busy_) return false;
    auto stop = std::make_shared<std::atomic<bool>>(false);
    auto steps = std::make_shared<std::atomic<int>>(0);
    begin(text, stop, steps);
    auto run = [work = std::move(work), stop, steps]() {
        if constexpr (std::is_invocable_v<const Work&, const std::atomic<bool>*, std::atomic<int>*>) {
            return work(stop.get(), steps.get());
        } else {
            return work(stop.get());
        }
    };
    using Result = decltype(run());
    auto* watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, stop, done = std::move(done)]() {
        watcher->deleteLater();
        Result result = watcher->future().takeResult(); // moved, not copied: a workload can be 100 MB
        const bool stopped = stop->load(); // a Cancel after the worker's last look drops the result all the same
        end(stopped);
        if (stopped) {
            emit cancelled();
            return;
        }
        done(std::move(result));
    });
    watcher->setFuture(QtConcurrent::run(std::move(run)));
    return true;
}

} // namespace plui
