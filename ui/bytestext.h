#pragma once
// Bytes as the lab prints them: core's pl::formatBytes (binary units, the CLI's text), as a QString.

#include "summary.h"

#include <QString>

#include <cstdint>

namespace plui {

inline QString bytesText(std::int64_t bytes) { return QString::fromStdString(pl::formatBytes(bytes)); }

} // namespace plui
