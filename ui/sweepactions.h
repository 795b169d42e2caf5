#pragma once
// Review > Sweep... (issue 26's crossover map) and the Sweep view's files (issue 28's lab part): the work behind
// the Sweep view. Runs core's pl::cost::runSweep on the open workload on a worker (BackgroundJob: a bar counting
// points, Cancel), reads a sweep result file (core's loadSweepResultFile), opens a clicked point's run (the
// sweep's base workload with the point's values and its winning mode, as one undoable edit of the document) and
// exports a shard plan (core's sweepShardPlan, what `preemptlab-cli sweep --shard-plan N` prints) with the two
// commands a Slurm user types (scripts/slurm/submit-sweep.sh).

#include "core/cost/sweep.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class QAction;
class QMenu;

namespace plui {

class BackgroundJob;
class MainWindow;
class SweepView;

// What a sweep runs: each axis as `preemptlab-cli sweep --vary` takes it ("capacity_blocks=420:1000:20",
// "victim_rule=lru,priority-newest"), the modes (empty: all four), the metric and the workers (0: every core).
struct SweepRequest {
    QStringList vary;
    std::vector<pl::Recovery> modes;
    pl::cost::SweepMetric metric = pl::cost::SweepMetric::MeanCompletion;
    unsigned threads = 0;
};

class SweepActions : public QObject {
    Q_OBJECT
  public:
    SweepActions(MainWindow* window, SweepView* view);
    void buildMenu(QMenu* menu);

    // Parses the request with core's axis parser and starts the sweep on the worker; false with lastError()
    // when nothing is open, an axis does not parse, or a sweep runs already. The view changes only when the
    // sweep finishes (a Cancel, or an error, leaves it as it was).
    bool runSweep(const SweepRequest& request);
    // Reads a sweep result (preemptlab.sweep.v1 JSON) into the view; an error names the file, field and reason.
    bool openResult(const QString& path);
    // Opens point `index` of the shown sweep: the base workload (the one the sweep ran on; for a result read
    // from a file, the open workload) with the point's values and its winner's mode becomes the document's.
    bool openPoint(std::size_t index);
    // Writes `path` (the shard plan JSON, as `sweep --shard-plan N` prints it) and beside it `path` less
    // ".json" plus "-submit.txt" (the two commands); both or neither.
    bool exportShardPlan(const QString& path, int shards);

    bool busy() const;
    void waitForIdle();
    void cancel();
    const QString& lastError() const { return error_; }
    QAction* sweepAction() const { return sweep_; }
    // The commands a Slurm user types for the shown sweep split into `shards` (for the dialog and the file).
    QString submitCommands(int shards) const;

  signals:
    // Once per runSweep or openResult that started, when it has ended (false: cancelled or failed).
    void finished(bool ok);

  private:
    void askAndRun();
    void askAndOpen();
    void askShardPlan();
    bool fail(const QString& title, const QString& message);
    const pl::Workload* baseWorkload(QString* why) const;
    MainWindow* window_;
    SweepView* view_;
    BackgroundJob* job_;
    QAction* sweep_ = nullptr;
    std::optional<pl::Workload> base_; // the workload the shown sweep ran on; none for a result read from a file
    QString workloadFile_;             // its file, for the submit command (empty: not saved)
    QStringList vary_;                 // the shown sweep's axes as typed ("key=LO:HI:STEP")
    QString error_;
};

} // namespace plui
