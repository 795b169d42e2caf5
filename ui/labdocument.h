#pragma once
// LabDocument: owns what the lab shows. The Workload being studied, the pl::Session that ran it (full ledger
// plus a cursor engine), the cursor tick, the selected request and the undo stack for edits. Every change goes
// through it and is announced once, as a LabChange (labchange.h).
//
// Runs: small workloads run synchronously; large ones run on a worker thread (QtConcurrent) while the old
// session stays visible, and a newer edit supersedes an unfinished run (its result is dropped). Cancelling,
// superseding or destroying the document also stops the worker's engine (pl::RunControl), so an abandoned run
// does not keep a core busy to its end. A run always keeps the cursor tick (clamped to the new run's length).

#include "ui/labchange.h"

#include "core/cost/calibration.h"
#include "core/live_backend.h"
#include "core/workload.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

class QTimer;
class QUndoGroup;

namespace pl {
class Session;
struct RunResult;
} // namespace pl

namespace plui {

struct LabRun;

class LabDocument : public QObject {
    Q_OBJECT
  public:
    // `live`: how this program reaches a device for live mode (app/lab hands in gpu/'s; none: live runs say
    // the program drives no device).
    explicit LabDocument(pl::LiveBackendFactory live = {}, QObject* parent = nullptr);
    ~LabDocument() override;

    // Loading. Errors come back as "FILE: /json/path: reason"; the document is unchanged then.
    bool loadFile(const QString& path, QString* error);
    // Load from a resource or any QIODevice-readable path (":/samples/x.workload.json").
    bool loadResource(const QString& path, QString* error);
    // Replace the workload (generator, importer). Validated first; starts an empty undo stack (the shown
    // workload's is kept until the new run is installed, for cancelRun). `onDisk`: it was
    // read from a file or a bundled sample; otherwise (generated, imported) it is unsaved until markSaved, and
    // closing or opening another asks first as for edits.
    // `readOnlyNote` (not empty): the workload is shown read-only (a receipt's: File > Open Receipt), every edit
    // refused with the note, until editCopy().
    bool setWorkload(pl::Workload workload, const QString& sourceName, QString* error, bool onDisk = false,
                     QString readOnlyNote = {});
    // Read-only: why edits are off ("a receipt"), empty when the workload may be edited.
    const QString& readOnlyNote() const { return readOnlyNote_; }
    bool readOnly() const { return !readOnlyNote_.isEmpty(); }
    // Edit a Copy: the read-only workload becomes an ordinary unsaved one ("copy of F (unsaved)"), edits on.
    void editCopy();
    // Save As wrote the workload to `path`: it is on disk, its edits are saved (a read-only one is that file now).
    void markSaved(const QString& path);
    // Nothing would be lost by replacing the workload: none open, or on disk with no unsaved edit.
    bool nothingUnsaved() const;
    bool onDisk() const { return onDisk_; }

    bool hasWorkload() const { return workload_.has_value(); }
    const pl::Workload& workload() const { return *workload_; }
    const QString& sourceName() const { return sourceName_; }
    // Counts setWorkload calls: views reset per-workload state (slider ranges) when it changes.
    int loadCount() const { return loadCount_; }
    const pl::Session* session() const { return session_.get(); }
    // The run on screen is of the workload as it is now: false while an edit's run is pending or after it
    // failed (the screen then shows the run before the edit).
    bool sessionShowsWorkload() const { return session_ && sessionGeneration_ == generation_; }
    // Why there is no run, for the views' empty state: none open, the run being made, or the last one failed.
    QString noRunReason() const;
    // The same run, for work that outlives a newer run replacing it (a receipt made on a worker).
    std::shared_ptr<const pl::Session> sharedSession() const { return session_; }
    // The rollout gate's verdict on `run` (GateActions), as Markdown for the review bundle's summary.md;
    // gateMarkdown() is empty unless that run is still the one on screen.
    void setGateMarkdown(const std::shared_ptr<const pl::Session>& run, const QString& markdown) {
        gateRun_ = run;
        gateMarkdown_ = markdown;
    }
    QString gateMarkdown() const { return session_ && gateRun_.lock() == session_ ? gateMarkdown_ : QString(); }
    bool busy() const { return running_ > 0; }

    // Run mode: Auto (by size), always synchronous (tests, headless), or always on a worker thread.
    enum class RunMode { Auto, Synchronous, Background };
    void setRunMode(RunMode m) { runMode_ = m; }
    // Block until no background run is pending (tests, headless, export).
    void waitForIdle();
    // Live mode (Run > Live Mode): every run also drives the device through a backend liveBackends() makes,
    // and liveRun() holds its measurements (RunResult::live) for the session on screen; nullptr when not live
    // or no backend could be made (runFailed says why). Switching re-runs, keeping the tick.
    void setLiveMode(bool on);
    bool liveMode() const { return live_; }
    const pl::LiveBackendFactory& liveBackends() const { return liveBackends_; }
    const pl::RunResult* liveRun() const { return liveRun_.get(); }
    // Calibration (File > Load Calibration...): the calibration.json in use, or none. The live backend gets it
    // (the ledger's "modelled µs"), the break-even explorer draws its curves. Setting it announces
    // LabChangeKind::Calibration and, in live mode, re-runs.
    void setCalibration(std::optional<pl::cost::Calibration> calibration, const QString& path);
    const pl::cost::Calibration* calibration() const { return calibration_ ? &*calibration_ : nullptr; }
    const QString& calibrationPath() const { return calibrationPath_; }
    // Derive the open workload's transfer_bytes_per_tick and prefill_tokens_per_tick from the calibration at
    // ticks of `tickMs` (pl::cost::calibrateMachine at the workload's mean context with gather swaps: the same
    // as the CLI's --calibration FILE --tick-ms MS) as one undoable edit. `report` gets what was derived and from
    // which fit. False with `error` (field and reason) when it cannot be derived; the workload is unchanged.
    bool applyCalibration(double tickMs, QString* report, QString* error);

    // Abandon the background run in progress; the worker's engine stops at its next check. What is on screen
    // stays: after an edit, the workload goes back to what the shown run ran, and the undo stack to the step
    // that made it (the cancelled edit can be redone); after loading another workload, the one shown before
    // comes back with its undo stack, at the step that made it (an edit whose run was pending when the load
    // came can be redone), so its unsaved edits are asked about again before anything replaces it.
    void cancelRun();
    // Background runs that ended early because they were cancelled or superseded (pl::RunCancelled).
    int stoppedRuns() const { return stoppedRuns_; }
    // For tests: background runs started from now on wait before computing until `*open` is true or they are
    // stopped, so a test can cancel or supersede a run that is surely still running (null: they never wait).
    void holdRunsUntil(std::shared_ptr<const std::atomic<bool>> open) { runGate_ = std::move(open); }

    // Cursor (needs a session). Ticks are clamped to [-1, lastTick].
    std::int64_t currentTick() const;
    std::int64_t lastTick() const;
    void seek(std::int64_t tick);
    void stepForward();
    void stepBack();
    // Moves the cursor to the run's first eviction, or tick 0 when it has none: where an opened workload starts
    // (MainWindow::openPath). Before the run is there (a background run), it is where the run opens.
    void seekFirstEviction();
    bool seekNextPressure();
    bool seekPreviousPressure();
    // Request indices (into workload().requests) evicted or whose swap-out landed in the cursor tick, and the
    // device blocks they held just before (the pool view highlights them): per block 0,
    // RequestPalette::kVictimBlock (evicted now), kVictimBlockLanded (freed by a swap-out landing now),
    // kVictimBlockReused (freed and already another request's) or kVictimBlockKept (a shared prefix block the
    // victim let go that others still hold).
    const std::vector<std::int32_t>& victimsAtCursor() const { return victimsAtCursor_; }
    // Per victim at the cursor: 1 when this tick is where its swap-out landed (it was evicted earlier), 0 when
    // it was evicted in this tick.
    const std::vector<std::uint8_t>& victimsLandedAtCursor() const { return victimsLanded_; }
    // Per victim at the cursor: the tick of its eviction (the cursor's own tick unless its swap-out landed now).
    const std::vector<std::int64_t>& victimsEvictedAtCursor() const { return victimsEvictedAt_; }
    const std::vector<std::uint8_t>& victimBlockMask() const { return victimBlockMask_; }
    // Per block, the victim (request index) a marked block belonged to, else -1: a freed block still names it.
    const std::vector<std::int32_t>& victimBlockOwners() const { return victimBlockOwners_; }
    // Shared prefix blocks this tick's victims let go in this tick that other requests still hold (marked
    // kVictimBlockKept: nothing was freed). A swap victim lets go when its swap-out lands, a hybrid one of its
    // dropped tail at the eviction and of its swapped prefix at the landing; the ledger's "shared, kept" counts
    // them all at the eviction, so the two can differ.
    std::int64_t victimSharedKeptAtCursor() const { return victimSharedKept_; }
    // The requesters of the cursor tick's evictions (pl::evictionCause's requester: the request whose need
    // caused one; none for preempt-ahead and SGLang's retract-decode), each once, in ledger order.
    const std::vector<std::int32_t>& requestersAtCursor() const { return requestersAtCursor_; }
    // The requesters among them that evicted themselves (the victim of an eviction its own need caused).
    const std::vector<std::int32_t>& selfEvictedAtCursor() const { return selfEvictedAtCursor_; }

    int selectedRequest() const { return selected_; }
    void selectRequest(int index);

    // Edits, all undoable. Keys are as in the file (`capacity_blocks`, `recovery`); values as text.
    bool setSetting(const QString& key, const QString& value, QString* error);
    QString settingValue(const QString& key) const;
    bool setRequest(int index, const pl::RequestSpec& spec, QString* error);
    // Replaces the workload by `after` (validated here) as one undoable step named `text`, and runs it: how a
    // Sweep view point opens (the base workload with the point's values applied). False with the reason when
    // `after` does not validate or nothing is open; true, doing nothing, when it is the workload already.
    bool replaceWorkload(pl::Workload after, const QString& text, QString* error);
    // The open workload's undo stack. The window's Undo and Redo actions and its "(edited)" title follow the
    // group, whose active stack it is (a load swaps stacks, and a cancelled load swaps them back).
    QUndoStack* undoStack() const { return undo_.get(); }
    QUndoGroup* undoGroup() const { return undoGroup_; }

    // Used by undo commands only: install an already validated workload and re-run, keeping the tick.
    void applyEditedWorkload(pl::Workload workload);

  signals:
    void changed(plui::LabChange what);
    void runFailed(const QString& message);
    void savedChanged(); // onDisk() or the source name changed (the window title)

  private:
    void startRun(bool keepTick);
    bool refuseReadOnly(QString* error) const; // true (and the reason) while the workload is read-only
    void stopBackgroundRun();
    void installSession(LabRun run, std::int64_t tick);
    void fillSnapshotsWhileIdle(); // a slice of the session's seek snapshots (pl::Session::fillSnapshots)
    void updateVictims();
    // Moves the undo index to the step whose workload is `shown`; false when no step holds it.
    bool revertUndoTo(const pl::Workload& shown);
    // Makes `stack` the active one (the group's) and hands back the one it replaces, out of the group.
    std::unique_ptr<QUndoStack> swapUndoStack(std::unique_ptr<QUndoStack> stack);

    // What was on screen when a workload was loaded whose run is still going (cancelRun brings it back).
    struct Shown {
        pl::Workload workload;
        QString sourceName;
        bool onDisk = false;
        bool live = false; // the mode its run was made in
        std::shared_ptr<pl::Session> session;
        std::shared_ptr<const pl::RunResult> liveRun;
        std::unique_ptr<QUndoStack> undo; // its edits, and one whose run was pending when the load came
        QString readOnlyNote;
    };
    std::optional<Shown> beforeLoad_;
    bool onDisk_ = false;
    QString readOnlyNote_;
    bool quietEdits_ = false; // applyEditedWorkload installs without running (cancelRun moving the undo index)
    bool pendingLive_ = false; // the live mode of the newest run started
    bool shownLive_ = false;   // the live mode of the run on screen (cancelRun puts the switch back to it)

    std::optional<pl::Workload> workload_;
    QString sourceName_;
    std::shared_ptr<pl::Session> session_;
    std::weak_ptr<const pl::Session> gateRun_;
    QString gateMarkdown_;
    std::shared_ptr<const pl::RunResult> liveRun_;
    bool live_ = false;
    pl::LiveBackendFactory liveBackends_;
    std::optional<pl::cost::Calibration> calibration_;
    QString calibrationPath_;
    QUndoGroup* undoGroup_;
    std::unique_ptr<QUndoStack> undo_; // not a QObject child: destroyed before the group, leaving it
    RunMode runMode_ = RunMode::Auto;
    int selected_ = -1;
    int loadCount_ = 0;
    int running_ = 0;
    std::uint64_t generation_ = 0;
    std::uint64_t sessionGeneration_ = 0; // generation_ when the shown session was installed
    std::shared_ptr<std::atomic<bool>> stop_; // the stop flag of the newest background run
    std::shared_ptr<const std::atomic<bool>> runGate_; // holdRunsUntil
    int stoppedRuns_ = 0;
    std::int64_t wantedTick_ = -1; // kFirstEvictionTick: the run's first eviction, once it is there
    static constexpr std::int64_t kFirstEvictionTick = std::numeric_limits<std::int64_t>::min();
    std::vector<std::int32_t> victimsAtCursor_;
    std::vector<std::uint8_t> victimsLanded_;
    std::vector<std::int64_t> victimsEvictedAt_;
    std::vector<std::uint8_t> victimBlockMask_;
    std::vector<std::int32_t> victimBlockOwners_;
    std::int64_t victimSharedKept_ = 0;
    // Takes the session's seek snapshots a few milliseconds at a time while the event loop is idle, so a run
    // opens without them and the first far seek finds them taken.
    QTimer* snapshotFiller_;
    std::vector<std::int32_t> requestersAtCursor_;
    std::vector<std::int32_t> selfEvictedAtCursor_;
};

} // namespace plui
