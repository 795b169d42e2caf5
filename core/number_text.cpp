#include "core/number_text.h"

#include <charconv>
#include <cstring>
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
    constexpr Wide kCap = (std::uint64_t{1} << 53) - 1;
    std::size_t i = 0;
    auto at = [&](std::size_t k) { return k < text.size() ? text[k] : '\0'; };
    auto lower = [&](std::size_t k) { const char c = at(k); return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    auto isDigit = [&](std::size_t k) { return at(k) >= '0' && at(k) <= '9'; };
    auto skipSpaces = [&] { while (at(i) == ' ' || at(i) == '\t') ++i; };
    skipSpaces();
    if (!isDigit(i)) {
        return std::nullopt; // no sign, no leading point
    }
    Wide whole = 0, frac = 0, fracScale = 1;
    for (; isDigit(i); ++i) {
        whole = whole * 10 + static_cast<unsigned>(at(i) - '0');
        if (whole > kCap) {
            return std::nullopt;
        }
    }
    if (at(i) == '.') {
        ++i;
        if (!isDigit(i)) {
            return std::nullopt; // "1." or "1.G"
        }
        for (; isDigit(i); ++i) {
            if (fracScale >= 1'000'000'000'000'000ULL) {
                return std::nullopt; // more than 18 decimals: not a size anyone means
            }
            frac = frac * 10 + static_cast<unsigned>(at(i) - '0');
            fracScale *= 10;
        }
    }
    skipSpaces();
    // [K|M|G|T][i][B]: every prefix a power of 1024 (KB too: KV caches are sized in binary units).
    int power = 0;
    if (const char* p = std::strchr("kmgt", lower(i)); p != nullptr && *p != '\0') {
        power = static_cast<int>(p - "kmgt") + 1;
        ++i;
        if (lower(i) == 'i') {
            ++i;
        }
    }
    skipSpaces();
    if (lower(i) == 'b') {
        ++i;
    }
    skipSpaces();
    if (i != text.size()) {
        return std::nullopt;
    }
    const Wide scale = Wide{1} << (10 * power);
    // whole * scale + frac * scale / fracScale, exactly: whole <= 2^53, scale <= 2^40, frac < 10^18 < 2^60.
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

} // namespace pl
