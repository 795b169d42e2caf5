#pragma once
// Bytes as the lab prints them: core's pl::formatBytes (binary units, the CLI's text), as a QString; and the
// exact form an editable byte count shows and reads back (the policy panel's byte fields).

#include "summary.h"

#include <QString>

#include <cstdint>
#include <optional>

namespace plui {

inline QString bytesText(std::int64_t bytes) { return QString::fromStdString(pl::formatBytes(bytes)); }

// "256 KiB", "64 MiB", "1 GiB" when the count is a whole number of that unit, else "262145 B": never rounded,
// so the text reads back as the same count.
QString exactBytesText(std::int64_t bytes);

// Reads what exactBytesText writes, and what a person types: "262144", "262144 B", "256 KiB", "256K", "1.5 MiB"
// (units are binary; K, M, G, T are taken as KiB, MiB, GiB, TiB; case does not matter). A fraction must come
// to a whole number of bytes. nullopt for anything else, a negative number, or more than 2^53-1 bytes.
std::optional<std::int64_t> parseBytesText(const QString& text);

} // namespace plui
