#include "ui/breakevenview.h"

#include "ui/bytestext.h"
#include "ui/compactticker.h"
#include "core/cost/calibrated_rates.h"
#include "core/cost/calibration.h"
#include "core/cost/cost_model.h"
#include "core/cost/cost_report.h"
#include "core/cost/measured_curves.h"
#include "core/number_text.h"
#include "ui/qtext.h"
#include "core/workload.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace plui {

namespace {

// core's cost report (the rows `preemptlab-cli breakeven` prints) as an HTML table: the labels in a column of
// their own, the values wrapping in theirs.
QString reportHtml(const pl::cost::CostReport& report) {
    QString rows, tail;
    for (const auto& row : report.rows) {
        rows += QStringLiteral("<tr><td style=\"white-space: nowrap; padding-right: 8px;\">%1</td><td>%2</td></tr>")
                    .arg(QString::fromStdString(row.label).toHtmlEscaped(), QString::fromStdString(row.value).toHtmlEscaped());
    }
    for (const auto& verdict : report.verdicts) tail += QStringLiteral("<p>%1</p>").arg(QString::fromStdString(verdict).toHtmlEscaped());
    return QStringLiteral("<p><b>%1</b></p><table cellspacing=\"0\" cellpadding=\"1\" width=\"100%\">%2</table>%3")
        .arg(QString::fromStdString(report.title).toHtmlEscaped(), rows, tail);
}

// One slider: integer positions mapped to a value (linear or logarithmic).
struct SliderSpec {
    QString name;
    QString label;
    double lo;
    double hi;
    bool log;
    QString unit;
    int decimals;
};

const SliderSpec kSliders[] = {
    {QStringLiteral("link"), QStringLiteral("link bandwidth"), 1, 128, true, QStringLiteral("GB/s"), 1},
    {QStringLiteral("mfu"), QStringLiteral("MFU"), 5, 100, false, QStringLiteral("%"), 0},
    {QStringLiteral("overhead"), QStringLiteral("per-copy cost"), 0, 50, false, QStringLiteral("\u00b5s"), 1},
    {QStringLiteral("block"), QStringLiteral("block size"), 1, 256, true, QStringLiteral("tokens"), 0},
    {QStringLiteral("tp"), QStringLiteral("tensor parallel"), 1, 8, true, QStringLiteral("GPUs"), 0},
    {QStringLiteral("context"), QStringLiteral("context"), 128, 262144, true, QStringLiteral("tokens"), 0},
};
constexpr int kSteps = 200;

double toValue(const SliderSpec& s, int pos) {
    const double f = pos / static_cast<double>(kSteps);
    const double v = s.log ? s.lo * std::pow(s.hi / s.lo, f) : s.lo + (s.hi - s.lo) * f;
    if (s.name == QLatin1String("block") || s.name == QLatin1String("tp")) {
        return std::pow(2.0, std::round(std::log2(v))); // powers of two
    }
    return s.decimals == 0 ? std::round(v) : v;
}
int toPos(const SliderSpec& s, double v) {
    v = std::clamp(v, s.lo, s.hi);
    const double f = s.log ? std::log(v / s.lo) / std::log(s.hi / s.lo) : (v - s.lo) / (s.hi - s.lo);
    return static_cast<int>(std::lround(f * kSteps));
}

struct Preset {
    QString title;
    const char* model;
    const char* gpu;
    pl::cost::CopyLayout layout;
    double link, mfu, overhead, block, tp, context;
};

const Preset kPresets[] = {
    {QStringLiteral("Seed 004: Llama 3.1 8B, H100, one batched copy at 50 GB/s"), "llama-3.1-8b", "h100-sxm",
     pl::cost::CopyLayout::Batched, 50, 50, 0, 16, 1, 4096},
    {QStringLiteral("Seed 004: per-block copies of 32 KiB, 5 \u00b5s each"), "llama-3.1-8b", "h100-sxm",
     pl::cost::CopyLayout::Separate, 50, 50, 5, 16, 1, 4096},
    {QStringLiteral("Seed 004: per-block copies, 10 \u00b5s each"), "llama-3.1-8b", "h100-sxm",
     pl::cost::CopyLayout::Separate, 50, 50, 10, 16, 1, 4096},
    {QStringLiteral("MHA model (Llama 2 7B), batched copy"), "llama-2-7b", "h100-sxm", pl::cost::CopyLayout::Batched,
     50, 50, 0, 16, 1, 4096},
    {QStringLiteral("Llama 3.1 70B on 4 x H100, batched copy"), "llama-3.1-70b", "h100-sxm",
     pl::cost::CopyLayout::Batched, 50, 50, 0, 16, 4, 4096},
};

QString qs(const std::string& s) { return QString::fromStdString(s); }

} // namespace

struct BreakevenView::Impl {
    std::map<QString, QSlider*> sliders;
    std::map<QString, QLabel*> values;
    // A preset's exact values (50 GB/s, 4,096 tokens) until the user moves that slider: a slider position is
    // one of 200 log steps and would price 49.7 GB/s and 4,110 tokens instead of the seed's numbers.
    std::map<QString, double> exact;
    QCustomPlot* plot = nullptr;
    QCPItemStraightLine* crossover = nullptr;
    QCPItemText* crossoverLabel = nullptr;
    QCPItemStraightLine* contextLine = nullptr;
    QCPItemText* contextLabel = nullptr;
    bool applying = false;
    // Measured (a calibration is loaded): graphs 2 and 3 of the main plot, the break-even mark, two plots.
    std::optional<pl::cost::Calibration> calibration;
    QCPItemStraightLine* measuredLine = nullptr;
    QCPItemText* measuredLabel = nullptr;
    double measuredAt = -1.0;
    QWidget* measuredRow = nullptr;
    QCustomPlot* swapPlot = nullptr;
    QCustomPlot* prefillPlot = nullptr;
};

namespace {

const QColor kMethodColours[] = {QColor(0x25, 0x63, 0xeb), QColor(0x16, 0xa3, 0x4a), QColor(0x93, 0x33, 0xea)};

QCustomPlot* makeSmallPlot(QWidget* parent, const QString& name, const QString& x, const QString& y) {
    auto* p = new QCustomPlot(parent);
    p->setObjectName(name);
    p->setMinimumSize(160, 130);
    for (QCPAxis* a : {p->xAxis, p->yAxis}) {
        a->setScaleType(QCPAxis::stLogarithmic);
        a->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    }
    p->yAxis->setTicker(QSharedPointer<LogTicker125>::create()); // the times: 20k, 50k, 100k, not crowded
    p->xAxis->setLabel(x);
    p->yAxis->setLabel(y);
    p->legend->setVisible(true);
    QFont small = p->legend->font();
    small.setPointSize(7);
    p->legend->setFont(small);
    // The points rise from bottom left to top right (time grows with size): the legend goes where none are.
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    return p;
}

// A core curve's coordinates as QCustomPlot takes them.
QVector<double> vec(const std::vector<double>& v) { return QVector<double>(v.begin(), v.end()); }

} // namespace

// The left column: presets, model, GPU, layout, the sliders, the measured and workload notes and core's report;
// it scrolls (sideways only below 250 px).
QWidget* BreakevenView::createControls() {
    auto* controls = new QWidget(this);
    auto* form = new QFormLayout(controls);
    // In a narrow pane a row's control goes under its name rather than off the edge (the verdict and the
    // calibration text then wrap inside the pane instead of being cut).
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    preset_ = new QComboBox(controls);
    preset_->setObjectName(QStringLiteral("breakevenPreset"));
    for (const Preset& p : kPresets) preset_->addItem(p.title);
    preset_->setMinimumContentsLength(16); // the list and the tooltip give the full title
    preset_->setToolTip(preset_->currentText());
    connect(preset_, &QComboBox::currentTextChanged, preset_, [this](const QString& title) { preset_->setToolTip(title); });
    preset_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    form->addRow(tr("preset"), preset_);
    model_ = new QComboBox(controls);
    for (const auto& m : pl::cost::modelPresets()) model_->addItem(qs(m.display), qs(m.name));
    form->addRow(tr("model"), model_);
    gpu_ = new QComboBox(controls);
    for (const auto& h : pl::cost::hardwarePresets()) gpu_->addItem(qs(h.display), qs(h.name));
    form->addRow(tr("GPU"), gpu_);
    layout_ = new QComboBox(controls);
    for (auto l : {pl::cost::CopyLayout::Separate, pl::cost::CopyLayout::Together, pl::cost::CopyLayout::Batched}) {
        const auto s = pl::cost::toString(l);
        layout_->addItem(qsv(s), static_cast<int>(l));
    }
    layout_->setToolTip(tr("separate: one copy per block per layer per K/V; together: per block per layer; "
                           "batched: one gather copy per request"));
    form->addRow(tr("copy layout"), layout_);
    for (const SliderSpec& s : kSliders) {
        auto* row = new QWidget(controls);
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        auto* slider = new QSlider(Qt::Horizontal, row);
        slider->setObjectName(QStringLiteral("breakeven_") + s.name);
        slider->setRange(0, kSteps);
        auto* value = new QLabel(row);
        value->setMinimumWidth(value->fontMetrics().horizontalAdvance(QStringLiteral("262,144 tokens")));
        h->addWidget(slider, 1);
        h->addWidget(value);
        d->sliders[s.name] = slider;
        d->values[s.name] = value;
        form->addRow(s.label, row);
        connect(slider, &QSlider::valueChanged, this, [this, name = s.name]() {
            if (d->applying) return;
            d->exact.erase(name);
            recompute();
        });
    }
    measured_ = new QLabel(controls);
    measured_->setObjectName(QStringLiteral("breakevenMeasured"));
    measured_->setWordWrap(true);
    form->addRow(measured_);
    workload_ = new QLabel(controls);
    workload_->setObjectName(QStringLiteral("breakevenWorkload"));
    workload_->setWordWrap(true);
    workload_->setVisible(false);
    form->addRow(workload_);
    report_ = new QLabel(controls);
    report_->setObjectName(QStringLiteral("breakevenReport"));
    // The CLI's report as a two-column table whose values wrap, under the controls (not centred in the space
    // left below them): as monospace lines, its longest lines ran off the pane and scrolled sideways.
    report_->setWordWrap(true);
    report_->setTextFormat(Qt::RichText);
    report_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    report_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont mono(QStringLiteral("DejaVu Sans Mono"));
    mono.setPointSize(8);
    report_->setFont(mono);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* left = new QWidget(scroll);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(controls);
    // The report scrolls on its own (down only: its values wrap), so it never widens the controls above it.
    auto* reportScroll = new QScrollArea(left);
    reportScroll->setWidgetResizable(true);
    reportScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    reportScroll->setFrameShape(QFrame::NoFrame);
    reportScroll->setWidget(report_);
    leftLayout->addWidget(reportScroll, 1);
    scroll->setWidget(left);
    scroll->setMinimumWidth(250); // scrolls sideways below that: the window fits a 1024-px screen
    return scroll;
}

// The right column: the verdict over the per-token curves (crossover, context and measured lines), and the
// measured swap and prefill plots under them.
QWidget* BreakevenView::createCurves() {
    d->plot = new QCustomPlot(this);
    d->plot->setObjectName(QStringLiteral("breakevenPlot"));
    d->plot->setMinimumSize(220, 180);
    d->plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    d->plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    d->plot->xAxis->setLabel(tr("context (tokens, log scale)"));
    d->plot->yAxis->setLabel(tr("\u00b5s per token (per GPU)"));
    // The legend under the axes: inside them (top left) it covered the recompute curve on a short plot and the
    // swap line where the link is slow.
    legendBelow(d->plot);
    auto* swap = d->plot->addGraph();
    swap->setName(tr("swap round trip"));
    swap->setPen(QPen(QColor(0x93, 0x33, 0xea), 2.2, Qt::DashLine));
    auto* rec = d->plot->addGraph();
    rec->setName(tr("recompute"));
    rec->setPen(QPen(QColor(0xf9, 0x73, 0x16), 2.2));
    d->crossover = new QCPItemStraightLine(d->plot);
    d->crossover->setPen(QPen(Qt::black, 1.2, Qt::DotLine));
    d->crossoverLabel = new QCPItemText(d->plot);
    d->crossoverLabel->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    d->crossoverLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    // The context the verdict is for: dark grey and named (red means a victim elsewhere in the lab).
    const QColor contextColour(0x37, 0x41, 0x51);
    d->contextLine = new QCPItemStraightLine(d->plot);
    d->contextLine->setPen(QPen(contextColour, 1.2, Qt::DashLine));
    d->contextLabel = new QCPItemText(d->plot);
    d->contextLabel->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    d->contextLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    d->contextLabel->setColor(contextColour);
    // Labels over the curves keep them readable where a line crosses (the context line, a grid line).
    d->crossoverLabel->setBrush(QColor(255, 255, 255, 220));
    d->crossoverLabel->setPadding(QMargins(3, 2, 3, 2));
    d->measuredLine = new QCPItemStraightLine(d->plot);
    d->measuredLine->setPen(QPen(QColor(0x0f, 0x76, 0x6e), 1.6, Qt::DashDotLine));
    d->measuredLabel = new QCPItemText(d->plot);
    d->measuredLabel->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    d->measuredLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    d->measuredLabel->setColor(QColor(0x0f, 0x76, 0x6e));
    auto* mswap = d->plot->addGraph();
    mswap->setName(tr("measured swap"));
    mswap->setPen(QPen(QColor(0x93, 0x33, 0xea), 3.0, Qt::SolidLine)); // measured: thick, on its measured range
    auto* mrec = d->plot->addGraph();
    mrec->setName(tr("measured recompute"));
    mrec->setPen(QPen(QColor(0xf9, 0x73, 0x16), 3.0, Qt::DotLine));
    auto* column = new QWidget(this);
    auto* columnLayout = new QVBoxLayout(column);
    columnLayout->setContentsMargins(0, 0, 0, 0);
    // The verdict heads the curves it sums up: under the controls it was scrolled out of a docked pane.
    verdict_ = new QLabel(column);
    verdict_->setObjectName(QStringLiteral("breakevenVerdict"));
    verdict_->setWordWrap(true);
    columnLayout->addWidget(verdict_, 0);
    columnLayout->addWidget(d->plot, 3);
    d->measuredRow = new QWidget(column);
    auto* row = new QHBoxLayout(d->measuredRow);
    row->setContentsMargins(0, 0, 0, 0);
    d->swapPlot = makeSmallPlot(d->measuredRow, QStringLiteral("breakevenSwapPlot"), tr("bytes per swap (log)"),
                                tr("\u00b5s (log)"));
    // Six entries (three methods, two directions): under the axes, where they cover no point.
    legendBelow(d->swapPlot, 7);
    d->prefillPlot = makeSmallPlot(d->measuredRow, QStringLiteral("breakevenPrefillPlot"),
                                   tr("prefill tokens (log)"), tr("\u00b5s (log)"));
    // Prefill lengths are powers of two (512 ... 8192): label them so, not as crowded decimal sub-ticks.
    auto tokensTicker = QSharedPointer<QCPAxisTickerLog>::create();
    tokensTicker->setLogBase(2);
    d->prefillPlot->xAxis->setTicker(tokensTicker);
    // As many as fit side by side ("4096" and a gap each): every other power on a narrow plot, not
    // "512 1024204840968192".
    QCustomPlot* prefill = d->prefillPlot;
    connect(prefill, &QCustomPlot::afterLayout, prefill, [prefill, tokensTicker] {
        const int labelPx = QFontMetrics(prefill->xAxis->tickLabelFont()).horizontalAdvance(QStringLiteral("00000")) + 12;
        const int count = std::clamp(prefill->axisRect()->width() / labelPx, 2, 6);
        if (tokensTicker->tickCount() == count) return;
        tokensTicker->setTickCount(count);
        prefill->replot(QCustomPlot::rpQueuedReplot);
    });
    row->addWidget(d->swapPlot);
    row->addWidget(d->prefillPlot);
    columnLayout->addWidget(d->measuredRow, 2);
    return column;
}

BreakevenView::BreakevenView(QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()) {
    auto* outer = new QHBoxLayout(this);
    outer_ = outer;
    outer->setContentsMargins(2, 2, 2, 2);
    outer->addWidget(createControls(), 2);
    outer->addWidget(createCurves(), 3);
    setCalibration(nullptr);

    connect(preset_, &QComboBox::currentIndexChanged, this, &BreakevenView::applyPreset);
    for (QComboBox* c : {model_, gpu_, layout_}) {
        connect(c, &QComboBox::currentIndexChanged, this, [this]() {
            if (!d->applying) recompute();
        });
    }
    applyPreset(0);
}

BreakevenView::~BreakevenView() = default;

QCustomPlot* BreakevenView::plot() const { return d->plot; }

QSlider* BreakevenView::slider(const QString& name) const {
    auto it = d->sliders.find(name);
    return it == d->sliders.end() ? nullptr : it->second;
}

QString BreakevenView::verdictText() const { return verdict_->text(); }

// The controls' column takes two fifths; where the pane has room, as much as the report's lines need (up to
// half), so a wide window shows the report whole instead of scrolling it sideways beside empty space.
void BreakevenView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitColumns();
}

void BreakevenView::fitColumns() {
    if (!outer_) return;
    const int w = std::max(1, width());
    const int wanted = report_->sizeHint().width() + 32; // the margins and a scroll bar
    const int left = std::clamp(wanted, w * 2 / 5, w / 2);
    outer_->setStretch(0, left);
    outer_->setStretch(1, w - left);
}

QString BreakevenView::workloadText() const { return workload_->text(); }

void BreakevenView::setWorkloadConfig(const pl::Config* config) {
    workload_->setText(config ? workloadVerdict(*config) : QString());
    workload_->setVisible(config != nullptr);
}

QString BreakevenView::workloadVerdict(const pl::Config& c) {
    // Per token: recompute re-prefills it from the tick's prefill budget; swap copies its KV out and back
    // over the link. Both grow linearly with the context in the tick model (no per-copy cost), so the cheaper
    // one is cheaper at every length (whole ticks aside).
    const double recompute = static_cast<double>(c.prefill_tokens_per_tick);
    const double swap = static_cast<double>(c.transfer_bytes_per_tick) / (2.0 * static_cast<double>(c.kv_bytes_per_token));
    // "512", "1.04", "0.002": whole figures grouped where they are large (and fit an integer), else three
    // significant digits.
    const auto figure = [](double v) {
        return v >= 10 && v < 1e15 ? groupedNumber(std::llround(v)) : QString::number(v, 'g', 3);
    };
    QString which;
    if (swap > recompute) {
        which = tr("swap is %1\u00d7 cheaper per token at every length").arg(figure(swap / recompute));
    } else if (recompute > swap) {
        which = tr("recompute is %1\u00d7 cheaper per token at every length").arg(figure(recompute / swap));
    } else {
        which = tr("they cost the same per token");
    }
    return tr("<b>The open workload's machine</b> (its config, in ticks): recompute re-prefills %1 tokens a tick; "
              "swap moves %2 tokens a tick out and back (%3 a tick over 2 \u00d7 %4 a token): %5 (the tick model "
              "has no per-copy cost, so no crossover). <code>preemptlab-cli rates</code> turns a model and GPU "
              "into these rates.")
        .arg(groupedNumber(c.prefill_tokens_per_tick),
             figure(swap),
             exactBytesText(c.transfer_bytes_per_tick), exactBytesText(c.kv_bytes_per_token), which);
}

QCustomPlot* BreakevenView::swapPlot() const { return d->swapPlot; }

QCustomPlot* BreakevenView::prefillPlot() const { return d->prefillPlot; }

double BreakevenView::measuredBreakeven() const { return d->measuredAt; }

QString BreakevenView::measuredText() const { return measured_->text(); }

void BreakevenView::setCalibration(const pl::cost::Calibration* calibration) {
    d->calibration.reset();
    if (calibration) d->calibration = *calibration;
    d->measuredRow->setVisible(calibration != nullptr);
    recompute();
}

void BreakevenView::applyPreset(int index) {
    if (index < 0 || index >= static_cast<int>(std::size(kPresets))) return;
    const Preset& p = kPresets[index];
    d->applying = true;
    model_->setCurrentIndex(model_->findData(QString::fromLatin1(p.model)));
    gpu_->setCurrentIndex(gpu_->findData(QString::fromLatin1(p.gpu)));
    layout_->setCurrentIndex(layout_->findData(static_cast<int>(p.layout)));
    const std::map<QString, double> values = {{QStringLiteral("link"), p.link},       {QStringLiteral("mfu"), p.mfu},
                                              {QStringLiteral("overhead"), p.overhead}, {QStringLiteral("block"), p.block},
                                              {QStringLiteral("tp"), p.tp},           {QStringLiteral("context"), p.context}};
    for (const SliderSpec& s : kSliders) d->sliders[s.name]->setValue(toPos(s, values.at(s.name)));
    d->exact = values;
    d->applying = false;
    recompute();
}

void BreakevenView::recompute() {
    pl::cost::CostInputs in;
    if (auto m = pl::cost::findModelPreset(model_->currentData().toString().toStdString())) in.model = *m;
    if (auto h = pl::cost::findHardwarePreset(gpu_->currentData().toString().toStdString())) in.hardware = *h;
    in.layout = static_cast<pl::cost::CopyLayout>(layout_->currentData().toInt());
    std::map<QString, double> v;
    for (const SliderSpec& s : kSliders) {
        const auto exact = d->exact.find(s.name);
        v[s.name] = exact != d->exact.end() ? exact->second : toValue(s, d->sliders[s.name]->value());
        const QString unit = s.name == QLatin1String("tp") && v[s.name] == 1 ? QStringLiteral("GPU") : s.unit;
        // Whole numbers grouped as everywhere else ("4,096 tokens"); rates with their decimals.
        const QString number = s.decimals == 0 ? groupedNumber(std::llround(v[s.name]))
                                               : QString::number(v[s.name], 'f', s.decimals);
        d->values[s.name]->setText(QStringLiteral("%1 %2").arg(number, unit));
    }
    in.link_gbps = v[QStringLiteral("link")];
    in.mfu = v[QStringLiteral("mfu")] / 100.0;
    in.copy_overhead_us = v[QStringLiteral("overhead")];
    in.block_size = static_cast<std::int64_t>(v[QStringLiteral("block")]);
    in.tp = static_cast<std::int64_t>(v[QStringLiteral("tp")]);
    in.context = static_cast<std::int64_t>(v[QStringLiteral("context")]);
    if (auto err = pl::cost::validateCostInputs(in)) {
        verdict_->setText(tr("<b>Cannot price this:</b> %1: %2").arg(qs(err->field), qs(err->reason)));
        return;
    }
    const pl::cost::CostOutputs out = pl::cost::computeCost(in);
    const auto curve = pl::cost::sampleCurves(in, 128, 262144, 240);
    QVector<double> x, ys, yr;
    for (const auto& pt : curve) {
        x << static_cast<double>(pt.context);
        ys << pt.swap_us_per_token;
        yr << pt.recompute_us_per_token;
    }
    d->plot->graph(0)->setData(x, ys, true);
    d->plot->graph(1)->setData(x, yr, true);
    d->plot->xAxis->setRange(128, 262144);
    double ymax = 0;
    for (double y : ys) ymax = std::max(ymax, y);
    for (double y : yr) ymax = std::max(ymax, y);
    d->plot->yAxis->setRange(0, ymax * 1.08);
    drawMeasured(ymax);
    fitLegend(d->plot); // the measured curves' entries come and go with a calibration
    const double ctx = static_cast<double>(in.context);
    d->contextLine->point1->setCoords(ctx, 0);
    d->contextLine->point2->setCoords(ctx, 1);
    d->contextLabel->position->setCoords(ctx * 1.04, 0.6); // above the swap curves
    d->contextLabel->setText(tr("context\n%1").arg(groupedNumber(in.context)));
    if (out.breakeven_context_tokens && *out.breakeven_context_tokens > 0) {
        const double be = *out.breakeven_context_tokens;
        d->crossover->setVisible(true);
        d->crossover->point1->setCoords(be, 0);
        d->crossover->point2->setCoords(be, 1);
        d->crossoverLabel->setVisible(true);
        d->crossoverLabel->position->setCoords(be * 1.05, 0.45);
        // Rounded down, as core's report and verdict print it.
        d->crossoverLabel->setText(tr("break-even\n%1 tokens").arg(groupedNumber(static_cast<std::int64_t>(std::floor(be)))));
    } else {
        d->crossover->setVisible(false);
        d->crossoverLabel->setVisible(true);
        d->crossoverLabel->position->setCoords(150, 0.04); // top left, clear of the context label
        // On three lines: on one it ran off a plot in a docked pane ("...cheaper at eve").
        d->crossoverLabel->setText(tr("no crossover:\nswap is cheaper\nat every length"));
    }
    d->plot->replot(QCustomPlot::rpQueuedReplot);
    verdict_->setText(tr("<b>At %1 tokens: %2.</b> swap %3 \u00b5s/token, recompute %4 \u00b5s/token; "
                         "effective link %5 GB/s.")
                          .arg(groupedNumber(in.context))
                          .arg(qs(out.verdict))
                          .arg(out.swap_us_per_token, 0, 'f', 2)
                          .arg(out.recompute_us_per_token, 0, 'f', 2)
                          .arg(out.effective_link_gbps, 0, 'f', 1));
    report_->setText(reportHtml(pl::cost::costReport(in, out)));
    fitColumns(); // another model or preset writes lines of another length
}

void BreakevenView::drawMeasured(double ymax) {
    QCPGraph* mswap = d->plot->graph(2);
    QCPGraph* mrec = d->plot->graph(3);
    d->measuredAt = -1.0;
    d->swapPlot->clearGraphs();
    d->prefillPlot->clearGraphs();
    const bool on = d->calibration.has_value();
    for (QCPGraph* g : {mswap, mrec}) {
        g->data()->clear();
        g->setVisible(on);
        on ? (void)g->addToLegend() : (void)g->removeFromLegend();
    }
    d->measuredLine->setVisible(false);
    d->measuredLabel->setVisible(false);
    measured_->setVisible(on);
    if (!on) return;
    const pl::cost::Calibration& c = *d->calibration;
    const auto wanted = static_cast<std::int64_t>(toValue(kSliders[3], d->sliders[QStringLiteral("block")]->value()));
    // Core's curves (over the measured ranges only: no extrapolation is drawn); this view only draws them.
    const pl::cost::MeasuredCurves m = pl::cost::measuredCurves(c, wanted);
    const std::int64_t bs = m.block_size;
    const QString method = QString::fromUtf8(pl::toString(m.method).data());
    mswap->setName(tr("measured swap (%1, %2-token blocks)").arg(method).arg(bs));
    mswap->setData(vec(m.swap_us_per_token.x), vec(m.swap_us_per_token.y), true);
    mrec->setData(vec(m.recompute_us_per_token.x), vec(m.recompute_us_per_token.y), true);
    for (double y : m.swap_us_per_token.y) ymax = std::max(ymax, y);
    for (double y : m.recompute_us_per_token.y) ymax = std::max(ymax, y);
    d->plot->yAxis->setRange(0, ymax * 1.08);
    QString where = tr("no crossover: one of them is cheaper at every length");
    if (!m.breakevens.empty()) {
        d->measuredAt = m.breakevens.front();
        d->measuredLine->setVisible(true);
        d->measuredLine->point1->setCoords(d->measuredAt, 0);
        d->measuredLine->point2->setCoords(d->measuredAt, 1);
        d->measuredLabel->setVisible(true);
        d->measuredLabel->position->setCoords(d->measuredAt * 1.05, 0.7);
        d->measuredLabel->setText(tr("measured\n%1 tokens").arg(groupedNumber(std::llround(d->measuredAt))));
        QStringList at;
        for (double r : m.breakevens) at << groupedNumber(std::llround(r));
        where = tr("measured break-even at %1 tokens").arg(at.join(QStringLiteral(", ")));
    }
    measured_->setText(tr("<b>Calibration:</b> %1, %2 (%3 B/token); %4 swaps at %5-token blocks vs prefill: %6 "
                          "(the thick curves, over the measured ranges only).")
                           .arg(qs(c.device_name).toHtmlEscaped(), qs(c.model)).arg(c.kv_bytes_per_token)
                           .arg(method).arg(bs).arg(where));

    // Swap microseconds against bytes, every method at this block size: points measured, lines fitted.
    for (const auto& s : m.swaps) {
        const int colour = static_cast<int>(s.method);
        const bool h2d = s.direction == "h2d";
        auto* g = d->swapPlot->addGraph();
        g->setName(QStringLiteral("%1 %2").arg(QString::fromUtf8(pl::toString(s.method).data()), qs(s.direction)));
        g->setPen(QPen(kMethodColours[colour % 3], 1.2, h2d ? Qt::DashLine : Qt::SolidLine));
        g->setScatterStyle(QCPScatterStyle(h2d ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssCircle, 5));
        if (!s.fit.x.empty()) {
            g->setData(vec(s.fit.x), vec(s.fit.y), true); // the fitted line through the measured points' range
            g->setLineStyle(QCPGraph::lsLine);
        }
        auto* pts = d->swapPlot->addGraph();
        pts->removeFromLegend();
        pts->setLineStyle(QCPGraph::lsNone);
        pts->setScatterStyle(g->scatterStyle());
        pts->setPen(QPen(kMethodColours[colour % 3]));
        pts->setData(vec(s.points.x), vec(s.points.y));
    }
    d->swapPlot->rescaleAxes();
    fitLegend(d->swapPlot);
    auto* prefillFit = d->prefillPlot->addGraph();
    prefillFit->setName(tr("prefill fit"));
    prefillFit->setPen(QPen(QColor(0xf9, 0x73, 0x16), 1.4));
    auto* prefillPts = d->prefillPlot->addGraph();
    prefillPts->setName(tr("measured"));
    prefillPts->setLineStyle(QCPGraph::lsNone);
    prefillPts->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 5));
    prefillFit->setData(vec(m.prefill_fit.x), vec(m.prefill_fit.y), true);
    prefillPts->setData(vec(m.prefill_points.x), vec(m.prefill_points.y));
    d->prefillPlot->rescaleAxes();
    for (QCustomPlot* p : {d->swapPlot, d->prefillPlot}) {
        for (QCPAxis* a : {p->xAxis, p->yAxis}) a->scaleRange(1.25, a->range().center());
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

} // namespace plui
