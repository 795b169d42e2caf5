#pragma once
// TimelineWidget: one lane per request over ticks, coloured and patterned by state (TimelineModel), with the
// starvation markers (triangle: excessive wait; cross: repeated preemption) and the cursor tick. Hover shows
// the request and its state; click selects the request; double-click moves the cursor to that tick.
// QCustomPlot stays behind the pimpl.

#include <QWidget>

#include <cstdint>
#include <memory>

class QCustomPlot;

namespace plui {

class LabDocument;
struct TimelineModel;

class TimelineWidget : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineWidget(LabDocument* doc, QWidget* parent = nullptr);
    ~TimelineWidget() override;
    QCustomPlot* plot() const;
    const TimelineModel& model() const;
    // The lane under a widget position of the plot, or -1.
    int laneAt(QPoint plotPos) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> d;
    void onChanged(int what);
    void rebuild();
    void updateCursor();
    void followCursor(std::int64_t tick);
    void updateSelection();
};

} // namespace plui
