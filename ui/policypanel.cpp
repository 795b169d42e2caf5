#include "ui/policypanel.h"

#include "ui/labdocument.h"

#include "ui/bytestext.h"
#include "core/model.h"
#include "ui/qtext.h"
#include "core/workload.h"
#include "core/workload_io.h"
#include "core/workload_rules.h"
#include "core/workload_overrides.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QResizeEvent>
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
        for (auto s : v) out << qsv(s);
        return out;
    };
    if (key == QLatin1String("recovery")) return list(pl::allRecoveries());
    if (key == QLatin1String("victim_rule")) return list(pl::allVictimRules());
    if (key == QLatin1String("adaptive_tie")) return {QStringLiteral("recompute"), QStringLiteral("swap")};
    if (key == QLatin1String("resume_guard")) return {QStringLiteral("full-reservation"), QStringLiteral("next-block")};
    if (key == QLatin1String("engine_profile")) return list(pl::allEngineProfiles());
    return {};
}

constexpr int kSliderSteps = 100;

// Slider position <-> value over a span: lo..hi on a log scale, or linearly when lo is 0 (a zero base). Every
// position gives a value inside the span, and the span lies inside what the workload rules accept.
double sliderToValue(int pos, const SliderSpan& span) {
    const double f = static_cast<double>(pos) / kSliderSteps;
    if (span.lo <= 0) return std::round(span.lo + f * (span.hi - span.lo));
    return std::clamp(std::round(span.lo * std::pow(span.hi / span.lo, f)), span.lo, span.hi);
}
int valueToSlider(double value, const SliderSpan& span) {
    if (span.hi <= span.lo) return 0;
    double f = 0;
    if (span.lo <= 0) f = (value - span.lo) / (span.hi - span.lo);
    else if (value > 0) f = std::log(value / span.lo) / std::log(span.hi / span.lo);
    return std::clamp(static_cast<int>(std::lround(f * kSliderSteps)), 0, kSliderSteps);
}

// The span a key's slider covers: a quarter to four times the opened value (0 to 64 for a zero one), cut to
// the values core's rules accept with the rest of the workload as it is now (pl::acceptedRange: a pool too
// small for the largest request is never offered).
SliderSpan spanFor(const pl::Workload& w, const QString& key, double base) {
    SliderSpan span{base <= 0 ? 0.0 : std::max(1.0, std::round(base / 4)), base <= 0 ? 64.0 : base * 4};
    if (const auto range = pl::acceptedRange(w, key.toStdString())) {
        span.accepted = {static_cast<double>(range->min), static_cast<double>(range->max)};
        span.lo = std::clamp(span.lo, span.accepted.first, span.accepted.second);
        span.hi = std::clamp(span.hi, span.lo, span.accepted.second);
    }
    return span;
}

} // namespace

// The refusal line: one line in a fixed place above the form (hidden, it keeps its height, so the rows never
// move), elided to the panel's width; the whole message is its tooltip.
class RefusalLabel : public QLabel {
  public:
    explicit RefusalLabel(QWidget* parent) : QLabel(parent) {
        setStyleSheet(QStringLiteral("color: #b91c1c"));
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        setFixedHeight(fontMetrics().height() + 4);
        QSizePolicy keep = sizePolicy();
        keep.setRetainSizeWhenHidden(true);
        setSizePolicy(keep);
    }
    void setMessage(const QString& message) {
        full_ = message;
        setToolTip(message);
        elide();
        setVisible(!message.isEmpty());
    }
    const QString& message() const { return full_; }

  protected:
    void resizeEvent(QResizeEvent* event) override {
        QLabel::resizeEvent(event);
        elide();
    }

  private:
    void elide() { setText(fontMetrics().elidedText(full_, Qt::ElideRight, std::max(0, contentsRect().width()))); }
    QString full_;
};

namespace {

// A byte count as the panel edits it: "256 KiB", never rounded ("262145 B"); typed as "512K", "1.5 MiB" or
// plain digits. `per` follows the unit ("/tick").
class BytesSpinBox : public QDoubleSpinBox {
  public:
    BytesSpinBox(QString per, QWidget* parent) : QDoubleSpinBox(parent), per_(std::move(per)) {
        // The text is core's, never the desktop's: no locale separators to add or strip ("1.5 MiB" stays).
        setLocale(QLocale::c());
        setSingleStep(1024); // the arrows and the wheel step a KiB: 256 KiB -> 257 KiB, not 262145 B
        // Half-typed forms ("256 K", "1.", "512 KiB/ti", nothing yet) may still become one; nothing else is
        // taken, and a unit only after a number.
        QString perPrefix; // "/tick" -> (?:/(?:t(?:i(?:c(?:k)?)?)?)?)?
        for (qsizetype i = per_.size() - 1; i >= 0; --i) {
            perPrefix = QStringLiteral("(?:%1%2)?").arg(QRegularExpression::escape(per_.mid(i, 1)), perPrefix);
        }
        partial_ = QRegularExpression(QStringLiteral("^\\s*(\\d+(\\.\\d*)?\\s*([kmgt]i?)?\\s*b?\\s*") + perPrefix + QStringLiteral(")?$"),
                                      QRegularExpression::CaseInsensitiveOption);
    }
    QString textFromValue(double v) const override { return exactBytesText(static_cast<std::int64_t>(v)) + per_; }
    double valueFromText(const QString& text) const override {
        const auto bytes = parseBytesText(withoutPer(text));
        return bytes ? static_cast<double>(*bytes) : value();
    }
    QValidator::State validate(QString& text, int&) const override {
        const auto bytes = parseBytesText(withoutPer(text));
        if (bytes && static_cast<double>(*bytes) >= minimum() && static_cast<double>(*bytes) <= maximum()) return QValidator::Acceptable;
        return partial_.match(text).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
    }
    // QDoubleSpinBox's fixup strips the locale's group separator, which would turn "1.5 K" into "15 K".
    void fixup(QString&) const override {}

  private:
    QString withoutPer(QString text) const {
        if (!per_.isEmpty() && text.endsWith(per_)) text.chop(per_.size());
        return text;
    }
    QString per_;
    QRegularExpression partial_;
};

// The exact count, grouped, for whoever needs the number itself.
void showExactBytes(QDoubleSpinBox* spin) {
    spin->setToolTip(QObject::tr("%1 B").arg(groupedNumber(static_cast<std::int64_t>(spin->value()))));
}

bool isBytesUnit(std::string_view unit) { return unit == "B" || unit == "B/tick"; }

// The row label's tooltip: what the key does, its unit, and where else it is spelt (the file, the flag).
QString keyToolTip(const QString& key, bool config) {
    const pl::SettingHelp help = pl::settingHelp(key.toStdString());
    QString tip = qsv(help.meaning);
    if (!help.unit.empty()) tip += QObject::tr("\nUnit: %1.").arg(qsv(help.unit));
    return tip + QObject::tr("\nIn the workload file: /%1/%2; on the command line: %3.")
                     .arg(config ? QStringLiteral("config") : QStringLiteral("policy"), key,
                          QString::fromStdString(pl::settingFlag(key.toStdString())));
}

} // namespace

PolicyPanel::PolicyPanel(LabDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    error_ = new RefusalLabel(this);
    error_->setObjectName(QStringLiteral("policyError"));
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
    spans_.clear();
    auto* form = new QFormLayout(form_);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // In a narrow dock a number field and its slider go under the key's name rather than off the edge.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    builtFor_ = doc_->loadCount();
    if (!doc_->hasWorkload()) {
        auto* hint = new QLabel(tr("Open a workload to change its policy and machine."), form_);
        hint->setWordWrap(true); // the dock can be narrower than the sentence
        form->addRow(hint);
        return;
    }
    auto addSection = [&](const QString& title, const std::vector<std::string_view>& keys, bool config) {
        auto* heading = new QLabel(QStringLiteral("<b>%1</b>").arg(title), form_);
        form->addRow(heading);
        for (auto k : keys) {
            const QString key = qsv(k);
            const QString value = doc_->settingValue(key);
            const pl::SettingHelp help = pl::settingHelp(k);
            auto* label = new QLabel(key, form_);
            label->setObjectName(QStringLiteral("label_") + key);
            label->setToolTip(keyToolTip(key, config));
            const QStringList choices = choicesFor(key);
            QWidget* editor = nullptr;
            if (!choices.isEmpty()) {
                auto* combo = new QComboBox(form_);
                combo->addItems(choices);
                combo->setCurrentText(value);
                connect(combo, &QComboBox::currentTextChanged, this, [this, key](const QString& v) { apply(key, v); });
                combo->setToolTip(qsv(help.meaning));
                editor = combo;
                form->addRow(label, combo);
            } else if (value == QLatin1String("true") || value == QLatin1String("false")) {
                auto* check = new QCheckBox(form_);
                check->setChecked(value == QLatin1String("true"));
                connect(check, &QCheckBox::toggled, this, [this, key](bool on) {
                    apply(key, on ? QStringLiteral("true") : QStringLiteral("false"));
                });
                check->setToolTip(qsv(help.meaning));
                editor = check;
                form->addRow(label, check);
            } else {
                auto* row = new QWidget(form_);
                auto* h = new QHBoxLayout(row);
                h->setContentsMargins(0, 0, 0, 0);
                const bool bytes = isBytesUnit(help.unit);
                QDoubleSpinBox* spin = nullptr;
                if (bytes) {
                    spin = new BytesSpinBox(help.unit == "B/tick" ? QStringLiteral("/tick") : QString(), row);
                    connect(spin, &QDoubleSpinBox::valueChanged, spin, [spin] { showExactBytes(spin); });
                } else {
                    spin = new QDoubleSpinBox(row);
                    // Grouped by thousands with commas, as the lab's other figures: "20,000 ticks".
                    spin->setLocale(QLocale(QLocale::English, QLocale::UnitedStates));
                    spin->setGroupSeparatorShown(true);
                    if (!help.unit.empty()) {
                        spin->setSuffix((help.unit == "%" ? QString() : QStringLiteral(" ")) + qsv(help.unit));
                    }
                }
                spin->setDecimals(0);
                const double base = value.toDouble();
                const SliderSpan span = spanFor(doc_->workload(), key, base);
                // An unset tick_us (0) still shows as 0, though no edit can set it back.
                spin->setRange(std::min(span.accepted.first, base), span.accepted.second);
                spin->setValue(base);
                spin->setKeyboardTracking(false);
                if (bytes) showExactBytes(spin);
                // Wide enough for the file's value and the largest its slider reaches (4x), with the unit:
                // 68719476736 must not show as "687194767".
                const QFontMetrics metrics = spin->fontMetrics();
                int textWidth = 0;
                for (double v : {base, base * 4, bytes ? 1023.0 * 1024 : 888.0}) {
                    textWidth = std::max(textWidth, metrics.horizontalAdvance(spin->textFromValue(v) + spin->suffix()));
                }
                spin->setMinimumWidth(textWidth + 28);
                auto* slider = new QSlider(Qt::Horizontal, row);
                slider->setRange(0, kSliderSteps);
                slider->setMinimumWidth(70);
                bases_.insert(key, base);
                spans_.insert(key, span);
                slider->setValue(valueToSlider(base, span));
                describeSpan(key, slider, spin);
                h->addWidget(spin);
                h->addWidget(slider, 1);
                connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double v) {
                    apply(key, QString::number(static_cast<qint64>(v)));
                });
                connect(slider, &QSlider::valueChanged, this, [this, key, spin, bytes](int pos) {
                    if (syncing_) return;
                    const SliderSpan now = spans_.value(key); // another key's edit may have moved it
                    double v = sliderToValue(pos, now);
                    // Whole KiB from 4 KiB up: "312 KiB", not "319837 B" (kept inside the span).
                    if (bytes && v >= 4096) {
                        const double kib = std::round(v / 1024) * 1024;
                        if (kib >= now.lo && kib <= now.hi) v = kib;
                    }
                    spin->setValue(v);
                });
                editor = spin;
                sliders_.insert(key, slider);
                form->addRow(label, row);
            }
            editor->setObjectName(QStringLiteral("setting_") + key);
            editors_.insert(key, editor);
        }
    };
    addSection(tr("Policy"), pl::policyKeys(), false);
    addSection(tr("Machine (config)"), pl::configKeys(), true);
    // One width for every number field, so the sliders beside them line up.
    int widest = 0;
    for (QWidget* w : std::as_const(editors_))
        if (qobject_cast<QDoubleSpinBox*>(w)) widest = std::max(widest, w->minimumWidth());
    for (QWidget* w : std::as_const(editors_))
        if (qobject_cast<QDoubleSpinBox*>(w)) w->setFixedWidth(widest);
    markApplicable();
    form_->setEnabled(!doc_->readOnly()); // a receipt: shown, not edited (File > Edit a Copy)
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
        else if (auto* spin = qobject_cast<QDoubleSpinBox*>(w)) {
            spin->setValue(value.toDouble());
            if (dynamic_cast<BytesSpinBox*>(spin)) showExactBytes(spin); // its signals are blocked here
        }
        if (auto* slider = qobject_cast<QSlider*>(sliders_.value(it.key()))) {
            // Another key's edit moves what this one accepts (block size, watermark: capacity's least).
            const SliderSpan span = spanFor(doc_->workload(), it.key(), bases_.value(it.key()));
            spans_.insert(it.key(), span);
            auto* spin = qobject_cast<QDoubleSpinBox*>(w);
            if (spin) spin->setRange(std::min(span.accepted.first, value.toDouble()), span.accepted.second);
            if (spin) spin->setValue(value.toDouble());
            const QSignalBlocker blockSlider(slider);
            slider->setValue(valueToSlider(value.toDouble(), span));
            if (spin) describeSpan(it.key(), slider, spin);
        }
    }
    markApplicable();
    form_->setEnabled(!doc_->readOnly()); // a receipt: shown, not edited (File > Edit a Copy)
    syncing_ = false;
}

void PolicyPanel::describeSpan(const QString& key, QSlider* slider, QDoubleSpinBox* spin) {
    const SliderSpan span = spans_.value(key);
    QString tip = span.lo > 0 ? tr("%1 to %2 (log scale)").arg(spin->textFromValue(span.lo), spin->textFromValue(span.hi))
                              : tr("%1 to %2").arg(spin->textFromValue(span.lo), spin->textFromValue(span.hi));
    if (span.accepted.first > 0 && span.lo == span.accepted.first)
        tip += tr("\nThe least this workload accepts: %1").arg(spin->textFromValue(span.accepted.first));
    if (slider->property("ownToolTip").isValid()) slider->setProperty("ownToolTip", tip);
    if (slider->isEnabledTo(form_)) slider->setToolTip(tip);
}

QString PolicyPanel::refusal() const { return error_->message(); }

void PolicyPanel::apply(const QString& key, const QString& value) {
    if (syncing_) return;
    QString error;
    if (!doc_->setSetting(key, value, &error)) {
        error_->setMessage(tr("Not applied: %1").arg(error));
        syncValues();
        return;
    }
    error_->setMessage(QString());
}

} // namespace plui
