#pragma once
// FileActions: the File menu. Open (dialog), Open Recent (kept in QSettings), the bundled samples (each
// with its notes as the tooltip and status tip), Generate, Import Trace (TraceImportActions), Save Workload As
// (core writes the JSON), Save Workload (Ctrl+S: back to the file it came from; a bundled sample, an unwritable
// file or a workload never saved goes to Save As), Quit.

#include <QObject>
#include <QStringList>

class QAction;
class QMenu;

namespace plui {

class MainWindow;
class TraceImportActions;

class FileActions : public QObject {
    Q_OBJECT
  public:
    explicit FileActions(MainWindow* window);
    void buildMenu(QMenu* menu);
    void addRecent(const QString& path);
    void removeRecent(const QString& path); // a remembered file that is gone
    QStringList recentFiles() const;
    // Bundled samples: (resource path, name, notes).
    struct Sample {
        QString path;
        QString name;
        QString notes;
    };
    static QList<Sample> bundledSamples();
    TraceImportActions* traceImports() const { return imports_; }
    // Save Workload As: asks for a path, writes atomically, marks the edits saved. False if cancelled or failed.
    bool saveAs();
    // Save Workload: writes to the file the workload came from, atomically, else (a sample, an unwritable file,
    // one never saved) asks as Save As does. A failed write keeps the old file and names file and reason.
    bool save();
    // Where Save writes without asking: the workload's own file when it can be written, else empty.
    QString saveTarget() const;
    QAction* saveAction() const { return save_; }

  private:
    bool writeTo(const QString& path);
    void rebuildRecentMenu();
    void openDialog();
    MainWindow* window_;
    QMenu* recentMenu_ = nullptr;
    QAction* save_ = nullptr;
    TraceImportActions* imports_;
};

} // namespace plui
