#pragma once
// SweepView: the crossover map (issue 26). Shows one pl::cost::SweepResult as core computed it: over one axis, each
// mode's metric along the axis with the winner marked and the flips as dashed lines; over two, a heat map of the
// winning mode (one colour per mode, grey for a tie) with the flip boundary drawn between the cells that
// SweepPoint::flip_axes names and, on small grids, each cell's margin written in it. Hovering a point shows its
// values, every mode's metric, the winner and the margin. Clicking a point asks to open it (pointActivated); the
// buttons ask for a new sweep, a result file or a shard plan. Views only show: SweepActions does the work.

#include "core/cost/sweep.h"

#include <QColor>
#include <QLineF>
#include <QWidget>

#include <optional>
#include <vector>

class QCPColorMap;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace plui {

class SweepView : public QWidget {
    Q_OBJECT
  public:
    explicit SweepView(QWidget* parent = nullptr);
    ~SweepView() override;

    // Shows `result`; `source` says where it came from ("the open workload", a file name).
    void setResult(pl::cost::SweepResult result, const QString& source);
    const std::optional<pl::cost::SweepResult>& result() const { return result_; }
    QString caption() const;
    QCustomPlot* plot() const { return plot_; }
    // Two axes: the heat map (cell x = index on the last axis, y = index on the first), whose cell value is the
    // winner's index in categories(). nullptr otherwise.
    QCPColorMap* heatMap() const { return heatMap_; }
    // The flip boundary, in cell coordinates: one segment per flip between two neighbouring cells.
    const std::vector<QLineF>& boundary() const { return boundary_; }
    // The heat map's categories, one colour each: the sweep's modes in its order, then each tie that occurs
    // ("recompute=adaptive") in point order. A cell's value is its winner's index here.
    const std::vector<std::string>& categories() const { return categories_; }
    static std::vector<std::string> winnerCategories(const pl::cost::SweepResult& result);
    // A category's colour: a mode's own (modeColor); a tie's the mean of its modes', lightened.
    static QColor categoryColor(const std::string& category);
    // The point drawn at pixel `pos` of the plot (nearest on one axis, the cell on two); none outside.
    std::optional<std::size_t> pointAt(const QPoint& pos) const;
    // The pixel centre of point `index` on the plot (tests click there).
    QPoint pixelOf(std::size_t index) const;
    QString pointText(std::size_t index) const; // the tooltip: values, each mode's metric, winner, margin

  signals:
    void pointActivated(std::size_t index);
    void runRequested();
    void openRequested();
    void shardPlanRequested();

  private:
    void drawLines();
    void drawHeatMap();
    void clearPlot();
    QCustomPlot* plot_;
    QLabel* caption_;
    QPushButton* shardPlan_;
    QCPColorMap* heatMap_ = nullptr;
    std::vector<QLineF> boundary_;
    std::vector<std::string> categories_;
    std::optional<pl::cost::SweepResult> result_;
    QString source_;
};

} // namespace plui
