// Fuzz target: the trace importers (Azure CSV and Mooncake JSONL readers, then importTrace).
// The first two bytes choose the format and the import options; the rest is the trace text.
// Properties: any text yields rows or an InputError naming the file and a line, never a crash; rows are in
// non-decreasing time order with positive line numbers; an imported workload passes validateWorkload, unless
// the only complaint is max_ticks (a trace spanning more ticks than the cap is refused by the CLI, with that
// message, after import).
#include "tests/fuzz/fuzz_common.h"

#include "core/trace/trace_importer.h"
#include "core/trace/trace_rows.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pl;
    using namespace pl::trace;
    if (size < 2) {
        return 0;
    }
    const std::uint8_t mode = data[0];
    const std::uint8_t knobs = data[1];
    const TraceFormat format = (mode & 1) ? TraceFormat::Mooncake : TraceFormat::Azure;
    const std::string file = format == TraceFormat::Azure ? "fuzz.csv" : "fuzz.jsonl";
    auto read = readTrace(fuzz::asText(data + 2, size - 2), file, format);
    if (auto* e = std::get_if<InputError>(&read)) {
        fuzz::checkError(*e, file);
        if (e->path.rfind("line ", 0) != 0) {
            fuzz::bug("a trace error without a line: " + e->message());
        }
        return 0;
    }
    const TraceRows& rows = std::get<TraceRows>(read);
    for (std::size_t i = 0; i < rows.rows.size(); ++i) {
        const TraceRow& r = rows.rows[i];
        // time_us may be negative: an Azure timestamp before 1970 is valid, only differences are used.
        if (r.line < 1 || r.prompt_tokens < 0 || r.output_tokens < 0 ||
            (i > 0 && r.time_us < rows.rows[i - 1].time_us)) {
            fuzz::bug("row " + std::to_string(i) + " (line " + std::to_string(r.line) + ") is out of order or negative");
        }
    }

    ImportOptions o;
    static constexpr std::int64_t kTicks[] = {1, 1000, 20'000, 1'000'000};
    static constexpr Rational kRates[] = {{1, 1}, {3, 2}, {1, 1'000'000}, {999'999, 1'000'000}};
    o.tick_us = kTicks[knobs & 3];
    o.rate_scale = kRates[(knobs >> 2) & 3];
    o.spread = static_cast<ImportOptions::Spread>(((mode >> 1) & 3) % 3);
    o.spread_window_us = 7'000;
    o.skip_oversized = (mode & 8) != 0;
    o.prefix_blocks = (mode & 16) != 0;
    if (mode & 32) {
        o.limit = knobs >> 4;
    }
    if (mode & 64) {
        o.max_output_tokens = 16;
    }
    if (mode & 128) {
        o.start_us = 1'000;
        o.duration_us = 5'000'000;
    }
    Config config;
    config.block_size_tokens = (knobs & 0x80) ? 16 : 8;
    config.capacity_blocks = 64;
    auto imported = importTrace(rows, o, config, Policy{});
    if (auto* e = std::get_if<InputError>(&imported)) {
        if (e->reason.empty()) {
            fuzz::bug("an import error without a reason");
        }
        return 0;
    }
    const ImportResult& result = std::get<ImportResult>(imported);
    if (auto e = validateWorkload(result.workload)) {
        if (e->path != "/config/max_ticks") {
            fuzz::bug("an imported workload fails validation: " + e->message());
        }
    }
    if (result.report.imported != static_cast<std::int64_t>(result.workload.requests.size())) {
        fuzz::bug("the report's count differs from the workload's");
    }
    return 0;
}
