#pragma once
// Sweep: run every recovery mode over a grid of config/policy values on one workload, record totals, queue
// delay and completion figures per (point, mode), name the winner of each point by a metric and where the
// winner flips. Points are split over std::thread workers and collected by index, so the result is identical
// for any number of threads. Uses the engine (runWorkload) and the receipt hashes (input_hash); with SLOs, each
// result's goodput is core/review's (review::goodput over review::outcomesFromRun).

#include "core/engine.h"
#include "core/errors.h"
#include "core/review/goodput.h"
#include "core/workload.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pl::cost {

// One varied key: a config or policy key (file spelling; dashes accepted) and its values as text.
struct SweepAxis {
    std::string key;
    std::vector<std::string> values;
};
// Parses "KEY=LO:HI:STEP" (integers, inclusive) or "KEY=V1,V2,...". `recovery` cannot be varied (use modes).
std::variant<SweepAxis, InputError> parseSweepAxis(std::string_view text);

enum class SweepMetric {
    MeanCompletion, // mean (completion or max_ticks) - arrival, over all requests (default)
    P95Completion,
    MeanQueue,      // mean queue_ticks
    P95Queue,
    MaxQueue,
    Ticks,          // totals.ticks (makespan)
    Evictions,
    ReplayTokens,
    SwapBytes,      // swap_out_bytes + swap_in_bytes
    Censored,
    SloMisses,      // 100 - goodput percent: the share of requests that miss the SLOs (needs SweepSpec::slos)
};
std::string_view toString(SweepMetric m);
std::optional<SweepMetric> parseSweepMetric(std::string_view s);
std::string sweepMetricNames();

struct SweepSpec {
    std::vector<SweepAxis> axes;     // the grid is their Cartesian product, the last axis varying fastest
    std::vector<Recovery> modes;     // empty: all four
    SweepMetric metric = SweepMetric::MeanCompletion;
    unsigned threads = 0;            // 0: std::thread::hardware_concurrency()
    std::int64_t max_runs = 100'000; // points x modes
    // With any SLO, every result carries its goodput and SweepMetric::SloMisses may be chosen; an SLO in
    // microseconds (given in ms) needs config.tick_us at every point. Part of the sweep's identity (shards).
    review::Slos slos;
};

struct ModeResult {
    Recovery mode = Recovery::Recompute;
    std::string input_hash;
    Totals totals;
    double mean_queue_ticks = 0.0;
    std::int64_t p95_queue_ticks = 0; // nearest rank
    std::int64_t max_queue_ticks = 0;
    double mean_completion_ticks = 0.0; // censored requests count with max_ticks as their completion
    std::int64_t p95_completion_ticks = 0;
    double metric = 0.0;
    // With the spec's SLOs: the run's goodput (censored requests count as misses). Only the counts are kept
    // (requests, good, censored, missed_ttft, missed_tpot); ticks and tick_us are not written to the files.
    std::optional<review::Goodput> goodput;
};

struct SweepPoint {
    std::vector<std::string> values; // one per axis
    std::string input_hash;          // the same for every mode of the point
    std::vector<ModeResult> results; // in the order of the spec's modes
    std::string winner;              // lowest metric; ties joined by '=' in mode order ("swap=hybrid")
    bool flip = false;               // winner differs from the previous point along the last axis
    // The crossover map: how far the winner is ahead (the second-lowest metric less the lowest; 0 on a tie),
    // and the axes along which the winner differs from the previous point on that axis (the point one step
    // lower on it, the other axes the same), in axis order.
    double margin = 0.0;
    std::vector<std::size_t> flip_axes;
};

struct SweepResult {
    std::string workload_name;
    SweepSpec spec;
    std::vector<SweepPoint> points;
};

// Progress: called (from worker threads, serialised) after each finished point with (done, total).
using SweepProgress = std::function<void(std::size_t, std::size_t)>;

// Validates the whole grid first (every point's workload must validate); then runs it. `workload` must be
// validated. Errors name the axis key and value. `stop` (the lab's Cancel, set from another thread) is read
// between points and inside every run (core/stop_check.h): a stopped sweep throws pl::Cancelled and gives no
// partial result; a sweep that is not stopped is the same sweep as without a flag.
std::variant<SweepResult, InputError> runSweep(const Workload& workload, SweepSpec spec,
                                               const SweepProgress& progress = {},
                                               const std::atomic<bool>* stop = nullptr);

// The steps of runSweep, for sweeps split into shards (sweep_shards.h). A plan is the grid before anything
// runs: the spec with its modes filled in, every point's values, every point validated, and each point's
// estimated cost (modes x estimatedRequestTicks of the point's workload).
struct SweepPlan {
    SweepSpec spec;
    std::vector<SweepPoint> points; // values only, until runSweepPoints fills results and input_hash
    std::vector<std::int64_t> costs;
};
// What a run of `w` costs, estimated without running it: the request-ticks it would take without pressure,
// per request min(max_ticks - arrival, ceil(prompt / prefill_tokens_per_tick) + output_tokens), at least 1.
std::int64_t estimatedRequestTicks(const Workload& w);
std::variant<SweepPlan, InputError> planSweep(const Workload& workload, SweepSpec spec);
// Runs the points `indices` of the plan (each once, any order) with spec.threads workers; progress counts them.
// Throws pl::Cancelled when `stop` is set (every worker stops at its next check; the plan's results are then
// incomplete and must be dropped).
std::optional<InputError> runSweepPoints(const Workload& workload, SweepPlan& plan,
                                         const std::vector<std::size_t>& indices, const SweepProgress& progress,
                                         const std::atomic<bool>* stop = nullptr);
// The workload of one grid point: `base` with each axis's value in `values` applied (one value per axis, as a
// SweepPoint holds them), validated. What the sweep ran at that point, for the lab's "open this point".
std::variant<Workload, InputError> sweepPointWorkload(const Workload& base, const std::vector<SweepAxis>& axes,
                                                      const std::vector<std::string>& values);
// Winners and flips, in point order, once every point has its results.
void finishSweepPoints(const SweepSpec& spec, std::vector<SweepPoint>& points);

} // namespace pl::cost
