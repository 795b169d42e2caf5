#pragma once
// Exact decimal text -> integer conversions for the trace importer. Arrival ticks decide the hashed input, so
// nothing on that path may use floating point: "0.25" seconds becomes 250000 microseconds, a rate scale of
// "1.5" becomes the rational 15/10.

#include <cstdint>
#include <optional>
#include <string_view>

namespace pl::trace {

// Parses a non-negative decimal ("12", "0.5", "3.250") and returns value * 10^scaleDigits, truncated towards
// zero beyond scaleDigits fraction digits. nullopt on syntax errors (signs, exponents, empty text, several
// dots) or if the result exceeds 2^53-1.
std::optional<std::int64_t> parseScaledDecimal(std::string_view text, int scaleDigits);

// A positive rational number num/den, both >= 1 (a rate scale).
struct Rational {
    std::int64_t num = 1;
    std::int64_t den = 1;
    friend bool operator==(const Rational&, const Rational&) = default;
};

// Parses a positive decimal with at most 6 fraction digits into a reduced rational; nullopt if zero,
// malformed or more precise than 6 digits.
std::optional<Rational> parseRational(std::string_view text);

// Plain non-negative integer (digits only) up to 2^53-1.
std::optional<std::int64_t> parseNonNegative(std::string_view text);

} // namespace pl::trace
