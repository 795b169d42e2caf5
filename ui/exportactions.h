#pragma once
// ExportActions: the Export menu. Receipt, ledger CSV, the comparison of the four recovery modes (the file
// `preemptlab-cli compare --out` writes, JSON or CSV), a screenshot of the window or of any single view
// (PNG, SVG or PDF by the chosen suffix), the timeline as Chrome trace JSON for Perfetto (core/timeline.h), and
// the review bundle folder. The receipt's text (seconds for a
// large run: 12.9 s at 300,000 requests), and the comparison's four runs and receipts, are made on a worker
// behind a busy dialog (BackgroundJob); the file is written once it is ready, and a Cancel stops the worker
// (core's engine and receiptText read the flag) and writes nothing.

#include "ui/backgroundjob.h"

#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>
#include <string>

class QAction;
class QMenu;

namespace plui {

class MainWindow;

class ExportActions : public QObject {
    Q_OBJECT
  public:
    explicit ExportActions(MainWindow* window);
    void buildMenu(QMenu* menu);
    // The views written into a review bundle, as (file stem, widget): the window, pool, timeline, ledger and
    // plots, and the comparison where it is current (CompareView::isCurrent).
    QList<QPair<QString, QWidget*>> bundleViews() const;
    // The receipt, ledger CSV and review bundle need a run: disabled, saying so, until there is one.
    void setRunShown(bool shown);
    // Write the shown run's receipt to `path`, or the review bundle into `folder`, as the menu entries do
    // after their file dialogs; false when there is no run or an export is still being made.
    bool writeReceipt(const QString& path);
    bool writeBundle(const QString& folder);
    // The shown run as Chrome trace JSON for Perfetto (core's pl::writeTimeline, on the worker, atomically), as
    // Export > Timeline (Perfetto) does after its file dialog; false when there is no run or an export is busy.
    bool writeTimeline(const QString& path);
    // The four modes run on the workload as it is now, each with its receipt made for its conservation check,
    // then `path` written: FILE.csv a row per mode, FILE.json (or no extension) preemptlab.compare.v1, the
    // bytes `preemptlab-cli compare WORKLOAD --out FILE` writes. Another extension is refused, as by the CLI.
    bool writeComparison(const QString& path);
    // The review bundle made and written here and now, the receipt too (headless --bundle).
    std::optional<QString> writeBundleNow(const QString& folder);
    // The bundle has compare.png, compare.json and the comparison's table where the Compare view's result is of the workload
    // as it is and the run on screen is of that workload too.
    bool comparisonInBundle() const;
    // That table for summary.md, or empty where the bundle has no comparison.
    QString compareMarkdown() const;
    // The review bundle's files that `folder` already holds (receipt.json, ledger.csv, the views' PNGs,
    // compare.png, compare.json, summary.md).
    QStringList bundleFilesIn(const QString& folder) const;
    // What the menu entry does once a folder is chosen: where the folder holds an earlier bundle, asks before
    // replacing it (as a save dialog does for one file; Cancel is the default and writes nothing), then
    // writeBundle. False when nothing was started.
    bool writeBundleAsking(const QString& folder);
    bool busy() const;
    void waitForIdle();
    // Where the export dialogs open (QSettings "export/folder", kept across restarts): the folder of the last
    // file exported or the last bundle's folder; empty (the current folder) before any, or once it is gone.
    static QString lastFolder();
    // `name` in lastFolder(), or `name` alone: a save dialog's starting path.
    static QString startPath(const QString& name);

  signals:
    // Once per export that started, when it has ended: true when everything was written.
    void finished(bool ok);

  private:
    void exportReceipt();
    void exportCsv();
    void exportComparison();
    void exportTimeline();
    void exportView(const QString& name);
    void exportBundle();
    void done(const std::optional<QString>& error, const QString& what);
    static void rememberFolderOf(const QString& path); // a chosen file's folder (nothing for a cancelled dialog)
    // Makes the shown run's receipt on the worker behind the busy dialog, then `write(receipt)` on this
    // thread; an error making it is reported for `target`. False, doing nothing, without a run or while busy.
    bool startReceipt(const BackgroundJob::Text& text, const QString& target,
                      std::function<void(const std::string& receipt)> write);
    MainWindow* window_;
    BackgroundJob* job_;
    QList<QAction*> needRun_;
};

} // namespace plui
