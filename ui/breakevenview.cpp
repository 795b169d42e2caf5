#include "breakevenview.h"

#include "cost/cost_model.h"
#include "cost/cost_report.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>
#include <map>

namespace plui {

namespace {

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
    QCustomPlot* plot = nullptr;
    QCPItemStraightLine* crossover = nullptr;
    QCPItemText* crossoverLabel = nullptr;
    QCPItemStraightLine* contextLine = nullptr;
    bool applying = false;
};

BreakevenView::BreakevenView(QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()) {
    auto* outer = new QHBoxLayout(this);
    outer->setContentsMargins(2, 2, 2, 2);
    auto* controls = new QWidget(this);
    auto* form = new QFormLayout(controls);
    preset_ = new QComboBox(controls);
    preset_->setObjectName(QStringLiteral("breakevenPreset"));
    for (const Preset& p : kPresets) preset_->addItem(p.title);
    preset_->setMinimumContentsLength(24);
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
        layout_->addItem(QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())), static_cast<int>(l));
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
        value->setMinimumWidth(value->fontMetrics().horizontalAdvance(QStringLiteral("262144 tokens")));
        h->addWidget(slider, 1);
        h->addWidget(value);
        d->sliders[s.name] = slider;
        d->values[s.name] = value;
        form->addRow(s.label, row);
        connect(slider, &QSlider::valueChanged, this, [this]() {
            if (!d->applying) recompute();
        });
    }
    verdict_ = new QLabel(controls);
    verdict_->setObjectName(QStringLiteral("breakevenVerdict"));
    verdict_->setWordWrap(true);
    form->addRow(verdict_);
    report_ = new QLabel(controls);
    report_->setWordWrap(true);
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
    leftLayout->addWidget(report_, 1);
    scroll->setWidget(left);
    scroll->setMinimumWidth(340);
    outer->addWidget(scroll, 2);

    d->plot = new QCustomPlot(this);
    d->plot->setObjectName(QStringLiteral("breakevenPlot"));
    d->plot->setMinimumSize(280, 200);
    d->plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    d->plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    d->plot->xAxis->setLabel(tr("context (tokens, log scale)"));
    d->plot->yAxis->setLabel(tr("\u00b5s per token (per GPU)"));
    d->plot->legend->setVisible(true);
    d->plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
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
    d->contextLine = new QCPItemStraightLine(d->plot);
    d->contextLine->setPen(QPen(QColor(0xdc, 0x26, 0x26), 1, Qt::DashLine));
    outer->addWidget(d->plot, 3);

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
        v[s.name] = toValue(s, d->sliders[s.name]->value());
        d->values[s.name]->setText(QStringLiteral("%1 %2").arg(v[s.name], 0, 'f', s.decimals).arg(s.unit));
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
    const double ctx = static_cast<double>(in.context);
    d->contextLine->point1->setCoords(ctx, 0);
    d->contextLine->point2->setCoords(ctx, 1);
    if (out.breakeven_context_tokens && *out.breakeven_context_tokens > 0) {
        const double be = *out.breakeven_context_tokens;
        d->crossover->setVisible(true);
        d->crossover->point1->setCoords(be, 0);
        d->crossover->point2->setCoords(be, 1);
        d->crossoverLabel->setVisible(true);
        d->crossoverLabel->position->setCoords(be * 1.05, 0.45);
        d->crossoverLabel->setText(tr("break-even\n%1 tokens").arg(QLocale().toString(std::llround(be))));
    } else {
        d->crossover->setVisible(false);
        d->crossoverLabel->setVisible(true);
        d->crossoverLabel->position->setCoords(150, 0.45);
        d->crossoverLabel->setText(tr("no crossover: swap is cheaper at every length"));
    }
    d->plot->replot(QCustomPlot::rpQueuedReplot);
    verdict_->setText(tr("<b>At %1 tokens: %2.</b> swap %3 \u00b5s/token, recompute %4 \u00b5s/token; "
                         "effective link %5 GB/s.")
                          .arg(in.context)
                          .arg(qs(out.verdict))
                          .arg(out.swap_us_per_token, 0, 'f', 2)
                          .arg(out.recompute_us_per_token, 0, 'f', 2)
                          .arg(out.effective_link_gbps, 0, 'f', 1));
    report_->setText(qs(pl::cost::costReportText(in, out)));
}

} // namespace plui
