#include "ui/bytestext.h"

#include "core/number_text.h"


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

std::optional<std::int64_t> parseBytesText(const QString& text) { return pl::parseByteSize(text.toStdString()); }

} // namespace plui
