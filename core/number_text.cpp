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

} // namespace pl
