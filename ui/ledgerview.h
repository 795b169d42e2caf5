#pragma once
// LedgerView: the victim ledger table and, for the selected row, "why this victim": every candidate of that
// decision ranked by the policy's victim-rule key (first row = the victim). Selecting a row moves the lab
// to that tick and selects the victim everywhere. Above it, what caused the eviction (pl::evictionCause): who
// needed how many blocks with how many free, or the engine rule that fired, and whether the requester evicted
// itself.

#include <QWidget>

#include <cstddef>

class QLabel;
class QTableView;
class QTableWidget;

namespace pl {
class Session;
}

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
    QString whyText() const; // the "why" panel's text, as shown (rich text)
    void selectRow(int row);

  private:
    void showCandidates(int row);
    void followCursor();
    LabDocument* doc_;
    LedgerModel* model_;
    QTableView* table_;
    static QString causeText(const pl::Session& s, std::size_t evictIndex);
    // What became of the victim (core's evictionOutcome): when and how it came back, what the prefix cache
    // spared it, whether it was taken again or the run ended first.
    static QString outcomeText(const pl::Session& s, std::size_t evictIndex);
    QLabel* why_;
    QTableWidget* candidates_;
};

} // namespace plui
