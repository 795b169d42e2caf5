#include "ui/mainwindow.h"

#include "ui/backgroundjob.h"
#include "ui/breakevenview.h"
#include "ui/bytestext.h"
#include "ui/calibrationactions.h"
#include "ui/comparerun.h"
#include "ui/compareview.h"
#include "ui/distributionsview.h"
#include "ui/exportactions.h"
#include "ui/gateactions.h"
#include "ui/sweepactions.h"
#include "ui/sweepview.h"
#include "ui/fileactions.h"
#include "ui/helpactions.h"
#include "ui/labbanner.h"
#include "ui/labcommandline.h"
#include "ui/labdocument.h"
#include "ui/labtheme.h"
#include "ui/labslos.h"
#include "ui/ledgerview.h"
#include "ui/livelockhint.h"
#include "ui/livemodeaction.h"
#include "ui/plotswidget.h"
#include "ui/policypanel.h"
#include "ui/poolview.h"
#include "ui/receiptactions.h"
#include "ui/timelinewidget.h"
#include "ui/traceimportactions.h"
#include "ui/viewlayoutactions.h"
#include "ui/transportbar.h"
#include "ui/workloadpanel.h"

#include "core/session.h"
#include "core/workload_io.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QStyle>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QUndoGroup>
#include <QUndoStack>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <exception>
#include <optional>

// Resources of a static library must be registered by name (outside any namespace).
static void initLabResourcesImpl() {
    Q_INIT_RESOURCE(preemptlab);
}

namespace plui {

void initLabResources() { initLabResourcesImpl(); }

namespace {

// On the worker: core reads, parses and checks the file, reading the stop flag as it goes; the workload, or
// the error ("FILE: /json/path: reason").
using ReadOutcome = JobOutcome<pl::Workload>;
ReadOutcome readWorkloadFile(const std::string& path, const std::atomic<bool>* stop) {
    return catchingOutcome<pl::Workload>(QString::fromStdString(path), [&](ReadOutcome& out) {
        auto loaded = pl::loadWorkloadFile(path, {}, stop);
        if (auto* e = std::get_if<pl::InputError>(&loaded)) {
            out.error = QString::fromStdString(e->message());
        } else {
            out.value = std::get<pl::Workload>(std::move(loaded));
        }
    });
}

} // namespace

MainWindow::MainWindow(pl::LiveBackendFactory live, QWidget* parent)
    : QMainWindow(parent), doc_(new LabDocument(std::move(live), this)),
      opener_(new BackgroundJob(this, statusBar(), QStringLiteral("openProgress"), this)) {
    initLabResources();
    setObjectName(QStringLiteral("preemptlabWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/preemptlab.svg")));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    createViews();
    createDocks();
    createMenus();
    createStatusWidgets();
    connectDocument();
    restoreSettings();
}

void MainWindow::createViews() {
    pool_ = new PoolView(doc_, this);
    setCentralWidget(pool_);
    timeline_ = new TimelineWidget(doc_, this);
    ledger_ = new LedgerView(doc_, this);
    plots_ = new PlotsWidget(doc_, this);
    compare_ = new CompareView(doc_, this);
    slos_ = new LabSlos(this);
    distributions_ = new DistributionsView(doc_, slos_, this);
    compare_->setSlos(slos_);
    breakeven_ = new BreakevenView(this);
    sweep_ = new SweepView(this);
    policy_ = new PolicyPanel(doc_, this);
    workload_ = new WorkloadPanel(doc_, this);
    transport_ = new TransportBar(doc_, this);
    addToolBar(Qt::TopToolBarArea, transport_);
    // Every plot's background, axes, grid, legend and neutral marks follow the palette (View > Theme).
    followPaletteInPlots(this);
    // Before createMenus: CalibrationActions loads the remembered calibration as it is made.
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & LabChangeKind::Calibration) breakeven_->setCalibration(doc_->calibration());
        if (what & (LabChangeKind::Session | LabChangeKind::Workload))
            breakeven_->setWorkloadConfig(doc_->hasWorkload() ? &doc_->workload().config : nullptr);
    });
}

void MainWindow::createDocks() {
    auto* policyDock = addDock(tr("Policy and machine"), QStringLiteral("policy"), policy_, Qt::LeftDockWidgetArea);
    auto* workloadDock = addDock(tr("Workload"), QStringLiteral("workload"), workload_, Qt::LeftDockWidgetArea);
    workloadDock_ = workloadDock;
    tabifyDockWidget(policyDock, workloadDock);
    policyDock->raise();
    auto* ledgerDock = addDock(tr("Victim ledger"), QStringLiteral("ledger"), ledger_, Qt::RightDockWidgetArea);
    auto* timelineDock = addDock(tr("Request timeline"), QStringLiteral("timeline"), timeline_, Qt::BottomDockWidgetArea);
    auto* plotsDock = addDock(tr("Running plots"), QStringLiteral("plots"), plots_, Qt::BottomDockWidgetArea);
    auto* distributionsDock =
        addDock(tr("Distributions"), QStringLiteral("distributions"), distributions_, Qt::BottomDockWidgetArea);
    compareDock_ = addDock(tr("Compare"), QStringLiteral("compare"), compare_, Qt::BottomDockWidgetArea);
    auto* breakevenDock = addDock(tr("Break-even"), QStringLiteral("breakeven"), breakeven_, Qt::BottomDockWidgetArea);
    auto* sweepDock = addDock(tr("Sweep"), QStringLiteral("sweep"), sweep_, Qt::BottomDockWidgetArea);
    splitDockWidget(timelineDock, plotsDock, Qt::Horizontal);
    tabifyDockWidget(plotsDock, distributionsDock);
    tabifyDockWidget(distributionsDock, compareDock_);
    tabifyDockWidget(compareDock_, breakevenDock);
    tabifyDockWidget(breakevenDock, sweepDock);
    plotsDock->raise();
    for (auto* dock : {policyDock, workloadDock, ledgerDock, timelineDock, plotsDock, distributionsDock, compareDock_,
                       breakevenDock, sweepDock}) {
        connect(dock, &QDockWidget::topLevelChanged, this, [this]() { userArranged_ = true; });
        connect(dock, &QDockWidget::dockLocationChanged, this, [this]() { userArranged_ = proportionsSet_; });
    }
}

void MainWindow::createMenus() {
    files_ = new FileActions(this);
    exports_ = new ExportActions(this);
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    files_->buildMenu(fileMenu);
    // Load/Apply Calibration go above File's closing separator and Quit.
    calibration_ = new CalibrationActions(this);
    const auto fileActions = fileMenu->actions();
    calibration_->addTo(fileMenu, fileActions.size() >= 2 ? fileActions[fileActions.size() - 2] : nullptr);
    auto* edit = menuBar()->addMenu(tr("&Edit"));
    auto* undo = doc_->undoGroup()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    auto* redo = doc_->undoGroup()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    edit->addAction(undo);
    edit->addAction(redo);
    auto* viewMenu = menuBar()->addMenu(tr("&View"));
    createViewMenu(viewMenu);
    addTeachingActions(fileMenu, viewMenu); // Open Receipt, the banner, the livelock hint, Flagged Requests Only
    createRunMenu(menuBar()->addMenu(tr("&Run")));
    gate_ = new GateActions(this);
    auto* reviewMenu = menuBar()->addMenu(tr("Revie&w"));
    gate_->buildMenu(reviewMenu);
    reviewMenu->addSeparator();
    sweeps_ = new SweepActions(this, sweep_);
    sweeps_->buildMenu(reviewMenu);
    exports_->buildMenu(menuBar()->addMenu(tr("E&xport")));
    (new HelpActions(this))->buildMenu(menuBar()->addMenu(tr("&Help")));
}

void MainWindow::createViewMenu(QMenu* viewMenu) {
    viewMenu->addActions(transport_->transportActions());
    viewMenu->addSeparator();
    auto* goTo = viewMenu->addAction(tr("&Go to Tick..."), this, &MainWindow::goToTick);
    goTo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    viewMenu->addSeparator();
    // Ctrl+1..8 show, raise and focus a view (the entries below them only toggle a dock's visibility).
    int number = 1;
    for (const QString& name : {QStringLiteral("policy"), QStringLiteral("workload"), QStringLiteral("ledger"),
                                QStringLiteral("timeline"), QStringLiteral("plots"), QStringLiteral("compare"),
                                QStringLiteral("breakeven"), QStringLiteral("sweep"),
                                QStringLiteral("distributions")}) {
        auto* dock = findChild<QDockWidget*>(name + QStringLiteral("Dock"));
        auto* show = viewMenu->addAction(tr("Show %1").arg(dock->windowTitle()), this, [this, name]() {
            if (QWidget* w = view(name)) w->setFocus(Qt::ShortcutFocusReason);
        });
        show->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_0 + number++)));
    }
    auto* showPool = viewMenu->addAction(tr("Show Pool"), this, [this]() { pool_->setFocus(Qt::ShortcutFocusReason); });
    showPool->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    viewMenu->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) viewMenu->addAction(dock->toggleViewAction());
    viewMenu->addSeparator();
    layouts_ = new ViewLayoutActions(this);
    layouts_->buildMenu(viewMenu);
    addThemeMenu(viewMenu, this);
}

void MainWindow::createRunMenu(QMenu* runMenu) {
    compareAction_ = runMenu->addAction(tr("&Compare recovery modes"), this, [this]() {
        compareDock_->show();
        compareDock_->raise();
        compare_->start();
    });
    compareAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    compareAction_->setObjectName(QStringLiteral("compareAction"));
    // Esc stops whatever runs in the background: the workload's run and a comparison.
    cancelAction_ = runMenu->addAction(tr("C&ancel Run"), this, [this]() {
        doc_->cancelRun();
        compare_->cancel();
    });
    cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAction_->setEnabled(false);
    connect(compare_, &CompareView::runningChanged, this, &MainWindow::updateActions);
    runMenu->addSeparator();
    auto* liveAction = new LiveModeAction(doc_, runMenu, this); // probes for a device when the menu first opens
    connect(liveAction, &LiveModeAction::unavailable, this, [this](const QString& text) { statusBar()->showMessage(text, 15000); });
    runMenu->setToolTipsVisible(true); // the live switch explains itself when disabled
}

void MainWindow::createStatusWidgets() {
    // Long runs: an indeterminate bar (the run reports no fraction) and a cancel button in the status bar.
    busyBar_ = new QProgressBar(this);
    busyBar_->setRange(0, 0);
    busyBar_->setMaximumWidth(160);
    busyBar_->hide();
    busyCancel_ = new QPushButton(tr("Cancel run"), this);
    busyCancel_->hide();
    statusBar()->addPermanentWidget(busyBar_);
    statusBar()->addPermanentWidget(busyCancel_);
    connect(busyCancel_, &QPushButton::clicked, doc_, &LabDocument::cancelRun);
}

void MainWindow::connectDocument() {
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & (LabChangeKind::Workload | LabChangeKind::Busy)) updateTitle();
        if (what & (LabChangeKind::Workload | LabChangeKind::Busy | LabChangeKind::Session)) updateActions();
        if ((what & LabChangeKind::Session) && doc_->session()) {
            // Ticks 0 to the last: "2,898 ticks (0 to 2,897)", as the transport and pool say "tick 40 / 2,897".
            const std::int64_t last = doc_->lastTick();
            statusBar()->showMessage(last < 0 ? tr("%1: no ticks (nothing to run)").arg(doc_->sourceName())
                                              : tr("%1: %2 ticks (0 to %3), %4 evictions")
                                                    .arg(doc_->sourceName(), groupedNumber(last + 1), groupedNumber(last),
                                                         groupedNumber(doc_->session()->result().totals.evictions)));
        }
        if (what & LabChangeKind::Busy) {
            busyBar_->setVisible(doc_->busy());
            busyCancel_->setVisible(doc_->busy());
            statusBar()->showMessage(doc_->busy() ? tr("Running the workload in the background...") : tr("Ready"),
                                     doc_->busy() ? 0 : 2000);
        }
    });
    connect(doc_, &LabDocument::runFailed, this, [this](const QString& m) { reportError(tr("Run failed"), m); });
    connect(doc_->undoGroup(), &QUndoGroup::cleanChanged, this, &MainWindow::updateTitle);
    connect(doc_, &LabDocument::savedChanged, this, &MainWindow::updateTitle);
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (const LabTheme theme = savedTheme(); theme != currentTheme()) setTheme(theme);
    // The docks first: restoring them widens a window not yet shown to their preferred widths (900 px closed
    // came back 1,116 px, a third more on every second start, off a projector's screen), so the saved geometry
    // comes after them.
    layoutRestored_ = restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()) && screen()) {
        // A first start: nine tenths of the screen up to the README's 1600x1000, set when first shown (until
        // then the docks' preferred widths hold the window at least 1,064 px wide, wider than a projector).
        firstStartSize_ = (screen()->availableGeometry().size() * 9 / 10).boundedTo(QSize(1600, 1000));
    }
    bool speedOk = false;
    const int speed = settings.value(QStringLiteral("transport/speed")).toInt(&speedOk);
    if (speedOk && speed >= transport_->speedSlider()->minimum() && speed <= transport_->speedSlider()->maximum()) {
        transport_->speedSlider()->setValue(speed);
    }
    updateTitle();
    updateActions();
    // Settings that cannot be kept are said once, not lost in silence (a read-only or missing config folder);
    // a message from the start (the remembered calibration is gone) is not covered by the welcome line.
    if (!settings.isWritable()) {
        statusBar()->showMessage(tr("Settings cannot be saved to %1: recent files, the layout and the calibration "
                                    "will not be remembered.")
                                     .arg(settings.fileName()));
    } else if (statusBar()->currentMessage().isEmpty()) {
        statusBar()->showMessage(tr("Open a workload (File > Samples, or drop a file here)."));
    }
}

MainWindow::~MainWindow() {
    // The document is a child, destroyed after this class's part of the window is gone; its undo group emits
    // cleanChanged while its stack is destroyed (unsaved edits), which must not call updateTitle on a half-destroyed
    // window (UBSan reported it in every suite that closes a window with edits).
    disconnect(doc_->undoGroup(), nullptr, this, nullptr);
}

void MainWindow::addTeachingActions(QMenu* fileMenu, QMenu* viewMenu) {
    banner_ = new LabBanner(pool_);
    pool_->setBanner(banner_);
    receipts_ = new ReceiptActions(this, banner_);
    receipts_->addTo(fileMenu, files_->saveAction());
    livelock_ = new LivelockHint(doc_, banner_, statusBar(), this);
    viewMenu->addSeparator();
    viewMenu->addAction(timeline_->flaggedOnlyAction());
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* content, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name + QStringLiteral("Dock"));
    dock->setWidget(content);
    content->setObjectName(name + QStringLiteral("View"));
    addDockWidget(area, dock);
    return dock;
}

QWidget* MainWindow::view(const QString& name) {
    if (name == QLatin1String("window")) return this;
    if (name == QLatin1String("pool")) return pool_;
    // The Compare dock, set to the recovery modes ("compare") or the engines ("compare-engines"): the same dock
    // under two view names, so a screenshot says which it shows whatever was chosen last in the window.
    const bool engines = name == QLatin1String("compare-engines");
    if (engines || name == QLatin1String("compare")) compare_->setKind(engines ? CompareKind::Engines : CompareKind::Modes);
    auto* dock = findChild<QDockWidget*>((engines ? QStringLiteral("compare") : name) + QStringLiteral("Dock"));
    if (!dock) return nullptr;
    dock->show();
    dock->raise();
    return dock->widget();
}

bool MainWindow::confirmDiscardEdits() {
    if (doc_->nothingUnsaved()) return true;
    const QString name = QString::fromStdString(doc_->workload().name);
    QMessageBox box(QMessageBox::Question, tr("Unsaved edits"),
                    doc_->onDisk() ? tr("The workload \"%1\" has edits that are not saved.").arg(name)
                                   : tr("The workload \"%1\" is not saved; it is %2.").arg(name, doc_->sourceName()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unsavedEditsDialog"));
    box.setInformativeText(doc_->onDisk() ? tr("Save them before they are lost?") : tr("Save it before it is lost?"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save: return files_->save();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

bool MainWindow::openPath(const QString& path, std::function<void()> then) {
    if (readingFile()) { // before the unsaved-edits question: the answer would not be used
        reportError(tr("Cannot open workload"), tr("%1: not opened, another file is still being read").arg(path));
        return false;
    }
    if (!confirmDiscardEdits()) return false;
    auto failed = std::make_shared<bool>(false); // set at once for a small file
    loadPath(path, [this, path, then, failed](const QString& error) {
        if (!error.isEmpty()) {
            *failed = true;
            reportError(tr("Cannot open workload"), error);
            return;
        }
        statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
        showFirstEviction();
        if (then) then();
    });
    return !*failed;
}

void MainWindow::showFirstEviction() {
    doc_->seekFirstEviction();
    workloadDock_->raise(); // the sample's notes say what to watch for
}

bool MainWindow::opening() const { return opener_->busy(); }

MainWindow::ReadStart MainWindow::readStart() const { return {doc_->loadCount(), doc_->undoStack()->index()}; }

bool MainWindow::mayReplace(const ReadStart& start, const QString& dropped) {
    // Load count first: another load swapped the undo stack, whose index then says nothing.
    if (doc_->loadCount() != start.loads) {
        statusBar()->showMessage(tr("%1: another workload was opened meanwhile").arg(dropped), 8000);
        return false;
    }
    if (doc_->undoStack()->index() != start.undoIndex && !confirmDiscardEdits()) {
        statusBar()->showMessage(tr("%1: the edits made meanwhile are kept").arg(dropped), 8000);
        return false;
    }
    return true;
}

bool MainWindow::readingFile() const { return opener_->busy() || files_->traceImports()->busy(); }

void MainWindow::waitForOpen() { opener_->waitForIdle(); }

void MainWindow::loadPath(const QString& path, std::function<void(const QString& error)> done) {
    // Reading and checking a file cost about 25 ms per MB: a big one is read on a worker behind a busy dialog
    // with Cancel (the open workload stays until the new one is read), a small one or a bundled sample at once.
    constexpr qint64 kBackgroundFileBytes = qint64{8} << 20;
    const bool resource = path.startsWith(QLatin1Char(':')); // a bundled sample
    const qint64 bytes = resource ? 0 : QFileInfo(path).size();
    const auto finish = [this, path, resource, done](bool ok, const QString& error) {
        if (ok) {
            lastError_.clear();
            files_->addRecent(path);
        } else if (!resource && !QFileInfo::exists(path)) {
            files_->removeRecent(path); // a remembered file that has gone
        }
        done(ok ? QString() : error);
    };
    // One over core's size cap is refused from its size at once, before any byte is read.
    if (bytes <= kBackgroundFileBytes || bytes > pl::Caps{}.max_file_bytes) {
        QString error;
        const bool ok = resource ? doc_->loadResource(path, &error) : doc_->loadFile(path, &error);
        finish(ok, error);
        return;
    }
    const ReadStart start = readStart();
    const QString name = QFileInfo(path).fileName();
    const BackgroundJob::Text text{tr("Reading %1 (%2)...").arg(name, bytesText(bytes)),
                                   tr("Stopping the read of %1...").arg(name),
                                   tr("Open cancelled: %1 was not opened").arg(name)};
    const bool started = opener_->start(
        text, [file = path.toStdString()](const std::atomic<bool>* stop) { return readWorkloadFile(file, stop); },
        [this, start, finish, path](ReadOutcome outcome) {
            if (!outcome.value) {
                finish(false, outcome.error);
                return;
            }
            if (!mayReplace(start, tr("%1 was read but not opened").arg(QFileInfo(path).fileName()))) return;
            QString error;
            const bool ok = doc_->setWorkload(std::move(*outcome.value), path, &error, true);
            finish(ok, error);
        });
    if (!started) done(tr("%1: not opened, another workload file is still being read").arg(path));
}

void MainWindow::reportError(const QString& title, const QString& message) {
    lastError_ = message;
    statusBar()->showMessage(message, 10000);
    // Non-modal: scripts and tests keep running; the user still sees file, field and reason.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::setTheme(LabTheme theme) {
    applyTheme(theme);
    if (auto* a = findChild<QAction*>(QStringLiteral("theme_") + themeName(theme))) a->setChecked(true);
}

void MainWindow::applyStartupOptions(const LabOptions& options) {
    if (const auto theme = themeFromName(options.theme)) setTheme(*theme); // for this run, not saved
    if (!options.calibration.isEmpty()) {
        QString error;
        if (!calibration_->loadCalibration(options.calibration, &error)) reportError(tr("Cannot load calibration"), error);
    }
    if (!options.sweep.isEmpty()) sweeps_->openResult(options.sweep);
    if (!options.receipt.isEmpty()) {
        if (receipts_->openReceipt(options.receipt) && options.tick) doc_->seek(*options.tick);
        return;
    }
    if (options.workload.isEmpty()) {
        reopenLastSession();
        return;
    }
    // The flags apply to the workload once it is open (after the background read of a big file).
    openPath(options.workload, [this, file = options.workload, overrides = options.overrides, tick = options.tick]() {
        for (const auto& [key, value] : overrides) {
            QString error;
            if (!doc_->setSetting(key, value, &error)) {
                reportError(tr("Bad option"), tr("%1 (after command-line overrides): %2").arg(file, error));
            }
        }
        if (tick) {
            doc_->waitForIdle();
            doc_->seek(*tick);
        }
    });
}

void MainWindow::reopenLastSession() {
    // The workload file open at the last close comes back at its tick, as the calibration does. Not a generated
    // or imported one (it was saved or discarded when asked), and a file that is gone is said, not hidden.
    const QSettings settings;
    const QString last = settings.value(QStringLiteral("session/file")).toString();
    if (last.isEmpty()) return;
    if (!QFileInfo::exists(last)) {
        files_->removeRecent(last);
        statusBar()->showMessage(tr("The last workload, %1, is gone.").arg(last), 10000);
        return;
    }
    bool hasTick = false;
    const qint64 tick = settings.value(QStringLiteral("session/tick")).toLongLong(&hasTick);
    loadPath(last, [this, last, tick, hasTick](const QString& error) {
        if (!error.isEmpty()) {
            statusBar()->showMessage(tr("The last workload was not reopened: %1").arg(error), 10000);
            return;
        }
        if (hasTick) doc_->seek(tick); // kept for a background run until it lands
        statusBar()->showMessage(tr("Reopened %1, the workload of the last session.").arg(QFileInfo(last).fileName()),
                                 5000);
    });
}

void MainWindow::updateTitle() {
    QString title = QStringLiteral("PreemptLab");
    if (doc_->hasWorkload()) {
        // Where it lives: the file's name, or what made it ("generated (unsaved)", "x.csv (imported, unsaved)").
        const QString where = doc_->onDisk() ? QFileInfo(doc_->sourceName()).fileName() : doc_->sourceName();
        title = QStringLiteral("%1%2 - %3 - PreemptLab")
                    .arg(QString::fromStdString(doc_->workload().name),
                         doc_->undoStack()->isClean() ? QString() : tr(" (edited)"), where);
    }
    if (doc_->busy()) title += tr(" [running]");
    setWindowTitle(title);
}

void MainWindow::updateActions() {
    const bool open = doc_->hasWorkload();
    compareAction_->setEnabled(open);
    compareAction_->setToolTip(open ? QString() : tr("Open a workload first"));
    cancelAction_->setEnabled(doc_->busy() || compare_->running());
    exports_->setRunShown(doc_->session() != nullptr);
}

void MainWindow::goToTick() {
    if (!doc_->session()) return;
    bool ok = false;
    const int tick = QInputDialog::getInt(this, tr("Go to tick"),
                                          tr("Tick (-1 is before the first, %1 the last):").arg(doc_->lastTick()),
                                          static_cast<int>(doc_->currentTick()), -1,
                                          static_cast<int>(std::min<std::int64_t>(doc_->lastTick(), INT_MAX)), 1, &ok);
    if (ok) doc_->seek(tick);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (firstStartSize_.isValid()) {
        // Unless the code that made the window sized it (headless --size, tests); centred on the screen, as it
        // was placed for its smaller first size and would hang off an edge.
        if (!testAttribute(Qt::WA_Resized)) {
            const QSize size = firstStartSize_.expandedTo(minimumSizeHint());
            if (testAttribute(Qt::WA_Moved) || !screen()) {
                resize(size);
            } else {
                setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, screen()->availableGeometry()));
            }
        }
        firstStartSize_ = QSize();
    }
    if (layoutRestored_ || proportionsSet_) return;
    proportionsSet_ = true;
    proportionDocks();
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    // Until the user arranges the docks, keep the default layout in proportion to the window.
    if (!layoutRestored_ && proportionsSet_ && !userArranged_) proportionDocks();
}

void MainWindow::proportionDocks() {
    auto* left = findChild<QDockWidget*>(QStringLiteral("policyDock"));
    auto* right = findChild<QDockWidget*>(QStringLiteral("ledgerDock"));
    auto* timeline = findChild<QDockWidget*>(QStringLiteral("timelineDock"));
    auto* plots = findChild<QDockWidget*>(QStringLiteral("plotsDock"));
    const int w = width();
    const int h = height();
    resizeDocks({left, right}, {std::clamp(w * 21 / 100, 240, 380), std::clamp(w * 28 / 100, 300, 560)}, Qt::Horizontal);
    resizeDocks({timeline, plots}, {w * 55 / 100, w * 45 / 100}, Qt::Horizontal);
    resizeDocks({timeline}, {h * 40 / 100}, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    // A file being read would land under the unsaved-edits question below, or in a closed window: stop it.
    opener_->cancel();
    files_->traceImports()->cancel();
    if (!confirmDiscardEdits()) {
        event->ignore();
        return;
    }
    layouts_->restoreLayout(); // a maximised view is saved as the layout it came from
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("transport/speed"), transport_->speedSlider()->value());
    if (doc_->hasWorkload() && doc_->onDisk()) { // a file or a bundled sample (edits were saved or discarded)
        const QString& source = doc_->sourceName();
        settings.setValue(QStringLiteral("session/file"),
                          source.startsWith(QLatin1Char(':')) ? source : QFileInfo(source).absoluteFilePath());
        settings.setValue(QStringLiteral("session/tick"), static_cast<qint64>(doc_->currentTick()));
    } else {
        settings.remove(QStringLiteral("session"));
    }
    settings.sync();
    if (settings.status() != QSettings::NoError) {
        std::fprintf(stderr, "preemptlab: settings could not be saved to %s\n", qPrintable(settings.fileName()));
    }
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        const QString path = urls.first().toLocalFile();
        if (ReceiptActions::isReceiptPath(path)) receipts_->openReceipt(path);
        else openPath(path);
        event->acceptProposedAction();
    }
}

} // namespace plui
