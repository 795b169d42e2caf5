#pragma once
// Reading the fields of the cost model's JSON files (sweep shards, sweep results): each reader throws
// jsonfield::Problem with the field's JSON path and the reason, which the file's reader turns into an
// InputError naming the file. Internal to core/cost.

#include "core/cost/sweep.h"
#include "core/workload.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace pl::cost::jsonfield {

using nlohmann::json;

// A problem in one file: the JSON path and the reason (the caller adds the file, catching it).
struct Problem {
    std::string path;
    std::string reason;
};

[[noreturn]] inline void problem(const std::string& path, const std::string& reason) { throw Problem{path, reason}; }

inline const json& field(const json& obj, const std::string& path, const char* key) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        problem(path + "/" + key, "missing");
    }
    return *it;
}

inline const json& objectAt(const json& obj, const std::string& path, const char* key) {
    const json& v = field(obj, path, key);
    if (!v.is_object()) {
        problem(path + "/" + key, "not an object");
    }
    return v;
}

inline const json& arrayAt(const json& obj, const std::string& path, const char* key) {
    const json& v = field(obj, path, key);
    if (!v.is_array()) {
        problem(path + "/" + key, "not an array");
    }
    return v;
}

inline std::string stringAt(const json& obj, const std::string& path, const char* key) {
    const json& v = field(obj, path, key);
    if (!v.is_string()) {
        problem(path + "/" + key, "not a string");
    }
    return v.get<std::string>();
}

inline std::int64_t intAt(const json& obj, const std::string& path, const char* key) {
    const json& v = field(obj, path, key);
    if (!v.is_number_integer()) {
        problem(path + "/" + key, "not a whole number");
    }
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
        problem(path + "/" + key, "out of range");
    }
    const auto n = v.get<std::int64_t>();
    if (n < 0) {
        problem(path + "/" + key, "negative");
    }
    return n;
}

inline double numberAt(const json& obj, const std::string& path, const char* key) {
    const json& v = field(obj, path, key);
    if (!v.is_number()) {
        problem(path + "/" + key, "not a number");
    }
    return v.get<double>();
}

inline Totals readTotals(const json& obj, const std::string& path) {
    Totals t;
    t.ticks = intAt(obj, path, "ticks");
    t.request_ticks = intAt(obj, path, "request_ticks");
    t.pressure_events = intAt(obj, path, "pressure_events");
    t.evictions = intAt(obj, path, "evictions");
    t.freed_blocks = intAt(obj, path, "freed_blocks");
    t.replay_tokens = intAt(obj, path, "replay_tokens");
    t.swap_out_bytes = intAt(obj, path, "swap_out_bytes");
    t.swap_in_bytes = intAt(obj, path, "swap_in_bytes");
    t.peak_host_bytes = intAt(obj, path, "peak_host_bytes");
    t.completed = intAt(obj, path, "completed");
    t.censored = intAt(obj, path, "censored");
    t.queue_reentries = intAt(obj, path, "queue_reentries");
    return t;
}

// The figures of one mode's result at `path`, as the shard file and the sweep's JSON write them; `fraction`
// reads the means and the metric (JSON numbers in a shard, six-decimal strings in a result).
template <typename ReadFraction>
void readModeFigures(const json& obj, const std::string& path, ModeResult& r, ReadFraction fraction) {
    r.totals = readTotals(objectAt(obj, path, "totals"), path + "/totals");
    r.mean_queue_ticks = fraction(obj, path, "mean_queue_ticks");
    r.p95_queue_ticks = intAt(obj, path, "p95_queue_ticks");
    r.max_queue_ticks = intAt(obj, path, "max_queue_ticks");
    r.mean_completion_ticks = fraction(obj, path, "mean_completion_ticks");
    r.p95_completion_ticks = intAt(obj, path, "p95_completion_ticks");
    r.metric = fraction(obj, path, "metric");
}

// The SLOs of a sweep ("slos", as sweepSlosJson writes them): "ttft" and/or "tpot", each {"ticks": N} or
// {"us": N}.
inline review::Slos readSlos(const json& obj, const std::string& path) {
    review::Slos slos;
    for (const auto& [key, _] : obj.items()) {
        if (key != "ttft" && key != "tpot") {
            problem(path + "/" + key, "not ttft or tpot");
        }
    }
    for (const auto& [target, name] : {std::pair{&slos.ttft, "ttft"}, std::pair{&slos.tpot, "tpot"}}) {
        if (!obj.contains(name)) {
            continue;
        }
        const json& sj = objectAt(obj, path, name);
        const std::string at = path + "/" + name;
        if (sj.size() != 1 || (!sj.contains("ticks") && !sj.contains("us"))) {
            problem(at, "not {\"ticks\": N} or {\"us\": N}");
        }
        const bool ticks = sj.contains("ticks");
        *target = review::Slo{intAt(sj, at, ticks ? "ticks" : "us"), ticks ? review::SloUnit::Ticks : review::SloUnit::Micros};
    }
    if (!slos.any()) {
        problem(path, "names no SLO");
    }
    return slos;
}

// A result's "goodput" (sweepGoodputJson's counts) at `path`, checked: good and censored are at most requests.
inline review::Goodput readGoodput(const json& obj, const std::string& path) {
    review::Goodput g;
    g.requests = intAt(obj, path, "requests");
    g.good = intAt(obj, path, "good");
    g.censored = intAt(obj, path, "censored");
    g.missed_ttft = intAt(obj, path, "missed_ttft");
    g.missed_tpot = intAt(obj, path, "missed_tpot");
    if (g.good > g.requests || g.censored > g.requests) {
        problem(path, "more good or censored requests than requests");
    }
    return g;
}

// The goodput of one mode's result `obj` at `path`: there with the sweep's SLOs, absent without them.
inline std::optional<review::Goodput> readResultGoodput(const json& obj, const std::string& path, const SweepSpec& spec) {
    if (!spec.slos.any()) {
        if (obj.contains("goodput")) {
            problem(path + "/goodput", "a goodput, but the sweep names no SLOs");
        }
        return std::nullopt;
    }
    return readGoodput(objectAt(obj, path, "goodput"), path + "/goodput");
}

// A sweep's grid, modes, metric and SLOs as its description at `path` names them ("vary", "modes", "metric",
// "slos" when there are any), checked;
// `total` gets the grid's point count (at most 100,000,000).
inline SweepSpec readSweepSpec(const json& obj, const std::string& path, std::size_t& total) {
    SweepSpec spec;
    const json& vary = arrayAt(obj, path, "vary");
    total = 1;
    for (std::size_t a = 0; a < vary.size(); ++a) {
        const std::string at = path + "/vary/" + std::to_string(a);
        if (!vary[a].is_object()) {
            problem(at, "not an object");
        }
        SweepAxis axis;
        axis.key = stringAt(vary[a], at, "key");
        const json& values = arrayAt(vary[a], at, "values");
        if (values.empty()) {
            problem(at + "/values", "empty");
        }
        for (std::size_t v = 0; v < values.size(); ++v) {
            if (!values[v].is_string()) {
                problem(at + "/values/" + std::to_string(v), "not a string");
            }
            axis.values.push_back(values[v].get<std::string>());
        }
        if (total > 100'000'000 / axis.values.size()) {
            problem(at + "/values", "the grid has more than 100,000,000 points");
        }
        total *= axis.values.size();
        spec.axes.push_back(std::move(axis));
    }
    const json& modes = arrayAt(obj, path, "modes");
    if (modes.empty()) {
        problem(path + "/modes", "empty");
    }
    for (std::size_t m = 0; m < modes.size(); ++m) {
        const auto mode = modes[m].is_string() ? parseRecovery(modes[m].get<std::string>()) : std::nullopt;
        if (!mode) {
            problem(path + "/modes/" + std::to_string(m), "not recompute, swap, adaptive or hybrid");
        }
        spec.modes.push_back(*mode);
    }
    const auto metric = parseSweepMetric(stringAt(obj, path, "metric"));
    if (!metric) {
        problem(path + "/metric", "not one of " + sweepMetricNames());
    }
    spec.metric = *metric;
    // "slos": optional (sweeps with SLOs, issue 26); slo-misses needs them.
    if (obj.contains("slos")) {
        spec.slos = readSlos(objectAt(obj, path, "slos"), path + "/slos");
    }
    if (spec.metric == SweepMetric::SloMisses && !spec.slos.any()) {
        problem(path + "/metric", "slo-misses without the sweep's SLOs (/slos)");
    }
    return spec;
}

} // namespace pl::cost::jsonfield
