#pragma once
// DistributionTable: what the Distributions view draws, read from core's review report (core/review/report.h):
// for one metric (queue delay, TTFT, TPOT, ITL, completion) and one grouping (prompt bucket, output bucket,
// priority, tenant, preemption count), a row per group with its request and censored counts and the metric's
// p50/p90/p99/max, in ms when the run's workload gives config.tick_us, else in ticks. Nothing is recomputed
// here: the percentiles are core's nearest-rank integers, only scaled to the unit shown.

#include "core/review/report.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace plui {

enum class DistMetric { Queue, Ttft, Tpot, Itl, Completion };
enum class DistGrouping { PromptBucket, OutputBucket, Priority, Tenant, Preemptions };

inline constexpr DistMetric kDistMetrics[] = {DistMetric::Queue, DistMetric::Ttft, DistMetric::Tpot, DistMetric::Itl,
                                              DistMetric::Completion};
inline constexpr DistGrouping kDistGroupings[] = {DistGrouping::PromptBucket, DistGrouping::OutputBucket,
                                                  DistGrouping::Priority, DistGrouping::Tenant,
                                                  DistGrouping::Preemptions};

// Spellings kept in the settings and on --view: "queue", "ttft", "tpot", "itl", "completion"; the report's
// dimension names ("prompt_tokens", "output_tokens", "priority", "tenant", "preemptions").
QString metricKey(DistMetric m);
QString groupingKey(DistGrouping g);
// For the choosers: "Queue delay", "TTFT", ...; "Prompt bucket (prompt_tokens)", ...
QString metricTitle(DistMetric m);
QString groupingTitle(DistGrouping g);
// From the spellings above; `fallback` for anything else (a stale setting).
DistMetric metricFromKey(const QString& key, DistMetric fallback);
DistGrouping groupingFromKey(const QString& key, DistGrouping fallback);

struct DistributionRow {
    QString key;                 // the report's group key: "<128", "128-511", "t1", "2"
    std::int64_t requests = 0;   // requests in the group, censored included
    std::int64_t censored = 0;   // of them, never completed
    std::int64_t values = 0;     // how many values the metric has in the group (requests with a first token for
                                 // TTFT, completed ones for TPOT and completion, every gap for ITL)
    pl::Percentiles ticks;       // core's figures in ticks (TPOT: ticks x 100, as core keeps it)
    double p50 = 0, p90 = 0, p99 = 0, max = 0; // the same in the unit shown
    std::optional<pl::review::Goodput> goodput; // the group's, when the report was made with SLOs
};

struct DistributionTable {
    DistMetric metric = DistMetric::Queue;
    DistGrouping grouping = DistGrouping::PromptBucket;
    std::int64_t tickUs = 0;  // the workload's config.tick_us; 0: figures in ticks
    QString unit;             // "ms", "ticks" or "ticks/token"
    std::vector<DistributionRow> rows; // the report's groups of that dimension, in its order (empty ones are absent)
    std::int64_t requests = 0, censored = 0; // the whole run (the report's "all" group)
};

// The rows of `report` for `metric` by `grouping`.
DistributionTable distributionTable(const pl::review::Report& report, DistMetric metric, DistGrouping grouping);

// A figure in ticks (x100 when `x100`) in the table's unit: ms at `tickUs` (> 0), else ticks.
double shownValue(std::int64_t ticks, bool x100, std::int64_t tickUs);

} // namespace plui
