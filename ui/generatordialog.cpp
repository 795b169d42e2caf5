#include "ui/generatordialog.h"

#include "core/trace/generator.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace plui {

namespace {

// "0:3,1:1" -> {(0,3),(1,1)}; "a:1,b:2" -> {("a",1),("b",2)}. False on a malformed entry.
template <typename Key, typename Parse>
bool parseMix(const QString& text, std::vector<std::pair<Key, std::int64_t>>* out, Parse parseKey) {
    out->clear();
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList kv = part.trimmed().split(QLatin1Char(':'));
        bool ok = kv.size() == 2;
        const qlonglong weight = ok ? kv[1].trimmed().toLongLong(&ok) : 0;
        Key key{};
        if (!ok || weight < 1 || !parseKey(kv[0].trimmed(), &key)) return false;
        out->push_back({key, weight});
    }
    return !out->empty();
}

} // namespace

QDoubleSpinBox* GeneratorDialog::addSlider(QFormLayout* form, const QString& label, double lo, double hi, double value,
                                           int decimals, bool log) {
    auto* row = new QWidget(this);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    auto* spin = new QDoubleSpinBox(row);
    spin->setRange(lo, hi);
    spin->setDecimals(decimals);
    spin->setValue(value);
    auto* slider = new QSlider(Qt::Horizontal, row);
    slider->setRange(0, 1000);
    auto toPos = [=](double v) {
        const double f = log ? std::log(v / lo) / std::log(hi / lo) : (v - lo) / (hi - lo);
        return static_cast<int>(std::lround(std::clamp(f, 0.0, 1.0) * 1000));
    };
    slider->setValue(toPos(value));
    connect(slider, &QSlider::valueChanged, spin, [=](int pos) {
        const double f = pos / 1000.0;
        const QSignalBlocker block(slider);
        spin->setValue(log ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f);
    });
    connect(spin, &QDoubleSpinBox::valueChanged, slider, [=](double v) {
        const QSignalBlocker block(slider);
        slider->setValue(toPos(v));
    });
    h->addWidget(slider, 1);
    h->addWidget(spin);
    form->addRow(label, row);
    return spin;
}

GeneratorDialog::GeneratorDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Generate a workload"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    const pl::trace::GeneratorParams d;
    seed_ = new QSpinBox(this);
    seed_->setRange(1, 1'000'000'000);
    seed_->setValue(static_cast<int>(d.seed));
    form->addRow(tr("seed"), seed_);
    count_ = new QSpinBox(this);
    count_->setRange(1, 1'000'000);
    count_->setValue(static_cast<int>(d.count));
    form->addRow(tr("requests"), count_);
    arrivals_ = new QComboBox(this);
    arrivals_->addItems({tr("Poisson"), tr("bursty (gamma gaps)")});
    form->addRow(tr("arrivals"), arrivals_);
    rate_ = addSlider(form, tr("arrival rate (per tick)"), 0.001, 100, d.rate_per_tick, 3, true);
    cv_ = addSlider(form, tr("burstiness (gap CV)"), 1, 20, d.burst_cv, 1, false);
    promptMedian_ = addSlider(form, tr("prompt median (tokens)"), 1, 32768, d.prompt_median, 0, true);
    promptSigma_ = addSlider(form, tr("prompt spread (sigma)"), 0, 3, d.prompt_sigma, 2, false);
    outputMedian_ = addSlider(form, tr("output median (tokens)"), 1, 8192, d.output_median, 0, true);
    outputSigma_ = addSlider(form, tr("output spread (sigma)"), 0, 3, d.output_sigma, 2, false);
    priorities_ = new QLineEdit(QStringLiteral("0:1"), this);
    priorities_->setToolTip(tr("priority:weight pairs, e.g. 0:3,1:1 (smaller is more urgent)"));
    form->addRow(tr("priority mix"), priorities_);
    tenants_ = new QLineEdit(QStringLiteral("default:1"), this);
    tenants_->setToolTip(tr("tenant:weight pairs, e.g. chat:3,batch:1"));
    form->addRow(tr("tenant mix"), tenants_);
    capacity_ = new QSpinBox(this);
    capacity_->setRange(1, 50'000'000);
    capacity_->setValue(static_cast<int>(d.config.capacity_blocks));
    form->addRow(tr("device blocks"), capacity_);
    layout->addLayout(form);
    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #b91c1c"));
    error_->hide();
    layout->addWidget(error_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Generate"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, [this]() {
        QString error;
        if (generate(&error)) {
            accept();
        } else {
            error_->setText(error);
            error_->show();
        }
    });
}

std::optional<pl::Workload> GeneratorDialog::generate(QString* error) const {
    pl::trace::GeneratorParams p;
    p.seed = static_cast<std::uint64_t>(seed_->value());
    p.count = count_->value();
    p.name = QStringLiteral("generated-seed-%1").arg(seed_->value()).toStdString();
    p.arrivals = arrivals_->currentIndex() == 0 ? pl::trace::GeneratorParams::Arrivals::Poisson
                                                : pl::trace::GeneratorParams::Arrivals::Gamma;
    p.rate_per_tick = rate_->value();
    p.burst_cv = cv_->value();
    p.prompt_median = promptMedian_->value();
    p.prompt_sigma = promptSigma_->value();
    p.output_median = outputMedian_->value();
    p.output_sigma = outputSigma_->value();
    p.config.capacity_blocks = capacity_->value();
    if (!parseMix<std::int64_t>(priorities_->text(), &p.priority_mix, [](const QString& s, std::int64_t* v) {
            bool ok = false;
            *v = s.toLongLong(&ok);
            return ok && *v >= 0;
        })) {
        *error = tr("priority mix: write priority:weight pairs, e.g. 0:3,1:1");
        return std::nullopt;
    }
    if (!parseMix<std::string>(tenants_->text(), &p.tenant_mix, [](const QString& s, std::string* v) {
            *v = s.toStdString();
            return !s.isEmpty();
        })) {
        *error = tr("tenant mix: write tenant:weight pairs, e.g. chat:3,batch:1");
        return std::nullopt;
    }
    auto r = pl::trace::generateWorkload(p);
    if (auto* e = std::get_if<pl::InputError>(&r)) {
        *error = QString::fromStdString(e->message());
        return std::nullopt;
    }
    return std::get<pl::Workload>(std::move(r));
}

} // namespace plui
