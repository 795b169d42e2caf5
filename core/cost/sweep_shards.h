#pragma once
// Sweeps split into shards that a cluster scheduler runs (a Slurm job array, a Kubernetes Indexed Job), and the
// merge of their files into the output the unsharded sweep writes, byte for byte.
//
// - Assignment: every shard computes the same plan (planSweep: the whole grid validated, each point's estimated
//   cost) and the same assignment: longest processing time first (points by cost, largest first, ties by point
//   index; each to the shard with the least cost so far, ties by shard number). Deterministic on any machine.
// - Shard file `preemptlab.sweep-shard.v1` (JSON): "sweep" names the whole sweep (workload name and hash, grid,
//   modes, metric, program version, point count) and its "id", the SHA-256 of that description's canonical
//   JSON; "shard" is {index (1-based), count, cost, points, points_hash (SHA-256 of each point's compact JSON
//   and a newline)}; "points" holds the shard's points with their exact results (doubles as JSON numbers, which
//   round-trip).
// - Merge: every file read and checked (file and JSON path named on error), all of one sweep (a foreign shard is
//   refused with the field that differs), each shard 1..N exactly once (missing ones named), each point once;
//   then winners and flips over the whole grid, as runSweep computes them.

#include "core/cost/sweep.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pl::cost {

inline constexpr std::string_view kSweepShardFormat = "preemptlab.sweep-shard.v1";

struct ShardRef {
    std::size_t index = 1; // 1-based
    std::size_t count = 1;
};
// "I/N" with 1 <= I <= N <= 100000.
std::variant<ShardRef, InputError> parseShardRef(std::string_view text);

// The shard (0-based) of each point, for `count` shards (longest processing time first; see above).
std::vector<std::size_t> assignShards(const std::vector<std::int64_t>& costs, std::size_t count);

struct SweepShard {
    nlohmann::json sweep; // the description, "id" included
    std::string id;
    ShardRef shard;
    std::int64_t cost = 0;                // estimated, this shard's points
    std::vector<std::size_t> indices;     // ascending
    std::vector<SweepPoint> points;       // one per index; results and input_hash, no winner or flip
};

// The description of a planned sweep (its "id" included).
nlohmann::json sweepDescription(const Workload& workload, const SweepPlan& plan);

// Plans the whole sweep and runs only the points of `shard`. Progress counts this shard's points.
std::variant<SweepShard, InputError> runSweepShard(const Workload& workload, SweepSpec spec, ShardRef shard,
                                                   const SweepProgress& progress = {});
// What a split into `count` shards would run, without running it: {"sweep": id, "points", "modes", "cost" (the
// whole grid's estimated cost), "shards": [{"index", "points", "cost"}]}. For sizing a job array's requests.
std::variant<nlohmann::json, InputError> sweepShardPlan(const Workload& workload, SweepSpec spec, std::size_t count);
// The N shards of a plan whose every point has run (what N runSweepShard calls would give; tests and benches).
std::vector<SweepShard> splitSweep(const Workload& workload, const SweepPlan& plan, std::size_t count);

// The file's text (one point per line).
std::string sweepShardText(const SweepShard& s);
// Reads and checks one shard file's text; errors name `file` and the JSON path.
std::variant<SweepShard, InputError> parseSweepShard(std::string_view text, const std::string& file);

// Reads a shard file (at most 4 GiB) and checks it as parseSweepShard does.
std::variant<SweepShard, InputError> loadSweepShardFile(const std::string& path);

// Merges shards read from `files` (same order). The result writes with sweepCsv / sweepJson.
std::variant<SweepResult, InputError> mergeSweepShards(const std::vector<SweepShard>& shards,
                                                       const std::vector<std::string>& files);

} // namespace pl::cost
