#pragma once
// WorkloadPanel: the open workload's name and notes, and its requests in an editable table (undoable edits,
// refused ones explained). Selecting a row selects the request everywhere.

#include <QWidget>

class QLabel;
class QTableView;

namespace plui {

class LabDocument;
class RequestTableModel;

class WorkloadPanel : public QWidget {
    Q_OBJECT
  public:
    explicit WorkloadPanel(LabDocument* doc, QWidget* parent = nullptr);
    QTableView* table() const { return table_; }
    RequestTableModel* model() const { return model_; }

  private:
    LabDocument* doc_;
    QLabel* notes_;
    QLabel* error_;
    QTableView* table_;
    RequestTableModel* model_;
    bool syncing_ = false;
};

} // namespace plui
