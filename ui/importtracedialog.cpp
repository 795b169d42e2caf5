#include "ui/importtracedialog.h"

#include "core/cost/hardware_preset.h"
#include "core/cost/model_preset.h"
#include "core/trace/fixed_point.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace plui {

namespace {

constexpr int kMaxInt = 2'000'000'000;
const QString kGroup = QStringLiteral("import/");

QDoubleSpinBox* decimalBox(QWidget* parent, double lo, double hi, int decimals, double value, const QString& special = {}) {
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(lo, hi);
    box->setDecimals(decimals);
    box->setGroupSeparatorShown(true); // "20,000", as the policy panel and the CLI print numbers
    box->setValue(value);
    if (!special.isEmpty()) box->setSpecialValueText(special);
    return box;
}

QSpinBox* integerBox(QWidget* parent, int lo, int hi, int value, const QString& special = {}) {
    auto* box = new QSpinBox(parent);
    box->setRange(lo, hi);
    box->setGroupSeparatorShown(true); // "20,000", as the policy panel and the CLI print numbers
    box->setValue(value);
    if (!special.isEmpty()) box->setSpecialValueText(special);
    return box;
}

// The box's value as an exact integer of 10^-decimals units (the box already rounds to its decimals).
std::int64_t scaled(const QDoubleSpinBox* box) {
    const QString text = QString::number(box->value(), 'f', box->decimals());
    return pl::trace::parseScaledDecimal(text.toStdString(), box->decimals()).value_or(0);
}

} // namespace

ImportTraceDialog::ImportTraceDialog(const QString& path, QWidget* parent) : QDialog(parent), path_(path) {
    setObjectName(QStringLiteral("importTraceDialog"));
    setWindowTitle(tr("Import trace: %1").arg(QFileInfo(path).fileName()));
    auto* layout = new QVBoxLayout(this);
    auto* fileLabel = new QLabel(path, this);
    fileLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fileLabel->setWordWrap(true);
    layout->addWidget(fileLabel);
    auto* form = new QFormLayout;
    const pl::trace::ImportOptions d;
    format_ = new QComboBox(this);
    format_->addItem(tr("Azure LLM inference CSV"), QStringLiteral("azure"));
    format_->addItem(tr("Mooncake JSONL"), QStringLiteral("mooncake"));
    format_->setCurrentIndex(guessTraceFormat(path) == pl::trace::TraceFormat::Mooncake ? 1 : 0);
    form->addRow(tr("format"), format_);
    tickMs_ = decimalBox(this, 0.001, 1e6, 3, static_cast<double>(d.tick_us) / 1000.0);
    tickMs_->setSuffix(tr(" ms"));
    tickMs_->setToolTip(tr("How long one tick lasts (--tick-ms)"));
    form->addRow(tr("tick length"), tickMs_);
    startS_ = decimalBox(this, 0.0, 1e9, 3, 0.0);
    startS_->setSuffix(tr(" s"));
    startS_->setToolTip(tr("Slice start, seconds after the trace's first arrival (--start)"));
    form->addRow(tr("start"), startS_);
    durationS_ = decimalBox(this, 0.0, 1e9, 3, 0.0, tr("to the end"));
    durationS_->setSuffix(tr(" s"));
    durationS_->setToolTip(tr("Slice length in seconds (--duration); 0: to the end of the trace"));
    form->addRow(tr("duration"), durationS_);
    limit_ = integerBox(this, 0, kMaxInt, 200, tr("no limit"));
    limit_->setToolTip(tr("At most this many requests, the earliest in the slice (--limit); 0: no limit"));
    form->addRow(tr("limit"), limit_);
    rateScale_ = decimalBox(this, 0.000001, 1e6, 6, 1.0);
    rateScale_->setToolTip(tr("Arrivals this many times as fast: > 1 compresses, < 1 stretches (--rate-scale)"));
    form->addRow(tr("rate scale"), rateScale_);
    maxOutput_ = integerBox(this, 0, kMaxInt, 0, tr("none"));
    maxOutput_->setToolTip(tr("Every request declares this budget; longer outputs are cut (--max-output-tokens)"));
    form->addRow(tr("max output tokens"), maxOutput_);
    skipOversized_ = new QCheckBox(tr("skip requests that can never fit (else refuse the slice)"), this);
    form->addRow(tr("oversized"), skipOversized_);
    spread_ = new QComboBox(this);
    spread_->addItem(tr("off"));
    spread_->addItem(tr("auto (up to the next distinct timestamp)"));
    spread_->addItem(tr("fixed window"));
    spread_->setToolTip(tr("Spread coarse timestamps by a seeded offset (--spread)"));
    form->addRow(tr("spread"), spread_);
    spreadMs_ = decimalBox(this, 0.001, 1e9, 3, 1000.0);
    spreadMs_->setSuffix(tr(" ms"));
    form->addRow(tr("spread window"), spreadMs_);
    seed_ = integerBox(this, 0, kMaxInt, static_cast<int>(d.seed));
    form->addRow(tr("seed"), seed_);
    prefixBlocks_ = new QCheckBox(tr("map Mooncake hash_ids to prefix_blocks"), this);
    prefixBlocks_->setChecked(d.prefix_blocks);
    form->addRow(tr("prefix blocks"), prefixBlocks_);
    name_ = new QLineEdit(this);
    name_->setPlaceholderText(tr("from the file name"));
    form->addRow(tr("workload name"), name_);
    idPrefix_ = new QLineEdit(this);
    idPrefix_->setPlaceholderText(tr("az / mc"));
    form->addRow(tr("id prefix"), idPrefix_);
    // The machine: a model and a GPU from the cost model's presets give the block size, KV bytes per token, the
    // prefill and transfer rates at the tick length, and the capacity from the GPU's memory (import-trace
    // --model M --gpu G); none is the seed example's small machine (512 B per token, 64 tokens a tick).
    model_ = new QComboBox(this);
    model_->addItem(tr("none (the seed example's small machine)"), QString());
    for (const auto& m : pl::cost::modelPresets()) {
        model_->addItem(QString::fromStdString(m.display), QString::fromStdString(m.name));
    }
    model_->setToolTip(tr("The model whose KV and prefill cost the workload uses (--model)"));
    form->addRow(tr("model"), model_);
    gpu_ = new QComboBox(this);
    for (const auto& h : pl::cost::hardwarePresets()) {
        gpu_->addItem(QString::fromStdString(h.display), QString::fromStdString(h.name));
    }
    gpu_->setToolTip(tr("The GPU whose compute, memory and host link set the rates and the capacity (--gpu)"));
    form->addRow(tr("GPU"), gpu_);
    blockSize_ = integerBox(this, 0, 1 << 20, 16, tr("the machine's (or 8)"));
    blockSize_->setSuffix(tr(" tokens"));
    blockSize_->setToolTip(tr("Tokens per KV block (--block-size-tokens); over the machine's when set"));
    form->addRow(tr("block size"), blockSize_);
    capacity_ = integerBox(this, 0, 50'000'000, 1024, tr("the machine's (or 16)"));
    capacity_->setSuffix(tr(" blocks"));
    capacity_->setToolTip(tr("Device KV blocks (--capacity-blocks); over the GPU's memory when set"));
    form->addRow(tr("device capacity"), capacity_);
    hostGiB_ = decimalBox(this, 0.0, 1e6, 3, 0.0, tr("default (4 GiB with a machine, else 1 MiB)"));
    hostGiB_->setSuffix(tr(" GiB"));
    hostGiB_->setToolTip(tr("Pinned host memory for swapped blocks (--host-capacity-bytes). With a machine the default "
                            "is vLLM's --swap-space, 4 GiB per GPU; without one the seed example's 1 MiB, which holds 8 "
                            "tokens of Llama 3.1 8B's KV: every swap of a real model would fall back to recompute."));
    form->addRow(tr("host memory"), hostGiB_);
    // Choosing a machine hands the pool's shape to it (the boxes to 0, "the machine's"); the user may set them
    // again, and they win, as flags do on the command line.
    connect(model_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index > 0) {
            blockSize_->setValue(0);
            capacity_->setValue(0);
        }
        updateEnabled();
    });
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Import"));
    connect(buttons, &QDialogButtonBox::accepted, this, [this]() {
        saveSettings();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(format_, &QComboBox::currentIndexChanged, this, &ImportTraceDialog::updateEnabled);
    connect(spread_, &QComboBox::currentIndexChanged, this, &ImportTraceDialog::updateEnabled);
    loadSettings();
    updateEnabled();
}

void ImportTraceDialog::updateEnabled() {
    spreadMs_->setEnabled(spread_->currentIndex() == 2);
    seed_->setEnabled(spread_->currentIndex() != 0);
    prefixBlocks_->setEnabled(format_->currentIndex() == 1);
    gpu_->setEnabled(model_->currentIndex() > 0);
}

TraceImportJob ImportTraceDialog::job() const {
    TraceImportJob j;
    j.path = path_;
    j.format = format_->currentIndex() == 1 ? pl::trace::TraceFormat::Mooncake : pl::trace::TraceFormat::Azure;
    auto& o = j.options;
    o.tick_us = scaled(tickMs_);
    o.start_us = scaled(startS_) * 1000; // the box has 3 decimals: milliseconds
    if (const std::int64_t ms = scaled(durationS_); ms > 0) o.duration_us = ms * 1000;
    if (limit_->value() > 0) o.limit = limit_->value();
    o.rate_scale = pl::trace::parseRational(QString::number(rateScale_->value(), 'f', 6).toStdString())
                       .value_or(pl::trace::Rational{1, 1});
    if (maxOutput_->value() > 0) o.max_output_tokens = maxOutput_->value();
    o.skip_oversized = skipOversized_->isChecked();
    using Spread = pl::trace::ImportOptions::Spread;
    o.spread = spread_->currentIndex() == 0 ? Spread::Off : (spread_->currentIndex() == 1 ? Spread::Auto : Spread::Fixed);
    o.spread_window_us = o.spread == Spread::Fixed ? scaled(spreadMs_) : 0;
    o.seed = static_cast<std::uint64_t>(seed_->value());
    o.prefix_blocks = prefixBlocks_->isChecked();
    o.name = name_->text().trimmed().toStdString();
    o.id_prefix = idPrefix_->text().trimmed().toStdString();
    if (model_->currentIndex() > 0) {
        j.model = model_->currentData().toString();
        j.gpu = gpu_->currentData().toString();
    }
    j.block_size_tokens = blockSize_->value();
    j.capacity_blocks = capacity_->value();
    // Thousandths of a GiB (the box's 3 decimals) to bytes, rounded down; whole GiB are exact.
    j.host_capacity_bytes = scaled(hostGiB_) * (std::int64_t{1} << 30) / 1000;
    return j;
}

void ImportTraceDialog::loadSettings() {
    const QSettings s;
    auto number = [&](const char* key, QDoubleSpinBox* box) {
        const QVariant v = s.value(kGroup + QLatin1String(key));
        if (v.isValid()) box->setValue(v.toDouble());
    };
    auto integer = [&](const char* key, QSpinBox* box) {
        const QVariant v = s.value(kGroup + QLatin1String(key));
        if (v.isValid()) box->setValue(v.toInt());
    };
    number("tickMs", tickMs_);
    number("startS", startS_);
    number("durationS", durationS_);
    integer("limit", limit_);
    number("rateScale", rateScale_);
    integer("maxOutputTokens", maxOutput_);
    number("spreadMs", spreadMs_);
    integer("seed", seed_);
    // The machine first: choosing one sets the pool's boxes to "the machine's", and the saved values follow.
    auto pick = [&](const char* key, QComboBox* box) {
        const int i = box->findData(s.value(kGroup + QLatin1String(key)).toString());
        if (i >= 0) box->setCurrentIndex(i);
    };
    pick("gpu", gpu_);
    pick("model", model_);
    integer("blockSizeTokens", blockSize_);
    integer("capacityBlocks", capacity_);
    number("hostGiB", hostGiB_);
    spread_->setCurrentIndex(std::clamp(s.value(kGroup + QStringLiteral("spread"), 0).toInt(), 0, 2));
    skipOversized_->setChecked(s.value(kGroup + QStringLiteral("skipOversized"), false).toBool());
    prefixBlocks_->setChecked(s.value(kGroup + QStringLiteral("prefixBlocks"), true).toBool());
    name_->setText(s.value(kGroup + QStringLiteral("name")).toString());
    idPrefix_->setText(s.value(kGroup + QStringLiteral("idPrefix")).toString());
}

void ImportTraceDialog::saveSettings() const {
    QSettings s;
    s.setValue(kGroup + QStringLiteral("tickMs"), tickMs_->value());
    s.setValue(kGroup + QStringLiteral("startS"), startS_->value());
    s.setValue(kGroup + QStringLiteral("durationS"), durationS_->value());
    s.setValue(kGroup + QStringLiteral("limit"), limit_->value());
    s.setValue(kGroup + QStringLiteral("rateScale"), rateScale_->value());
    s.setValue(kGroup + QStringLiteral("maxOutputTokens"), maxOutput_->value());
    s.setValue(kGroup + QStringLiteral("spreadMs"), spreadMs_->value());
    s.setValue(kGroup + QStringLiteral("seed"), seed_->value());
    s.setValue(kGroup + QStringLiteral("blockSizeTokens"), blockSize_->value());
    s.setValue(kGroup + QStringLiteral("capacityBlocks"), capacity_->value());
    s.setValue(kGroup + QStringLiteral("hostGiB"), hostGiB_->value());
    s.setValue(kGroup + QStringLiteral("model"), model_->currentData().toString());
    s.setValue(kGroup + QStringLiteral("gpu"), gpu_->currentData().toString());
    s.setValue(kGroup + QStringLiteral("spread"), spread_->currentIndex());
    s.setValue(kGroup + QStringLiteral("skipOversized"), skipOversized_->isChecked());
    s.setValue(kGroup + QStringLiteral("prefixBlocks"), prefixBlocks_->isChecked());
    s.setValue(kGroup + QStringLiteral("name"), name_->text());
    s.setValue(kGroup + QStringLiteral("idPrefix"), idPrefix_->text());
}

} // namespace plui
