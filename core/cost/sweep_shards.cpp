#include "core/cost/sweep_shards.h"

#include "core/cost/json_fields.h"
#include "core/cost/sweep_output.h"

#include "core/hashing.h"
#include "core/model.h"
#include "core/workload.h"
#include "core/workload_io.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <queue>

namespace pl::cost {

namespace {

using nlohmann::json;

using ShardProblem = jsonfield::Problem;
using jsonfield::arrayAt;
using jsonfield::intAt;
using jsonfield::objectAt;
using jsonfield::problem;
using jsonfield::stringAt;
using jsonfield::numberAt;

json pointJson(std::size_t index, const SweepPoint& p) {
    json results = json::array();
    for (const auto& m : p.results) {
        json r = {{"mode", std::string(toString(m.mode))},
                  {"totals", sweepTotalsJson(m.totals)},
                  {"mean_queue_ticks", m.mean_queue_ticks},
                  {"p95_queue_ticks", m.p95_queue_ticks},
                  {"max_queue_ticks", m.max_queue_ticks},
                  {"mean_completion_ticks", m.mean_completion_ticks},
                  {"p95_completion_ticks", m.p95_completion_ticks},
                  {"metric", m.metric}};
        if (m.goodput) {
            r["goodput"] = sweepGoodputJson(*m.goodput); // only in sweeps with SLOs
        }
        results.push_back(std::move(r));
    }
    return {{"index", index}, {"values", p.values}, {"input_hash", p.input_hash}, {"results", results}};
}

std::string sweepId(json description) {
    description.erase("id");
    return sha256Tagged(canonicalJson(description));
}

// The grid's values at point `index` (row-major, last axis fastest), from the description's "vary".
std::vector<std::string> gridValues(const std::vector<SweepAxis>& axes, std::size_t index) {
    std::vector<std::string> values(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
        values[a] = axes[a].values[index % axes[a].values.size()];
        index /= axes[a].values.size();
    }
    return values;
}

std::string joinNumbers(const std::vector<std::size_t>& v) {
    std::string out;
    for (auto n : v) {
        out += (out.empty() ? "" : ", ") + std::to_string(n);
    }
    return out;
}

// Why shard description `b` is of another sweep than `a`: the first field that differs.
std::string howTheyDiffer(const json& a, const json& b) {
    for (const char* key : {"workload", "workload_hash", "vary", "modes", "metric", "slos", "version", "points"}) {
        const auto ia = a.find(key);
        const auto ib = b.find(key);
        // "slos" is absent from sweeps without SLOs: absent on both sides is the same.
        const bool same = ia != a.end() && ib != b.end() ? *ia == *ib : ia == a.end() && ib == b.end();
        if (!same) {
            std::string what = std::string("its ") + key + " differs";
            if (ia != a.end() && ib != b.end() && ia->is_primitive() && ib->is_primitive()) {
                what += " (" + ib->dump() + " here, " + ia->dump() + " there)";
            } else if (std::string_view(key) == "slos") {
                what = std::string("its SLOs differ (") + (ib != b.end() ? ib->dump() : std::string("none")) +
                       std::string(" here, ") + (ia != a.end() ? ia->dump() : std::string("none")) + " there)";
            }
            return what;
        }
    }
    return "its id differs";
}

} // namespace

std::variant<ShardRef, InputError> parseShardRef(std::string_view text) {
    const auto slash = text.find('/');
    const auto bad = [&text]() {
        std::string reason = "'";
        reason.append(text).append("' is not I/N with 1 <= I <= N <= 100000 (shard I of N, from 1)");
        return InputError{"", "--shard", reason};
    };
    if (slash == std::string_view::npos) {
        return bad();
    }
    const auto number = [](std::string_view s) -> std::optional<std::size_t> {
        std::size_t v = 0;
        auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) {
            return std::nullopt;
        }
        return v;
    };
    const auto i = number(text.substr(0, slash));
    const auto n = number(text.substr(slash + 1));
    if (!i || !n || *i < 1 || *i > *n || *n > 100'000) {
        return bad();
    }
    return ShardRef{*i, *n};
}

std::vector<std::size_t> assignShards(const std::vector<std::int64_t>& costs, std::size_t count) {
    std::vector<std::size_t> order(costs.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&costs](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    // Min-heap of (load, shard): the least loaded shard first, ties by the smaller shard number.
    using Load = std::pair<std::int64_t, std::size_t>;
    std::priority_queue<Load, std::vector<Load>, std::greater<>> loads;
    for (std::size_t s = 0; s < std::max<std::size_t>(1, count); ++s) {
        loads.push({0, s});
    }
    std::vector<std::size_t> shardOf(costs.size(), 0);
    for (const std::size_t i : order) {
        auto [load, s] = loads.top();
        loads.pop();
        shardOf[i] = s;
        loads.push({load + costs[i], s});
    }
    return shardOf;
}

json sweepDescription(const Workload& workload, const SweepPlan& plan) {
    json vary = json::array();
    for (const auto& axis : plan.spec.axes) {
        vary.push_back({{"key", axis.key}, {"values", axis.values}});
    }
    json modes = json::array();
    for (auto m : plan.spec.modes) {
        modes.push_back(std::string(toString(m)));
    }
    const json input = {{"workload", workloadJson(workload)}, {"policy", policyJson(workload.policy)}};
    json d = {{"workload", workload.name},
              {"workload_hash", sha256Tagged(canonicalJson(input))},
              {"vary", vary},
              {"modes", modes},
              {"metric", std::string(toString(plan.spec.metric))},
              {"version", std::string(kEngineVersion)},
              {"points", plan.points.size()}};
    if (plan.spec.slos.any()) {
        d["slos"] = sweepSlosJson(plan.spec.slos); // absent without SLOs, so those sweeps keep their ids
    }
    d["id"] = sweepId(d);
    return d;
}

namespace {

SweepShard shardOfPlan(const json& description, const SweepPlan& plan, const std::vector<std::size_t>& shardOf,
                       ShardRef ref) {
    SweepShard s;
    s.sweep = description;
    s.id = description.at("id").get<std::string>();
    s.shard = ref;
    for (std::size_t i = 0; i < shardOf.size(); ++i) {
        if (shardOf[i] + 1 == ref.index) {
            s.indices.push_back(i);
            s.cost += plan.costs[i];
        }
    }
    return s;
}

} // namespace

std::variant<SweepShard, InputError> runSweepShard(const Workload& workload, SweepSpec spec, ShardRef shard,
                                                   const SweepProgress& progress) {
    auto planned = planSweep(workload, std::move(spec));
    if (auto* err = std::get_if<InputError>(&planned)) {
        return *err;
    }
    auto& plan = std::get<SweepPlan>(planned);
    SweepShard s = shardOfPlan(sweepDescription(workload, plan), plan, assignShards(plan.costs, shard.count), shard);
    if (auto err = runSweepPoints(workload, plan, s.indices, progress)) {
        return *err;
    }
    for (const std::size_t i : s.indices) {
        s.points.push_back(std::move(plan.points[i]));
    }
    return s;
}

std::variant<json, InputError> sweepShardPlan(const Workload& workload, SweepSpec spec, std::size_t count) {
    auto planned = planSweep(workload, std::move(spec));
    if (auto* err = std::get_if<InputError>(&planned)) {
        return *err;
    }
    const auto& plan = std::get<SweepPlan>(planned);
    const auto shardOf = assignShards(plan.costs, count);
    std::vector<std::int64_t> cost(count, 0);
    std::vector<std::size_t> points(count, 0);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < shardOf.size(); ++i) {
        cost[shardOf[i]] += plan.costs[i];
        points[shardOf[i]] += 1;
        total += plan.costs[i];
    }
    json shards = json::array();
    for (std::size_t k = 0; k < count; ++k) {
        shards.push_back({{"index", k + 1}, {"points", points[k]}, {"cost", cost[k]}});
    }
    return json{{"sweep", sweepDescription(workload, plan).at("id")},
                {"points", plan.points.size()},
                {"modes", plan.spec.modes.size()},
                {"cost", total},
                {"shards", shards}};
}

std::vector<SweepShard> splitSweep(const Workload& workload, const SweepPlan& plan, std::size_t count) {
    const json d = sweepDescription(workload, plan);
    const auto shardOf = assignShards(plan.costs, count);
    std::vector<SweepShard> out;
    for (std::size_t k = 1; k <= count; ++k) {
        SweepShard s = shardOfPlan(d, plan, shardOf, ShardRef{k, count});
        for (const std::size_t i : s.indices) {
            s.points.push_back(plan.points[i]);
            s.points.back().winner.clear();
            s.points.back().flip = false;
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::string sweepShardText(const SweepShard& s) {
    // points_hash: SHA-256 of every point's compact JSON, each followed by a newline (what the reader recomputes).
    std::string points;
    Sha256 hash;
    for (std::size_t k = 0; k < s.points.size(); ++k) {
        const std::string line = pointJson(s.indices[k], s.points[k]).dump();
        hash.update(line);
        hash.update("\n");
        points.append(k ? ",\n" : "\n").append(line);
    }
    const json head = {{"index", s.shard.index},
                       {"count", s.shard.count},
                       {"cost", s.cost},
                       {"points", s.indices.size()},
                       {"points_hash", hash.finishTagged()}};
    std::string out = "{\"format\":\"";
    out.append(kSweepShardFormat).append("\",\n\"sweep\":").append(s.sweep.dump());
    out.append(",\n\"shard\":").append(head.dump()).append(",\n\"points\":[").append(points).append("\n]}\n");
    return out;
}

std::variant<SweepShard, InputError> parseSweepShard(std::string_view text, const std::string& file) {
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        return InputError{file, std::string("byte ") + std::to_string(e.byte), "not JSON (a truncated or damaged shard file?)"};
    }
    try {
        if (!doc.is_object()) {
            problem("", "not a JSON object");
        }
        const std::string format = stringAt(doc, "", "format");
        if (format != kSweepShardFormat) {
            problem("/format", "'" + format + "' is not " + std::string(kSweepShardFormat));
        }
        SweepShard s;
        s.sweep = objectAt(doc, "", "sweep");
        s.id = stringAt(s.sweep, "/sweep", "id");
        stringAt(s.sweep, "/sweep", "workload");
        stringAt(s.sweep, "/sweep", "workload_hash");
        stringAt(s.sweep, "/sweep", "version");
        std::size_t total = 0;
        const SweepSpec spec = jsonfield::readSweepSpec(s.sweep, "/sweep", total);
        if (static_cast<std::uint64_t>(intAt(s.sweep, "/sweep", "points")) != total) {
            problem("/sweep/points", std::string("is not the grid's ") + std::to_string(total) + " points");
        }
        if (sweepId(s.sweep) != s.id) {
            problem("/sweep/id", "does not match the sweep described (the file was altered)");
        }
        const json& head = objectAt(doc, "", "shard");
        const auto index = intAt(head, "/shard", "index");
        const auto count = intAt(head, "/shard", "count");
        if (count < 1 || count > 100'000 || index < 1 || index > count) {
            problem("/shard", std::string("index ") + std::to_string(index) + std::string(" of ") + std::to_string(count) +
                                  " is not I of N with 1 <= I <= N <= 100000");
        }
        s.shard = ShardRef{static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
        s.cost = intAt(head, "/shard", "cost");
        const json& points = arrayAt(doc, "", "points");
        if (static_cast<std::uint64_t>(intAt(head, "/shard", "points")) != points.size()) {
            problem("/shard/points", "says " + head.at("points").dump() + " but the file holds " +
                                         std::to_string(points.size()) + " (a truncated shard file?)");
        }
        {
            Sha256 hash;
            for (const auto& pj : points) {
                hash.update(pj.dump());
                hash.update("\n");
            }
            if (hash.finishTagged() != stringAt(head, "/shard", "points_hash")) {
                problem("/shard/points_hash", "does not match the points (the file was altered or damaged)");
            }
        }
        for (std::size_t k = 0; k < points.size(); ++k) {
            const std::string path = std::string("/points/") + std::to_string(k);
            const json& pj = points[k];
            if (!pj.is_object()) {
                problem(path, "not an object");
            }
            const auto i = static_cast<std::uint64_t>(intAt(pj, path, "index"));
            if (i >= total) {
                problem(path + "/index", std::to_string(i) + std::string(" is past the grid's ") + std::to_string(total) + " points");
            }
            if (!s.indices.empty() && i <= s.indices.back()) {
                problem(path + "/index", "points must be in ascending order, each once");
            }
            SweepPoint p;
            const json& values = arrayAt(pj, path, "values");
            for (const auto& v : values) {
                if (!v.is_string()) {
                    problem(path + "/values", "not all strings");
                }
                p.values.push_back(v.get<std::string>());
            }
            if (p.values != gridValues(spec.axes, i)) {
                problem(path + "/values", std::string("are not the grid's values at point ") + std::to_string(i));
            }
            p.input_hash = stringAt(pj, path, "input_hash");
            const json& results = arrayAt(pj, path, "results");
            if (results.size() != spec.modes.size()) {
                problem(path + "/results", std::string("has ") + std::to_string(results.size()) + " results for " +
                                               std::to_string(spec.modes.size()) + " modes");
            }
            for (std::size_t m = 0; m < results.size(); ++m) {
                const std::string rp = path + std::string("/results/") + std::to_string(m);
                const json& rj = results[m];
                if (!rj.is_object()) {
                    problem(rp, "not an object");
                }
                ModeResult r;
                r.mode = spec.modes[m];
                if (stringAt(rj, rp, "mode") != toString(r.mode)) {
                    problem(rp + "/mode", "is not " + std::string(toString(r.mode)) + ", the sweep's mode " +
                                              std::to_string(m + 1));
                }
                r.input_hash = p.input_hash;
                jsonfield::readModeFigures(rj, rp, r, numberAt);
                r.goodput = jsonfield::readResultGoodput(rj, rp, spec);
                p.results.push_back(r);
            }
            s.indices.push_back(static_cast<std::size_t>(i));
            s.points.push_back(std::move(p));
        }
        return s;
    } catch (const ShardProblem& e) {
        return InputError{file, e.path, e.reason};
    } catch (const json::exception& e) {
        return InputError{file, "", std::string("unreadable: ") + e.what()};
    }
}

std::variant<SweepShard, InputError> loadSweepShardFile(const std::string& path) {
    auto text = readTextFile(path, std::int64_t{4} << 30, "sweep shard file");
    if (auto* err = std::get_if<InputError>(&text)) {
        return *err;
    }
    return parseSweepShard(std::get<std::string>(text), path);
}

std::variant<SweepResult, InputError> mergeSweepShards(const std::vector<SweepShard>& shards,
                                                       const std::vector<std::string>& files) {
    if (shards.empty()) {
        return InputError{"", "", "no shard files"};
    }
    const auto fileOf = [&files](std::size_t k) { return k < files.size() ? files[k] : std::string("shard ") + std::to_string(k + 1); };
    const SweepShard& first = shards.front();
    const std::size_t count = first.shard.count;
    std::vector<std::size_t> fileOfShard(count, SIZE_MAX);
    for (std::size_t k = 0; k < shards.size(); ++k) {
        const SweepShard& s = shards[k];
        if (s.id != first.id) {
            return InputError{fileOf(k), "/sweep",
                              "a shard of another sweep: " + howTheyDiffer(first.sweep, s.sweep) + " (sweep " + s.id +
                                  ", but " + fileOf(0) + " is of sweep " + first.id + ")"};
        }
        if (s.shard.count != count) {
            return InputError{fileOf(k), "/shard/count",
                              std::string("shard ") + std::to_string(s.shard.index) + std::string(" of ") + std::to_string(s.shard.count) +
                                  ", but " + fileOf(0) + std::string(" is of a split into ") + std::to_string(count)};
        }
        auto& seen = fileOfShard[s.shard.index - 1];
        if (seen != SIZE_MAX) {
            return InputError{fileOf(k), "/shard/index",
                              std::string("shard ") + std::to_string(s.shard.index) + std::string(" of ") + std::to_string(count) +
                                  " is given twice (also " + fileOf(seen) + ")"};
        }
        seen = k;
    }
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < count; ++i) {
        if (fileOfShard[i] == SIZE_MAX) {
            missing.push_back(i + 1);
        }
    }
    if (!missing.empty()) {
        return InputError{"", "", std::string(missing.size() == 1 ? "shard " : "shards ") + joinNumbers(missing) +
                                      std::string(" of ") + std::to_string(count) + (missing.size() == 1 ? " is" : " are") +
                                      std::string(" missing (") + std::to_string(shards.size()) + " given)"};
    }
    std::size_t total = 0;
    SweepSpec spec;
    try {
        spec = jsonfield::readSweepSpec(first.sweep, "/sweep", total);
    } catch (const ShardProblem& e) {
        return InputError{fileOf(0), e.path, e.reason};
    }
    SweepResult out;
    out.workload_name = first.sweep.value("workload", std::string());
    out.points.resize(total);
    std::vector<std::size_t> fileOfPoint(total, SIZE_MAX);
    for (std::size_t k = 0; k < shards.size(); ++k) {
        const SweepShard& s = shards[k];
        for (std::size_t j = 0; j < s.indices.size(); ++j) {
            const std::size_t i = s.indices[j];
            if (i >= total) {
                return InputError{fileOf(k), std::string("/points/") + std::to_string(j) + "/index", "past the grid"};
            }
            if (fileOfPoint[i] != SIZE_MAX) {
                return InputError{fileOf(k), std::string("/points/") + std::to_string(j) + "/index",
                                  std::string("point ") + std::to_string(i) + " is also in " + fileOf(fileOfPoint[i])};
            }
            fileOfPoint[i] = k;
            out.points[i] = s.points[j];
        }
    }
    for (std::size_t i = 0; i < total; ++i) {
        if (fileOfPoint[i] == SIZE_MAX) {
            return InputError{"", "", std::string("point ") + std::to_string(i) + std::string(" is in none of the ") + std::to_string(count) +
                                          " shards (shards of different splits?)"};
        }
    }
    finishSweepPoints(spec, out.points);
    out.spec = std::move(spec);
    return out;
}

} // namespace pl::cost
