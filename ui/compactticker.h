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

// A logarithmic axis's ticks at 1, 2 and 5 times powers of ten (only the powers over more than three
// decades; 1 to 9 times them inside one decade), labelled compactly ("20k", "500"), no sub-ticks: the stock log
// ticker falls back to linear steps on short ranges, which crowd together at the top of a log axis.
class LogTicker125 : public QCPAxisTicker {
  protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    QVector<double> createSubTickVector(int subTickCount, const QVector<double>& ticks) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

// A byte axis in binary units, as the ledger and the CLI print bytes: steps of a power of two bytes (256 KiB,
// 1 MiB), labelled "768 KiB", "1.5 MiB", never decimal "5M" beside a ledger that says 4.77 MiB.
class BytesTicker : public QCPAxisTicker {
  protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};
// "512 KiB", "1.5 MiB", "0 B": at most three significant figures.
QString compactBytes(double bytes);

// Gives the plot's key axis (and, when asked, its value axes) a CompactTicker (whole steps unless told); the
// tick counts then follow the plot's size at every layout (fitTickCounts; a change replots once more).
void useCompactTicks(QCustomPlot* plot, bool valueAxesToo = true, bool wholeSteps = true);
// Pixels of axis height per value tick: 2 to 6 ticks, where QCustomPlot aims at 5 at any size (nine labels
// over each other on a 40 px plot; "0 1002003004005000" on a 200 px wide one).
inline constexpr int kValueTickSpacingPx = 50;
// Sets the key axis's tick count from the axis rect's width and the value axes' from its height, as laid out
// now; true when a count changed (the ticks on screen were made with the old one).
bool fitTickCounts(QCustomPlot* plot);

// Shows the plot's legend under the axes (8 pt unless told), where it covers no data: in one row while the plot is wide
// enough for every entry, else in as many columns as fit (fitLegend, on every resize).
void legendBelow(QCustomPlot* plot, int pointSize = 8);
// Re-wraps a legendBelow legend to the plot's width; call it after adding or removing legend entries.
void fitLegend(QCustomPlot* plot);

// Where there is no run, a plot draws no key or value axis (QCustomPlot's own 0..5 scales read as a run of
// nothing) and says why in a grey note on its axes ("emptyNote", LabDocument::noRunReason). With a run the axes
// are back and the note hidden. The right value axis is the caller's.
void showNoRun(QCustomPlot* plot, bool noRun, const QString& why);

} // namespace plui
