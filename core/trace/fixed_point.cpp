#include "core/trace/fixed_point.h"

#include "core/model.h"

#include <numeric>

namespace pl::trace {

std::optional<std::int64_t> parseNonNegative(std::string_view text) {
    if (text.empty() || text.size() > 16) {
        return std::nullopt;
    }
    std::int64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        v = v * 10 + (c - '0');
    }
    if (v > kMaxSafeInteger) {
        return std::nullopt;
    }
    return v;
}

std::optional<std::int64_t> parseScaledDecimal(std::string_view text, int scaleDigits) {
    const auto dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    std::string_view frac = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    if (whole.empty() || (dot != std::string_view::npos && frac.empty())) {
        return std::nullopt;
    }
    for (char c : frac) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
    }
    auto w = parseNonNegative(whole);
    if (!w) {
        return std::nullopt;
    }
    std::int64_t value = *w;
    for (int i = 0; i < scaleDigits; ++i) {
        const std::int64_t digit = i < static_cast<int>(frac.size()) ? frac[static_cast<std::size_t>(i)] - '0' : 0;
        if (value > (kMaxSafeInteger - digit) / 10) {
            return std::nullopt;
        }
        value = value * 10 + digit;
    }
    return value;
}

std::optional<Rational> parseRational(std::string_view text) {
    const auto dot = text.find('.');
    const std::size_t fracDigits = dot == std::string_view::npos ? 0 : text.size() - dot - 1;
    if (fracDigits > 6) {
        return std::nullopt;
    }
    auto scaled = parseScaledDecimal(text, static_cast<int>(fracDigits));
    if (!scaled || *scaled == 0) {
        return std::nullopt;
    }
    std::int64_t den = 1;
    for (std::size_t i = 0; i < fracDigits; ++i) {
        den *= 10;
    }
    const std::int64_t g = std::gcd(*scaled, den);
    return Rational{*scaled / g, den / g};
}

} // namespace pl::trace
