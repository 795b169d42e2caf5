#include "ui/distributionsview.h"

#include "ui/bytestext.h"
#include "ui/compactticker.h"
#include "ui/distributiontable.h"
#include "ui/labdocument.h"
#include "ui/labslos.h"

#include "core/review/outcomes.h"
#include "core/review/report.h"
#include "core/session.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

namespace plui {

namespace {

const QString kMetricSetting = QStringLiteral("distributions/metric");
const QString kGroupingSetting = QStringLiteral("distributions/grouping");

// A figure as the view prints it: ms and ticks per token as they come ("22.6"), whole ticks otherwise.
QString figureText(double v, const DistributionTable& t) {
    if (t.tickUs > 0 || t.metric == DistMetric::Tpot) return QString::number(v, 'g', 7);
    return groupedNumber(std::llround(v));
}

// The same figure in ticks, for the tooltip beside ms.
QString ticksText(std::int64_t ticks, bool x100) {
    if (!x100) return groupedNumber(ticks);
    return QString::number(static_cast<double>(ticks) / 100.0, 'f', 2);
}

// A group's label under its box: the key, then its requests and censored ones ("n=4 · 1 censored").
QString groupLabel(const DistributionRow& r, const DistributionTable& t) {
    QString counts = QObject::tr("n=%1").arg(groupedNumber(r.requests));
    if (r.censored > 0) counts += QObject::tr(" \u00b7 %1 censored").arg(groupedNumber(r.censored));
    QString label = r.key + QLatin1Char('\n') + counts;
    if (r.values == 0) label += QLatin1Char('\n') + QObject::tr("no %1").arg(metricKey(t.metric).toUpper());
    if (r.goodput) label += QLatin1Char('\n') + QObject::tr("good %1%").arg(QString::number(r.goodput->percent(), 'f', 1));
    return label;
}

} // namespace

struct DistributionsView::Impl {
    LabDocument* doc = nullptr;
    LabSlos* slos = nullptr;
    QLineEdit* sloFields[2] = {}; // TTFT, TPOT
    QLabel* sloUnits[2] = {};
    QLabel* sloError = nullptr;
    QLabel* goodput = nullptr;
    std::optional<pl::review::RunOutcomes> outcomes;
    QComboBox* metric = nullptr;
    QComboBox* grouping = nullptr;
    QLabel* caption = nullptr;
    QCustomPlot* plot = nullptr;
    QCPStatisticalBox* boxes = nullptr;
    std::optional<pl::review::Report> report;
    DistributionTable table;
    bool stale = true; // the document's run changed while hidden: rebuilt when shown
    bool ownReport = false; // showOutcomes's, until the next run
    double top = 0;         // the tallest figure drawn (the value axis leaves room over it)
};

DistributionsView::DistributionsView(LabDocument* doc, LabSlos* slos, QWidget* parent)
    : QWidget(parent), d(std::make_unique<Impl>()) {
    d->doc = doc;
    d->slos = slos;
    setObjectName(QStringLiteral("distributionsView"));
    buildControls();
    if (slos) {
        buildSloFields();
        connect(slos, &LabSlos::changed, this, [this]() { rebuildReport(); });
    }
    connect(doc, &LabDocument::changed, this, [this](LabChange what) {
        if (!(what & LabChangeKind::Session) && !((what & LabChangeKind::Busy) && !d->doc->session())) return;
        d->ownReport = false;
        d->stale = true;
        if (isVisible()) rebuildFromRun();
    });
}

DistributionsView::~DistributionsView() = default;

void DistributionsView::buildControls() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    d->metric = new QComboBox(this);
    d->metric->setObjectName(QStringLiteral("distMetric"));
    for (DistMetric m : kDistMetrics) d->metric->addItem(metricTitle(m), metricKey(m));
    d->grouping = new QComboBox(this);
    d->grouping->setObjectName(QStringLiteral("distGrouping"));
    // Narrow when the dock is: the choosers never set the bottom dock area's least width.
    for (QComboBox* box : {d->metric, d->grouping}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(12);
    }
    for (DistGrouping g : kDistGroupings) d->grouping->addItem(groupingTitle(g), groupingKey(g));
    auto* metricLabel = new QLabel(tr("&Metric"), this);
    metricLabel->setBuddy(d->metric);
    auto* groupingLabel = new QLabel(tr("&By"), this);
    groupingLabel->setBuddy(d->grouping);
    row->addWidget(metricLabel);
    row->addWidget(d->metric);
    row->addSpacing(12);
    row->addWidget(groupingLabel);
    row->addWidget(d->grouping);
    row->addStretch(1);
    outer->addLayout(row);
    d->goodput = new QLabel(this);
    d->goodput->setObjectName(QStringLiteral("distGoodput"));
    d->goodput->setWordWrap(true);
    d->goodput->setVisible(false);
    outer->addWidget(d->goodput);
    d->caption = new QLabel(this);
    d->caption->setObjectName(QStringLiteral("distCaption"));
    d->caption->setWordWrap(true);
    d->caption->setTextFormat(Qt::PlainText);
    outer->addWidget(d->caption);
    d->plot = new QCustomPlot(this);
    d->plot->setObjectName(QStringLiteral("distPlot"));
    d->plot->setMinimumSize(240, 160);
    d->plot->setMouseTracking(true);
    useCompactTicks(d->plot, true, false);
    d->boxes = new QCPStatisticalBox(d->plot->xAxis, d->plot->yAxis);
    d->boxes->setName(QStringLiteral("groups"));
    d->boxes->setBrush(QColor(0x93, 0xc5, 0xfd));
    d->boxes->setPen(QPen(QColor(0x1d, 0x4e, 0xd8), 1.2));
    d->boxes->setMedianPen(QPen(QColor(0x11, 0x18, 0x27), 2.5));
    d->boxes->setWhiskerPen(QPen(QColor(0x1d, 0x4e, 0xd8), 1.2, Qt::SolidLine));
    d->boxes->setWhiskerBarPen(QPen(QColor(0x1d, 0x4e, 0xd8), 1.5));
    d->boxes->setOutlierStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(0xdc, 0x26, 0x26), 6));
    d->boxes->setWidth(0.4);
    d->boxes->setWhiskerWidth(0.3);
    outer->addWidget(d->plot, 1);
    connect(d->plot, &QCustomPlot::mouseMove, this, &DistributionsView::showToolTip);
    d->plot->installEventFilter(this); // the room over the boxes follows the plot's height

    // The last choice, or queue delay by prompt bucket.
    QSettings settings;
    d->metric->setCurrentIndex(std::max(0, d->metric->findData(settings.value(kMetricSetting).toString())));
    d->grouping->setCurrentIndex(std::max(0, d->grouping->findData(settings.value(kGroupingSetting).toString())));
    connect(d->metric, &QComboBox::currentIndexChanged, this, [this]() {
        QSettings().setValue(kMetricSetting, d->metric->currentData().toString());
        redraw();
    });
    connect(d->grouping, &QComboBox::currentIndexChanged, this, [this]() {
        QSettings().setValue(kGroupingSetting, d->grouping->currentData().toString());
        redraw();
    });
}

// The SLO fields beside the choosers: what is typed goes to LabSlos (core parses it), in ms when the run's
// workload gives tick_us, else in ticks; a value that does not parse is named in red under them.
void DistributionsView::buildSloFields() {
    // A row of their own under the choosers: beside them the view's least width held the whole bottom dock
    // area (and the window) wider than 800 px.
    auto* row = new QHBoxLayout;
    static_cast<QVBoxLayout*>(layout())->insertLayout(1, row);
    for (int i = 0; i < 2; ++i) {
        const SloKind kind = i == 0 ? SloKind::Ttft : SloKind::Tpot;
        auto* field = new QLineEdit(this);
        field->setObjectName(i == 0 ? QStringLiteral("sloTtft") : QStringLiteral("sloTpot"));
        field->setPlaceholderText(tr("none"));
        field->setMaximumWidth(field->fontMetrics().horizontalAdvance(QStringLiteral("0000000.000")));
        field->setToolTip(i == 0 ? tr("TTFT objective: a request is good only if its first token came within it")
                                 : tr("TPOT objective: a request is good only if its time per output token is within it"));
        auto* label = new QLabel(i == 0 ? tr("TTFT SLO") : tr("TPOT SLO"), this);
        label->setBuddy(field);
        d->sloFields[i] = field;
        d->sloUnits[i] = new QLabel(this);
        row->addWidget(label);
        row->addWidget(field);
        row->addWidget(d->sloUnits[i]);
        row->addSpacing(8);
        connect(field, &QLineEdit::editingFinished, this, [this, field, kind]() {
            const bool ms = d->outcomes && d->outcomes->tick_us > 0;
            QString error;
            const bool ok = d->slos->setText(ms, kind, field->text(), &error);
            d->sloError->setText(error);
            d->sloError->setVisible(!ok);
        });
    }
    // The run's goodput beside the fields (a row of its own cost the plot its height in a short dock).
    static_cast<QVBoxLayout*>(layout())->removeWidget(d->goodput);
    row->addWidget(d->goodput, 1);
    d->sloError = new QLabel(this);
    d->sloError->setObjectName(QStringLiteral("sloError"));
    d->sloError->setStyleSheet(QStringLiteral("color: #b91c1c;"));
    d->sloError->setWordWrap(true);
    d->sloError->setVisible(false);
    static_cast<QVBoxLayout*>(layout())->insertWidget(2, d->sloError);
}

void DistributionsView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    ensureCurrent();
}

void DistributionsView::ensureCurrent() {
    if (d->stale && !d->ownReport) rebuildFromRun();
}

void DistributionsView::showOutcomes(const pl::review::RunOutcomes& run) {
    d->outcomes = run;
    d->ownReport = true;
    d->stale = false;
    rebuildReport();
}

void DistributionsView::setMetric(DistMetric m) { d->metric->setCurrentIndex(d->metric->findData(metricKey(m))); }
void DistributionsView::setGrouping(DistGrouping g) {
    d->grouping->setCurrentIndex(d->grouping->findData(groupingKey(g)));
}
DistMetric DistributionsView::metric() const {
    return metricFromKey(d->metric->currentData().toString(), DistMetric::Queue);
}
DistGrouping DistributionsView::grouping() const {
    return groupingFromKey(d->grouping->currentData().toString(), DistGrouping::PromptBucket);
}
const DistributionTable& DistributionsView::table() const { return d->table; }
QCustomPlot* DistributionsView::plot() const { return d->plot; }
QLabel* DistributionsView::caption() const { return d->caption; }
QLabel* DistributionsView::goodputLabel() const { return d->goodput; }
QLineEdit* DistributionsView::sloField(bool ttft) const { return d->sloFields[ttft ? 0 : 1]; }
QComboBox* DistributionsView::metricChooser() const { return d->metric; }
QComboBox* DistributionsView::groupingChooser() const { return d->grouping; }

void DistributionsView::rebuildFromRun() {
    d->stale = false;
    const pl::Session* s = d->doc->session();
    if (!s) {
        d->outcomes.reset();
    } else {
        d->outcomes = pl::review::outcomesFromRun(s->workload(), s->result());
    }
    rebuildReport();
}

void DistributionsView::rebuildReport() {
    // Core's report with its default bucket edges: the figures `preemptlab-cli report` prints for this run's
    // receipt (and the review bundle's distributions.csv); with SLOs, each group's goodput too.
    const bool ms = d->outcomes && d->outcomes->tick_us > 0;
    pl::review::ReportOptions options;
    if (d->slos && d->outcomes) options.slos = d->slos->forTick(d->outcomes->tick_us);
    if (d->outcomes) d->report = pl::review::buildReport(*d->outcomes, options);
    else d->report.reset();
    for (int i = 0; d->slos && i < 2; ++i) {
        // The fields show the pair that applies: ms with tick_us, else ticks.
        const SloKind kind = i == 0 ? SloKind::Ttft : SloKind::Tpot;
        if (!d->sloFields[i]->hasFocus()) d->sloFields[i]->setText(d->slos->text(ms, kind));
        d->sloUnits[i]->setText(ms ? tr("ms") : (i == 0 ? tr("ticks") : tr("ticks/token")));
        d->sloFields[i]->setEnabled(d->outcomes.has_value());
    }
    d->goodput->setVisible(d->slos != nullptr && d->outcomes.has_value());
    if (d->slos && d->outcomes) {
        if (options.slos.any()) {
            const pl::review::Goodput g = pl::review::goodput(*d->outcomes, options.slos);
            d->goodput->setText(tr("Goodput (%1): %2").arg(slosText(options.slos), goodputText(g)));
        } else {
            d->goodput->setText(tr("Goodput: set a TTFT or TPOT SLO to see it."));
        }
    }
    redraw();
}

void DistributionsView::redraw() {
    QCustomPlot* p = d->plot;
    d->boxes->data()->clear();
    showNoRun(p, !d->report.has_value(), d->doc->noRunReason());
    if (!d->report) {
        d->table = DistributionTable{};
        d->top = 0;
        d->caption->setText(d->doc->noRunReason());
        p->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    d->table = distributionTable(*d->report, metric(), grouping());
    const DistributionTable& t = d->table;
    auto labels = QSharedPointer<QCPAxisTickerText>::create();
    p->clearItems();
    double top = 0;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const DistributionRow& r = t.rows[i];
        const auto key = static_cast<double>(i + 1);
        labels->addTick(key, groupLabel(r, t));
        if (r.values == 0) continue; // counted under its label, no figure to draw
        // Box from p50 to p90 (the median line on p50), whisker up to p99, the maximum as a dot above it.
        QVector<double> beyond;
        if (r.max > r.p99) beyond << r.max;
        d->boxes->addData(key, r.p50, r.p50, r.p50, r.p90, r.p99, beyond);
        top = std::max(top, r.max);
        // The figures over each box: a skewed group (p50 0, p90 4,520) is a box from the axis up, and its
        // numbers say what the picture cannot.
        auto* figures = new QCPItemText(p);
        figures->setObjectName(QStringLiteral("boxFigures"));
        figures->position->setCoords(key, r.max);
        figures->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        figures->setPadding(QMargins(2, 0, 2, 3));
        figures->setFont(QFont(p->font().family(), 8));
        figures->setColor(QColor(0x37, 0x41, 0x51));
        figures->setText(QStringLiteral("p50 %1 \u00b7 p90 %2\np99 %3 \u00b7 max %4")
                             .arg(figureText(r.p50, t), figureText(r.p90, t), figureText(r.p99, t), figureText(r.max, t)));
    }
    p->xAxis->setTicker(labels);
    p->xAxis->setSubTicks(false);
    p->xAxis->setTickLength(0, 4);
    p->xAxis->setRange(0.4, static_cast<double>(t.rows.size()) + 0.6);
    p->xAxis->setLabel(groupingTitle(t.grouping));
    p->yAxis->setLabel(QStringLiteral("%1 (%2)").arg(metricTitle(t.metric), t.unit));
    d->top = top;
    fitValueRange();
    // What the picture is of: the whole run (not the cursor), its counts, the unit and how to read a box.
    const std::int64_t last = d->doc->session() && !d->ownReport ? d->doc->lastTick() : -1;
    // One short line (a short dock keeps its height for the plot); how to read it in the tooltip.
    QString of = last >= 0 ? tr("Whole run, ticks 0 to %1 (not the cursor): ").arg(groupedNumber(last))
                           : tr("Whole run: ");
    of += tr("%1 requests, %2 censored.").arg(groupedNumber(t.requests), groupedNumber(t.censored));
    const QString unit = t.tickUs > 0 ? tr("In ms, 1 tick = %1 ms.")
                                            .arg(QString::number(static_cast<double>(t.tickUs) / 1000.0, 'g', 6))
                                      : tr("In ticks (no tick_us).");
    d->caption->setText(of + QLatin1Char(' ') + unit + tr(" Box p50-p90, whisker p99, dot max."));
    d->caption->setToolTip(tr("Core's review report (preemptlab-cli report) of the whole run, not the cursor. Censored "
                              "requests are counted in every group and in the queue delay and TTFT they have; TPOT "
                              "and completion are over completed requests. Hover a box for its figures%1.")
                               .arg(t.tickUs > 0 ? tr(" in ms and in ticks") : QString()));
    p->replot(QCustomPlot::rpQueuedReplot);
}

void DistributionsView::fitValueRange() {
    // Room over the tallest box for its two lines of figures, at the plot's height now.
    QCustomPlot* p = d->plot;
    const double figuresPx = 2.0 * QFontMetrics(QFont(p->font().family(), 8)).lineSpacing() + 8;
    const double plotPx = std::max(120.0, static_cast<double>(p->height()) - 70.0); // less the axes' margins
    p->yAxis->setRange(0, d->top > 0 ? d->top / std::max(0.5, 1.0 - figuresPx / plotPx) : 1);
}

bool DistributionsView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == d->plot && event->type() == QEvent::Resize) {
        fitValueRange();
        d->plot->replot(QCustomPlot::rpQueuedReplot);
    }
    return QWidget::eventFilter(watched, event);
}

void DistributionsView::showToolTip(QMouseEvent* event) {
    const DistributionTable& t = d->table;
    const double x = d->plot->xAxis->pixelToCoord(event->position().x());
    const long i = std::lround(x) - 1;
    if (i < 0 || static_cast<std::size_t>(i) >= t.rows.size() || std::abs(x - static_cast<double>(i + 1)) > 0.4) {
        QToolTip::hideText();
        return;
    }
    const DistributionRow& r = t.rows[static_cast<std::size_t>(i)];
    const bool x100 = t.metric == DistMetric::Tpot;
    auto fig = [&](double shown, std::int64_t ticks) {
        const QString inTicks = ticksText(ticks, x100) + (x100 ? tr(" ticks/token") : tr(" ticks"));
        return t.tickUs > 0 ? tr("%1 ms (%2)").arg(figureText(shown, t), inTicks) : inTicks;
    };
    QString text = tr("%1 %2: %3 requests, %4 censored, %5 values")
                       .arg(groupingTitle(t.grouping), r.key, groupedNumber(r.requests), groupedNumber(r.censored),
                            groupedNumber(r.values));
    if (r.values > 0) {
        text += QLatin1Char('\n') + tr("p50 %1\np90 %2\np99 %3\nmax %4")
                                        .arg(fig(r.p50, r.ticks.p50), fig(r.p90, r.ticks.p90), fig(r.p99, r.ticks.p99),
                                             fig(r.max, r.ticks.max));
    }
    QToolTip::showText(event->globalPosition().toPoint(), text, d->plot);
}

} // namespace plui
