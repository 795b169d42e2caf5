#pragma once
// The lab's tick cursor on a plot: a dark dashed line over a pale halo, so it reads on every lane and bar colour
// and is never taken for the red that marks a preempted request or a victim. It lives on its own buffered
// layer above the data: moving it repaints that layer only.

#include <QString>

class QCustomPlot;
class QCPItemStraightLine;

namespace plui {

class PlotCursor {
  public:
    explicit PlotCursor(QCustomPlot* plot, double width = 1.5);
    // A vertical line at key coordinate x.
    void moveTo(double x);
    void setVisible(bool visible); // hidden where there is no run to point into
    // Repaints the cursor's layer alone (the data layers stay as drawn).
    void replotLayer();
    // The cursor's layer, for what must be drawn over the cursor and move with it (the timeline's marks of the
    // tick's victims).
    static QString layerName() { return QStringLiteral("cursor"); }

  private:
    QCustomPlot* plot_;
    QCPItemStraightLine* halo_;
    QCPItemStraightLine* line_;
};

} // namespace plui
