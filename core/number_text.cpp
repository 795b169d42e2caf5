#include "cost/cost_format.h"

#include <cstdio>

namespace pl::cost {

std::string formatFixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string formatThousands(std::int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v);
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

} // namespace pl::cost
