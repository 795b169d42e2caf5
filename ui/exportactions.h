#pragma once
// ExportActions: the Export menu. Receipt, ledger CSV, a screenshot of the window or of any single view
// (PNG, SVG or PDF by the chosen suffix), and the review bundle folder.

#include <QList>
#include <QObject>

class QAction;
class QMenu;

namespace plui {

class MainWindow;

class ExportActions : public QObject {
    Q_OBJECT
  public:
    explicit ExportActions(MainWindow* window);
    void buildMenu(QMenu* menu);
    // The views written into a review bundle, as (file stem, widget).
    QList<QPair<QString, QWidget*>> bundleViews() const;
    // The receipt, ledger CSV and review bundle need a run: disabled, saying so, until there is one.
    void setRunShown(bool shown);

  private:
    void exportReceipt();
    void exportCsv();
    void exportView(const QString& name);
    void exportBundle();
    void done(const std::optional<QString>& error, const QString& what);
    MainWindow* window_;
    QList<QAction*> needRun_;
};

} // namespace plui
