#pragma once
// The review report (issue 26): one receipt's latency distributions split by prompt bucket, output bucket,
// priority, tenant and preemption count, each group with its request count, censored count and p50/p90/p99 of
// queue delay, TTFT, TPOT, ITL and completion time (censored requests counted; docs/review.md). Computed here,
// printed by the CLI as a table, CSV or JSON.

#include "core/review/goodput.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl::review {

// Bucket edges, ascending: edges {a, b} make buckets [0, a), [a, b), [b, inf).
struct ReportOptions {
    std::vector<std::int64_t> prompt_edges = {128, 512, 2048, 8192};
    std::vector<std::int64_t> output_edges = {32, 128, 512, 2048};
    Slos slos; // given: each group also shows its goodput
};

// "64,256,1024" as edges; the reason when not strictly ascending positive whole numbers.
std::variant<std::vector<std::int64_t>, std::string> parseBucketEdges(std::string_view text);
// The bucket label of `value` under `edges`: "<128", "128-511", ">=8192".
std::string bucketLabel(std::int64_t value, const std::vector<std::int64_t>& edges);

struct ReportGroup {
    std::string dimension; // "all", "prompt_tokens", "output_tokens", "priority", "tenant", "preemptions"
    std::string key;       // the bucket or value
    LatencyFigures figures;
    std::optional<Goodput> goodput; // with SLOs
};

struct Report {
    std::int64_t tick_us = 0;
    std::vector<ReportGroup> groups; // "all" first, then each dimension's groups in key order
};

Report buildReport(const RunOutcomes& run, const ReportOptions& options);

std::string reportTableText(const Report& report);
std::string reportCsvText(const Report& report);
std::string reportJsonText(const Report& report);

} // namespace pl::review
