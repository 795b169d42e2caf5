#pragma once
// LabBanner: notes a teacher must not miss, in a strip above the pool: the receipt shown read-only (and
// whether it verifies), a livelock in the run. One row per kind, each a sentence (wrapped, never cut) and its
// buttons; the strip is hidden while it has no row. Owners set and clear their own row.

#include <QList>
#include <QWidget>

class QAction;
class QVBoxLayout;

namespace plui {

class LabBanner : public QWidget {
    Q_OBJECT
  public:
    enum class Row { Receipt, Livelock };
    explicit LabBanner(QWidget* parent = nullptr);
    // Shows `text` in `row` (replacing what was there) with a button per action; a warning is drawn in red.
    void setRow(Row row, const QString& text, const QList<QAction*>& actions = {}, bool warning = false);
    void clearRow(Row row);
    // The row's whole text, empty when the row is not shown.
    QString text(Row row) const;

  private:
    QWidget* rowWidget(Row row) const;
    QVBoxLayout* rows_;
};

} // namespace plui
