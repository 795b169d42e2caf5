#include "compactticker.h"

#include <algorithm>
#include <array>
#include <cmath>

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

void useCompactTicks(QCustomPlot* plot, bool valueAxesToo, bool wholeSteps) {
    QSharedPointer<QCPAxisTicker> ticker(new CompactTicker(wholeSteps));
    plot->xAxis->setTicker(ticker);
    if (valueAxesToo) {
        plot->yAxis->setTicker(ticker);
        plot->yAxis2->setTicker(ticker);
    }
}

void legendBelow(QCustomPlot* plot) {
    QCPLegend* legend = plot->legend;
    plot->axisRect()->insetLayout()->take(legend);
    const int row = plot->plotLayout()->rowCount();
    plot->plotLayout()->addElement(row, 0, legend);
    plot->plotLayout()->setRowStretchFactor(row, 0.001);
    plot->plotLayout()->setRowSpacing(0);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setVisible(true);
    QFont f = plot->font();
    f.setPointSize(8);
    legend->setFont(f);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setMargins(QMargins(4, 0, 4, 0));
}

} // namespace plui
