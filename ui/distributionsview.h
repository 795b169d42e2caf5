#pragma once
// DistributionsView: the run's latency distributions by bucket (issue 26), drawn from core's review report
// (core/review/report.h, what `preemptlab-cli report` prints): for the chosen metric and grouping one box per
// group, from p50 to p90 with a whisker to p99 and a dot at the maximum, each group labelled with its request
// count and its censored count. In ms when the workload gives config.tick_us (ticks in the tooltips), else in
// ticks. It is of the whole finished run, not of the cursor (the caption says so), and follows the run: a new
// run (an edit, another workload) redraws it. The choice of metric and grouping is kept in QSettings. With the
// lab's SLOs (LabSlos; its two fields here, in ms or ticks as the workload allows) it shows the run's goodput
// and each group's (core's pl::review::goodput: censored requests count as misses).

#include <QWidget>

#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;

namespace pl::review {
struct RunOutcomes;
} // namespace pl::review

namespace plui {

class LabDocument;
class LabSlos;
struct DistributionTable;
enum class DistMetric;
enum class DistGrouping;

class DistributionsView : public QWidget {
    Q_OBJECT
  public:
    // `slos`: the lab's objectives (none: no SLO fields, no goodput).
    explicit DistributionsView(LabDocument* doc, LabSlos* slos = nullptr, QWidget* parent = nullptr);
    ~DistributionsView() override;

    // Draw `run` instead of the document's run (tests with hand-made outcomes); the next run replaces it.
    void showOutcomes(const pl::review::RunOutcomes& run);
    // Made current now if a run came while the view was hidden (it is rebuilt when shown): before it is drawn
    // off screen (the review bundle's distributions.png).
    void ensureCurrent();
    void setMetric(DistMetric m);
    void setGrouping(DistGrouping g);
    DistMetric metric() const;
    DistGrouping grouping() const;
    // What is drawn now: the rows, their unit and counts.
    const DistributionTable& table() const;
    QCustomPlot* plot() const;
    QLabel* caption() const;
    QLabel* goodputLabel() const; // the run's goodput under the SLOs, or what to set to see it
    QLineEdit* sloField(bool ttft) const; // nullptr without LabSlos
    QComboBox* metricChooser() const;
    QComboBox* groupingChooser() const;

  protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    struct Impl;
    std::unique_ptr<Impl> d;
    void buildControls();
    void buildSloFields();
    void rebuildFromRun(); // the document's run, through core's report
    void rebuildReport();  // core's report of the outcomes under the SLOs now set
    void redraw();         // the current report, metric and grouping
    void fitValueRange(); // the value axis: the tallest figure and room for its label over it
    void showToolTip(QMouseEvent* event);
};

} // namespace plui
