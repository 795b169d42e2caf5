#pragma once
// TraceImportJob: one "File > Import Trace" request as plain values (the trace file, its format, core's
// ImportOptions and the machine the slice is sized for), and the work itself, safe to run on a worker thread:
// core reads the file (pl::trace::loadTraceFile) and slices it (pl::trace::importTrace). The lab adds the
// equivalent `preemptlab-cli import-trace` command line to the workload's notes, so the slice can be rebuilt.
// A stop flag set from the UI thread (Cancel) ends the work within a few thousand rows or a MiB of reading,
// or comparisons of its sorts, with no result.

#include "ui/backgroundjob.h"

#include "core/trace/trace_importer.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <optional>

namespace plui {

struct TraceImportJob {
    QString path;
    pl::trace::TraceFormat format = pl::trace::TraceFormat::Azure;
    pl::trace::ImportOptions options;
    // The machine from the cost model's presets at the tick length (import-trace --model M --gpu G): both empty
    // for none (the seed example's small machine); one empty is that preset's default.
    QString model, gpu;
    // Explicit config, applied over the machine's (as the CLI's flags are); 0: not given, the machine's or the
    // default.
    std::int64_t block_size_tokens = 16;
    std::int64_t capacity_blocks = 1024;
    std::int64_t host_capacity_bytes = 0;
};

// The slice and its report, or the error ("FILE: line L, column C: reason"), or cancelled.
using TraceImportOutcome = JobOutcome<pl::trace::ImportResult>;

// Reads, slices and validates. Never throws; an empty slice is an error (as in the CLI). `stop`, when given,
// is consulted while reading and converting and between the steps; once set, the outcome is `cancelled`.
TraceImportOutcome runTraceImport(const TraceImportJob& job, const std::atomic<bool>* stop = nullptr);

// The CLI command that imports the same slice ("preemptlab-cli import-trace --format azure FILE ...").
QString importCommandLine(const TraceImportJob& job);

// The format a file name suggests: ".jsonl" is Mooncake, anything else Azure CSV.
pl::trace::TraceFormat guessTraceFormat(const QString& path);

} // namespace plui
