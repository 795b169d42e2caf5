#include "bytestext.h"

#include "model.h"

#include <QRegularExpression>


namespace plui {

namespace {

constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};

} // namespace

QString exactBytesText(std::int64_t bytes) {
    int unit = 0;
    std::int64_t value = bytes;
    while (value != 0 && value % 1024 == 0 && unit + 1 < static_cast<int>(std::size(kUnits))) {
        value /= 1024;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value).arg(QLatin1String(kUnits[unit]));
}

std::optional<std::int64_t> parseBytesText(const QString& text) {
    static const QRegularExpression form(QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*(?:([kmgt])(?:ib?)?)?\\s*b?\\s*$"),
                                         QRegularExpression::CaseInsensitiveOption);
    const auto m = form.match(text);
    if (!m.hasMatch()) return std::nullopt;
    // Digits and one power of 1024, multiplied exactly: "1.5 MiB" is 15 * 1048576 / 10.
    const QString number = m.captured(1);
    const auto dot = number.indexOf(QLatin1Char('.'));
    const QString digits = dot < 0 ? number : number.left(dot) + number.mid(dot + 1);
    const int decimals = dot < 0 ? 0 : static_cast<int>(number.size() - dot - 1);
    if (digits.size() > 16 || decimals > 6) return std::nullopt;
    std::int64_t mantissa = digits.toLongLong();
    std::int64_t divisor = 1;
    for (int i = 0; i < decimals; ++i) divisor *= 10;
    const QString prefix = m.captured(2).toLower();
    const int power = prefix.isEmpty() ? 0 : static_cast<int>(QStringLiteral("kmgt").indexOf(prefix)) + 1;
    std::int64_t scale = 1;
    for (int i = 0; i < power; ++i) scale *= 1024;
    if (static_cast<long double>(mantissa) * static_cast<long double>(scale) / static_cast<long double>(divisor) >
        static_cast<long double>(pl::kMaxSafeInteger))
        return std::nullopt;
    // Whole part and fraction apart, so nothing overflows: the fraction (< 10^6) times 2^40 fits in 64 bits.
    const std::int64_t whole = mantissa / divisor;
    const std::int64_t fraction = mantissa % divisor * scale;
    if (fraction % divisor != 0) return std::nullopt;
    return whole * scale + fraction / divisor;
}

} // namespace plui
