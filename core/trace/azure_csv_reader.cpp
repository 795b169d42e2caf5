// Reader for the Azure LLM inference traces (Patel et al., "Splitwise", ISCA 2024; CC-BY-4.0).
#include "core/trace/trace_rows.h"

#include "core/trace/fixed_point.h"

namespace pl::trace {
namespace {

// Days from 1970-01-01 to y-m-d (Howard Hinnant's days_from_civil).
std::int64_t daysFromCivil(std::int64_t y, std::int64_t m, std::int64_t d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool isLeap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

std::int64_t daysInMonth(std::int64_t y, std::int64_t m) {
    static constexpr std::int64_t kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && isLeap(y) ? 29 : kDays[m - 1];
}

} // namespace

std::variant<std::int64_t, std::size_t> parseAzureTimestamp(std::string_view s) {
    // Layout: YYYY-MM-DD HH:MM:SS then optionally '.' and 1..9 digits.
    static constexpr std::string_view kPattern = "dddd-dd-dd dd:dd:dd";
    for (std::size_t i = 0; i < kPattern.size(); ++i) {
        if (i >= s.size()) {
            return i;
        }
        const bool wantDigit = kPattern[i] == 'd';
        const bool isDigit = s[i] >= '0' && s[i] <= '9';
        if (wantDigit ? !isDigit : s[i] != kPattern[i]) {
            return i;
        }
    }
    auto num = [&](std::size_t at, std::size_t n) {
        std::int64_t v = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    const std::int64_t y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
                       sec = num(17, 2);
    if (mo < 1 || mo > 12) {
        return std::size_t{5};
    }
    if (d < 1 || d > daysInMonth(y, mo)) {
        return std::size_t{8};
    }
    if (h > 23) {
        return std::size_t{11};
    }
    if (mi > 59) {
        return std::size_t{14};
    }
    if (sec > 59) {
        return std::size_t{17};
    }
    std::int64_t micros = 0;
    std::size_t pos = kPattern.size();
    if (pos < s.size()) {
        if (s[pos] != '.' || pos + 1 == s.size() || s.size() - pos - 1 > 9) {
            return pos;
        }
        for (std::size_t i = pos + 1; i < s.size(); ++i) {
            if (s[i] < '0' || s[i] > '9') {
                return i;
            }
            if (i - pos <= 6) {
                micros = micros * 10 + (s[i] - '0');
            }
        }
        for (std::size_t k = s.size() - pos - 1; k < 6; ++k) {
            micros *= 10;
        }
    }
    const std::int64_t seconds = ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60 + sec;
    return seconds * 1'000'000 + micros;
}

RowsResult readAzureCsv(std::string_view text, const std::string& file, const std::atomic<bool>* stop) {
    TraceRows out{TraceFormat::Azure, file, {}};
    TraceLines lines(text, file);
    StopCheck stopCheck(stop, kRowsPerStopCheck);
    bool sawHeader = false;
    std::int64_t previousLine = 0;
    while (lines.next()) {
        stopCheck.step();
        const std::string_view line = lines.line();
        const std::int64_t lineNo = lines.number();
        if (!sawHeader) {
            if (line.rfind("\xEF\xBB\xBF", 0) == 0 ? line.substr(3) != "TIMESTAMP,ContextTokens,GeneratedTokens"
                                                    : line != "TIMESTAMP,ContextTokens,GeneratedTokens") {
                return lines.error(0, "expected the header 'TIMESTAMP,ContextTokens,GeneratedTokens'");
            }
            sawHeader = true;
            continue;
        }
        if (line.empty()) {
            continue; // blank lines (a trailing newline) carry no request
        }
        // A NUL (a binary file, or a damaged one) in place of a comma read as "missing column".
        if (const auto nul = line.find('\0'); nul != std::string_view::npos) {
            return lines.error(nul, "a NUL byte (a CSV trace is text and holds none)");
        }
        std::string_view fields[3];
        std::size_t starts[3] = {0, 0, 0};
        std::size_t fieldStart = 0;
        int count = 0;
        for (std::size_t i = 0; i <= line.size(); ++i) {
            if (i == line.size() || line[i] == ',') {
                if (count == 3) {
                    return lines.error(fieldStart - 1, "too many columns (expected 3)");
                }
                starts[count] = fieldStart;
                fields[count++] = line.substr(fieldStart, i - fieldStart);
                fieldStart = i + 1;
            }
        }
        if (count < 3) {
            return lines.error(line.size(), "missing column " +
                                                 std::string(count == 1 ? "ContextTokens" : "GeneratedTokens") +
                                                 " (expected 3 columns)");
        }
        TraceRow row;
        row.line = lineNo;
        auto ts = parseAzureTimestamp(fields[0]);
        if (auto* bad = std::get_if<std::size_t>(&ts)) {
            return lines.error(starts[0] + *bad,
                        "TIMESTAMP: '" + std::string(fields[0]) + "' is not YYYY-MM-DD HH:MM:SS[.fffffff]");
        }
        row.time_us = std::get<std::int64_t>(ts);
        static constexpr const char* kNames[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
        for (int c = 1; c < 3; ++c) {
            auto v = parseNonNegative(fields[c]);
            if (!v || *v < 1) {
                return lines.error(starts[c],
                            std::string(kNames[c]) + ": '" + std::string(fields[c]) +
                                "' is not a whole number from 1 to 2^53-1");
            }
            (c == 1 ? row.prompt_tokens : row.output_tokens) = *v;
        }
        if (!out.rows.empty() && row.time_us < out.rows.back().time_us) {
            return lines.error(starts[0],
                        "TIMESTAMP goes backwards (earlier than line " + std::to_string(previousLine) +
                            "); traces must be sorted by time");
        }
        previousLine = lineNo;
        out.rows.push_back(std::move(row));
    }
    if (!sawHeader) {
        return InputError{file, "line 1, column 1", "empty file: expected the Azure trace header"};
    }
    return out;
}

} // namespace pl::trace
