#pragma once
// Axis labels that stay short at any magnitude ("950", "12k", "3.5M", "2G"), so a plot over a 370,000-tick
// trace or gigabytes of swap does not run its tick labels into each other.

#include <qcustomplot.h>

#include <QString>

namespace plui {

// v with at most three significant figures and a k/M/G/T suffix from 10,000 up; plain below.
QString compactNumber(double v);

class CompactTicker : public QCPAxisTicker {
  public:
    // wholeSteps: the axis counts whole things (ticks, blocks, requests, bytes): ticks 1 apart at the least
    // and never at "12.5 blocks".
    explicit CompactTicker(bool wholeSteps = false) : wholeSteps_(wholeSteps) {}

  protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
    double getTickStep(const QCPRange& range) override;

  private:
    bool wholeSteps_;
};

// Gives the plot's key axis (and, when asked, its value axes) a CompactTicker (whole steps unless told).
void useCompactTicks(QCustomPlot* plot, bool valueAxesToo = true, bool wholeSteps = true);

// Shows the plot's legend in one row under the axes (8 pt), where it covers no data.
void legendBelow(QCustomPlot* plot);

} // namespace plui
