#include "ui/exportactions.h"

#include "ui/backgroundjob.h"
#include "ui/compareview.h"
#include "ui/distributionsview.h"
#include "ui/exporter.h"
#include "ui/labdocument.h"
#include "ui/labcommandline.h"
#include "ui/ledgerview.h"
#include "ui/mainwindow.h"
#include "ui/sweepview.h"
#include "ui/timelinewidget.h"

#include "core/atomic_file.h"
#include "core/receipt.h"
#include "core/session.h"
#include "core/timeline.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>

namespace plui {

namespace {

using ReceiptOutcome = JobOutcome<std::string>;

// On the worker: the receipt's text, or why it could not be made (bad_alloc on a huge run).
ReceiptOutcome makeReceipt(const std::shared_ptr<const pl::Session>& session, const std::atomic<bool>* stop) {
    return catchingOutcome<std::string>(QStringLiteral("the receipt could not be made"), [&](ReceiptOutcome& out) {
        out.value = pl::receiptText(session->workload(), session->result(), stop);
    });
}

// On the worker: the comparison file's text (JSON or, with `csv`, CSV), or why it could not be made (a run that
// outgrew the machine's memory: RunTooLarge's advice).
ReceiptOutcome makeComparison(const pl::Workload& workload, bool csv, const std::atomic<bool>* stop,
                              std::atomic<int>* modesDone) {
    return catchingOutcome<std::string>(QStringLiteral("the comparison could not be made"), [&](ReceiptOutcome& out) {
        out.value = comparisonText(workload, csv, stop, modesDone);
    });
}

// What a review bundle writes that takes seconds on a large run: the receipt and, with the comparison,
// compare.json.
struct BundleTexts {
    std::string receipt;
    std::optional<std::string> comparison;
    std::string trace; // trace.json: the run's timeline for Perfetto
};
using BundleOutcome = JobOutcome<BundleTexts>;

// Steps: the comparison's four modes, then the receipt.
BundleOutcome makeBundleTexts(const std::shared_ptr<const pl::Session>& session, bool comparison,
                              const std::atomic<bool>* stop, std::atomic<int>* stepsDone) {
    return catchingOutcome<BundleTexts>(QStringLiteral("the review bundle could not be made"), [&](BundleOutcome& out) {
        // The comparison's four runs first, while the receipt (hundreds of MB on a large run) is not yet held
        // beside them.
        BundleTexts texts;
        if (comparison) texts.comparison = comparisonText(session->workload(), false, stop, stepsDone);
        texts.receipt = pl::receiptText(session->workload(), session->result(), stop);
        std::string trace;
        pl::streamTimeline(session->workload(), session->result(), session->series(),
                           pl::tickLengthOf(session->workload()), [&](std::string_view piece) { trace += piece; }, stop);
        texts.trace = std::move(trace);
        out.value = std::move(texts);
    });
}

// On the worker: the shown run's timeline (Chrome trace JSON) streamed to `path` by core, atomically; the value
// is the error message, empty when the file was written. `only`: the requests whose tracks are written (the
// timeline's Flagged Requests Only), empty for all.
ReceiptOutcome writeTimelineFile(const std::shared_ptr<const pl::Session>& session, const std::string& path,
                                 const std::atomic<bool>* stop, const std::vector<std::int32_t>& only) {
    return catchingOutcome<std::string>(QStringLiteral("the timeline could not be made"), [&](ReceiptOutcome& out) {
        const pl::Workload& w = session->workload();
        out.value = pl::writeTimeline(path, w, session->result(), session->series(), pl::tickLengthOf(w), stop, only)
                        .value_or("");
    });
}

} // namespace

ExportActions::ExportActions(MainWindow* window)
    : QObject(window), window_(window),
      job_(new BackgroundJob(window, window->statusBar(), QStringLiteral("exportProgress"), this)) {
    connect(job_, &BackgroundJob::cancelled, this, [this]() { emit finished(false); });
}

bool ExportActions::busy() const { return job_->busy(); }

void ExportActions::waitForIdle() { job_->waitForIdle(); }

bool ExportActions::startReceipt(const BackgroundJob::Text& text, const QString& target,
                                 std::function<void(const std::string& receipt)> write) {
    // The worker holds the run it writes: a newer run replacing it on screen meanwhile does not change it.
    const std::shared_ptr<const pl::Session> session = window_->document()->sharedSession();
    if (!session || job_->busy()) return false;
    return job_->start(text, [session](const std::atomic<bool>* stop) { return makeReceipt(session, stop); },
                       [this, target, write = std::move(write)](ReceiptOutcome outcome) {
                           if (outcome.value) {
                               write(*outcome.value);
                           } else {
                               done(target + QStringLiteral(": ") + outcome.error, target);
                           }
                       });
}

bool ExportActions::writeReceipt(const QString& path) {
    return startReceipt({tr("Writing the receipt %1...").arg(QFileInfo(path).fileName()), tr("Stopping the receipt..."),
                         tr("Receipt not written: cancelled")},
                        path, [this, path](const std::string& receipt) {
                            const auto e = pl::writeFileAtomically(path.toStdString(), receipt);
                            done(e ? ExportError(QString::fromStdString(*e)) : ExportError{}, path);
                        });
}

bool ExportActions::writeBundle(const QString& folder) {
    const std::shared_ptr<const pl::Session> session = window_->document()->sharedSession();
    if (!session || job_->busy()) return false;
    const bool comparison = comparisonInBundle();
    return job_->start(
        {tr("Writing the review bundle %1...").arg(QDir(folder).dirName()), tr("Stopping the review bundle..."),
         tr("Review bundle not written: cancelled"), comparison ? 5 : 0},
        [session, comparison](const std::atomic<bool>* stop, std::atomic<int>* stepsDone) {
            return makeBundleTexts(session, comparison, stop, stepsDone);
        },
        [this, folder, session, comparison](BundleOutcome outcome) {
            if (!outcome.value) {
                done(folder + QStringLiteral(": ") + outcome.error, folder);
                return;
            }
            if (window_->document()->sharedSession() != session || comparisonInBundle() != comparison) {
                // The views and the ledger now show another run, or the comparison came or went: the bundle
                // would mix two.
                done(folder + QStringLiteral(": not written, the run on screen or its comparison changed while "
                                             "the bundle was made; export again"),
                     folder);
                return;
            }
            const BundleTexts& texts = *outcome.value;
            done(exportReviewBundle(*window_->document(), *window_->ledger()->model(), bundleViews(), folder,
                                    &texts.receipt, compareMarkdown(), texts.comparison ? &*texts.comparison : nullptr,
                                    &texts.trace),
                 folder);
        });
}

bool ExportActions::writeTimeline(const QString& path) {
    const std::shared_ptr<const pl::Session> session = window_->document()->sharedSession();
    if (!session || job_->busy()) return false;
    return job_->start({tr("Writing the timeline %1...").arg(QFileInfo(path).fileName()),
                        tr("Stopping the timeline..."), tr("Timeline not written: cancelled")},
                       [session, target = path.toStdString(),
                        only = window_->timeline()->shownRequests()](const std::atomic<bool>* stop) {
                           return writeTimelineFile(session, target, stop, only);
                       },
                       [this, path](ReceiptOutcome outcome) {
                           if (!outcome.value) {
                               done(path + QStringLiteral(": ") + outcome.error, path);
                           } else if (!outcome.value->empty()) {
                               done(QString::fromStdString(*outcome.value), path);
                           } else {
                               done(ExportError{}, path);
                           }
                       });
}

bool ExportActions::writeComparison(const QString& path) {
    const QString suffix = QFileInfo(path).suffix();
    const bool csv = suffix == QLatin1String("csv");
    // As the CLI: "name." has an extension, an empty one.
    if (!csv && suffix != QLatin1String("json") && (!suffix.isEmpty() || path.endsWith(QLatin1Char('.')))) {
        done(path + tr(": a comparison is written as .json or .csv"), path);
        return false;
    }
    if (job_->busy() || !window_->document()->sharedSession()) return false;
    // The worker holds its own copy: an edit meanwhile does not change what it compares.
    return job_->start({tr("Comparing the four recovery modes for %1...").arg(QFileInfo(path).fileName()),
                        tr("Stopping the comparison..."), tr("Comparison not written: cancelled"), 4},
                       [w = window_->document()->workload(), csv](const std::atomic<bool>* stop,
                                                                  std::atomic<int>* modesDone) {
                           return makeComparison(w, csv, stop, modesDone);
                       },
                       [this, path](ReceiptOutcome outcome) {
                           if (!outcome.value) {
                               done(path + QStringLiteral(": ") + outcome.error, path);
                               return;
                           }
                           const auto e = pl::writeFileAtomically(path.toStdString(), *outcome.value);
                           done(e ? ExportError(QString::fromStdString(*e)) : ExportError{}, path);
                       });
}

void ExportActions::buildMenu(QMenu* menu) {
    auto* receipt = menu->addAction(tr("&Receipt..."), this, &ExportActions::exportReceipt);
    receipt->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    auto* csv = menu->addAction(tr("&Ledger as CSV..."), this, &ExportActions::exportCsv);
    csv->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    auto* comparison = menu->addAction(tr("&Comparison (JSON or CSV)..."), this, &ExportActions::exportComparison);
    comparison->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K)); // Ctrl+K compares on screen
    window_->compare()->addTableAction(comparison);
    auto* shots = menu->addMenu(tr("&Screenshot"));
    for (const QString& name : labViewNames()) {
        auto* a = shots->addAction(name == QLatin1String("window") ? tr("Whole window...") : tr("%1 view...").arg(name),
                                   this, [this, name]() { exportView(name); });
        // Ctrl+Shift+P ("picture"): Ctrl+Shift+S is Save As.
        if (name == QLatin1String("window")) a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    }
    auto* timeline = menu->addAction(tr("&Timeline (Perfetto)..."), this, &ExportActions::exportTimeline);
    timeline->setObjectName(QStringLiteral("exportTimelineAction"));
    timeline->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E)); // Ctrl+E is the receipt
    auto* bundle = menu->addAction(tr("Review &Bundle..."), this, &ExportActions::exportBundle);
    bundle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    needRun_ = {receipt, csv, comparison, timeline, bundle};
    menu->setToolTipsVisible(true); // a disabled export says why
    setRunShown(false);
}

void ExportActions::setRunShown(bool shown) {
    for (QAction* a : needRun_) {
        a->setEnabled(shown);
        a->setToolTip(shown ? QString() : tr("There is no run to export yet: open a workload and let it run"));
    }
}

QList<QPair<QString, QWidget*>> ExportActions::bundleViews() const {
    QList<QPair<QString, QWidget*>> views = {{QStringLiteral("window"), window_},
                                            {QStringLiteral("pool"), window_->view(QStringLiteral("pool"))},
                                            {QStringLiteral("timeline"), window_->view(QStringLiteral("timeline"))},
                                            {QStringLiteral("ledger"), window_->view(QStringLiteral("ledger"))},
                                            {QStringLiteral("plots"), window_->view(QStringLiteral("plots"))}};
    // The distributions by bucket as drawn (its dock may be tabbed behind the plots and not yet drawn).
    window_->distributions()->ensureCurrent();
    views.append({QStringLiteral("distributions"), window_->distributions()});
    // The comparison only where it and the run on screen are of the workload as it is now (a stale one, or one
    // made while an edit's run was pending or after it failed, would sit beside another run's receipt).
    if (comparisonInBundle()) views.append({QStringLiteral("compare"), window_->compare()});
    // The crossover map, when the Sweep view shows one (sweep.png and sweep.json; summary.md says what it swept).
    if (window_->sweep()->result()) views.append({QStringLiteral("sweep"), window_->sweep()});
    return views;
}

bool ExportActions::comparisonInBundle() const {
    // The bundle's compare.json is the recovery modes' (as `compare`): an engines result on screen is not it.
    return window_->compare()->isCurrent() && !window_->compare()->showsEngines() &&
           window_->document()->sessionShowsWorkload();
}

QString ExportActions::compareMarkdown() const {
    return comparisonInBundle() ? window_->compare()->markdown() : QString();
}

std::optional<QString> ExportActions::writeBundleNow(const QString& folder) {
    return exportReviewBundle(*window_->document(), *window_->ledger()->model(), bundleViews(), folder, nullptr,
                              compareMarkdown());
}

void ExportActions::done(const std::optional<QString>& error, const QString& what) {
    if (error) {
        window_->reportError(tr("Export failed"), *error);
    } else {
        window_->statusBar()->showMessage(tr("Wrote %1").arg(what), 5000);
    }
    emit finished(!error);
}

namespace {
const QString kFolderKey = QStringLiteral("export/folder");
} // namespace

QString ExportActions::lastFolder() {
    const QString folder = QSettings().value(kFolderKey).toString();
    return !folder.isEmpty() && QFileInfo(folder).isDir() ? folder : QString(); // a folder since removed: none
}

QString ExportActions::startPath(const QString& name) {
    const QString folder = lastFolder();
    return folder.isEmpty() ? name : QDir(folder).filePath(name);
}

void ExportActions::rememberFolderOf(const QString& path) {
    if (!path.isEmpty()) QSettings().setValue(kFolderKey, QFileInfo(path).absolutePath());
}

void ExportActions::exportReceipt() {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export receipt"), startPath(QStringLiteral("receipt.json")),
                                                      tr("Receipts (*.json)"));
    rememberFolderOf(path);
    if (!path.isEmpty()) writeReceipt(path);
}

void ExportActions::exportCsv() {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export ledger"), startPath(QStringLiteral("ledger.csv")),
                                                      tr("CSV (*.csv)"));
    rememberFolderOf(path);
    if (!path.isEmpty()) done(exportLedgerCsv(*window_->ledger()->model(), path), path);
}

void ExportActions::exportComparison() {
    const QString csvFilter = tr("CSV (*.csv)");
    QString filter;
    QString path = QFileDialog::getSaveFileName(window_, tr("Export comparison"), startPath(QStringLiteral("compare.json")),
                                                tr("Comparison JSON (*.json);;") + csvFilter, &filter);
    rememberFolderOf(path);
    if (path.isEmpty()) return;
    // A name typed without a suffix takes the chosen filter's (it would otherwise be JSON).
    if (QFileInfo(path).suffix().isEmpty() && !path.endsWith(QLatin1Char('.')))
        path += filter == csvFilter ? QStringLiteral(".csv") : QStringLiteral(".json");
    writeComparison(path);
}

void ExportActions::exportTimeline() {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export timeline (Perfetto)"),
                                                      startPath(QStringLiteral("timeline.trace.json")),
                                                      tr("Chrome trace JSON (*.json)"));
    rememberFolderOf(path);
    if (!path.isEmpty()) writeTimeline(path);
}

void ExportActions::exportView(const QString& name) {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export %1").arg(name), startPath(name + QStringLiteral(".png")),
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    rememberFolderOf(path);
    if (path.isEmpty()) return;
    QWidget* w = window_->view(name);
    if (w) done(exportWidgetImage(w, path), path);
}

QStringList ExportActions::bundleFilesIn(const QString& folder) const {
    QStringList there;
    const QDir dir(folder);
    for (const QString& name : reviewBundleFileNames(bundleViews()) + reviewBundleOptionalFiles()) {
        if (QFileInfo::exists(dir.filePath(name)) && !there.contains(name)) there << name;
    }
    return there;
}

void ExportActions::exportBundle() {
    const QString dir = QFileDialog::getExistingDirectory(window_, tr("Folder for the review bundle"), lastFolder());
    // The bundle's folder is where the next export starts (a file put beside the bundle, or another bundle there).
    if (!dir.isEmpty()) QSettings().setValue(kFolderKey, QDir(dir).absolutePath());
    if (!dir.isEmpty()) writeBundleAsking(dir);
}

bool ExportActions::writeBundleAsking(const QString& dir) {
    // An earlier bundle (another run's receipt and pictures) is not replaced without asking.
    const QStringList there = bundleFilesIn(dir);
    if (!there.isEmpty()) {
        QMessageBox box(QMessageBox::Warning, tr("Replace the review bundle?"),
                        tr("%1 already holds %n file(s) of a review bundle (%2).", nullptr, int(there.size()))
                            .arg(QDir::toNativeSeparators(dir), there.join(QStringLiteral(", "))),
                        QMessageBox::NoButton, window_);
        box.setObjectName(QStringLiteral("replaceBundle"));
        box.setInformativeText(tr("Replace them with this run's bundle?"));
        box.addButton(tr("Replace"), QMessageBox::AcceptRole);
        QPushButton* keep = box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(keep);
        box.exec();
        if (box.clickedButton() == keep) {
            window_->statusBar()->showMessage(tr("Review bundle not written: %1 kept").arg(QDir::toNativeSeparators(dir)));
            return false;
        }
    }
    return writeBundle(dir);
}

} // namespace plui
