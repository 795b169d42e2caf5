#include "ui/plotswidget.h"

#include "ui/bytestext.h"
#include "ui/compactticker.h"
#include "ui/distributions.h"
#include "ui/labdocument.h"

#include "core/number_text.h"
#include "ui/plotcursor.h"
#include "core/session.h"
#include "core/summary.h"

#include <qcustomplot.h>

#include <QGridLayout>
#include <QScrollArea>
#include <QVBoxLayout>

namespace plui {

// A histogram's caption: the unit and count, then the percentiles ("p50 12", "p90 40", "p99 61"; none
// when nothing completed).
struct Caption {
    QString head;
    QStringList percentiles;
};

struct PlotsWidget::Impl {
    LabDocument* doc = nullptr;
    QCustomPlot* plots[4] = {};
    std::unique_ptr<PlotCursor> cursors[2];
    Caption captions[2]; // plots 2 and 3
    QWidget* content = nullptr; // the scroll area's widget: the four plots
};

namespace {

QCustomPlot* makePlot(QWidget* parent, const QString& title, const QString& name) {
    auto* p = new QCustomPlot(parent);
    p->setObjectName(name);
    p->setMinimumSize(200, 110);
    p->plotLayout()->insertRow(0);
    auto* t = new QCPTextElement(p, title, QFont(p->font().family(), 9, QFont::Bold));
    p->plotLayout()->addElement(0, 0, t);
    p->setInteractions(QCP::Interactions(QCP::iRangeDrag) | QCP::iRangeZoom);
    p->axisRect()->setRangeZoom(Qt::Horizontal);
    p->axisRect()->setRangeDrag(Qt::Horizontal);
    p->legend->setVisible(false);
    return p;
}

// The title made by makePlot (the text element over the axes).
void setPlotTitle(QCustomPlot* p, const QString& title) {
    if (auto* t = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0))) t->setText(title);
}

QCPGraph* addLine(QCustomPlot* p, QCPAxis* valueAxis, const QString& name, QColor color, Qt::PenStyle style,
                  double width = 1.6) {
    auto* g = p->addGraph(p->xAxis, valueAxis);
    g->setName(name);
    g->setPen(QPen(color, width, style));
    g->setLineStyle(QCPGraph::lsStepLeft);
    g->setAdaptiveSampling(true);
    return g;
}

// A distribution's bars with the run's percentiles under it: `pct` is core's summary of the same values
// (nearest rank, as `preemptlab-cli compare` prints them), `scale` what its integers are in (100 for ticks per
// token x 100).
// `msPerTick` > 0 (the workload's config.tick_us / 1000): the values, the bins and the percentiles in ms, and
// the plot's tooltip gives the percentiles in ticks.
Caption fillHistogram(QCustomPlot* p, std::vector<double> values, double minWidth, const pl::Percentiles& pct,
                      int scale, const QString& unit, QColor color, double msPerTick = 0) {
    p->clearPlottables();
    auto* bars = new QCPBars(p->xAxis, p->yAxis);
    if (msPerTick > 0) {
        for (double& v : values) v *= msPerTick;
        minWidth *= msPerTick;
    }
    const Histogram h = histogram(values, minWidth);
    bars->setWidth(h.width * 0.9);
    bars->setPen(QPen(color.darker(140)));
    bars->setBrush(color);
    bars->setData(QVector<double>(h.centers.begin(), h.centers.end()), QVector<double>(h.counts.begin(), h.counts.end()), true);
    const int decimals = scale == 1 ? 0 : 2;
    auto inTicks = [&](std::int64_t v) { return QString::number(static_cast<double>(v) / scale, 'f', decimals); };
    // In ms: core's integer figure times the tick's length, as `preemptlab-cli report` prints it ("22.6").
    auto q = [&](std::int64_t v) {
        return msPerTick > 0 ? QString::number(static_cast<double>(v) / scale * msPerTick, 'g', 7) : inTicks(v);
    };
    p->setToolTip(values.empty() || msPerTick <= 0
                      ? QString()
                      : QObject::tr("In ticks: p50 %1, p90 %2, p99 %3 (1 tick = %4 ms)")
                            .arg(inTicks(pct.p50), inTicks(pct.p90), inTicks(pct.p99), QString::number(msPerTick, 'g', 7)));
    // The unit and count, then the percentiles on as many lines as the plot's width needs (fitCaption).
    Caption caption;
    if (values.empty()) {
        caption.head = QObject::tr("%1\n(no completed requests)").arg(unit);
    } else {
        caption.head = QObject::tr("%1 (n=%2)").arg(unit, groupedNumber(static_cast<std::int64_t>(values.size())));
        caption.percentiles = {QObject::tr("p50 %1").arg(q(pct.p50)), QObject::tr("p90 %1").arg(q(pct.p90)),
                               QObject::tr("p99 %1").arg(q(pct.p99))};
    }
    p->yAxis->setLabel(QObject::tr("requests"));
    // Counts of requests: whole-number ticks only (no "0.5 requests").
    auto counts = QSharedPointer<QCPAxisTickerFixed>::create();
    counts->setTickStep(1);
    counts->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    p->yAxis->setTicker(counts);
    if (h.centers.empty()) {
        p->xAxis->setRange(0, 1);
        p->yAxis->setRange(0, 1);
    } else {
        // Whole bars, half a bin to spare on the right and on the left where the axis can start below the
        // first bar without going under 0 (these are durations); a bar that reaches below 0 (the bar of 0
        // ticks stands on 0, from -0.5) starts the axis at its edge. Headroom above the tallest.
        const double left = h.centers.front() - h.width / 2;
        p->xAxis->setRange(std::min(left, std::max(0.0, left - h.width / 2)), h.centers.back() + h.width);
        p->yAxis->setRange(0, *std::max_element(h.counts.begin(), h.counts.end()) * 1.15);
    }
    p->replot(QCustomPlot::rpQueuedReplot);
    return caption;
}

// A value axis whose series are all zero (no swap in a recompute run, no replay in a swap run) shows 0..1
// without tick labels (no invented "1 B" scale) and says so in its label, short enough for a short plot ("no
// replay"); the zero series leave the legend.
void fitValueAxis(QCPAxis* axis, const std::vector<QCPGraph*>& graphs, double maxValue, const QString& label,
                  const QString& noneLabel) {
    axis->setTickLabels(maxValue > 0);
    axis->setLabel(maxValue > 0 ? label : noneLabel);
    if (maxValue > 0) {
        axis->setRange(0, maxValue * 1.05);
        return;
    }
    axis->setRange(0, 1);
    for (QCPGraph* g : graphs) g->removeFromLegend();
}

} // namespace

PlotsWidget::PlotsWidget(LabDocument* doc, QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()) {
    d->doc = doc;
    // The plots scroll rather than shrink past reading: in a 1024x700 window the dock had 250 px for both rows,
    // and the occupancy plot's axes got 35 px with its legend's second row cut off.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("plotsScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* inner = new QWidget(scroll);
    auto* grid = new QGridLayout(inner);
    grid->setContentsMargins(2, 2, 2, 2);
    d->plots[0] = makePlot(inner, tr("Occupancy and queue"), QStringLiteral("occupancyPlot"));
    d->plots[1] = makePlot(inner, tr("Cumulative recovery cost"), QStringLiteral("costPlot"));
    d->plots[2] = makePlot(inner, tr("TTFT-like (ticks)"), QStringLiteral("ttftPlot"));
    d->plots[3] = makePlot(inner, tr("TPOT-like (ticks per token)"), QStringLiteral("tpotPlot"));
    for (int i = 0; i < 4; ++i) {
        // Title, two legend rows and the tick axis above; title and a two-line caption below: 60 px of axes.
        d->plots[i]->setMinimumHeight(i < 2 ? kLinePlotMinHeight : kHistogramMinHeight);
        grid->addWidget(d->plots[i], i / 2, i % 2);
        useCompactTicks(d->plots[i]);
    }
    scroll->setWidget(inner);
    outer->addWidget(scroll);
    d->content = inner;
    d->plots[3]->xAxis->setTicker(QSharedPointer<CompactTicker>::create(false)); // ticks per token: fractions
    for (int i = 2; i < 4; ++i) d->plots[i]->installEventFilter(this); // their captions follow their width
    for (int i = 0; i < 2; ++i) {
        d->plots[i]->yAxis2->setVisible(true);
        legendBelow(d->plots[i]);
        d->cursors[i] = std::make_unique<PlotCursor>(d->plots[i]);
        d->plots[i]->xAxis->setLabel(tr("tick"));
    }
    d->plots[0]->yAxis->setLabel(tr("blocks"));
    d->plots[0]->yAxis2->setLabel(tr("waiting")); // short: the plot can be under 60 px tall
    d->plots[1]->yAxis->setLabel(tr("tokens"));
    d->plots[1]->yAxis2->setLabel(tr("swapped"));
    d->plots[1]->yAxis2->setTicker(QSharedPointer<BytesTicker>::create()); // KiB/MiB, as the ledger prints
    connect(doc, &LabDocument::changed, this, [this](LabChange what) {
        // Busy without a run: the run being made has ended (failed), and the empty notes say so.
        if ((what & LabChangeKind::Session) || ((what & LabChangeKind::Busy) && !d->doc->session())) rebuild();
        else if (what & LabChangeKind::Cursor) updateCursor();
    });
    rebuild();
}

PlotsWidget::~PlotsWidget() = default;

QCustomPlot* PlotsWidget::plot(int i) const { return i >= 0 && i < 4 ? d->plots[i] : nullptr; }

QWidget* PlotsWidget::content() const { return d->content; }

void PlotsWidget::rebuild() {
    const pl::Session* s = d->doc->session();
    for (int i = 0; i < 2; ++i) d->plots[i]->clearGraphs();
    // Without a run the plots say so, with no axes: QCustomPlot's own 0..5 scales read as a run of nothing,
    // and the histograms kept the last run's bars.
    for (int i = 0; i < 4; ++i) {
        showNoRun(d->plots[i], s == nullptr, d->doc->noRunReason());
        d->plots[i]->yAxis2->setVisible(s != nullptr && i < 2);
        if (i < 2) d->cursors[i]->setVisible(s != nullptr);
    }
    // Without a run the lines are made with no points: their legends say what a run will draw (and an empty
    // legend would narrow the plot's layout to its own width).
    static const std::vector<pl::TickStats> kNoSeries;
    const auto& series = s ? s->series() : kNoSeries;
    const auto n = static_cast<qsizetype>(series.size());
    QVector<double> t(n), occ(n), fly(n), wait(n), replay(n), replayed(n), out(n), in(n);
    // Tokens of finished replays, counted when each finishes (replay_done carries its resume's replay_tokens:
    // what was left after the prefix cache gave its part back); the dropped tokens step up at the evictions. A
    // replay cut short by another eviction never finishes: under thrashing the gap is lost work too.
    static const std::vector<pl::Event> kNoEvents;
    const auto& events = s ? s->result().ledger.events : kNoEvents;
    auto ev = events.begin();
    std::int64_t replayedSoFar = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const pl::TickStats& st = series[static_cast<std::size_t>(i)];
        t[i] = static_cast<double>(st.tick);
        occ[i] = static_cast<double>(st.occupied_blocks);
        fly[i] = static_cast<double>(st.in_flight_blocks);
        wait[i] = static_cast<double>(st.waiting);
        replay[i] = static_cast<double>(st.replay_tokens_total);
        for (; ev != events.end() && ev->tick <= st.tick; ++ev) {
            if (ev->kind == pl::EventKind::ReplayDone) replayedSoFar += ev->replay_tokens;
        }
        replayed[i] = static_cast<double>(replayedSoFar);
        out[i] = static_cast<double>(st.swap_out_bytes_total);
        in[i] = static_cast<double>(st.swap_in_bytes_total);
    }
    QCustomPlot* p0 = d->plots[0];
    // Drawn in the order added: the queue (which can flip every tick and fill its band) first, in a light solid
    // pen (dashes on a band that flips every tick cross-hatch it), then the pool's capacity, then in flight and
    // occupied on top, so occupancy always reads.
    const double capacity = s ? static_cast<double>(s->workload().config.capacity_blocks) : 0.0;
    QCPGraph* waiting = addLine(p0, p0->yAxis2, tr("waiting (right)"), QColor(0x6b, 0x72, 0x80, 70), Qt::SolidLine, 1.0);
    waiting->setData(t, wait, true);
    QCPGraph* cap = addLine(p0, p0->yAxis, tr("capacity"), QColor(0x11, 0x18, 0x27), Qt::DashDotLine, 1.0);
    if (s) cap->setData(QVector<double>{t.isEmpty() ? 0.0 : t.front(), t.isEmpty() ? 1.0 : t.back()}, {capacity, capacity}, true);
    QCPGraph* flying = addLine(p0, p0->yAxis, tr("in flight"), QColor(0x93, 0x33, 0xea), Qt::DotLine);
    flying->setData(t, fly, true);
    QCPGraph* occupied = addLine(p0, p0->yAxis, tr("occupied"), QColor(0x1d, 0x4e, 0xd8), Qt::SolidLine);
    occupied->setData(t, occ, true);
    // The legend reads in the order that matters: occupied, in flight (only when something was), waiting,
    // capacity.
    p0->legend->clearItems();
    const bool anyInFlight = std::any_of(fly.begin(), fly.end(), [](double v) { return v > 0; });
    for (QCPGraph* g : {occupied, flying, waiting, cap}) {
        if (g != flying || anyInFlight || !s) g->addToLegend();
    }
    QCustomPlot* p1 = d->plots[1];
    QCPGraph* replayLine = addLine(p1, p1->yAxis, tr("dropped for replay"), QColor(0xf9, 0x73, 0x16), Qt::SolidLine);
    QCPGraph* replayedLine = addLine(p1, p1->yAxis, tr("replays finished"), QColor(0xc2, 0x41, 0x0c), Qt::DashDotLine);
    QCPGraph* outLine = addLine(p1, p1->yAxis2, tr("swapped out (right)"), QColor(0x93, 0x33, 0xea), Qt::DashLine);
    QCPGraph* inLine = addLine(p1, p1->yAxis2, tr("swapped in (right)"), QColor(0x05, 0x96, 0x69), Qt::DotLine);
    replayLine->setData(t, replay, true);
    replayedLine->setData(t, replayed, true);
    outLine->setData(t, out, true);
    inLine->setData(t, in, true);
    if (!s) {
        fitLegend(p0);
        fitLegend(p1);
        for (int i = 2; i < 4; ++i) {
            d->plots[i]->clearPlottables(); // the last run's bars
            d->captions[i - 2] = Caption{};
            fitCaption(i);
        }
        for (auto* p : d->plots) p->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    p0->rescaleAxes();
    p0->yAxis->setRange(0, capacity * 1.05);
    p0->yAxis2->setRangeLower(0);
    p1->rescaleAxes();
    // The totals are cumulative: the last point is each series' largest.
    const auto& last = series.empty() ? pl::TickStats{} : series.back();
    fitValueAxis(p1->yAxis, {replayLine, replayedLine}, static_cast<double>(last.replay_tokens_total), tr("tokens"),
                 tr("no replay"));
    fitValueAxis(p1->yAxis2, {outLine, inLine},
                 static_cast<double>(std::max(last.swap_out_bytes_total, last.swap_in_bytes_total)), tr("swapped"),
                 tr("no swap"));
    // A tick of room at either end, so the cursor at the first or the last tick is not lost on the axis.
    for (QCustomPlot* p : {p0, p1}) {
        const QCPRange r = p->xAxis->range();
        const double pad = std::max(2.0, r.size() * 0.01); // the cursor starts at tick -1
        p->xAxis->setRange(r.lower - pad, r.upper + pad);
    }
    fitLegend(p0);
    fitLegend(p1);
    const Distributions dist = Distributions::from(s->workload(), s->result().records);
    const pl::RunSummary sum = pl::summarize(s->workload(), s->result());
    // With config.tick_us the distributions are in ms (ticks in their tooltips); without, in ticks, and the
    // titles say which.
    const std::int64_t tickUs = s->workload().config.tick_us;
    const double msPerTick = static_cast<double>(tickUs) / 1000.0;
    setPlotTitle(d->plots[2], tickUs > 0 ? tr("TTFT-like (ms)") : tr("TTFT-like (ticks)"));
    setPlotTitle(d->plots[3], tickUs > 0 ? tr("TPOT-like (ms per token)") : tr("TPOT-like (ticks per token)"));
    const QString tickAxis = tickUs > 0 ? tr("tick (1 tick = %1 ms)").arg(QString::number(msPerTick, 'g', 7)) : tr("tick");
    for (int i = 0; i < 2; ++i) d->plots[i]->xAxis->setLabel(tickAxis);
    d->captions[0] = fillHistogram(d->plots[2], dist.ttft, 1, sum.ttft_ticks, 1, tickUs > 0 ? tr("ms") : tr("ticks"),
                                   QColor(0x60, 0xa5, 0xfa), msPerTick);
    d->captions[1] = fillHistogram(d->plots[3], dist.tpot, 0.01, sum.tpot_ticks_x100, 100,
                                   tickUs > 0 ? tr("ms/token") : tr("ticks/token"), QColor(0x34, 0xd3, 0x99), msPerTick);
    fitCaption(2);
    fitCaption(3);
    updateCursor();
    p0->replot(QCustomPlot::rpQueuedReplot);
    p1->replot(QCustomPlot::rpQueuedReplot);
}

bool PlotsWidget::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize) {
        for (int i = 2; i < 4; ++i) {
            if (watched == d->plots[i]) fitCaption(i);
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PlotsWidget::fitCaption(int i) {
    QCustomPlot* p = d->plots[i];
    const Caption& c = d->captions[i - 2];
    QStringList lines = {c.head};
    if (!c.percentiles.isEmpty()) {
        // The label is centred under the axes: it has twice the room on the narrower side of that centre
        // (the margins as last laid out; none yet before the first layout).
        const QMargins m = p->axisRect()->margins();
        const int centre = m.left() + (p->width() - m.left() - m.right()) / 2;
        const int room = 2 * std::min(centre, p->width() - centre) - 4;
        const QFontMetrics metrics(p->xAxis->labelFont());
        const QString dot = QStringLiteral(" \u00b7 ");
        const QString all = c.percentiles.join(dot);
        const QString two = c.percentiles[0] + dot + c.percentiles[1];
        if (metrics.horizontalAdvance(all) <= room) lines << all;
        else if (metrics.horizontalAdvance(two) <= room) lines << two << c.percentiles[2];
        else lines << c.percentiles;
    }
    const QString label = lines.join(QLatin1Char('\n'));
    if (label == p->xAxis->label()) return;
    p->xAxis->setLabel(label);
    p->replot(QCustomPlot::rpQueuedReplot);
}

void PlotsWidget::updateCursor() {
    const double t = static_cast<double>(d->doc->currentTick());
    for (int i = 0; i < 2; ++i) {
        d->cursors[i]->moveTo(t);
        d->cursors[i]->replotLayer(); // only the cursor layer is redrawn
    }
}

} // namespace plui
