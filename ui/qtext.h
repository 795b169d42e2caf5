#pragma once
// Core's text (UTF-8 std::string_view: key names, enum spellings, help sentences) as a QString.

#include <QString>

#include <string_view>

namespace plui {

inline QString qsv(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

} // namespace plui
