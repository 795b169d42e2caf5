#pragma once
// CompareRun: the same workload under recompute, swap, adaptive and hybrid (all other policy keys as they
// are), or under the tick model and each engine profile (core's engineVariant, as `compare --engines`), each
// run by core's runWorkload. Runs on a worker thread with progress and cancel (QPromise).

#include "ui/distributions.h"

#include "core/engine.h"
#include "core/review/outcomes.h"
#include "core/summary.h"
#include "core/workload.h"

#include <QFuture>
#include <QString>

#include <vector>

namespace plui {

// What a comparison sets side by side.
enum class CompareKind { Modes, Engines };

struct CompareEntry {
    pl::Recovery recovery = pl::Recovery::Recompute;
    QString label; // the column's name: the recovery mode, or the engine profile followed
    pl::Totals totals;
    pl::RunSummary summary; // core's figures (nearest-rank percentiles): the same numbers as `preemptlab-cli compare`
    std::string event_hash; // equal hashes: the two modes ran event for event alike (their curves coincide)
    Distributions dist;
    // Per request as core's reviews see them (ITL, goodput under the lab's SLOs: review/goodput.h), and the
    // pooled inter-token gaps' figures.
    pl::review::RunOutcomes outcomes;
    pl::Percentiles itl_ticks;
    std::vector<QString> flagged; // "r07: excessive wait, repeated preemption"
    // pl::hostFullNote: every swap this mode tried found host memory full (empty otherwise), as the CLI prints it.
    QString fallbackNote;
    // The request at each CDF's tail (the longest completion, the longest queue delay; the first such in
    // workload order), named on the plots so a starving request is not a 3% step lost at the right edge.
    QString slowestCompletion, longestQueue;
};

struct CompareResult {
    CompareKind kind = CompareKind::Modes;
    std::int64_t tickUs = 0; // the workload's config.tick_us (0: none): latencies shown in ms when given
    std::vector<CompareEntry> entries; // in pl::comparedModes() (pl::comparedProfiles()) order
    QString error;                     // a run outgrew the machine's memory (pl::RunTooLarge): no entries
};

// How many runs a comparison of `kind` makes (4 modes, or the tick model and 4 engine profiles).
int compareRunCount(CompareKind kind);
// Starts the runs; progress 0..compareRunCount; cancelling stops before the next run (the result is then empty).
QFuture<CompareResult> startCompare(const pl::Workload& workload, CompareKind kind = CompareKind::Modes);
// The same on the calling thread (headless rendering, tests).
CompareResult runCompareNow(const pl::Workload& workload, CompareKind kind = CompareKind::Modes);

} // namespace plui
