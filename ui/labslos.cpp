#include "ui/labslos.h"

#include "ui/bytestext.h"

#include <QSettings>
#include <QStringList>

namespace plui {
namespace {

QString settingKey(bool ms, SloKind kind) {
    return QStringLiteral("slo/%1_%2").arg(kind == SloKind::Ttft ? QStringLiteral("ttft") : QStringLiteral("tpot"),
                                           ms ? QStringLiteral("us") : QStringLiteral("ticks"));
}

std::optional<pl::review::Slo>& slot(pl::review::Slos& slos, SloKind kind) {
    return kind == SloKind::Ttft ? slos.ttft : slos.tpot;
}

} // namespace

LabSlos::LabSlos(QObject* parent) : QObject(parent) {
    // Kept as whole numbers: microseconds for the ms pair, ticks for the other. Anything else is dropped.
    QSettings settings;
    for (bool ms : {true, false}) {
        for (SloKind kind : {SloKind::Ttft, SloKind::Tpot}) {
            bool ok = false;
            const qlonglong v = settings.value(settingKey(ms, kind)).toLongLong(&ok);
            if (ok && v >= 0) {
                slot(ms ? ms_ : ticks_, kind) =
                    pl::review::Slo{v, ms ? pl::review::SloUnit::Micros : pl::review::SloUnit::Ticks};
            }
        }
    }
}

pl::review::Slos LabSlos::forTick(std::int64_t tickUs) const { return tickUs > 0 ? ms_ : ticks_; }

QString LabSlos::text(bool ms, SloKind kind) const {
    const pl::review::Slos& pair = ms ? ms_ : ticks_;
    const auto& s = kind == SloKind::Ttft ? pair.ttft : pair.tpot;
    if (!s) return {};
    return ms ? QString::number(static_cast<double>(s->value) / 1000.0, 'g', 12) : QString::number(s->value);
}

bool LabSlos::setText(bool ms, SloKind kind, const QString& text, QString* error) {
    std::optional<pl::review::Slo> value;
    const QString trimmed = text.trimmed();
    if (!trimmed.isEmpty()) {
        auto parsed = pl::review::parseSlo(trimmed.toStdString(),
                                           ms ? pl::review::SloUnit::Micros : pl::review::SloUnit::Ticks);
        if (auto* why = std::get_if<std::string>(&parsed)) {
            if (error) {
                *error = QStringLiteral("%1 SLO (%2): %3")
                             .arg(kind == SloKind::Ttft ? QStringLiteral("TTFT") : QStringLiteral("TPOT"),
                                  ms ? QStringLiteral("ms") : QStringLiteral("ticks"), QString::fromStdString(*why));
            }
            return false;
        }
        value = std::get<pl::review::Slo>(parsed);
    }
    auto& target = slot(ms ? ms_ : ticks_, kind);
    const bool same = target.has_value() == value.has_value() && (!value || target->value == value->value);
    if (same) return true;
    target = value;
    QSettings settings;
    if (value) settings.setValue(settingKey(ms, kind), static_cast<qlonglong>(value->value));
    else settings.remove(settingKey(ms, kind));
    emit changed();
    return true;
}

QString slosText(const pl::review::Slos& slos) {
    QStringList parts;
    if (slos.ttft) parts << QStringLiteral("TTFT <= %1").arg(QString::fromStdString(pl::review::sloText(*slos.ttft)));
    if (slos.tpot) parts << QStringLiteral("TPOT <= %1").arg(QString::fromStdString(pl::review::sloText(*slos.tpot)));
    return parts.join(QStringLiteral(", "));
}

QString goodputText(const pl::review::Goodput& g) {
    QString text = QStringLiteral("%1% (%2 of %3")
                       .arg(QString::number(g.percent(), 'f', 2), groupedNumber(g.good), groupedNumber(g.requests));
    if (g.censored > 0) {
        text += g.censored == 1 ? QStringLiteral("; 1 censored, counted as a miss")
                                : QStringLiteral("; %1 censored, counted as misses").arg(groupedNumber(g.censored));
    }
    return text + QStringLiteral("), ") + QString::fromStdString(g.rateText());
}

} // namespace plui
