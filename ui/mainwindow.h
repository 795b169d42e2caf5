#pragma once
// MainWindow: the lab's frame. The pool is the central view; the timeline, plots, distributions, ledger, compare,
// break-even explorer, sweep (crossover map), policy panel and workload editor are docks (layout saved between runs). Menus are
// built by FileActions and ExportActions; this class only assembles the pieces.

#include "core/live_backend.h"

#include <QMainWindow>

#include <functional>

class QMenu;
class QProgressBar;
class QPushButton;

namespace plui {

class BackgroundJob;
class BreakevenView;
class CalibrationActions;
class CompareView;
class DistributionsView;
class ExportActions;
class GateActions;
class SweepActions;
class SweepView;
class FileActions;
class LabBanner;
class LabDocument;
class LabSlos;
class LivelockHint;
class LedgerView;
class PlotsWidget;
class PolicyPanel;
class PoolView;
class ReceiptActions;
class TimelineWidget;
class TransportBar;
class ViewLayoutActions;
class WorkloadPanel;
struct LabOptions;
enum class LabTheme;

// Registers the lab's compiled-in resources (icon, bundled samples); called by MainWindow.
void initLabResources();

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    // `live`: how this program reaches a device for Run > Live Mode (app/lab hands in gpu/'s; none: the switch
    // is off and says the program drives no device). The document keeps it.
    explicit MainWindow(pl::LiveBackendFactory live = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    LabDocument* document() const { return doc_; }
    PoolView* poolView() const { return pool_; }
    TimelineWidget* timeline() const { return timeline_; }
    LedgerView* ledger() const { return ledger_; }
    PlotsWidget* plots() const { return plots_; }
    CompareView* compare() const { return compare_; }
    DistributionsView* distributions() const { return distributions_; }
    // The lab's SLOs for goodput (the Distributions view's fields, Compare's goodput row, summary.md).
    LabSlos* slos() const { return slos_; }
    BreakevenView* breakeven() const { return breakeven_; }
    PolicyPanel* policy() const { return policy_; }
    WorkloadPanel* workloadPanel() const { return workload_; }
    TransportBar* transport() const { return transport_; }
    FileActions* fileActions() const { return files_; }
    ExportActions* exportActions() const { return exports_; }
    GateActions* gateActions() const { return gate_; }
    SweepView* sweep() const { return sweep_; }
    SweepActions* sweepActions() const { return sweeps_; }
    CalibrationActions* calibrationActions() const { return calibration_; }
    ReceiptActions* receiptActions() const { return receipts_; }
    LivelockHint* livelockHint() const { return livelock_; }
    LabBanner* banner() const { return banner_; }
    ViewLayoutActions* layoutActions() const { return layouts_; }

    // A view by its --view name ("window" is the whole window); its dock is shown and raised. nullptr if unknown.
    QWidget* view(const QString& name);
    // Open a file or a resource path; a bad file gets a (non-modal) dialog naming file, field and reason, and
    // false. `then` runs once the workload is open. A file over 8 MiB is read on a worker behind a busy dialog
    // with Cancel (named "openProgress"): openPath returns true at once and the open workload stays until the
    // new one is read; a Cancel keeps it, and `then` does not run.
    // The workload opens at its first eviction (tick 0 when it has none) with its notes in view (the Workload
    // tab raised over Policy), before `then` (which may seek elsewhere: --tick).
    bool openPath(const QString& path, std::function<void()> then = {});
    // What openPath does once a workload is open: the cursor to its first eviction, the Workload tab raised.
    void showFirstEviction();
    // True while a big workload file is read in the background; waitForOpen() waits until it is not.
    bool opening() const;
    void waitForOpen();
    // A big workload file or a trace is being read (Open and Import Trace refuse to start another meanwhile).
    bool readingFile() const;
    // Unsaved edits (the undo stack is not clean): asks Save / Discard / Cancel in a modal box named
    // "unsavedEditsDialog". True when the caller may go on (nothing to lose, saved, or discarded).
    bool confirmDiscardEdits();
    // Where a background read (a big file's Open, Import Trace) started, for mayReplace when it lands.
    struct ReadStart {
        int loads = 0;     // LabDocument::loadCount
        int undoIndex = 0; // the undo stack's index
    };
    ReadStart readStart() const;
    // Whether a workload read on a worker may replace the open one: not when another was opened meanwhile (the
    // user's newer choice), nor over edits made before the busy dialog showed (it blocks them only from 300 ms)
    // unless the user lets them go. When not, the status bar says "`dropped`: why".
    bool mayReplace(const ReadStart& start, const QString& dropped);
    QString lastError() const { return lastError_; }
    void applyStartupOptions(const LabOptions& options);
    // Applies a theme to the application (View > Theme's check follows; not saved: the menu saves).
    void setTheme(LabTheme theme);
    void reportError(const QString& title, const QString& message);

  protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    // The constructor's steps, in order: the views, their docks and default arrangement, the menus (File, Edit,
    // View, Run, Review, Export, Help), the status bar's busy widgets, the document's signals, then the saved
    // layout, geometry and speed.
    void createViews();
    void createDocks();
    void createMenus();
    void createViewMenu(QMenu* viewMenu);
    void createRunMenu(QMenu* runMenu);
    void createStatusWidgets();
    void connectDocument();
    void restoreSettings();
    QDockWidget* addDock(const QString& title, const QString& name, QWidget* content, Qt::DockWidgetArea area);
    void updateTitle();
    void updateActions(); // what needs a workload or a running job, enabled with it
    void goToTick();
    void reopenLastSession();
    // Reads a workload file or a bundled sample (":/...") into the document and keeps Open Recent up to date;
    // `done(error)` runs when it is open (an empty error) or has failed: at once, or after a background read
    // (not after a cancelled one).
    void loadPath(const QString& path, std::function<void(const QString& error)> done);
    void proportionDocks();
    // File > Open Receipt and Edit a Copy, the banner over the pool and its livelock hint, View > Flagged
    // Requests Only (receiptactions.h, livelockhint.h, timelinewidget.h).
    void addTeachingActions(QMenu* fileMenu, QMenu* viewMenu);
    QProgressBar* busyBar_ = nullptr;
    QPushButton* busyCancel_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QAction* compareAction_ = nullptr;
    bool layoutRestored_ = false;
    QSize firstStartSize_; // no saved geometry: the size to take when first shown
    bool proportionsSet_ = false;
    bool userArranged_ = false;
    LabDocument* doc_;
    BackgroundJob* opener_; // reads big workload files on a worker
    PoolView* pool_ = nullptr;
    TimelineWidget* timeline_ = nullptr;
    LedgerView* ledger_ = nullptr;
    PlotsWidget* plots_ = nullptr;
    CompareView* compare_ = nullptr;
    DistributionsView* distributions_ = nullptr;
    LabSlos* slos_ = nullptr;
    BreakevenView* breakeven_ = nullptr;
    PolicyPanel* policy_ = nullptr;
    WorkloadPanel* workload_ = nullptr;
    QDockWidget* workloadDock_ = nullptr;
    QDockWidget* compareDock_ = nullptr;
    TransportBar* transport_ = nullptr;
    FileActions* files_ = nullptr;
    ExportActions* exports_ = nullptr;
    GateActions* gate_ = nullptr;
    SweepView* sweep_ = nullptr;
    SweepActions* sweeps_ = nullptr;
    CalibrationActions* calibration_ = nullptr;
    ReceiptActions* receipts_ = nullptr;
    LivelockHint* livelock_ = nullptr;
    LabBanner* banner_ = nullptr;
    ViewLayoutActions* layouts_ = nullptr;
    QString lastError_;
};

} // namespace plui
