#pragma once
// FileActions: the File menu. Open (dialog), Open Recent (kept in QSettings), the bundled samples (each
// with its notes as the tooltip and status tip), Generate, Import Trace (TraceImportActions), Save Workload As
// (core writes the JSON), Quit.

#include <QObject>
#include <QStringList>

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

  private:
    void rebuildRecentMenu();
    void openDialog();
    MainWindow* window_;
    QMenu* recentMenu_ = nullptr;
    TraceImportActions* imports_;
};

} // namespace plui
