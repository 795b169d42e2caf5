#pragma once
// CompareView (compareview.cpp; the table in comparetable.cpp): recompute, swap, adaptive and hybrid on the current workload side by side, from one click (or
// the tick model and the engine profiles, as `compare --engines`):
// totals in a table (the best figure of each row bold; latencies in ms where the workload gives config.tick_us,
// ticks in their tooltips; ITL, and goodput under the lab's SLOs), completion and queue-delay distributions as
// cumulative curves, and who was flagged under each. Runs off the UI thread with progress and cancel.

#include "ui/adaptivepanes.h"

#include <QList>
#include <QWidget>

#include <memory>

class QAction;
class QVBoxLayout;
class QComboBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace pl::review {
struct Slos;
}

namespace plui {

class AdaptivePanes;
class LabDocument;
class LabSlos;
struct CompareResult;
enum class CompareKind;

class CompareView : public QWidget {
    Q_OBJECT
  public:
    explicit CompareView(LabDocument* doc, QWidget* parent = nullptr);
    ~CompareView() override;
    // What the next comparison sets side by side (the combo beside the button; kept in QSettings).
    CompareKind kind() const;
    void setKind(CompareKind k);
    void start();          // background run (the button)
    void runNow();         // synchronous (headless, tests)
    void cancel();
    bool running() const;
    bool hasResult() const;
    // A result for the workload as it is now (none before the first run, after an edit or a stopped run).
    bool isCurrent() const;
    // The result shown compares the engines (the review bundle's compare.json holds the recovery modes only).
    bool showsEngines() const;
    // The table as markdown (best figures bold), then the notes under it: for the review bundle's summary.md.
    QString markdown() const;
    // An action offered in the table's context menu too, beside Copy Table (Export > Comparison).
    void addTableAction(QAction* action);
    // The table as tab-separated text (a header row of the modes, then a row per figure, as shown): what Ctrl+C
    // on the table and its context menu's "Copy Table" put on the clipboard, for a spreadsheet or a review.
    QString tabSeparated() const;
    QTableWidget* totalsTable() const { return table_; }
    QString fallbackNoteText() const; // under the table: modes whose every swap found host memory full
    QString statusText() const;
    QCustomPlot* plot(int i) const; // 0: completion, 1: queue delay
    // The table and the two CDFs: side by side, or tabs where the view is small (a dock in the window's row).
    AdaptivePanes* panes() const { return panes_; }
    // The lab's SLOs: with any set, the table gains a goodput row (core's pl::review::goodput per mode,
    // censored requests as misses), redrawn when they change.
    void setSlos(LabSlos* slos);

  signals:
    void finished();
    void runningChanged(bool running);

  private:
    // The constructor's builders, in order.
    void createBar(QVBoxLayout* layout);
    QList<AdaptivePanes::Pane> createSummaryPanes();
    void createPanes(QVBoxLayout* layout);
    void connectJob();
    void show(const CompareResult& r);
    // show()'s parts, in the order they fill the view.
    int fillSummaryRows(const CompareResult& r, int extraRows, QStringList& vheaders, bool& anyPopulationDiffers);
    void setExtraItem(int row, int c, const QString& text, const QString& tip, bool best);
    void fillItlRows(const CompareResult& r, int first, QStringList& vheaders);
    void fillGoodputRow(const CompareResult& r, const pl::review::Slos& slos, int row, QStringList& vheaders);
    void fillFlagged(const CompareResult& r);
    QString resultNoteOf(const CompareResult& r, bool anyPopulationDiffers) const;
    // The header row, then each figure's row: its label and the text of each mode's cell; `bold` marks best.
    QList<QStringList> cells(bool markBest) const;
    struct Impl;
    std::unique_ptr<Impl> d;
    LabDocument* doc_;
    QComboBox* kind_;
    QPushButton* run_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* status_;
    QTableWidget* table_;
    QLabel* fallbackNote_;
    QLabel* flagged_;
    AdaptivePanes* panes_;
};

} // namespace plui
