#include "ui/compactticker.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <QEvent>

namespace plui {

QString compactNumber(double v) {
    const double a = std::abs(v);
    if (a < 10000) return QString::number(v, 'g', 6);
    struct Unit {
        double scale;
        const char* suffix;
    };
    static constexpr std::array<Unit, 4> units{{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
    for (const Unit& u : units) {
        if (a >= u.scale) return QString::number(v / u.scale, 'g', 3) + QLatin1String(u.suffix);
    }
    return QString::number(v, 'g', 6);
}

QString CompactTicker::getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) {
    if (std::abs(tick) < 10000) return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision);
    return compactNumber(tick);
}

double CompactTicker::getTickStep(const QCPRange& range) {
    const double step = QCPAxisTicker::getTickStep(range);
    return wholeSteps_ ? std::max(1.0, std::floor(step)) : step;
}

QVector<double> LogTicker125::createTickVector(double, const QCPRange& range) {
    QVector<double> ticks;
    if (!(range.lower > 0) || !(range.upper > range.lower)) return ticks;
    const double decades = std::log10(range.upper / range.lower);
    static const std::vector<double> kPowers{1}, k125{1, 2, 5}, kAll{1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<double>& steps = decades > 3 ? kPowers : (decades > 0.8 ? k125 : kAll);
    const int first = static_cast<int>(std::floor(std::log10(range.lower)));
    const int last = static_cast<int>(std::ceil(std::log10(range.upper)));
    for (int k = first; k <= last; ++k) {
        for (const double m : steps) {
            const double v = m * std::pow(10.0, k);
            if (v >= range.lower && v <= range.upper) ticks.push_back(v);
        }
    }
    // A range inside one step of 1-9 x 10^k (120 to 180): the plain linear ticks, rather than none.
    if (ticks.size() < 2) return QCPAxisTicker::createTickVector(QCPAxisTicker::getTickStep(range), range);
    return ticks;
}

QVector<double> LogTicker125::createSubTickVector(int, const QVector<double>&) { return {}; }

QString LogTicker125::getTickLabel(double tick, const QLocale&, QChar, int) {
    // Round away the float noise of m * 10^k before printing ("2e-05", "300k").
    return compactNumber(QString::number(tick, 'g', 6).toDouble());
}

namespace {
// The binary unit a byte value is shown in: 1 (B), 1024 (KiB), ... 1024^4 (TiB).
double byteUnit(double bytes, const char** suffix) {
    static constexpr std::array<const char*, 5> kSuffix{"B", "KiB", "MiB", "GiB", "TiB"};
    double unit = 1;
    std::size_t i = 0;
    while (i + 1 < kSuffix.size() && std::abs(bytes) >= unit * 1024) {
        unit *= 1024;
        ++i;
    }
    *suffix = kSuffix[i];
    return unit;
}
} // namespace

QString compactBytes(double bytes) {
    const char* suffix = nullptr;
    const double unit = byteUnit(bytes, &suffix);
    const double v = bytes / unit; // under 1024
    return (std::abs(v) >= 100 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3)) + QLatin1Char(' ') +
           QLatin1String(suffix);
}

double BytesTicker::getTickStep(const QCPRange& range) {
    // The stock step rounded up to a power of two of a binary unit (256 KiB, 1 MiB, 2 GiB), so every label is a
    // round figure in bytes' own terms: 0, 256 KiB, 512 KiB, 768 KiB, 1 MiB.
    const double raw = QCPAxisTicker::getTickStep(range);
    if (!(raw > 1)) return 1;
    return std::pow(2.0, std::ceil(std::log2(raw)));
}

QString BytesTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return compactBytes(tick); }

void useCompactTicks(QCustomPlot* plot, bool valueAxesToo, bool wholeSteps) {
    plot->xAxis->setTicker(QSharedPointer<CompactTicker>::create(wholeSteps));
    // The value axes get tickers of their own: their tick count follows the height, the key axis's the width.
    if (valueAxesToo) {
        for (QCPAxis* a : {plot->yAxis, plot->yAxis2}) a->setTicker(QSharedPointer<CompactTicker>::create(wholeSteps));
    }
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
        if (fitTickCounts(plot)) plot->replot(QCustomPlot::rpQueuedReplot);
    });
}

bool fitTickCounts(QCustomPlot* plot) {
    bool changed = false;
    const auto set = [&](QCPAxis* a, int count) {
        if (a->ticker()->tickCount() == count) return;
        a->ticker()->setTickCount(count);
        changed = true;
    };
    const int yCount = std::clamp(plot->axisRect()->height() / kValueTickSpacingPx + 1, 2, 6);
    for (QCPAxis* a : {plot->yAxis, plot->yAxis2}) set(a, yCount);
    // A key label is at most five characters ("1.5M", "37500"): room for it and a gap, or labels touch.
    const int labelPx = QFontMetrics(plot->xAxis->tickLabelFont()).horizontalAdvance(QStringLiteral("00000")) + 18;
    set(plot->xAxis, std::clamp(plot->axisRect()->width() / labelPx, 2, 6));
    return changed;
}

namespace {
// Re-wraps the legend of the plot it watches whenever that plot is resized.
class LegendFitter : public QObject {
  public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) fitLegend(static_cast<QCustomPlot*>(watched));
        return false;
    }
};
} // namespace

void fitLegend(QCustomPlot* plot) {
    QCPLegend* legend = plot->legend;
    // itemCount() counts the grid's cells, and a wrapped grid has empty ones at its end.
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (const QCPAbstractLegendItem* item = legend->item(i)) widths.push_back(item->minimumOuterSizeHint().width());
    }
    const int n = static_cast<int>(widths.size());
    if (n == 0) return;
    const int available = plot->width() - legend->margins().left() - legend->margins().right();
    // The most columns whose widest entries, side by side, fit; one column at the least.
    int columns = n;
    for (; columns > 1; --columns) {
        int total = legend->columnSpacing() * (columns - 1);
        for (int c = 0; c < columns; ++c) {
            int widest = 0;
            for (int i = c; i < n; i += columns) widest = std::max(widest, widths[static_cast<std::size_t>(i)]);
            total += widest;
        }
        if (total <= available) break;
    }
    // As few columns as keep that many rows: six entries that fit five to a row go three and three, not five
    // and a lone sixth.
    const int rows = (n + columns - 1) / columns;
    columns = (n + rows - 1) / rows;
    if (legend->wrap() == columns && legend->columnCount() == std::min(n, columns)) return;
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

void legendBelow(QCustomPlot* plot, int pointSize) {
    QCPLegend* legend = plot->legend;
    plot->axisRect()->insetLayout()->take(legend);
    const int row = plot->plotLayout()->rowCount();
    plot->plotLayout()->addElement(row, 0, legend);
    plot->plotLayout()->setRowStretchFactor(row, 0.001);
    plot->plotLayout()->setRowSpacing(0);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setVisible(true);
    QFont f = plot->font();
    f.setPointSize(pointSize);
    legend->setFont(f);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setMargins(QMargins(4, 0, 4, 0));
    plot->installEventFilter(new LegendFitter(plot));
}

void showNoRun(QCustomPlot* plot, bool noRun, const QString& why) {
    auto* note = plot->findChild<QCPItemText*>(QStringLiteral("emptyNote"));
    if (!note) {
        note = new QCPItemText(plot);
        note->setObjectName(QStringLiteral("emptyNote"));
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.5, 0.5);
        note->setColor(QColor(0x6b, 0x72, 0x80));
    }
    note->setText(why);
    note->setVisible(noRun);
    plot->xAxis->setVisible(!noRun);
    plot->yAxis->setVisible(!noRun);
    if (noRun) plot->yAxis2->setVisible(false);
}

} // namespace plui
