#include "plotswidget.h"

#include "compactticker.h"
#include "distributions.h"
#include "labdocument.h"

#include "session.h"

#include <qcustomplot.h>

#include <QGridLayout>

namespace plui {

struct PlotsWidget::Impl {
    LabDocument* doc = nullptr;
    QCustomPlot* plots[4] = {};
    QCPItemStraightLine* cursors[2] = {};
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
    QFont lf = p->font();
    lf.setPointSize(7);
    p->legend->setFont(lf);
    p->legend->setBrush(QColor(255, 255, 255, 170)); // the data stays visible behind it
    p->legend->setBorderPen(QPen(QColor(0, 0, 0, 60)));
    p->legend->setRowSpacing(-3);
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    return p;
}

QCPGraph* addLine(QCustomPlot* p, QCPAxis* valueAxis, const QString& name, QColor color, Qt::PenStyle style) {
    auto* g = p->addGraph(p->xAxis, valueAxis);
    g->setName(name);
    g->setPen(QPen(color, 1.6, style));
    g->setLineStyle(QCPGraph::lsStepLeft);
    g->setAdaptiveSampling(true);
    return g;
}

void fillHistogram(QCustomPlot* p, const std::vector<double>& values, const QString& unit, QColor color) {
    p->clearPlottables();
    auto* bars = new QCPBars(p->xAxis, p->yAxis);
    const Histogram h = histogram(values);
    bars->setWidth(h.width * 0.9);
    bars->setPen(QPen(color.darker(140)));
    bars->setBrush(color);
    bars->setData(QVector<double>(h.centers.begin(), h.centers.end()), QVector<double>(h.counts.begin(), h.counts.end()), true);
    p->xAxis->setLabel(values.empty() ? QObject::tr("%1 (no completed requests)").arg(unit)
                                      : QObject::tr("%1  p50 %2 \u00b7 p90 %3 \u00b7 p99 %4 \u00b7 n=%5")
                                            .arg(unit)
                                            .arg(percentile(values, 50), 0, 'f', 1)
                                            .arg(percentile(values, 90), 0, 'f', 1)
                                            .arg(percentile(values, 99), 0, 'f', 1)
                                            .arg(values.size()));
    p->yAxis->setLabel(QObject::tr("requests"));
    p->rescaleAxes();
    p->yAxis->setRangeLower(0);
    p->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace

PlotsWidget::PlotsWidget(LabDocument* doc, QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()) {
    d->doc = doc;
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(2, 2, 2, 2);
    d->plots[0] = makePlot(this, tr("Occupancy and queue"), QStringLiteral("occupancyPlot"));
    d->plots[1] = makePlot(this, tr("Cumulative recovery cost"), QStringLiteral("costPlot"));
    d->plots[2] = makePlot(this, tr("TTFT-like (ticks)"), QStringLiteral("ttftPlot"));
    d->plots[3] = makePlot(this, tr("TPOT-like (ticks per token)"), QStringLiteral("tpotPlot"));
    for (int i = 0; i < 4; ++i) {
        grid->addWidget(d->plots[i], i / 2, i % 2);
        useCompactTicks(d->plots[i]);
    }
    for (int i = 0; i < 2; ++i) {
        d->plots[i]->yAxis2->setVisible(true);
        d->plots[i]->legend->setVisible(true);
        d->plots[i]->addLayer(QStringLiteral("cursor"), d->plots[i]->layer(QStringLiteral("overlay")), QCustomPlot::limBelow);
        d->plots[i]->layer(QStringLiteral("cursor"))->setMode(QCPLayer::lmBuffered);
        d->cursors[i] = new QCPItemStraightLine(d->plots[i]);
        d->cursors[i]->setLayer(QStringLiteral("cursor"));
        d->cursors[i]->setPen(QPen(QColor(0xdc, 0x26, 0x26), 1, Qt::DashLine));
        d->plots[i]->xAxis->setLabel(tr("tick"));
    }
    d->plots[0]->yAxis->setLabel(tr("blocks"));
    d->plots[0]->yAxis2->setLabel(tr("requests waiting"));
    d->plots[1]->yAxis->setLabel(tr("replay tokens"));
    d->plots[1]->yAxis2->setLabel(tr("swap bytes"));
    connect(doc, &LabDocument::changed, this, [this](LabChange what) {
        if (what & LabChangeKind::Session) rebuild();
        else if (what & LabChangeKind::Cursor) updateCursor();
    });
    rebuild();
}

PlotsWidget::~PlotsWidget() = default;

QCustomPlot* PlotsWidget::plot(int i) const { return i >= 0 && i < 4 ? d->plots[i] : nullptr; }

void PlotsWidget::rebuild() {
    const pl::Session* s = d->doc->session();
    for (int i = 0; i < 2; ++i) d->plots[i]->clearGraphs();
    if (!s) {
        for (auto* p : d->plots) p->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const auto& series = s->series();
    const auto n = static_cast<qsizetype>(series.size());
    QVector<double> t(n), occ(n), fly(n), wait(n), replay(n), out(n), in(n);
    for (qsizetype i = 0; i < n; ++i) {
        const pl::TickStats& st = series[static_cast<std::size_t>(i)];
        t[i] = static_cast<double>(st.tick);
        occ[i] = static_cast<double>(st.occupied_blocks);
        fly[i] = static_cast<double>(st.in_flight_blocks);
        wait[i] = static_cast<double>(st.waiting);
        replay[i] = static_cast<double>(st.replay_tokens_total);
        out[i] = static_cast<double>(st.swap_out_bytes_total);
        in[i] = static_cast<double>(st.swap_in_bytes_total);
    }
    QCustomPlot* p0 = d->plots[0];
    addLine(p0, p0->yAxis, tr("occupied blocks"), QColor(0x1d, 0x4e, 0xd8), Qt::SolidLine)->setData(t, occ, true);
    addLine(p0, p0->yAxis, tr("blocks in flight"), QColor(0x93, 0x33, 0xea), Qt::DotLine)->setData(t, fly, true);
    addLine(p0, p0->yAxis2, tr("waiting (right)"), QColor(0xd9, 0x77, 0x06), Qt::DashLine)->setData(t, wait, true);
    p0->rescaleAxes();
    p0->yAxis->setRange(0, static_cast<double>(s->workload().config.capacity_blocks) * 1.05);
    p0->yAxis2->setRangeLower(0);
    QCustomPlot* p1 = d->plots[1];
    addLine(p1, p1->yAxis, tr("replay tokens"), QColor(0xf9, 0x73, 0x16), Qt::SolidLine)->setData(t, replay, true);
    addLine(p1, p1->yAxis2, tr("swap-out bytes (right)"), QColor(0x93, 0x33, 0xea), Qt::DashLine)->setData(t, out, true);
    addLine(p1, p1->yAxis2, tr("swap-in bytes (right)"), QColor(0x05, 0x96, 0x69), Qt::DotLine)->setData(t, in, true);
    p1->rescaleAxes();
    p1->yAxis->setRangeLower(0);
    p1->yAxis2->setRangeLower(0);
    if (p1->yAxis->range().upper <= 0) p1->yAxis->setRangeUpper(1);
    if (p1->yAxis2->range().upper <= 0) p1->yAxis2->setRangeUpper(1);
    const Distributions dist = Distributions::from(s->workload(), s->result().records);
    fillHistogram(d->plots[2], dist.ttft, tr("ticks"), QColor(0x60, 0xa5, 0xfa));
    fillHistogram(d->plots[3], dist.tpot, tr("ticks/token"), QColor(0x34, 0xd3, 0x99));
    updateCursor();
    p0->replot(QCustomPlot::rpQueuedReplot);
    p1->replot(QCustomPlot::rpQueuedReplot);
}

void PlotsWidget::updateCursor() {
    const double t = static_cast<double>(d->doc->currentTick());
    for (int i = 0; i < 2; ++i) {
        d->cursors[i]->point1->setCoords(t, 0);
        d->cursors[i]->point2->setCoords(t, 1);
        d->plots[i]->layer(QStringLiteral("cursor"))->replot(); // only the cursor layer is redrawn
    }
}

} // namespace plui
