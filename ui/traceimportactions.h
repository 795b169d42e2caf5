#pragma once
// TraceImportActions: File > Import Trace (Ctrl+I). Picks an Azure CSV or Mooncake JSONL file, asks for
// core's import options (ImportTraceDialog), runs the import on a worker thread under a busy dialog
// (BackgroundJob), and opens the slice as an unsaved workload whose notes say where it came from; the importer's
// summary goes to the status bar. Errors (file, line, column, reason) get the lab's error dialog and the open
// workload stays. Cancel sets the worker's stop flag: the worker ends within a few thousand rows or
// comparisons, and until it has, the action stays disabled and start() refuses, so two imports
// never hold their memory at once.

#include "ui/mainwindow.h"
#include "ui/traceimportjob.h"

#include <QObject>
#include <QString>

class QAction;
class QMenu;

namespace plui {

class BackgroundJob;

class TraceImportActions : public QObject {
    Q_OBJECT
  public:
    explicit TraceImportActions(MainWindow* window);
    QAction* addTo(QMenu* menu);

    // Starts an import on a worker thread; false if one is running or still stopping after a Cancel, a big
    // workload file is being opened (MainWindow::readingFile), or the
    // user keeps unsaved edits (MainWindow::confirmDiscardEdits, as for Open). Edits made while it runs are
    // asked about again before the slice replaces them.
    bool start(const TraceImportJob& job);
    // True from start() until the worker has returned, a cancelled one included.
    bool busy() const;
    void cancel(); // as the dialog's Cancel
    void waitForIdle();
    // The summary of the last successful import ("Imported from FILE (azure trace, N requests): ...").
    QString lastSummary() const { return lastSummary_; }

  signals:
    // Once per start(), when the worker has returned: true when the slice was opened.
    void finished(bool ok);

  private:
    void chooseAndImport();
    void onDone(const TraceImportJob& job, TraceImportOutcome outcome);
    MainWindow* window_;
    BackgroundJob* job_; // a child: destroying the lab stops a running worker (BackgroundJob)
    QAction* action_ = nullptr;
    MainWindow::ReadStart start_; // what the import may replace when it lands (MainWindow::mayReplace)
    QString lastSummary_;
};

} // namespace plui
