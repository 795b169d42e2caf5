#include "ui/sweepview.h"

#include "ui/compactticker.h"
#include "ui/modecolors.h"

#include "core/number_text.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace plui {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// At most about a dozen labels along an axis of `n` values: every k-th value, the first always.
QSharedPointer<QCPAxisTickerText> valueTicker(const std::vector<std::string>& values) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const std::size_t step = std::max<std::size_t>(1, (values.size() + 11) / 12);
    for (std::size_t i = 0; i < values.size(); i += step) {
        ticker->addTick(static_cast<double>(i), qs(values[i]));
    }
    ticker->setSubTickCount(0);
    return ticker;
}

// A metric or margin as read in a cell or a tooltip: whole, or with two decimals ("+10.19"); past 10,000 compact.
QString figure(double v) {
    if (std::abs(v) >= 10000) return compactNumber(v);
    return qs(pl::formatFixed(v, v == std::floor(v) ? 0 : 2));
}

// A legend entry that is a filled swatch (an empty bar chart).
void addSwatch(QCustomPlot* plot, const QString& name, const QColor& colour) {
    auto* swatch = new QCPBars(plot->xAxis, plot->yAxis);
    swatch->setName(name);
    swatch->setPen(QPen(colour.darker(120)));
    swatch->setBrush(colour);
}

} // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)), caption_(new QLabel(this)) {
    setObjectName(QStringLiteral("sweepView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    auto* run = new QPushButton(tr("Run Sweep..."), this);
    run->setObjectName(QStringLiteral("sweepRunButton"));
    run->setToolTip(tr("Sweep one or two settings of the open workload (Review > Sweep..., Ctrl+Shift+M)"));
    auto* open = new QPushButton(tr("Open Result..."), this);
    open->setObjectName(QStringLiteral("sweepOpenButton"));
    open->setToolTip(tr("A sweep written by preemptlab-cli sweep --out F.json or sweep-merge --out F.json"));
    shardPlan_ = new QPushButton(tr("Export Shard Plan..."), this);
    shardPlan_->setObjectName(QStringLiteral("sweepShardPlanButton"));
    shardPlan_->setToolTip(tr("This sweep split into shards for a Slurm job array: the plan and the two commands"));
    shardPlan_->setEnabled(false);
    connect(run, &QPushButton::clicked, this, &SweepView::runRequested);
    connect(open, &QPushButton::clicked, this, &SweepView::openRequested);
    connect(shardPlan_, &QPushButton::clicked, this, &SweepView::shardPlanRequested);
    caption_->setObjectName(QStringLiteral("sweepCaption"));
    caption_->setWordWrap(true);
    caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(caption_, 1);
    bar->addWidget(run);
    bar->addWidget(open);
    bar->addWidget(shardPlan_);
    layout->addLayout(bar);
    plot_->setObjectName(QStringLiteral("sweepPlot"));
    plot_->setMinimumHeight(160);
    plot_->setMouseTracking(true);
    legendBelow(plot_, 9); // under the axes, not over the cells
    layout->addWidget(plot_, 1);
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
        if (event->button() != Qt::LeftButton) return;
        if (auto index = pointAt(event->pos())) emit pointActivated(*index);
    });
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const auto index = pointAt(event->pos());
        if (index) {
            QToolTip::showText(event->globalPosition().toPoint(), pointText(*index), plot_);
        } else {
            QToolTip::hideText();
        }
    });
    clearPlot();
    caption_->setText(tr("No sweep yet. <b>Run Sweep...</b> (Review &gt; Sweep..., Ctrl+Shift+M) sweeps one or two "
                         "settings of the open workload over every recovery mode; <b>Open Result...</b> reads a "
                         "sweep written by <tt>preemptlab-cli sweep --out F.json</tt> or <tt>sweep-merge</tt>."));
}

SweepView::~SweepView() = default;

QString SweepView::caption() const { return caption_->text(); }

std::vector<std::string> SweepView::winnerCategories(const pl::cost::SweepResult& result) {
    std::vector<std::string> out;
    for (const auto m : result.spec.modes) out.emplace_back(pl::toString(m));
    for (const auto& p : result.points) {
        if (std::find(out.begin(), out.end(), p.winner) == out.end()) out.push_back(p.winner);
    }
    return out;
}

QColor SweepView::categoryColor(const std::string& category) {
    int r = 0, g = 0, b = 0, n = 0;
    std::size_t start = 0;
    while (start <= category.size()) {
        const auto eq = category.find('=', start);
        const auto mode = pl::parseRecovery(category.substr(start, eq == std::string::npos ? std::string::npos : eq - start));
        const QColor c = mode ? modeColor(*mode) : unknownModeColor();
        r += c.red();
        g += c.green();
        b += c.blue();
        ++n;
        if (eq == std::string::npos) break;
        start = eq + 1;
    }
    const QColor mean(r / n, g / n, b / n);
    return n == 1 ? mean : QColor(mean.lighter(135).rgb()); // 8 bits a channel, as the gradient gives it
}

void SweepView::clearPlot() {
    plot_->clearPlottables();
    plot_->clearItems();
    plot_->legend->clearItems();
    plot_->legend->setVisible(false);
    heatMap_ = nullptr;
    boundary_.clear();
    categories_.clear();
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    plot_->xAxis->setLabel({});
    plot_->yAxis->setLabel({});
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->grid()->setVisible(true); // the heat map hides them
        axis->grid()->setZeroLinePen(Qt::NoPen); // 0 is the first value's index, not a zero
    }
    plot_->replot();
}

void SweepView::setResult(pl::cost::SweepResult result, const QString& source) {
    result_ = std::move(result);
    source_ = source;
    clearPlot();
    const auto& r = *result_;
    QStringList grid;
    for (const auto& axis : r.spec.axes) grid << QStringLiteral("%1 (%2 values)").arg(qs(axis.key)).arg(axis.values.size());
    std::size_t flips = 0;
    for (const auto& p : r.points) flips += p.flip_axes.empty() ? 0 : 1;
    caption_->setText(tr("<b>%1</b> over %2: %3 points x %4 modes, by <b>%5</b> (lower wins); %6 points where the "
                         "winner differs from a neighbour's. From %7. Click a point to open its run; hover for the margin.")
                          .arg(qs(r.workload_name).toHtmlEscaped(), grid.join(QStringLiteral(" x ")))
                          .arg(r.points.size())
                          .arg(r.spec.modes.size())
                          .arg(qs(pl::cost::toString(r.spec.metric)))
                          .arg(flips)
                          .arg(source.toHtmlEscaped()));
    shardPlan_->setEnabled(true);
    if (r.spec.axes.size() == 1) {
        drawLines();
    } else if (r.spec.axes.size() == 2) {
        drawHeatMap();
    } else {
        caption_->setText(caption_->text() + tr(" The view draws one or two axes; this sweep has %1.").arg(r.spec.axes.size()));
        plot_->replot();
    }
}

void SweepView::drawLines() {
    const auto& r = *result_;
    const auto& axis = r.spec.axes.front();
    const std::size_t n = r.points.size();
    plot_->legend->setVisible(true);
    for (std::size_t m = 0; m < r.spec.modes.size(); ++m) {
        const pl::Recovery mode = r.spec.modes[m];
        auto* line = plot_->addGraph();
        line->setName(qs(pl::toString(mode)));
        // The Compare view's dashes too, so modes that run alike (adaptive = recompute) both show.
        static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
        line->setPen(QPen(modeColor(mode), 2, styles[static_cast<int>(m % 4)]));
        line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(modeColor(mode), 1.5), Qt::white, 5));
        auto* wins = plot_->addGraph();
        wins->setLineStyle(QCPGraph::lsNone);
        wins->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, modeColor(mode), 11));
        wins->removeFromLegend();
        for (std::size_t i = 0; i < n; ++i) {
            const auto& p = r.points[i];
            const double x = static_cast<double>(i);
            line->addData(x, p.results[m].metric);
            // Every mode of a tie is a winner ("swap=hybrid" marks both).
            const std::string name(pl::toString(mode));
            std::size_t start = 0;
            bool won = false;
            while (start <= p.winner.size()) {
                const auto eq = p.winner.find('=', start);
                won = won || p.winner.compare(start, eq == std::string::npos ? std::string::npos : eq - start, name) == 0;
                if (eq == std::string::npos) break;
                start = eq + 1;
            }
            if (won) wins->addData(x, p.results[m].metric);
        }
    }
    auto* winnerKey = plot_->addGraph();
    winnerKey->setName(tr("winner (filled)"));
    winnerKey->setLineStyle(QCPGraph::lsNone);
    winnerKey->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x37, 0x41, 0x51), 9));
    for (std::size_t i = 1; i < n; ++i) {
        if (r.points[i].flip_axes.empty()) continue;
        const double x = static_cast<double>(i) - 0.5;
        auto* flip = new QCPItemStraightLine(plot_);
        flip->setPen(QPen(QColor(0x11, 0x18, 0x27), 1.5, Qt::DashLine));
        flip->point1->setCoords(x, 0);
        flip->point2->setCoords(x, 1);
        boundary_.emplace_back(x, 0.0, x, 1.0);
    }
    plot_->xAxis->setTicker(valueTicker(axis.values));
    plot_->xAxis->setLabel(qs(axis.key));
    plot_->yAxis->setTicker(QSharedPointer<CompactTicker>::create());
    plot_->yAxis->setLabel(tr("%1 (lower wins); dashed: the winner flips").arg(qs(pl::cost::toString(r.spec.metric))));
    plot_->rescaleAxes();
    fitLegend(plot_);
    plot_->xAxis->setRange(-0.5, static_cast<double>(n) - 0.5);
    const QCPRange y = plot_->yAxis->range();
    const double pad = std::max(1e-9, (y.upper - y.lower) * 0.08);
    plot_->yAxis->setRange(y.lower - pad, y.upper + pad);
    plot_->replot();
}

void SweepView::drawHeatMap() {
    const auto& r = *result_;
    const auto& rows = r.spec.axes[0];    // y: the first axis
    const auto& columns = r.spec.axes[1]; // x: the last axis, the fastest in point order
    const int nx = static_cast<int>(columns.values.size());
    const int ny = static_cast<int>(rows.values.size());
    categories_ = winnerCategories(r);
    const auto index = [this](const std::string& winner) {
        return static_cast<double>(std::find(categories_.begin(), categories_.end(), winner) - categories_.begin());
    };
    const int levels = std::max(2, static_cast<int>(categories_.size())); // a gradient has two levels at the least
    heatMap_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    heatMap_->setName(tr("winner"));
    heatMap_->removeFromLegend();
    heatMap_->data()->setSize(nx, ny);
    heatMap_->data()->setRange(QCPRange(0, std::max(0, nx - 1)), QCPRange(0, std::max(0, ny - 1)));
    for (std::size_t i = 0; i < r.points.size(); ++i) {
        const int x = static_cast<int>(i % static_cast<std::size_t>(nx));
        const int y = static_cast<int>(i / static_cast<std::size_t>(nx));
        heatMap_->data()->setCell(x, y, index(r.points[i].winner));
    }
    // One exact colour per category: a level, and a stop, at each.
    QCPColorGradient gradient;
    gradient.clearColorStops();
    for (int c = 0; c < levels; ++c) {
        const auto k = static_cast<std::size_t>(std::min(c, static_cast<int>(categories_.size()) - 1));
        gradient.setColorStopAt(static_cast<double>(c) / (levels - 1), categoryColor(categories_[k]));
    }
    gradient.setLevelCount(levels);
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    heatMap_->setGradient(gradient);
    heatMap_->setDataRange(QCPRange(0, levels - 1));
    heatMap_->setInterpolate(false);
    heatMap_->setTightBoundary(false);
    plot_->legend->setVisible(true);
    for (const auto& c : categories_) {
        addSwatch(plot_, c.find('=') == std::string::npos ? qs(c) : tr("%1 (tie)").arg(qs(c)), categoryColor(c));
    }
    // The flip boundary: between a point and the one before it on each axis it flips along.
    const QPen edge(QColor(0x11, 0x18, 0x27), 3);
    for (std::size_t i = 0; i < r.points.size(); ++i) {
        const double x = static_cast<double>(i % static_cast<std::size_t>(nx));
        const double y = static_cast<double>(i / static_cast<std::size_t>(nx));
        for (const std::size_t a : r.points[i].flip_axes) {
            const QLineF segment = a == 1 ? QLineF(x - 0.5, y - 0.5, x - 0.5, y + 0.5) : QLineF(x - 0.5, y - 0.5, x + 0.5, y - 0.5);
            auto* line = new QCPItemLine(plot_);
            line->setPen(edge);
            line->start->setCoords(segment.p1());
            line->end->setCoords(segment.p2());
            boundary_.push_back(segment);
        }
    }
    // The margin in each cell while the cells are big enough to hold it; the tooltip has it always.
    if (r.points.size() <= 144) {
        QFont font = plot_->font();
        font.setPointSizeF(font.pointSizeF() * 0.85);
        for (std::size_t i = 0; i < r.points.size(); ++i) {
            const auto& p = r.points[i];
            auto* label = new QCPItemText(plot_);
            label->position->setCoords(static_cast<double>(i % static_cast<std::size_t>(nx)),
                                       static_cast<double>(i / static_cast<std::size_t>(nx)));
            label->setText(p.margin == 0.0 ? tr("tie") : QStringLiteral("+") + figure(p.margin));
            label->setFont(font);
            label->setColor(QColor(0x11, 0x18, 0x27));
            label->setBrush(QColor(255, 255, 255, 190));
            label->setPadding(QMargins(3, 1, 3, 1));
            label->setClipToAxisRect(true);
        }
    }
    fitLegend(plot_);
    plot_->xAxis->setTicker(valueTicker(columns.values));
    plot_->yAxis->setTicker(valueTicker(rows.values));
    plot_->xAxis->setLabel(qs(columns.key));
    plot_->yAxis->setLabel(qs(rows.key));
    plot_->xAxis->setRange(-0.5, nx - 0.5);
    plot_->yAxis->setRange(-0.5, ny - 0.5);
    plot_->xAxis->grid()->setVisible(false);
    plot_->yAxis->grid()->setVisible(false);
    plot_->replot();
}

std::optional<std::size_t> SweepView::pointAt(const QPoint& pos) const {
    if (!result_ || !plot_->axisRect()->rect().contains(pos)) return std::nullopt;
    const auto& r = *result_;
    const double fx = std::round(plot_->xAxis->pixelToCoord(pos.x()));
    if (r.spec.axes.size() == 1) {
        if (fx < 0 || fx >= static_cast<double>(r.points.size())) return std::nullopt;
        return static_cast<std::size_t>(fx);
    }
    if (r.spec.axes.size() != 2) return std::nullopt;
    const double fy = std::round(plot_->yAxis->pixelToCoord(pos.y()));
    const auto nx = static_cast<double>(r.spec.axes[1].values.size());
    const auto ny = static_cast<double>(r.spec.axes[0].values.size());
    if (fx < 0 || fy < 0 || fx >= nx || fy >= ny) return std::nullopt;
    return static_cast<std::size_t>(fy * nx + fx);
}

QPoint SweepView::pixelOf(std::size_t index) const {
    if (!result_ || index >= result_->points.size()) return {};
    const auto& r = *result_;
    if (r.spec.axes.size() == 1) {
        const auto& p = r.points[index];
        const auto best = std::min_element(p.results.begin(), p.results.end(),
                                           [](const auto& a, const auto& b) { return a.metric < b.metric; });
        return QPointF(plot_->xAxis->coordToPixel(static_cast<double>(index)), plot_->yAxis->coordToPixel(best->metric)).toPoint();
    }
    const std::size_t nx = r.spec.axes.back().values.size();
    return QPointF(plot_->xAxis->coordToPixel(static_cast<double>(index % nx)),
                   plot_->yAxis->coordToPixel(static_cast<double>(index / nx)))
        .toPoint();
}

QString SweepView::pointText(std::size_t index) const {
    if (!result_ || index >= result_->points.size()) return {};
    const auto& r = *result_;
    const auto& p = r.points[index];
    QStringList at;
    for (std::size_t a = 0; a < r.spec.axes.size(); ++a) at << qs(r.spec.axes[a].key) + QLatin1Char('=') + qs(p.values[a]);
    QStringList figures;
    for (const auto& m : p.results) figures << qs(pl::toString(m.mode)) + QLatin1Char(' ') + figure(m.metric);
    QString text = at.join(QStringLiteral(", ")) + QLatin1Char('\n') + qs(pl::cost::toString(r.spec.metric)) +
                   QStringLiteral(": ") + figures.join(QStringLiteral(" \u00b7 ")) + QLatin1Char('\n') +
                   (p.margin == 0.0 ? tr("winner: %1 (a tie)").arg(qs(p.winner))
                                    : tr("winner: %1, ahead by %2").arg(qs(p.winner), figure(p.margin)));
    if (!p.flip_axes.empty()) {
        QStringList along;
        for (const std::size_t a : p.flip_axes) along << qs(r.spec.axes[a].key);
        text += QLatin1Char('\n') + tr("flips from the point before it along %1").arg(along.join(QStringLiteral(", ")));
    }
    return text + QLatin1Char('\n') + tr("Click to open this point's run.");
}

} // namespace plui
