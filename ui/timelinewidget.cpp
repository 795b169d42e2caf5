#include "ui/timelinewidget.h"

#include "ui/compactticker.h"
#include "ui/labdocument.h"
#include "ui/plotcursor.h"
#include "ui/statecolors.h"
#include "ui/timelinemodel.h"

#include "core/session.h"
#include "ui/qtext.h"
#include "ui/requestpalette.h"

#include <qcustomplot.h>

#include <QAction>
#include <QLabel>
#include <QSettings>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace plui {

namespace {

// Lane `lane`'s band in pixels, top to bottom: 0.76 of a lane, or the whole lane where lanes are under 3 px.
QRectF laneBand(const QCPAxis* vy, int lane, double left, double width) {
    const double lanePx = std::abs(vy->coordToPixel(1) - vy->coordToPixel(0));
    const double half = lanePx >= 3 ? 0.38 : 0.5;
    const double y0 = vy->coordToPixel(lane - half);
    const double y1 = vy->coordToPixel(lane + half);
    return QRectF(left, std::min(y0, y1), width, std::max(1.0, std::abs(y1 - y0)));
}

// Draws every lane segment inside the visible key and value range; O(visible lanes * log segments) per lane.
class LanePlottable : public QCPAbstractPlottable {
  public:
    LanePlottable(QCPAxis* key, QCPAxis* value) : QCPAbstractPlottable(key, value) {
        setAntialiasedFill(false);
    }
    const TimelineModel* model = nullptr;
    int selectedLane = -1;
    std::vector<int> victimLanes; // this tick's victims
    std::vector<int> requesterLanes; // the requests whose need caused this tick's evictions

    double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain) const override {
        found = model != nullptr;
        return QCPRange(0, model ? static_cast<double>(std::max<std::int64_t>(1, model->keyEnd)) : 1);
    }
    QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override {
        found = model != nullptr;
        return QCPRange(-0.5, model ? static_cast<double>(model->lanes.size()) - 0.5 : 0.5);
    }
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

  protected:
    void draw(QCPPainter* painter) override {
        if (!model || model->lanes.empty()) return;
        QCPAxis* kx = keyAxis();
        QCPAxis* vy = valueAxis();
        const QCPRange kr = kx->range();
        const QCPRange vr = vy->range();
        const int n = static_cast<int>(model->lanes.size());
        const int first = std::max(0, static_cast<int>(std::floor(vr.lower + 0.5)));
        const int last = std::min(n - 1, static_cast<int>(std::ceil(vr.upper - 0.5)));
        const double lanePx = std::abs(vy->coordToPixel(1) - vy->coordToPixel(0));
        painter->setPen(Qt::NoPen);
        for (int lane = first; lane <= last; ++lane) {
            const QRectF band = laneBand(vy, lane, kx->axisRect()->left(), kx->axisRect()->width());
            if (lane == selectedLane) {
                painter->fillRect(band.adjusted(0, -1, 0, 1), QColor(0xfd, 0xe6, 0x8a));
            }
            const bool victim = std::find(victimLanes.begin(), victimLanes.end(), lane) != victimLanes.end();
            const bool requester = std::find(requesterLanes.begin(), requesterLanes.end(), lane) != requesterLanes.end();
            const auto& segs = model->lanes[static_cast<std::size_t>(lane)];
            auto it = std::upper_bound(segs.begin(), segs.end(), kr.lower,
                                       [](double t, const LaneSegment& s) { return t < static_cast<double>(s.end); });
            // A preemption, copy or replay shorter than a few pixels (one tick of a 5,000-tick run) is drawn
            // 3 px wide on top of its neighbours, so no eviction disappears at a zoom that shows the whole run.
            QVector<QPair<QRectF, QColor>> brief;
            for (; it != segs.end() && static_cast<double>(it->begin) <= kr.upper; ++it) {
                const double x0 = kx->coordToPixel(static_cast<double>(it->begin));
                const double x1 = kx->coordToPixel(static_cast<double>(it->end));
                const QRectF r(x0, band.top(), std::max(1.0, x1 - x0), band.height());
                const QColor c = stateColor(it->state);
                painter->fillRect(r, c.lighter(it->state == LaneState::Waiting ? 125 : 100));
                const Qt::BrushStyle pat = statePattern(it->state);
                if (pat != Qt::SolidPattern && lanePx >= 4) {
                    painter->fillRect(r, QBrush(QColor(255, 255, 255, 150), pat));
                }
                // Censored too: the tick at max_ticks where an unfinished request was cut off.
                const bool event = it->state == LaneState::Preempted || it->state == LaneState::Copying ||
                                   it->state == LaneState::Replaying || it->state == LaneState::Censored;
                if (event && x1 - x0 < 3) {
                    brief.push_back({QRectF((x0 + x1) / 2 - 1.5, band.top(), 3, band.height()), c});
                }
            }
            for (const auto& [r, c] : brief) painter->fillRect(r, c);
            if (victim) {
                // This tick's victim: a red frame round the lane (not a fill, which would read as a state, nor a
                // bar at its start, which read as a preemption at tick 0), and "▶ id" on the axis (LaneIdTicker).
                const QRectF frame = band.adjusted(0.5, -1.5, -0.5, 1.5);
                painter->setPen(QPen(QColor(0xdc, 0x26, 0x26), 1.2));
                painter->setBrush(Qt::NoBrush);
                painter->drawRect(frame);
            }
            if (requester) {
                // The requester (its need caused this tick's eviction): a dashed violet frame just outside where
                // a victim's red one goes, so a request that evicted itself shows both.
                const QRectF frame = band.adjusted(2.5, -3.0, -2.5, 3.0);
                painter->setPen(QPen(RequestPalette::requesterColor(), 2.0, Qt::DashLine));
                painter->setBrush(Qt::NoBrush);
                painter->drawRect(frame);
            }
        }
    }
};

// At an eviction tick the victim's state there (preempted, copying out, swapped out) sits right under the
// cursor, and the cursor's halo hid its 3 px mark: this draws it again on the cursor's layer, above the line, at
// least 5 px wide with a light edge, on each victim lane. Being on that layer it moves with the cursor.
class CursorLaneMarks : public QCPAbstractPlottable {
  public:
    CursorLaneMarks(QCPAxis* key, QCPAxis* value) : QCPAbstractPlottable(key, value) {}
    const TimelineModel* model = nullptr;
    const std::vector<int>* lanes = nullptr;
    std::int64_t tick = -1;

    double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain) const override {
        found = false;
        return {};
    }
    QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override {
        found = false;
        return {};
    }
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

  protected:
    void draw(QCPPainter* painter) override {
        if (!model || !lanes || tick < 0) return;
        QCPAxis* kx = keyAxis();
        QCPAxis* vy = valueAxis();
        const double x0 = kx->coordToPixel(static_cast<double>(tick));
        const double x1 = kx->coordToPixel(static_cast<double>(tick + 1));
        const double w = std::max(5.0, x1 - x0);
        for (const int lane : *lanes) {
            const LaneSegment* seg = model->segmentAt(lane, tick);
            if (!seg) continue;
            const QRectF r = laneBand(vy, lane, (x0 + x1) / 2 - w / 2, w); // the same band as the lane's
            painter->setPen(QPen(QColor(255, 255, 255, 230), 1));
            painter->setBrush(stateColor(seg->state));
            painter->drawRect(r);
        }
    }
};

// Whole-lane ticks labelled with the lane's request id (elided in the middle past 16 characters), for
// workloads with too many requests to name every lane: the axis then reads like the pool and the ledger.
class LaneIdTicker : public QCPAxisTicker {
  public:
    // `marked`: lanes that always get a tick, labelled with a pointer (this tick's victims, the lane
    // plottable's own list); the regular ticks near one make way for it.
    // `axis`: the lane axis, whose height sets how many names fit.
    LaneIdTicker(std::vector<QString> ids, const std::vector<int>* marked, const QCPAxis* axis)
        : ids_(std::move(ids)), marked_(marked), axis_(axis) {}

  protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        QVector<double> ticks = QCPAxisTicker::createTickVector(tickStep, range);
        const std::vector<int>& marked = *marked_;
        if (marked.empty()) return ticks;
        QVector<double> out;
        for (double t : ticks) {
            const bool near = std::any_of(marked.begin(), marked.end(), [&](int m) { return std::abs(t - m) < tickStep / 2; });
            if (!near) out.push_back(t);
        }
        for (int m : marked) {
            if (m >= range.lower && m <= range.upper) out.push_back(m);
        }
        std::sort(out.begin(), out.end());
        return out;
    }
    // Whole lanes, and no more names than fit one above the other with a little air (the tick count that
    // the plots' fitting sets is not used: it would cap a tall timeline at six names).
    // The smallest step of 1, 2 or 5 times a power of ten (whole lanes) that leaves each name a line of its own
    // (rounding to the nearest clean step put 31 names 12 px apart in a 460 px timeline).
    double getTickStep(const QCPRange& range) override {
        const int linePx = QFontMetrics(axis_->tickLabelFont()).height() + 3;
        const double raw = range.size() / std::max(1, axis_->axisRect()->height() / linePx);
        if (raw <= 1) return 1;
        for (double decade = 1;; decade *= 10) {
            for (const double m : {1.0, 2.0, 5.0}) {
                if (m * decade >= raw) return m * decade;
            }
        }
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        const long i = std::lround(tick);
        if (i < 0 || i >= static_cast<long>(ids_.size())) return {};
        const QString& id = ids_[static_cast<std::size_t>(i)];
        const QString text = id.size() <= 16 ? id : id.left(7) + QChar(0x2026) + id.right(8);
        const bool pointed = std::find(marked_->begin(), marked_->end(), static_cast<int>(i)) != marked_->end();
        return pointed ? QStringLiteral("\u25b6 ") + text : text;
    }

  private:
    std::vector<QString> ids_;
    const std::vector<int>* marked_;
    const QCPAxis* axis_;
};

} // namespace

struct TimelineWidget::Impl {
    LabDocument* doc = nullptr;
    QLabel* legend = nullptr;
    QCustomPlot* plot = nullptr;
    LanePlottable* lanes = nullptr;
    QCPGraph* waitMarkers = nullptr;
    QCPGraph* preemptMarkers = nullptr;
    std::unique_ptr<PlotCursor> cursor;
    CursorLaneMarks* cursorMarks = nullptr; // on the cursor's layer, above its line
    TimelineModel model; // the lanes drawn: every request's, or the flagged ones' (flaggedOnly)
    QAction* flaggedOnly = nullptr;
    // The request of a lane drawn, or -1.
    int requestOf(int lane) const {
        return lane >= 0 && static_cast<std::size_t>(lane) < model.requests.size() ? model.requests[static_cast<std::size_t>(lane)] : -1;
    }
    // The lanes drawn of `requests`, those that have one.
    std::vector<int> lanesOf(const std::vector<std::int32_t>& requests) const {
        std::vector<int> out;
        for (const std::int32_t r : requests)
            if (const int lane = model.laneOf(r); lane >= 0) out.push_back(lane);
        return out;
    }
};

namespace {
const QString kFlaggedOnlyKey = QStringLiteral("timeline/flaggedOnly");
}

TimelineWidget::TimelineWidget(LabDocument* doc, QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()) {
    d->doc = doc;
    setFocusPolicy(Qt::ClickFocus); // a click here takes the keys back from a focused slider or table
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    d->legend = new QLabel(stateLegendHtml(), this);
    d->legend->setObjectName(QStringLiteral("timelineLegend"));
    d->legend->setWordWrap(true);
    d->legend->setTextFormat(Qt::RichText);
    layout->addWidget(d->legend);
    d->plot = new QCustomPlot(this);
    d->plot->setObjectName(QStringLiteral("timelinePlot"));
    d->plot->setMinimumHeight(100);
    layout->addWidget(d->plot, 1);
    d->lanes = new LanePlottable(d->plot->xAxis, d->plot->yAxis);
    d->lanes->model = &d->model;
    d->waitMarkers = d->plot->addGraph();
    d->waitMarkers->setLineStyle(QCPGraph::lsNone);
    d->waitMarkers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(Qt::black, 1.5),
                                                    QBrush(QColor(0xfb, 0xbf, 0x24)), 9));
    d->preemptMarkers = d->plot->addGraph();
    d->preemptMarkers->setLineStyle(QCPGraph::lsNone);
    d->preemptMarkers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(Qt::black, 2.5), Qt::NoBrush, 9));
    // The cursor lives on its own buffered layer: moving it repaints that layer only, not the lanes.
    d->cursor = std::make_unique<PlotCursor>(d->plot);
    d->cursorMarks = new CursorLaneMarks(d->plot->xAxis, d->plot->yAxis);
    d->cursorMarks->setLayer(PlotCursor::layerName());
    d->cursorMarks->removeFromLegend();
    d->cursorMarks->model = &d->model;
    d->cursorMarks->lanes = &d->lanes->victimLanes;
    d->plot->xAxis->setLabel(tr("tick"));
    useCompactTicks(d->plot, false); // the value axis names requests
    d->plot->yAxis->setRangeReversed(true);
    d->plot->yAxis->setSubTicks(false);
    // No solid zero lines across lane 0 and tick 0: the lanes are the data.
    d->plot->xAxis->grid()->setZeroLinePen(Qt::NoPen);
    d->plot->yAxis->grid()->setZeroLinePen(Qt::NoPen);
    d->plot->setInteractions(QCP::Interactions(QCP::iRangeDrag) | QCP::iRangeZoom);
    d->plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    d->plot->setNoAntialiasingOnDrag(true);
    // View > Flagged Requests Only, also the timeline's context menu: the lanes of the requests with a marker.
    d->flaggedOnly = new QAction(tr("&Flagged Requests Only"), this);
    d->flaggedOnly->setObjectName(QStringLiteral("flaggedOnlyAction"));
    d->flaggedOnly->setCheckable(true);
    d->flaggedOnly->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    d->flaggedOnly->setToolTip(tr("The timeline shows only the requests marked as starving (excessive wait, "
                                  "repeated preemption); Export > Timeline writes only theirs"));
    d->flaggedOnly->setChecked(QSettings().value(kFlaggedOnlyKey, false).toBool());
    connect(d->flaggedOnly, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(kFlaggedOnlyKey, on);
        rebuild();
    });
    d->plot->addAction(d->flaggedOnly);
    d->plot->setContextMenuPolicy(Qt::ActionsContextMenu);

    // Markers no taller than a lane and a half: at 5 px lanes, 9 px triangles would pile into one band.
    connect(d->plot, &QCustomPlot::beforeReplot, this, [this] {
        QCPAxis* y = d->plot->yAxis;
        const double lanePx = std::abs(y->coordToPixel(1) - y->coordToPixel(0));
        const double size = std::clamp(lanePx * 1.5, 5.0, 9.0);
        for (QCPGraph* g : {d->waitMarkers, d->preemptMarkers}) {
            if (g->scatterStyle().size() == size) continue;
            QCPScatterStyle style = g->scatterStyle();
            style.setSize(size);
            g->setScatterStyle(style);
        }
    });
    connect(d->plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int lane = laneAt(e->pos());
        if (lane < 0) {
            QToolTip::hideText();
            return;
        }
        const auto tick = static_cast<std::int64_t>(std::floor(d->plot->xAxis->pixelToCoord(e->pos().x())));
        const auto& spec = d->doc->session()->workload().requests[static_cast<std::size_t>(d->requestOf(lane))];
        QString text = QStringLiteral("%1  (priority %2, tenant %3)\nprompt %4, output %5\ntick %6: ")
                           .arg(QString::fromStdString(spec.id)).arg(spec.priority)
                           .arg(QString::fromStdString(spec.tenant)).arg(spec.prompt_tokens)
                           .arg(spec.output_tokens).arg(tick);
        const LaneSegment* seg = d->model.segmentAt(lane, tick);
        text += seg ? QStringLiteral("%1 (ticks %2-%3)").arg(qsv(toString(seg->state))).arg(seg->begin).arg(seg->end - 1)
                    : tr("not in the system");
        QToolTip::showText(e->globalPosition().toPoint(), text, d->plot);
    });
    connect(d->plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (e->button() == Qt::LeftButton) d->doc->selectRequest(d->requestOf(laneAt(e->pos())));
    });
    connect(d->plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* e) {
        d->doc->seek(static_cast<std::int64_t>(std::floor(d->plot->xAxis->pixelToCoord(e->pos().x()))));
    });
    connect(doc, &LabDocument::changed, this, [this](LabChange what) { onChanged(static_cast<int>(what)); });
    rebuild();
}

TimelineWidget::~TimelineWidget() = default;

QCustomPlot* TimelineWidget::plot() const { return d->plot; }

const TimelineModel& TimelineWidget::model() const { return d->model; }

QAction* TimelineWidget::flaggedOnlyAction() const { return d->flaggedOnly; }

bool TimelineWidget::flaggedOnly() const { return d->flaggedOnly->isChecked(); }

std::vector<std::int32_t> TimelineWidget::shownRequests() const {
    return flaggedOnly() ? d->model.requests : std::vector<std::int32_t>{};
}

int TimelineWidget::laneAt(QPoint pos) const {
    if (!d->plot->axisRect()->rect().contains(pos)) return -1;
    const double v = d->plot->yAxis->pixelToCoord(pos.y());
    const int lane = static_cast<int>(std::lround(v));
    return lane >= 0 && lane < static_cast<int>(d->model.lanes.size()) ? lane : -1;
}

void TimelineWidget::onChanged(int what) {
    const LabChange w = LabChange::fromInt(what);
    // Busy without a run: the run being made has ended (failed), and the empty note says so.
    if ((w & (LabChangeKind::Session | LabChangeKind::Workload)) || ((w & LabChangeKind::Busy) && !d->doc->session())) {
        const bool hybrid = d->doc->hasWorkload() && d->doc->workload().policy.recovery == pl::Recovery::Hybrid;
        d->legend->setText(hybrid ? stateLegendHtml() + QStringLiteral("<br>") +
                                        hybridLegendHtml(d->doc->workload().policy.hybrid_swap_percent, false)
                                  : stateLegendHtml());
        rebuild();
        return;
    }
    if (w & LabChangeKind::Selection) {
        updateSelection();
        if (w & LabChangeKind::Cursor) updateCursor();
        d->plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    if (w & LabChangeKind::Cursor) {
        // Only the cursor layer, unless the lanes moved to follow it or the tinted victims changed: a
        // cursor-layer replot leaves the other layers as they were drawn.
        if (updateCursor()) d->plot->replot(QCustomPlot::rpQueuedReplot);
        else d->cursor->replotLayer();
    }
}

void TimelineWidget::rebuild() {
    const pl::Session* s = d->doc->session();
    if (!s) {
        d->model = TimelineModel{};
    } else {
        d->model = TimelineModel::build(s->workload(), s->result());
        if (flaggedOnly()) d->model = d->model.onlyRequests(d->model.flaggedRequests());
    }
    // The lanes are stepped in ticks; with config.tick_us the axis says how long one is.
    const std::int64_t tickUs = s ? s->workload().config.tick_us : 0;
    d->plot->xAxis->setLabel(tickUs > 0 ? tr("tick (1 tick = %1 ms)").arg(static_cast<double>(tickUs) / 1000.0)
                                        : tr("tick"));
    QVector<double> wx, wy, px, py;
    for (const LaneMarker& m : d->model.markers) {
        auto& xs = m.kind == MarkerKind::ExcessiveWait ? wx : px;
        auto& ys = m.kind == MarkerKind::ExcessiveWait ? wy : py;
        xs.push_back(static_cast<double>(m.tick) + 0.5);
        ys.push_back(d->model.laneOf(m.request));
    }
    d->waitMarkers->setData(wx, wy);
    d->preemptMarkers->setData(px, py);
    const int n = static_cast<int>(d->model.lanes.size());
    // Every lane named where the names fit one above the other; else every second, fifth... (the tick count
    // is fitted to the axis' height before each replot), and this tick's victims always.
    std::vector<QString> ids;
    if (s) {
        ids.reserve(static_cast<std::size_t>(n));
        for (const std::int32_t r : d->model.requests)
            ids.push_back(QString::fromStdString(s->workload().requests[static_cast<std::size_t>(r)].id));
    }
    d->plot->yAxis->setTicker(QSharedPointer<LaneIdTicker>::create(std::move(ids), &d->lanes->victimLanes, d->plot->yAxis));
    // Short: the value axis of a laptop-sized timeline is about 150 px tall.
    const QString flagged = flaggedOnly() && s ? tr("flagged only: %1 of %2").arg(n).arg(s->workload().requests.size())
                                               : QString();
    d->plot->yAxis->setLabel(n <= 64 ? flagged : tr("request (of %1; drag, zoom)").arg(n) + (flagged.isEmpty() ? QString() : QStringLiteral("; ") + flagged));
    d->plot->xAxis->setRange(0, static_cast<double>(std::max<std::int64_t>(1, d->model.keyEnd)));
    const bool noneFlagged = s != nullptr && n == 0 && flaggedOnly();
    showNoRun(d->plot, s == nullptr || noneFlagged,
              noneFlagged ? tr("No request is flagged in this run (View > Flagged Requests Only, Ctrl+Shift+F, shows all)")
                          : d->doc->noRunReason());
    d->cursor->setVisible(s != nullptr);
    // Many requests: show the first 60 lanes; zoom or drag to see the rest.
    d->plot->yAxis->setRange(-0.5, std::min(n, 60) - 0.5);
    updateSelection();
    updateCursor();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

bool TimelineWidget::updateCursor() {
    const std::int64_t tick = d->doc->currentTick();
    const double t = static_cast<double>(tick) + 0.5;
    d->cursor->moveTo(t);
    d->cursorMarks->tick = tick;
    const QCPRange before = d->plot->yAxis->range();
    followCursor(tick);
    std::vector<int> lanes = d->lanesOf(d->doc->victimsAtCursor());
    const bool victimsChanged = lanes != d->lanes->victimLanes;
    d->lanes->victimLanes = std::move(lanes); // the lane ticker names them too
    std::vector<int> requesterLanes = d->lanesOf(d->doc->requestersAtCursor());
    const bool requestersChanged = requesterLanes != d->lanes->requesterLanes;
    d->lanes->requesterLanes = std::move(requesterLanes);
    return victimsChanged || requestersChanged || d->plot->yAxis->range() != before;
}

const std::vector<int>& TimelineWidget::victimLanes() const { return d->lanes->victimLanes; }

const std::vector<int>& TimelineWidget::requesterLanes() const { return d->lanes->requesterLanes; }

// With more lanes than fit, the rows follow the action: when no lane in view is in the system at the cursor
// (and no selected lane is in view), the view moves so the first request in the system then is at the top.
// A view that shows any live request is left where the user put it.
void TimelineWidget::followCursor(std::int64_t tick) {
    const int n = static_cast<int>(d->model.lanes.size());
    const QCPRange r = d->plot->yAxis->range();
    if (n == 0 || (r.lower <= -0.5 && r.upper >= n - 0.5)) return;
    const int lo = std::max(0, static_cast<int>(std::ceil(r.lower)));
    const int hi = std::min(n, static_cast<int>(std::floor(r.upper)) + 1);
    const int sel = d->model.laneOf(d->doc->selectedRequest());
    if (sel >= lo && sel < hi) return;
    // At an eviction tick the victim's lane is what the user came to see: bring it into view (centred).
    const std::vector<int> victims = d->lanesOf(d->doc->victimsAtCursor());
    if (!victims.empty()) {
        for (const int v : victims) {
            if (v >= lo && v < hi) return;
        }
        const double top = std::clamp(victims.front() - r.size() / 2, -0.5, std::max(-0.5, n - 0.5 - r.size()));
        d->plot->yAxis->setRange(top, top + r.size());
        return;
    }
    if (d->model.firstActiveLane(tick, lo, hi) >= 0) return;
    const int first = d->model.firstActiveLane(tick);
    if (first < 0) return;
    d->plot->yAxis->setRange(first - 0.5, first - 0.5 + r.size());
}

void TimelineWidget::updateSelection() {
    const int sel = d->model.laneOf(d->doc->selectedRequest());
    d->lanes->selectedLane = sel;
    if (sel >= 0) {
        // Bring the selected lane into view when it is outside.
        const QCPRange r = d->plot->yAxis->range();
        if (sel < r.lower || sel > r.upper) {
            const double size = r.size();
            d->plot->yAxis->setRange(sel - size / 2, sel + size / 2);
        }
    }
}

} // namespace plui
