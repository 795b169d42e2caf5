#pragma once
// PlotsWidget: the running plots of one run: occupancy and queue length over ticks, cumulative replay tokens
// and swap bytes, and the TTFT-like and TPOT-like distributions: in ms when the workload gives config.tick_us
// (ticks in their tooltips), else in ticks. A dashed line marks the cursor tick.

#include <QWidget>

#include <memory>

class QCustomPlot;

namespace plui {

class LabDocument;

// The least heights the plots keep; a shorter dock scrolls them.
inline constexpr int kLinePlotMinHeight = 175;
inline constexpr int kHistogramMinHeight = 145;

class PlotsWidget : public QWidget {
    Q_OBJECT
  public:
    explicit PlotsWidget(LabDocument* doc, QWidget* parent = nullptr);
    ~PlotsWidget() override;
    // 0: occupancy/queue, 1: cumulative costs, 2: TTFT-like, 3: TPOT-like.
    QCustomPlot* plot(int i) const;
    // The four plots without the scroll area around them, at their whole size: what a picture of this view
    // draws (a short dock shows part of them).
    QWidget* content() const;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    struct Impl;
    std::unique_ptr<Impl> d;
    void rebuild();
    void updateCursor();
    // Sets histogram plot i's (2 or 3) caption from its parts, breaking the percentiles over as many lines as
    // the plot's width needs: a line wider than the plot is cut at its edge, and "p99 4856" read "p99 485".
    void fitCaption(int i);
};

} // namespace plui
