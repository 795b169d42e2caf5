#pragma once
// Reading the fields of the cost model's JSON files (sweep shards, sweep results): each accessor throws
// jsonfield::Problem with the field's JSON path and the reason, which the file's reader turns into an
// InputError naming the file. Internal to core/cost.

#include "model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
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

} // namespace pl::cost::jsonfield
