#pragma once
// FileActions: the File menu. Open (dialog), Open Recent (kept in QSettings), the bundled samples (each
// with its notes as the tooltip and status tip), Save Workload As (core writes the JSON), Quit.

#include <QObject>
#include <QStringList>

class QMenu;

namespace plui {

class MainWindow;

class FileActions : public QObject {
    Q_OBJECT
  public:
    explicit FileActions(MainWindow* window);
    void buildMenu(QMenu* menu);
    void addRecent(const QString& path);
    QStringList recentFiles() const;
    // Bundled samples: (resource path, name, notes).
    struct Sample {
        QString path;
        QString name;
        QString notes;
    };
    static QList<Sample> bundledSamples();

  private:
    void rebuildRecentMenu();
    void openDialog();
    void saveAs();
    MainWindow* window_;
    QMenu* recentMenu_ = nullptr;
};

} // namespace plui
