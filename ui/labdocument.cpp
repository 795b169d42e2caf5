#include "ui/labdocument.h"

#include "ui/editcommands.h"
#include "ui/labrun.h"
#include "ui/requestpalette.h"

#include "core/cost/calibrated_rates.h"
#include "core/ledger.h"
#include "core/run_control.h"
#include "core/session.h"
#include "core/workload_io.h"
#include "core/workload_overrides.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QThread>
#include <QTimer>
#include <QUnhandledException>
#include <QUndoGroup>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <utility>

namespace plui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Workloads above this size run on a worker thread so the window stays responsive.
bool isLarge(const pl::Workload& w) {
    return w.requests.size() > 2000 || w.config.capacity_blocks > 20000;
}

enum class RunEnd { Done, Stopped, Failed };

// The background run's result, or how it ended. QtConcurrent hands over an exception that is not a QException
// wrapped in QUnhandledException; the original is rethrown so that a stop is told apart from a failure and
// a failure keeps its message.
RunEnd takeResult(const QFutureWatcher<LabRun>& watcher, LabRun* run, QString* failure) {
    try {
        try {
            *run = watcher.result();
        } catch (const QUnhandledException& wrapped) {
            if (wrapped.exception()) std::rethrow_exception(wrapped.exception());
            throw;
        }
        return RunEnd::Done;
    } catch (const pl::RunCancelled&) {
        return RunEnd::Stopped;
    } catch (const std::exception& ex) {
        *failure = QString::fromUtf8(ex.what());
        return RunEnd::Failed;
    }
}

// The tick of the run's first evict, else 0.
std::int64_t firstEvictionTick(const pl::Session& s) {
    const auto& events = s.result().ledger.events;
    const auto evict = std::find_if(events.begin(), events.end(), [](const pl::Event& e) { return e.kind == pl::EventKind::Evict; });
    return evict == events.end() ? 0 : evict->tick;
}

} // namespace

LabDocument::LabDocument(pl::LiveBackendFactory live, QObject* parent)
    : QObject(parent), liveBackends_(std::move(live)), undoGroup_(new QUndoGroup(this)),
      snapshotFiller_(new QTimer(this)) {
    swapUndoStack(std::make_unique<QUndoStack>());
    snapshotFiller_->setInterval(0); // whenever the event loop has nothing else to do
    connect(snapshotFiller_, &QTimer::timeout, this, &LabDocument::fillSnapshotsWhileIdle);
}

void LabDocument::fillSnapshotsWhileIdle() {
    // Slices of about 4 ms (a few hundred to a few thousand ticks with the pool map), so input stays smooth.
    constexpr std::int64_t kTicksPerStep = 128;
    constexpr qint64 kSliceMs = 4;
    QElapsedTimer slice;
    slice.start();
    bool more = session_ != nullptr;
    while (more && slice.elapsed() < kSliceMs) more = session_->fillSnapshots(kTicksPerStep);
    if (!more) snapshotFiller_->stop();
}

LabDocument::~LabDocument() {
    // A background run holds no pointer to the document (only its own copy of the workload and its stop flag):
    // it stops at its next check and its result is dropped.
    ++generation_;
    stopBackgroundRun();
}

bool LabDocument::loadFile(const QString& path, QString* error) {
    auto loaded = pl::loadWorkloadFile(path.toStdString());
    if (auto* e = std::get_if<pl::InputError>(&loaded)) {
        if (error) *error = qs(e->message());
        return false;
    }
    return setWorkload(std::get<pl::Workload>(std::move(loaded)), path, error, true);
}

bool LabDocument::loadResource(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) *error = path + QStringLiteral(": cannot open: ") + f.errorString();
        return false;
    }
    const QByteArray bytes = f.readAll();
    auto parsed = pl::parseWorkload(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                                    path.toStdString());
    if (auto* e = std::get_if<pl::InputError>(&parsed)) {
        if (error) *error = qs(e->message());
        return false;
    }
    return setWorkload(std::get<pl::Workload>(std::move(parsed)), path, error, true);
}

bool LabDocument::setWorkload(pl::Workload workload, const QString& sourceName, QString* error, bool onDisk,
                              QString readOnlyNote) {
    if (auto e = pl::validateWorkload(workload)) {
        if (error) *error = qs(e->message());
        return false;
    }
    // Kept until the new run is installed, for cancelRun (a load superseding a pending load keeps the first):
    // the workload the shown run ran (an edit whose run is pending was never seen) and its undo stack.
    if (session_) {
        std::unique_ptr<QUndoStack> shownStack = swapUndoStack(std::make_unique<QUndoStack>());
        beforeLoad_ = Shown{session_->workload(), sourceName_, onDisk_, shownLive_, session_, liveRun_,
                            std::move(shownStack), readOnlyNote_};
    }
    workload_ = std::move(workload);
    sourceName_ = sourceName;
    onDisk_ = onDisk;
    readOnlyNote_ = std::move(readOnlyNote);
    emit savedChanged();
    ++loadCount_;
    selected_ = -1;
    undo_->clear(); // a superseded load's edits
    session_.reset();
    liveRun_.reset();
    wantedTick_ = -1;
    // Session too: views drop every pointer into the old run before the new one exists.
    emit changed(LabChangeKind::Workload | LabChangeKind::Selection | LabChangeKind::Session);
    startRun(false);
    return true;
}

void LabDocument::applyEditedWorkload(pl::Workload workload) {
    workload_ = std::move(workload);
    if (selected_ >= static_cast<int>(workload_->requests.size())) {
        selected_ = -1;
    }
    if (quietEdits_) return;
    emit changed(LabChangeKind::Workload);
    startRun(true);
}

void LabDocument::editCopy() {
    if (!workload_ || readOnlyNote_.isEmpty()) return;
    readOnlyNote_.clear();
    sourceName_ = tr("copy of %1 (unsaved)").arg(QFileInfo(sourceName_).fileName());
    onDisk_ = false; // never saved: closing or opening another asks first
    emit savedChanged();
    emit changed(LabChangeKind::Workload);
}

bool LabDocument::refuseReadOnly(QString* error) const {
    if (readOnlyNote_.isEmpty()) return false;
    if (error) *error = tr("%1; edits are off until File > Edit a Copy").arg(readOnlyNote_);
    return true;
}

void LabDocument::markSaved(const QString& path) {
    sourceName_ = path;
    onDisk_ = true;
    undo_->setClean();
    emit savedChanged();
    if (!readOnlyNote_.isEmpty()) { // a receipt's workload saved as a workload file: that file, editable
        readOnlyNote_.clear();
        emit changed(LabChangeKind::Workload);
    }
}

bool LabDocument::nothingUnsaved() const { return !workload_ || (onDisk_ && undo_->isClean()); }

void LabDocument::startRun(bool keepTick) {
    const std::int64_t tick = keepTick ? (session_ ? session_->currentTick() : wantedTick_) : -1;
    wantedTick_ = tick;
    pendingLive_ = live_;
    const std::uint64_t gen = ++generation_;
    stopBackgroundRun(); // superseded: its result would be dropped, so stop computing it
    const bool background =
        runMode_ == RunMode::Background || (runMode_ == RunMode::Auto && isLarge(*workload_));
    if (!background) {
        LabRun s;
        try {
            s = computeLabRun(*workload_, live_ ? &liveBackends_ : nullptr, calibration());
        } catch (const std::exception& ex) {
            beforeLoad_.reset(); // what failed is now what is shown
            emit runFailed(sourceName_ + QStringLiteral(": the run failed: ") + QString::fromUtf8(ex.what()));
            return;
        }
        installSession(std::move(s), tick);
        return;
    }
    ++running_;
    emit changed(LabChangeKind::Busy);
    auto* watcher = new QFutureWatcher<LabRun>(this);
    connect(watcher, &QFutureWatcher<LabRun>::finished, this, [this, watcher, gen]() {
        watcher->deleteLater();
        --running_;
        LabRun s;
        QString failure;
        if (takeResult(*watcher, &s, &failure) == RunEnd::Stopped) {
            ++stoppedRuns_; // only a superseded or cancelled run is stopped, so gen != generation_ below
        }
        if (gen == generation_) {
            if (s.session) {
                installSession(std::move(s), wantedTick_);
            } else {
                beforeLoad_.reset(); // what failed is now what is shown
                emit runFailed(sourceName_ + QStringLiteral(": the run failed: ") + failure);
            }
        }
        emit changed(LabChangeKind::Busy);
    });
    pl::Workload copy = *workload_;
    stop_ = std::make_shared<std::atomic<bool>>(false);
    watcher->setFuture(QtConcurrent::run([w = std::move(copy), live = live_, backends = liveBackends_,
                                          cal = calibration_, stop = stop_, gate = runGate_, tick]() {
        while (gate && !gate->load() && !stop->load()) QThread::msleep(1);
        LabRun run = computeLabRun(w, live ? &backends : nullptr, cal ? &*cal : nullptr, stop.get());
        // The seek snapshots up to the tick the run opens at are taken here, off the GUI thread (installSession
        // seeks there again, at no cost unless the cursor was moved meanwhile).
        if (run.session) run.session->seek(tick == kFirstEvictionTick ? firstEvictionTick(*run.session) : tick);
        return run;
    }));
}

void LabDocument::setLiveMode(bool on) {
    if (on == live_) return;
    live_ = on;
    if (workload_) startRun(true);
}

void LabDocument::setCalibration(std::optional<pl::cost::Calibration> calibration, const QString& path) {
    calibration_ = std::move(calibration);
    calibrationPath_ = calibration_ ? path : QString();
    emit changed(LabChangeKind::Calibration);
    if (live_ && workload_) startRun(true); // the backend's modelled figures change
}

bool LabDocument::applyCalibration(double tickMs, QString* report, QString* error) {
    if (!workload_ || !calibration_) {
        if (error) *error = workload_ ? QStringLiteral("no calibration is loaded") : QStringLiteral("no workload is open");
        return false;
    }
    if (refuseReadOnly(error)) return false;
    const auto derived = pl::cost::calibrateMachine(*calibration_, workload_->config, tickMs * 1e3,
                                                    pl::cost::meanRequestContext(*workload_));
    if (const auto* e = std::get_if<pl::cost::RatesError>(&derived)) {
        if (error) *error = calibrationPath_ + QStringLiteral(": ") + qs(e->field) + QStringLiteral(": ") + qs(e->reason);
        return false;
    }
    const auto& r = std::get<pl::cost::CalibratedMachine>(derived);
    pl::Workload after = *workload_;
    after.config = r.config;
    if (auto e = pl::validateWorkload(after)) {
        if (error) *error = qs(e->message());
        return false;
    }
    if (report) *report = qs(pl::cost::describeRates(*calibration_, r.request, r.rates));
    if (after.config == workload_->config) return true; // nothing to undo
    undo_->push(new ChangeWorkload(this, *workload_, std::move(after),
                                   QStringLiteral("Apply calibration (%1 ms ticks)").arg(tickMs)));
    return true;
}

void LabDocument::installSession(LabRun run, std::int64_t tick) {
    beforeLoad_.reset();
    shownLive_ = pendingLive_;
    session_ = std::move(run.session);
    sessionGeneration_ = generation_;
    liveRun_ = std::move(run.live);
    if (tick == kFirstEvictionTick) tick = firstEvictionTick(*session_);
    session_->seek(tick);
    snapshotFiller_->start();
    updateVictims();
    emit changed(LabChangeKind::Session | LabChangeKind::Cursor);
    if (!run.liveError.isEmpty()) emit runFailed(sourceName_ + QStringLiteral(": ") + run.liveError);
}

void LabDocument::waitForIdle() {
    while (running_ > 0) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
}

void LabDocument::stopBackgroundRun() {
    if (stop_) stop_->store(true);
    stop_.reset();
}

QString LabDocument::noRunReason() const {
    if (!workload_) return tr("No run yet: open a workload\n(Ctrl+O, or File > Samples)");
    return busy() ? tr("No run yet: the run is being made") : tr("No run: it failed (the status bar says why)");
}

void LabDocument::cancelRun() {
    if (running_ == 0) return;
    ++generation_; // the finishing run sees a stale generation and is dropped
    stopBackgroundRun();
    if (session_) {
        // Back to the workload that is on screen (redo then re-applies the edit, running it again), and to the
        // live mode it ran in (a cancelled switch).
        if (!revertUndoTo(session_->workload())) undo_->resetClean();
        workload_ = session_->workload();
        sessionGeneration_ = generation_; // the shown run is the workload's again
        live_ = shownLive_;
        emit changed(LabChangeKind::Workload);
    } else if (beforeLoad_) {
        Shown shown = std::move(*beforeLoad_);
        beforeLoad_.reset();
        swapUndoStack(std::move(shown.undo)); // steps made on the cancelled workload meanwhile go with it
        // Back before an edit whose run was pending when the load came; one merged into the shown step (a drag)
        // cannot be undone apart, so the workload is marked edited, whatever the stack's saved point.
        if (!revertUndoTo(shown.workload)) undo_->resetClean();
        workload_ = std::move(shown.workload);
        sourceName_ = shown.sourceName;
        onDisk_ = shown.onDisk;
        readOnlyNote_ = shown.readOnlyNote;
        ++loadCount_; // views reset their per-workload state, as for a load
        selected_ = -1;
        live_ = pendingLive_ = shown.live;
        const std::int64_t tick = shown.session->currentTick();
        installSession(LabRun{std::move(shown.session), std::move(shown.liveRun), {}}, tick);
        emit changed(LabChangeKind::Workload | LabChangeKind::Selection);
        emit savedChanged();
    } else {
        workload_.reset();
        sourceName_.clear();
        readOnlyNote_.clear();
        undo_->clear(); // edits of the workload that never ran
        live_ = shownLive_;
        emit changed(LabChangeKind::Workload | LabChangeKind::Session);
        emit savedChanged();
    }
}

std::unique_ptr<QUndoStack> LabDocument::swapUndoStack(std::unique_ptr<QUndoStack> stack) {
    undoGroup_->addStack(stack.get());
    undoGroup_->setActiveStack(stack.get());
    if (undo_) undoGroup_->removeStack(undo_.get()); // a kept stack stays out of the group until it comes back
    std::swap(undo_, stack);
    return stack;
}

bool LabDocument::revertUndoTo(const pl::Workload& shown) {
    // The workload after undo index k: the `before` of command k, or the `after` of the last one at the end.
    auto stateAt = [this](int k) -> const pl::Workload* {
        if (k < undo_->count()) {
            const auto* c = dynamic_cast<const ChangeWorkload*>(undo_->command(k));
            return c ? &c->before() : nullptr;
        }
        const auto* c = k > 0 ? dynamic_cast<const ChangeWorkload*>(undo_->command(k - 1)) : nullptr;
        return c ? &c->after() : nullptr;
    };
    const int now = undo_->index();
    if (undo_->count() == 0) return true; // no step: nothing to go back over
    // Nearest first, and the current step itself first of all (a cancelled live-mode or calibration re-run
    // changed no workload: an older step equal to it must not be taken).
    for (int distance = 0; distance <= undo_->count(); ++distance) {
        for (int k : {now - distance, now + distance}) {
            if (k < 0 || k > undo_->count()) continue;
            const pl::Workload* state = stateAt(k);
            if (state != nullptr && *state == shown) {
                if (k == now) return true;
                quietEdits_ = true;
                undo_->setIndex(k);
                quietEdits_ = false;
                return true;
            }
        }
    }
    return false;
}

std::int64_t LabDocument::currentTick() const { return session_ ? session_->currentTick() : -1; }

std::int64_t LabDocument::lastTick() const { return session_ ? session_->lastTick() : -1; }

void LabDocument::seek(std::int64_t tick) {
    if (!session_) {
        wantedTick_ = tick;
        return;
    }
    const std::int64_t before = session_->currentTick();
    session_->seek(tick);
    wantedTick_ = session_->currentTick();
    if (session_->currentTick() != before) {
        updateVictims();
        emit changed(LabChangeKind::Cursor);
    }
}

void LabDocument::seekFirstEviction() {
    if (session_) {
        seek(firstEvictionTick(*session_));
    } else {
        wantedTick_ = kFirstEvictionTick;
    }
}

void LabDocument::stepForward() { seek(currentTick() + 1); }

void LabDocument::stepBack() { seek(currentTick() - 1); }

bool LabDocument::seekNextPressure() {
    if (!session_ || !session_->seekNextPressure()) return false;
    wantedTick_ = session_->currentTick();
    updateVictims();
    emit changed(LabChangeKind::Cursor);
    return true;
}

bool LabDocument::seekPreviousPressure() {
    if (!session_ || !session_->seekPreviousPressure()) return false;
    wantedTick_ = session_->currentTick();
    updateVictims();
    emit changed(LabChangeKind::Cursor);
    return true;
}

void LabDocument::updateVictims() {
    victimsAtCursor_.clear();
    victimsLanded_.clear();
    victimsEvictedAt_.clear();
    victimBlockMask_.clear();
    victimBlockOwners_.clear();
    victimSharedKept_ = 0;
    requestersAtCursor_.clear();
    selfEvictedAtCursor_.clear();
    if (!session_) return;
    const std::int64_t t = session_->currentTick();
    pl::VictimsAtTick victims = pl::victimsAtTick(session_->result().ledger, t);
    victimsAtCursor_ = std::move(victims.victims);
    victimsLanded_ = std::move(victims.landed);
    victimsEvictedAt_ = std::move(victims.evicted_at);
    requestersAtCursor_ = std::move(victims.requesters);
    selfEvictedAtCursor_ = std::move(victims.self_evicted);
    if (victimsAtCursor_.empty()) return;
    auto isVictim = [this](std::int32_t r) {
        return r != pl::kFreeBlock &&
               std::find(victimsAtCursor_.begin(), victimsAtCursor_.end(), r) != victimsAtCursor_.end();
    };
    // The blocks the victims held before this tick: step the cursor back one tick, read, and return.
    std::vector<std::int32_t> before, holdersBefore;
    std::vector<std::vector<std::int32_t>> victimHeldBefore(victimsAtCursor_.size()); // with prefix sharing only
    if (t >= 0) {
        session_->seek(t - 1);
        const auto owners = session_->cursor().blockOwners();
        before.assign(owners.begin(), owners.end());
        const auto holders = session_->cursor().blockRefCount(); // empty without prefix sharing
        holdersBefore.assign(holders.begin(), holders.end());
        for (std::size_t i = 0; i < victimsAtCursor_.size() && !holders.empty(); ++i) {
            const auto held = session_->cursor().heldBlocks(victimsAtCursor_[i]);
            victimHeldBefore[i].assign(held.begin(), held.end());
        }
        session_->seek(t);
    }
    const auto now = session_->cursor().blockOwners();
    victimBlockMask_.assign(now.size(), 0);
    victimBlockOwners_.assign(now.size(), -1);
    auto landedNow = [this](std::int32_t victim) {
        const auto at = std::find(victimsAtCursor_.begin(), victimsAtCursor_.end(), victim) - victimsAtCursor_.begin();
        return victimsLanded_[static_cast<std::size_t>(at)] != 0;
    };
    for (std::size_t b = 0; b < now.size(); ++b) {
        // Held by a victim before this tick: taken back now, and possibly handed on in the same tick.
        const bool heldBefore = b < before.size() && isVictim(before[b]);
        // A victim whose swap-out landed and that resumed in the same tick holds its blocks again, copying back
        // in: those are its own, not freed.
        const bool heldAgain = isVictim(now[b]) && landedNow(now[b]);
        if ((isVictim(now[b]) && !heldAgain) || (heldBefore && now[b] == pl::kFreeBlock)) {
            const std::int32_t victim = isVictim(now[b]) ? now[b] : before[b];
            victimBlockMask_[b] = landedNow(victim) ? RequestPalette::kVictimBlockLanded : RequestPalette::kVictimBlock;
            victimBlockOwners_[b] = victim;
        } else if (heldAgain && (!heldBefore || before[b] == now[b])) {
            continue; // its own block again (another victim's, freed now, falls through: handed on)
        } else if (heldBefore && !(b < holdersBefore.size() && holdersBefore[b] >= 2)) {
            // Another request's now, and not one that shared it before (a shared prefix block the victim let
            // go stays with its other holders: kept, not handed on, and left unmarked).
            victimBlockMask_[b] = RequestPalette::kVictimBlockReused;
            victimBlockOwners_[b] = before[b];
        }
    }
    // Shared prefix blocks a victim let go (it held them before and not now) that others still hold: nothing
    // was freed, but they were part of the victim's context (the ledger's "shared, kept").
    for (std::size_t i = 0; i < victimsAtCursor_.size(); ++i) {
        if (victimHeldBefore[i].empty()) continue;
        const auto held = session_->cursor().heldBlocks(victimsAtCursor_[i]);
        std::vector<std::int32_t> heldNow(held.begin(), held.end()); // sorted: a victim can hold many thousands
        std::sort(heldNow.begin(), heldNow.end());
        for (const std::int32_t blk : victimHeldBefore[i]) {
            const auto b = static_cast<std::size_t>(blk);
            if (b >= now.size() || victimBlockMask_[b] != 0 || now[b] == pl::kFreeBlock) continue;
            if (b >= holdersBefore.size() || holdersBefore[b] < 2) continue;
            if (std::binary_search(heldNow.begin(), heldNow.end(), blk)) continue;
            victimBlockMask_[b] = RequestPalette::kVictimBlockKept;
            victimBlockOwners_[b] = victimsAtCursor_[i];
            ++victimSharedKept_;
        }
    }
}

void LabDocument::selectRequest(int index) {
    if (!workload_ || index < -1 || index >= static_cast<int>(workload_->requests.size())) index = -1;
    if (index == selected_) return;
    selected_ = index;
    emit changed(LabChangeKind::Selection);
}

QString LabDocument::settingValue(const QString& key) const {
    if (!workload_) return {};
    const std::string k = key.toStdString();
    const nlohmann::json policy = pl::policyJson(workload_->policy);
    const nlohmann::json config = pl::configJson(workload_->config, true);
    const nlohmann::json* v = nullptr;
    if (policy.contains(k)) v = &policy[k];
    else if (config.contains(k)) v = &config[k];
    if (v == nullptr) return {};
    if (v->is_string()) return qs(v->get<std::string>());
    if (v->is_boolean()) return v->get<bool>() ? QStringLiteral("true") : QStringLiteral("false");
    return qs(v->dump());
}

bool LabDocument::setSetting(const QString& key, const QString& value, QString* error) {
    if (!workload_) {
        if (error) *error = QStringLiteral("no workload is open");
        return false;
    }
    if (settingValue(key) == value) return true;
    if (refuseReadOnly(error)) return false;
    pl::Workload after = *workload_;
    if (auto e = pl::applyOverride(after, key.toStdString(), value.toStdString())) {
        if (error) *error = qs(e->message());
        return false;
    }
    if (auto e = pl::validateWorkload(after)) {
        if (error) *error = qs(e->message());
        return false;
    }
    undo_->push(new ChangeWorkload(this, *workload_, std::move(after),
                                   QStringLiteral("Set %1 to %2").arg(key, value), kChangeSettingId, key));
    return true;
}

bool LabDocument::replaceWorkload(pl::Workload after, const QString& text, QString* error) {
    if (!workload_) {
        if (error) *error = QStringLiteral("no workload is open");
        return false;
    }
    if (refuseReadOnly(error)) return false;
    if (auto e = pl::validateWorkload(after)) {
        if (error) *error = qs(e->message());
        return false;
    }
    if (after == *workload_) return true;
    undo_->push(new ChangeWorkload(this, *workload_, std::move(after), text));
    return true;
}

bool LabDocument::setRequest(int index, const pl::RequestSpec& spec, QString* error) {
    if (!workload_ || index < 0 || index >= static_cast<int>(workload_->requests.size())) {
        if (error) *error = QStringLiteral("no such request");
        return false;
    }
    if (refuseReadOnly(error)) return false;
    pl::Workload after = *workload_;
    after.requests[static_cast<std::size_t>(index)] = spec;
    // Keep the normalised order (arrival_tick, id) that the engine expects.
    std::stable_sort(after.requests.begin(), after.requests.end(), [](const auto& a, const auto& b) {
        return a.arrival_tick != b.arrival_tick ? a.arrival_tick < b.arrival_tick : a.id < b.id;
    });
    if (auto e = pl::validateWorkload(after)) {
        if (error) *error = qs(e->message());
        return false;
    }
    undo_->push(new ChangeWorkload(this, *workload_, std::move(after),
                                   QStringLiteral("Edit request %1").arg(qs(spec.id))));
    return true;
}

} // namespace plui
