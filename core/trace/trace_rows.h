#pragma once
// TraceRow: one request as a public trace records it, before any slicing or tick arithmetic. The readers
// (azure_csv_reader.cpp, mooncake_reader.cpp) turn a trace file into rows and report the first malformed row
// as an InputError naming the file, "line L, column C" and the reason. Row order is the file's order, which
// must be non-decreasing in time. A reader given a stop flag (the lab's Cancel) consults it every few thousand
// rows and throws pl::Cancelled (stop_check.h) once it is set; without one it reads exactly as before.

#include "core/errors.h"
#include "core/stop_check.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pl::trace {

enum class TraceFormat { Azure, Mooncake };
std::optional<TraceFormat> parseTraceFormat(std::string_view s); // "azure" | "mooncake"
std::string_view toString(TraceFormat f);

struct TraceRow {
    std::int64_t time_us = 0;     // arrival, microseconds on the trace's own clock
    std::int64_t prompt_tokens = 0;
    std::int64_t output_tokens = 0;
    std::vector<std::int64_t> hash_ids; // Mooncake only: one id per 512-token prompt block
    std::int64_t line = 0;        // 1-based line in the file (for messages and provenance)
    std::size_t hash_ids_column = 0; // Mooncake: 0-based column of "hash_ids" in its line (the importer's messages)
};

inline constexpr std::int64_t kMooncakeHashBlockTokens = 512;

struct TraceRows {
    TraceFormat format = TraceFormat::Azure;
    std::string file;
    std::vector<TraceRow> rows;
};

using RowsResult = std::variant<TraceRows, InputError>;

// How often a reader or the importer reads its stop flag (a StopCheck's count): a few thousand rows are about
// 10 ms of reading or converting the Mooncake conversation trace's long rows, about 1 ms of Azure's (Release,
// this project's 2-core machine); one relaxed load per check costs nothing.
inline constexpr int kRowsPerStopCheck = 2048;

// Walks a trace file's text line by line for the readers: '\n' ends a line, a trailing '\r' is dropped, and
// lines count from 1, so every error can say "line L, column C".
class TraceLines {
  public:
    TraceLines(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}
    bool next() { // to the next line; false past the last
        if (at_ >= text_.size()) return false;
        const std::size_t end = std::min(text_.find('\n', at_), text_.size());
        line_ = text_.substr(at_, end - at_);
        if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
        at_ = end + 1;
        ++number_;
        return true;
    }
    std::string_view line() const { return line_; }
    std::int64_t number() const { return number_; }
    // The current line's error at a 0-based column.
    InputError error(std::size_t column, std::string reason) const {
        return InputError{file_, "line " + std::to_string(number_) + ", column " + std::to_string(column + 1),
                          std::move(reason)};
    }

  private:
    std::string_view text_;
    std::string file_;
    std::size_t at_ = 0;
    std::string_view line_;
    std::int64_t number_ = 0;
};

// Azure LLM inference trace CSV: header "TIMESTAMP,ContextTokens,GeneratedTokens", timestamps
// "YYYY-MM-DD HH:MM:SS[.fffffff]" (UTC, truncated to microseconds).
// Every reader takes an optional stop flag; a set flag ends the read with pl::Cancelled (see above); loadTraceFile
// also reads it while reading the file into memory.
RowsResult readAzureCsv(std::string_view text, const std::string& file, const std::atomic<bool>* stop = nullptr);
// Mooncake JSONL: {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [..]} per line.
RowsResult readMooncakeJsonl(std::string_view text, const std::string& file, const std::atomic<bool>* stop = nullptr);
RowsResult readTrace(std::string_view text, const std::string& file, TraceFormat format,
                     const std::atomic<bool>* stop = nullptr);
RowsResult loadTraceFile(const std::string& path, TraceFormat format, const std::atomic<bool>* stop = nullptr);

// Parses "YYYY-MM-DD HH:MM:SS[.f...]" to microseconds since 1970-01-01 (proleptic Gregorian, no time zone).
// On failure returns the 0-based offset of the offending character.
std::variant<std::int64_t, std::size_t> parseAzureTimestamp(std::string_view s);

} // namespace pl::trace
