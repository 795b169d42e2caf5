#pragma once
// TraceImportActions: File > Import Trace (Ctrl+I). Picks an Azure CSV or Mooncake JSONL file, asks for
// core's import options (ImportTraceDialog), runs the import on a worker thread (QtConcurrent) under a busy
// dialog, and opens the slice as an unsaved workload whose notes say where it came from; the importer's
// summary goes to the status bar. Errors (file, line, column, reason) get the lab's error dialog and the open
// workload stays.

#include "traceimportjob.h"

#include <QObject>
#include <QString>

#include <cstdint>

class QAction;
class QMenu;
class QProgressDialog;

namespace plui {

class MainWindow;

class TraceImportActions : public QObject {
    Q_OBJECT
  public:
    explicit TraceImportActions(MainWindow* window);
    QAction* addTo(QMenu* menu);

    // Starts an import on a worker thread; false if one is already running or the user keeps unsaved edits
    // (MainWindow::confirmDiscardEdits, as for Open). Edits made while it runs are asked about again before the
    // slice replaces them.
    bool start(const TraceImportJob& job);
    bool busy() const { return busy_; }
    void waitForIdle();
    // The summary of the last successful import ("Imported from FILE (azure trace, N requests): ...").
    QString lastSummary() const { return lastSummary_; }

  signals:
    void finished(bool ok);

  private:
    void chooseAndImport();
    void closeProgress();
    void onDone(const TraceImportJob& job, TraceImportOutcome outcome);
    MainWindow* window_;
    QProgressDialog* progress_ = nullptr;
    bool busy_ = false;
    std::uint64_t generation_ = 0;
    int undoIndexAtStart_ = 0; // edits made while the import ran (before its dialog shows) are asked about again
    QString lastDir_;
    QString lastSummary_;
};

} // namespace plui
