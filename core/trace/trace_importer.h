#pragma once
// TraceImporter: turns the rows of a public trace (trace_rows.h) into a preemptlab.workload.v1 Workload:
// slicing by time and count, integer tick arithmetic, Mooncake timestamp spreading, prefix-block mapping and
// the oversized-request rule. See docs/traces.md for every rule stated here.
//
//   origin        = first arrival in the trace + start_us
//   selected rows = origin <= t < origin + duration_us, the first `limit` of them in time order
//   arrival_tick  = floor((t - origin) * rate.den / (tick_us * rate.num))   (all integers)

#include "core/trace/fixed_point.h"
#include "core/trace/trace_rows.h"
#include "core/workload.h"
#include "core/workload_io.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pl::trace {

struct ImportOptions {
    std::int64_t tick_us = 20'000;             // how long one tick lasts (--tick-ms, default 20 ms)
    std::int64_t start_us = 0;                 // slice start after the first arrival (--start SECONDS)
    std::optional<std::int64_t> duration_us;   // slice length (--duration SECONDS); none: to the end
    std::optional<std::int64_t> limit;         // at most this many requests (--limit)
    Rational rate_scale{1, 1};                 // >1 compresses arrivals, <1 stretches them (--rate-scale)
    std::optional<std::int64_t> max_output_tokens; // declared budget for every request; longer outputs are cut
    bool skip_oversized = false;               // skip (and count) requests that can never fit; else refuse
    // Spreading coarse timestamps: each row moves forward by a seeded offset in [0, window). Auto: the window
    // is the gap to the next distinct timestamp (the last group reuses the previous gap).
    enum class Spread { Off, Auto, Fixed } spread = Spread::Off;
    std::int64_t spread_window_us = 0;         // for Spread::Fixed
    std::uint64_t seed = 1;
    bool prefix_blocks = true;                 // map Mooncake hash_ids to prefix_blocks
    bool auto_max_ticks = true;                // max_ticks = last arrival tick + config.max_ticks
    std::string name;                          // workload name; empty: derived from the file name
    std::string id_prefix;                     // empty: "az" or "mc"
};

// Where the slice came from (the lab shows it; the CLI writes it into `notes`).
struct ImportReport {
    std::string file;
    TraceFormat format = TraceFormat::Azure;
    std::int64_t rows_in_file = 0;
    std::int64_t rows_in_window = 0;     // rows inside [start, start + duration), before --limit
    std::int64_t imported = 0;
    std::int64_t skipped_oversized = 0;
    std::int64_t truncated_outputs = 0;  // outputs cut to --max-output-tokens
    std::int64_t first_line = 0;         // file lines of the first and last imported rows
    std::int64_t last_line = 0;
    std::int64_t first_offset_us = 0;    // their trace times, relative to the trace's first arrival
    std::int64_t last_offset_us = 0;
    std::int64_t last_arrival_tick = 0;
    std::int64_t prefix_block_ids = 0;   // total prefix_blocks entries written
    std::string summary() const;         // one paragraph, for notes and the lab
};

struct ImportResult {
    Workload workload;
    ImportReport report;
};

// The citation and licence of each format's public source.
std::string_view citation(TraceFormat f);

// Builds the workload from rows with `config` and `policy` (flags already applied). Errors name the file and
// the line of the offending row, or the option ("--block-size-tokens") when the options are inconsistent.
// `stop` (the lab's Cancel; the CLI gives none) is read every kRowsPerStopCheck rows or sort comparisons: once
// set, the import ends with pl::Cancelled and no workload.
Result<ImportResult> importTrace(const TraceRows& rows, const ImportOptions& options, const Config& config,
                                 const Policy& policy, const std::atomic<bool>* stop = nullptr);

// Maps one row's 512-token hash ids to ids of its full `blockSize`-token prompt blocks (docs/traces.md):
// blockSize divides 512: hash h becomes K = 512/blockSize ids h*K + j; blockSize a multiple of 512: block g
// takes the id of the last hash it covers. nullopt: blockSize neither divides nor is a multiple of 512.
std::optional<std::vector<std::int64_t>> mapHashIds(const std::vector<std::int64_t>& hashIds,
                                                    std::int64_t promptTokens, std::int64_t blockSize);

} // namespace pl::trace
