#pragma once
// The comparison of the four recovery modes on one workload, as `preemptlab-cli compare` prints it and writes
// it (--out FILE.json: preemptlab.compare.v1; --out FILE.csv: a row per mode). Made here and only here, so
// the CLI and the lab's Export > Comparison write byte-identical files for the same workload.

#include "core/engine.h"
#include "core/receipt.h"
#include "core/review/goodput.h"
#include "core/review/outcomes.h"
#include "core/run_control.h"
#include "core/summary.h"
#include "core/workload.h"

#include <functional>
#include <atomic>
#include <string>
#include <vector>

namespace pl {

// One mode's run, reduced to what the comparison shows.
struct CompareColumn {
    Recovery mode = Recovery::Recompute;
    // The column's name: its recovery mode, or (compare --engines) its engine profile.
    std::string label;
    bool engine = false; // a column of the engines comparison
    RunSummary summary;
    review::RunOutcomes outcomes; // per request, for ITL and goodput (compare's latency lines)
    ReceiptHashes hashes;
    bool conservation_passed = false; // the receipt's own check (receiptText)
    std::string receipt;              // the receipt text, kept only when asked (compare --receipts)
};

// The modes compared, in their order: recompute, swap, adaptive, hybrid.
const std::vector<Recovery>& comparedModes();

// One mode's column from its run of `workload` (the compared workload with that recovery mode): the receipt
// is made (its conservation check and hashes are the column's), then kept only with `keepReceipt`. `stop` as
// receiptText's: once set, pl::Cancelled.
CompareColumn compareColumn(const Workload& workload, const RunResult& run, bool keepReceipt,
                            const std::atomic<bool>* stop = nullptr);

// The four runs (runWorkload under `control`, whose cancel flag also stops the receipts) and their columns,
// one run held at a time.
// Throws what runWorkload throws (RunTooLarge, RunCancelled) and pl::Cancelled from a receipt.
// `columnsDone`, where given, counts the columns made (1 to 4) as they are; `onColumn`, where given, is called
// with each column as it is made and how many of how many are done (the CLI's progress lines).
using ColumnDone = std::function<void(const CompareColumn&, std::size_t done, std::size_t total)>;
std::vector<CompareColumn> compareRuns(const Workload& base, const RunControl& control, bool keepReceipts,
                                       std::atomic<int>* columnsDone = nullptr, const ColumnDone& onColumn = {});

// The engines compared (compare --engines): the workload as it is under tick-model-1, then each engine profile
// with that engine's defaults where the workload's policy has no meaning there: recovery recompute, no
// preempt-ahead, the engine's own victim rule (vllm-v1 fcfs = last-admitted, sglang fewest-decoded).
const std::vector<EngineProfile>& comparedProfiles();
Workload engineVariant(const Workload& base, EngineProfile profile);
std::vector<CompareColumn> compareEngineRuns(const Workload& base, const RunControl& control, bool keepReceipts,
                                             std::atomic<int>* columnsDone = nullptr, const ColumnDone& onColumn = {});

// What compare prints: the heading, the table (a row's label starred where the modes' counts differ), the
// footnote for the stars, the host-full notes and each mode's flagged requests.
std::string compareTableText(const Workload& base, const std::vector<CompareColumn>& columns);

// The --out file: preemptlab.compare.v1 (two-space indented, a trailing newline), or with `csv` one row per mode
// (hashes, totals, each percentile group's p50, p90, p99, max and count, the fallbacks by reason, then ITL's
// figures in ticks (and ms with config.tick_us) and, with `slos`, each mode's goodput: additive keys, the
// format stays v1; docs/contracts.md).
std::string compareFileText(const Workload& base, const std::vector<CompareColumn>& columns, bool csv,
                            const review::Slos& slos = {});

} // namespace pl
