#include "policypanel.h"

#include "labdocument.h"

#include "bytestext.h"
#include "workload_io.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace plui {

namespace {

QStringList choicesFor(const QString& key) {
    auto list = [](const std::vector<std::string_view>& v) {
        QStringList out;
        for (auto s : v) out << QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
        return out;
    };
    if (key == QLatin1String("recovery")) return list(pl::allRecoveries());
    if (key == QLatin1String("victim_rule")) return list(pl::allVictimRules());
    if (key == QLatin1String("adaptive_tie")) return {QStringLiteral("recompute"), QStringLiteral("swap")};
    if (key == QLatin1String("resume_guard")) return {QStringLiteral("full-reservation"), QStringLiteral("next-block")};
    return {};
}

constexpr int kSliderSteps = 100;

// Slider position <-> value: base/4 .. base*4 on a log scale; a zero base spans 0..64 linearly.
double sliderToValue(int pos, double base) {
    if (base <= 0) return std::round(pos * 64.0 / kSliderSteps);
    return std::max(1.0, std::round(base * std::pow(4.0, (pos - kSliderSteps / 2) / (kSliderSteps / 2.0))));
}
int valueToSlider(double value, double base) {
    if (base <= 0) return std::clamp(static_cast<int>(std::lround(value * kSliderSteps / 64.0)), 0, kSliderSteps);
    if (value <= 0) return 0;
    const double pos = kSliderSteps / 2.0 + std::log(value / base) / std::log(4.0) * (kSliderSteps / 2.0);
    return std::clamp(static_cast<int>(std::lround(pos)), 0, kSliderSteps);
}

} // namespace

PolicyPanel::PolicyPanel(LabDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("policyError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #b91c1c"));
    error_->hide();
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    form_ = new QWidget(scroll);
    scroll->setWidget(form_);
    layout->addWidget(error_);
    layout->addWidget(scroll, 1);
    connect(doc_, &LabDocument::changed, this, [this](LabChange what) {
        if (what & LabChangeKind::Workload) {
            if (builtFor_ != doc_->loadCount()) build();
            else syncValues();
        }
    });
    build();
}

void PolicyPanel::build() {
    delete form_->layout();
    qDeleteAll(form_->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly));
    editors_.clear();
    sliders_.clear();
    bases_.clear();
    auto* form = new QFormLayout(form_);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    builtFor_ = doc_->loadCount();
    if (!doc_->hasWorkload()) {
        form->addRow(new QLabel(tr("Open a workload to change its policy and machine."), form_));
        return;
    }
    auto addSection = [&](const QString& title, const std::vector<std::string_view>& keys) {
        auto* heading = new QLabel(QStringLiteral("<b>%1</b>").arg(title), form_);
        form->addRow(heading);
        for (auto k : keys) {
            const QString key = QString::fromUtf8(k.data(), static_cast<qsizetype>(k.size()));
            const QString value = doc_->settingValue(key);
            const QStringList choices = choicesFor(key);
            QWidget* editor = nullptr;
            if (!choices.isEmpty()) {
                auto* combo = new QComboBox(form_);
                combo->addItems(choices);
                combo->setCurrentText(value);
                connect(combo, &QComboBox::currentTextChanged, this, [this, key](const QString& v) { apply(key, v); });
                editor = combo;
                form->addRow(key, combo);
            } else if (value == QLatin1String("true") || value == QLatin1String("false")) {
                auto* check = new QCheckBox(form_);
                check->setChecked(value == QLatin1String("true"));
                connect(check, &QCheckBox::toggled, this, [this, key](bool on) {
                    apply(key, on ? QStringLiteral("true") : QStringLiteral("false"));
                });
                editor = check;
                form->addRow(key, check);
            } else {
                auto* row = new QWidget(form_);
                auto* h = new QHBoxLayout(row);
                h->setContentsMargins(0, 0, 0, 0);
                auto* spin = new QDoubleSpinBox(row);
                spin->setDecimals(0);
                spin->setRange(0, 9007199254740991.0);
                spin->setValue(value.toDouble());
                spin->setKeyboardTracking(false);
                // Wide enough for the largest value its slider reaches (4x the file's): 68719476736 must not
                // show as "687194767".
                const auto widest = QString::number(static_cast<qint64>(value.toDouble() * 4)).size();
                const int digits = std::clamp(static_cast<int>(widest), 8, 17);
                spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QString(digits, QLatin1Char('0'))) + 28);
                if (key.endsWith(QLatin1String("_bytes")) || key.endsWith(QLatin1String("_bytes_per_tick"))) {
                    // Bytes in binary units beside the exact count, as the CLI prints them.
                    auto bytesTip = [spin] {
                        const auto bytes = static_cast<std::int64_t>(spin->value());
                        spin->setToolTip(QStringLiteral("%1 B = %2").arg(bytes).arg(
                            bytesText(bytes)));
                    };
                    bytesTip();
                    connect(spin, &QDoubleSpinBox::valueChanged, spin, bytesTip);
                }
                auto* slider = new QSlider(Qt::Horizontal, row);
                slider->setRange(0, kSliderSteps);
                slider->setMinimumWidth(70);
                const double base = value.toDouble();
                bases_.insert(key, base);
                slider->setValue(valueToSlider(base, base));
                slider->setToolTip(base > 0 ? tr("%1 to %2 (log scale)").arg(std::max(1.0, std::round(base / 4))).arg(base * 4)
                                            : tr("0 to 64"));
                h->addWidget(spin);
                h->addWidget(slider, 1);
                connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double v) {
                    apply(key, QString::number(static_cast<qint64>(v)));
                });
                connect(slider, &QSlider::valueChanged, this, [this, key, spin](int pos) {
                    if (syncing_) return;
                    spin->setValue(sliderToValue(pos, bases_.value(key)));
                });
                editor = spin;
                sliders_.insert(key, slider);
                form->addRow(key, row);
            }
            editor->setObjectName(QStringLiteral("setting_") + key);
            editors_.insert(key, editor);
        }
    };
    addSection(tr("Policy"), pl::policyKeys());
    addSection(tr("Machine (config)"), pl::configKeys());
    markApplicable();
}

// Keys that only one recovery mode reads are greyed under the others (still editable through the file, and
// kept: switching back finds them as they were). The tooltip says which mode reads them.
void PolicyPanel::markApplicable() {
    const QString recovery = doc_->hasWorkload() ? doc_->settingValue(QStringLiteral("recovery")) : QString();
    const struct {
        const char* key;
        const char* mode;
    } only[] = {{"adaptive_tie", "adaptive"}, {"hybrid_swap_percent", "hybrid"}};
    for (const auto& o : only) {
        const QString key = QLatin1String(o.key);
        const bool on = recovery == QLatin1String(o.mode);
        const QString tip = on ? QString() : tr("Read only by recovery %1 (now %2)").arg(QLatin1String(o.mode), recovery);
        for (QWidget* w : {editors_.value(key), sliders_.value(key)}) {
            if (!w) continue;
            // The control's own tooltip (a slider's range) comes back when the key applies again.
            if (!w->property("ownToolTip").isValid()) w->setProperty("ownToolTip", w->toolTip());
            w->setEnabled(on);
            w->setToolTip(on ? w->property("ownToolTip").toString() : tip);
        }
    }
}

void PolicyPanel::syncValues() {
    syncing_ = true;
    for (auto it = editors_.begin(); it != editors_.end(); ++it) {
        const QString value = doc_->settingValue(it.key());
        QWidget* w = it.value();
        const QSignalBlocker block(w);
        if (auto* combo = qobject_cast<QComboBox*>(w)) combo->setCurrentText(value);
        else if (auto* check = qobject_cast<QCheckBox*>(w)) check->setChecked(value == QLatin1String("true"));
        else if (auto* spin = qobject_cast<QDoubleSpinBox*>(w)) spin->setValue(value.toDouble());
        if (auto* slider = qobject_cast<QSlider*>(sliders_.value(it.key()))) {
            const QSignalBlocker blockSlider(slider);
            slider->setValue(valueToSlider(value.toDouble(), bases_.value(it.key())));
        }
    }
    markApplicable();
    syncing_ = false;
}

void PolicyPanel::apply(const QString& key, const QString& value) {
    if (syncing_) return;
    QString error;
    if (!doc_->setSetting(key, value, &error)) {
        error_->setText(tr("Not applied: %1").arg(error));
        error_->show();
        syncValues();
        return;
    }
    error_->hide();
}

} // namespace plui
