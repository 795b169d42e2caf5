// Reader for the Mooncake traces (Qin et al., "Mooncake", FAST 2025; Apache-2.0) and the format helpers
// shared by both readers.
#include "core/trace/trace_rows.h"

#include "core/json_reader.h"
#include "core/model.h"
#include "core/workload_io.h"

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

// The strict parser's error for one row, as "line L, column C": a syntax error's own column (the start of a
// number it quotes, "1e999", rather than its end); an error at a JSON pointer (a duplicate key, nesting too
// deep) at the row's key it is under, the pointer leading the reason.
InputError rowError(const TraceLines& lines, std::string_view line, const InputError& e) {
    static constexpr std::string_view kAt = "line 1, column ";
    if (e.path.rfind(kAt, 0) == 0) {
        std::size_t col = std::stoul(e.path.substr(kAt.size())) - 1;
        std::string why = e.reason;
        if (why.rfind("invalid JSON: ", 0) == 0) {
            why = why.substr(14);
        }
        if (const auto tag = why.find("] "); why.rfind("[json.exception.", 0) == 0 && tag != std::string::npos) {
            why = why.substr(tag + 2); // an out_of_range error keeps nlohmann's tag
        }
        const auto overflow = why.find("number overflow parsing '");
        const auto open = overflow == std::string::npos ? overflow : why.find('\'', overflow);
        const auto close = open == std::string::npos ? open : why.find('\'', open + 1);
        if (close != std::string::npos) {
            const auto quoted = line.find(why.substr(open + 1, close - open - 1));
            col = quoted == std::string_view::npos ? col : quoted;
        }
        return lines.error(col, "not valid JSON: " + why);
    }
    if (e.path.empty()) {
        return lines.error(0, e.reason);
    }
    // "/hash_ids/0/0/...": the top-level key; a duplicate key is pointed at its second occurrence.
    const std::string key = e.path.substr(1, e.path.find('/', 1) - 1);
    const std::string quoted = '"' + key + '"';
    const bool duplicate = e.reason.rfind("duplicate key", 0) == 0 && e.path.find('/', 1) == std::string::npos;
    const auto pos = duplicate ? line.rfind(quoted) : line.find(quoted);
    const std::string where = e.path.size() <= 40 ? e.path : e.path.substr(0, 40) + "...";
    return lines.error(pos == std::string_view::npos ? 0 : pos, where + ": " + e.reason);
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
        // The strict reader every other JSON input goes through: nesting bounded at kMaxJsonDepth (a row of
        // 100,000 nested arrays overflowed the stack of nlohmann::json::parse) and duplicate keys refused.
        auto parsed = parseJsonStrict(line, file, "Mooncake trace row");
        if (auto* e = std::get_if<InputError>(&parsed)) {
            return rowError(lines, line, *e);
        }
        nlohmann::json obj = std::move(std::get<nlohmann::json>(parsed));
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
        row.hash_ids_column = idsColumn;
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
