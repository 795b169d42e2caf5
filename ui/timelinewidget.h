#pragma once
// TimelineWidget: one lane per request over ticks, coloured and patterned by state (TimelineModel), with the
// starvation markers (triangle: excessive wait; cross: repeated preemption) and the cursor tick. Hover shows
// the request and its state; click selects the request; double-click moves the cursor to that tick. The lanes
// of this tick's victims are framed in red with a bar in their gutter; with more requests than can be named
// one by one, the value axis labels its ticks with request ids and always names this tick's victims.
// Flagged Requests Only (View menu and the plot's context menu, Ctrl+Shift+F, kept in QSettings) draws only the
// lanes of requests with a starvation marker; Export > Timeline follows it (shownRequests).
// QCustomPlot stays behind the pimpl.

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class QAction;
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
    const TimelineModel& model() const; // the lanes drawn (lane -> request: model().requests)
    // The checkable View > Flagged Requests Only action (the window puts it in its View menu).
    QAction* flaggedOnlyAction() const;
    bool flaggedOnly() const;
    // The requests whose lanes are drawn when filtered (request indices, ascending); empty when every one is.
    std::vector<std::int32_t> shownRequests() const;
    // The lane under a widget position of the plot, or -1.
    int laneAt(QPoint plotPos) const;
    // The lanes tinted as this tick's victims (lane indices: requests' where every request is drawn).
    const std::vector<int>& victimLanes() const;
    // The lanes framed as requesters: the requests whose need caused this tick's evictions (dashed violet).
    const std::vector<int>& requesterLanes() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> d;
    void onChanged(int what);
    void rebuild();
    bool updateCursor(); // true when the lanes must be redrawn too (the view followed, the victims changed)
    void followCursor(std::int64_t tick);
    void updateSelection();
};

} // namespace plui
