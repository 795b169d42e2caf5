// Reader for the Mooncake traces (Qin et al., "Mooncake", FAST 2025; Apache-2.0) and the format helpers
// shared by both readers.
#include "trace_rows.h"

#include "model.h"
#include "workload_io.h"

#include <nlohmann/json.hpp>

#include <string>
#include <variant>

namespace pl::trace {
namespace {

// Column (0-based) of "key" in the raw line, so that a bad value is pointed at, not just its line.
std::size_t columnOfKey(std::string_view line, std::string_view key) {
    std::string quoted(1, '"');
    quoted.append(key);
    quoted.push_back('"');
    const auto pos = line.find(quoted);
    return pos == std::string_view::npos ? 0 : pos;
}

bool isSafeNonNegative(const nlohmann::json& v) {
    return v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxSafeInteger);
}

} // namespace

std::optional<TraceFormat> parseTraceFormat(std::string_view s) {
    if (s == "azure") {
        return TraceFormat::Azure;
    }
    if (s == "mooncake") {
        return TraceFormat::Mooncake;
    }
    return std::nullopt;
}

std::string_view toString(TraceFormat f) { return f == TraceFormat::Azure ? "azure" : "mooncake"; }

RowsResult readMooncakeJsonl(std::string_view text, const std::string& file, const std::atomic<bool>* stop) {
    TraceRows out{TraceFormat::Mooncake, file, {}};
    TraceLines lines(text, file);
    StopCheck stopCheck(stop, kRowsPerStopCheck);
    std::int64_t previousLine = 0;
    while (lines.next()) {
        stopCheck.step();
        const std::string_view line = lines.line();
        const std::int64_t lineNo = lines.number();
        if (line.find_first_not_of(" \t") == std::string_view::npos) {
            continue;
        }
        nlohmann::json obj;
        try {
            obj = nlohmann::json::parse(line);
        } catch (const nlohmann::json::parse_error& e) {
            const std::size_t col = e.byte > 0 ? e.byte - 1 : 0;
            // nlohmann's message reads "[json.exception.parse_error.101] parse error at line 1, column N: why".
            std::string why = e.what();
            const auto colon = why.find(": ");
            why = colon == std::string::npos ? why : why.substr(colon + 2);
            return lines.error(col, "not valid JSON: " + why);
        } catch (const nlohmann::json::exception& e) {
            // A number too large for a double ("1e999") is out_of_range, not parse_error, and carries no
            // position: find the number the message quotes.
            std::string why = e.what();
            const auto colon = why.find("] ");
            why = colon == std::string::npos ? why : why.substr(colon + 2);
            const auto open = why.find('\'');
            const auto close = open == std::string::npos ? open : why.find('\'', open + 1);
            const std::size_t col = close == std::string::npos ? std::string_view::npos
                                                               : line.find(why.substr(open + 1, close - open - 1));
            return lines.error(col == std::string_view::npos ? 0 : col, "not valid JSON: " + why);
        }
        if (!obj.is_object()) {
            return lines.error(0, "expected a JSON object");
        }
        for (const auto& [key, value] : obj.items()) {
            if (key != "timestamp" && key != "input_length" && key != "output_length" && key != "hash_ids") {
                return lines.error(columnOfKey(line, key), "unknown key '" + key + "'");
            }
        }
        TraceRow row;
        row.line = lineNo;
        static constexpr const char* kNumeric[3] = {"timestamp", "input_length", "output_length"};
        for (const char* key : kNumeric) {
            if (!obj.contains(key)) {
                return lines.error(line.size(), std::string("missing key '") + key + "'");
            }
            const auto& v = obj[key];
            const bool positive = std::string_view(key) != "timestamp";
            if (!isSafeNonNegative(v) || (positive && v.get<std::int64_t>() < 1)) {
                return lines.error(columnOfKey(line, key),
                            std::string(key) + ": " + v.dump() + " is not a whole number from " +
                                (positive ? "1" : "0") + " to 2^53-1");
            }
        }
        const std::int64_t ms = obj["timestamp"].get<std::int64_t>();
        if (ms > kMaxSafeInteger / 1000) {
            return lines.error(columnOfKey(line, "timestamp"), "timestamp: too large");
        }
        row.time_us = ms * 1000;
        row.prompt_tokens = obj["input_length"].get<std::int64_t>();
        row.output_tokens = obj["output_length"].get<std::int64_t>();
        if (!obj.contains("hash_ids")) {
            return lines.error(line.size(), "missing key 'hash_ids'");
        }
        const auto& ids = obj["hash_ids"];
        const std::size_t idsColumn = columnOfKey(line, "hash_ids");
        if (!ids.is_array()) {
            return lines.error(idsColumn, "hash_ids: expected an array of block ids");
        }
        const auto expected = static_cast<std::size_t>(ceilDiv(row.prompt_tokens, kMooncakeHashBlockTokens));
        if (ids.size() != expected) {
            return lines.error(idsColumn,
                        "hash_ids: " + std::to_string(ids.size()) + " ids for input_length " +
                            std::to_string(row.prompt_tokens) + " (expected one per 512 tokens: " +
                            std::to_string(expected) + ")");
        }
        row.hash_ids.reserve(ids.size());
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (!isSafeNonNegative(ids[i])) {
                return lines.error(idsColumn,
                            "hash_ids[" + std::to_string(i) + "]: " + ids[i].dump() +
                                " is not a whole number from 0 to 2^53-1");
            }
            row.hash_ids.push_back(ids[i].get<std::int64_t>());
        }
        if (!out.rows.empty() && row.time_us < out.rows.back().time_us) {
            return lines.error(columnOfKey(line, "timestamp"),
                        "timestamp goes backwards (earlier than line " + std::to_string(previousLine) +
                            "); traces must be sorted by time");
        }
        previousLine = lineNo;
        out.rows.push_back(std::move(row));
    }
    return out;
}

RowsResult readTrace(std::string_view text, const std::string& file, TraceFormat format,
                     const std::atomic<bool>* stop) {
    return format == TraceFormat::Azure ? readAzureCsv(text, file, stop) : readMooncakeJsonl(text, file, stop);
}

RowsResult loadTraceFile(const std::string& path, TraceFormat format, const std::atomic<bool>* stop) {
    auto text = readTextFile(path, Caps{}.max_file_bytes, "trace file", stop);
    if (auto* error = std::get_if<InputError>(&text)) {
        return *error;
    }
    return readTrace(std::get<std::string>(text), path, format, stop);
}

} // namespace pl::trace
