#pragma once
// Numbers and bytes as the lab prints them: counts grouped by thousands with core's pl::formatThousands
// ("2,898", whatever the desktop's locale, as the CLI and the receipts print them); bytes with core's
// pl::formatBytes (binary units); and the exact form an editable byte count shows and reads back (the policy
// panel's byte fields).

#include "core/number_text.h"
#include "core/summary.h"

#include <QString>

#include <cstdint>
#include <optional>

namespace plui {

inline QString groupedNumber(std::int64_t v) { return QString::fromStdString(pl::formatThousands(v)); }

inline QString bytesText(std::int64_t bytes) { return QString::fromStdString(pl::formatBytes(bytes)); }

// "256 KiB", "64 MiB", "1 GiB" when the count is a whole number of that unit, else "262145 B": never rounded,
// so the text reads back as the same count.
QString exactBytesText(std::int64_t bytes);

// Reads what exactBytesText writes, and what a person types: "262144", "262144 B", "256 KiB", "256K", "1.5 MiB"
// (units are binary; K, M, G, T are taken as KiB, MiB, GiB, TiB; case does not matter). A fraction must come
// to a whole number of bytes. nullopt for anything else, a negative number, or more than 2^53-1 bytes. Core's
// pl::parseByteSize, which the CLI's byte flags read with.
std::optional<std::int64_t> parseBytesText(const QString& text);

} // namespace plui
