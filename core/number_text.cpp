#include "number_text.h"

#include <charconv>
#include <cstdint>
#include <system_error>

namespace pl {

namespace {
template <typename... Format>
std::string toChars(double v, Format... format) {
    char buf[512]; // the longest fixed double (1e308 with decimals) fits
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, format...);
    return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}
} // namespace

std::string formatFixed(double v, int decimals) { return toChars(v, std::chars_format::fixed, decimals); }

std::string formatGeneral(double v) { return toChars(v, std::chars_format::general, 6); }

std::string formatThousands(std::int64_t v) {
    // The magnitude as unsigned: -INT64_MIN does not fit an int64_t.
    const auto magnitude = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    std::string digits = std::to_string(magnitude);
    std::string out;
    const auto n = digits.size();
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n) {
            out += ',';
        }
    }
    return v < 0 ? "-" + out : out;
}

namespace {
// g++ and clang's 128-bit integer (__extension__: -Wpedantic would call it non-standard).
__extension__ typedef unsigned __int128 Wide;
} // namespace

std::optional<std::int64_t> parseByteSize(std::string_view text) {
    std::size_t i = 0;
    Wide whole = 0, frac = 0, fracScale = 1;
    constexpr Wide kCap = (std::uint64_t{1} << 53) - 1;
    auto digit = [&](std::size_t at) { return at < text.size() && text[at] >= '0' && text[at] <= '9'; };
    if (!digit(0)) {
        return std::nullopt; // no sign, no space, no leading point
    }
    for (; digit(i); ++i) {
        whole = whole * 10 + static_cast<unsigned>(text[i] - '0');
        if (whole > kCap) {
            return std::nullopt;
        }
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (!digit(i)) {
            return std::nullopt; // "1." or "1.G"
        }
        for (; digit(i); ++i) {
            if (fracScale >= 1'000'000'000'000'000ULL) {
                return std::nullopt; // more than 18 decimals: not a size anyone means
            }
            frac = frac * 10 + static_cast<unsigned>(text[i] - '0');
            fracScale *= 10;
        }
    }
    std::string unit;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        unit += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    }
    static const struct {
        const char* unit;
        unsigned base;
        int power;
    } units[] = {{"", 1, 0},      {"B", 1, 0},       {"K", 1024, 1},    {"KIB", 1024, 1}, {"KB", 1000, 1},
                 {"M", 1024, 2},  {"MIB", 1024, 2},  {"MB", 1000, 2},   {"G", 1024, 3},   {"GIB", 1024, 3},
                 {"GB", 1000, 3}, {"T", 1024, 4},    {"TIB", 1024, 4},  {"TB", 1000, 4}};
    for (const auto& u : units) {
        if (unit != u.unit) {
            continue;
        }
        Wide scale = 1;
        for (int p = 0; p < u.power; ++p) {
            scale *= u.base;
        }
        // whole * scale + frac * scale / fracScale, exactly; both terms stay far below 2^128 (whole <= 2^53,
        // scale <= 2^40, frac < 10^18 < 2^60).
        const Wide fracBytes = frac * scale;
        if (fracBytes % fracScale != 0) {
            return std::nullopt; // not a whole number of bytes
        }
        const Wide bytes = whole * scale + fracBytes / fracScale;
        if (bytes > kCap) {
            return std::nullopt;
        }
        return static_cast<std::int64_t>(bytes);
    }
    return std::nullopt;
}

} // namespace pl
