#pragma once
// LedgerView: the victim ledger table and, for the selected row, "why this victim": every candidate of that
// decision ranked by the policy's victim-rule key (first row = the victim). Selecting a row moves the lab
// to that tick and selects the victim everywhere.

#include <QWidget>

class QLabel;
class QTableView;
class QTableWidget;

namespace plui {

class LabDocument;
class LedgerModel;

class LedgerView : public QWidget {
    Q_OBJECT
  public:
    explicit LedgerView(LabDocument* doc, QWidget* parent = nullptr);
    LedgerModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QTableWidget* candidates() const { return candidates_; }
    void selectRow(int row);

  private:
    void showCandidates(int row);
    void followCursor();
    LabDocument* doc_;
    LedgerModel* model_;
    QTableView* table_;
    QLabel* why_;
    QTableWidget* candidates_;
};

} // namespace plui
