#include "core/json_diff.h"

#include "core/json_pointer.h"

#include <algorithm>

namespace pl {
namespace {

std::string shortDump(const nlohmann::json& v) {
    std::string s = v.dump();
    if (s.size() > 120) {
        s = s.substr(0, 117) + "...";
    }
    return s;
}

} // namespace

std::optional<std::string> firstJsonDifference(const nlohmann::json& expected, const nlohmann::json& found,
                                               const std::string& path, const std::vector<std::string>& compareLast) {
    const std::string where = path.empty() ? "/" : path;
    if (expected.is_number_integer() && found.is_number_integer()) { // signed and unsigned alike
        if (expected != found) {
            return where + ": expected " + shortDump(expected) + ", found " + shortDump(found);
        }
        if (expected.type() != found.type() && found.is_number_integer() && !found.is_number_unsigned() &&
            found.get<std::int64_t>() == 0) {
            return where + ": expected " + shortDump(expected) + ", found -0 (a negative zero; the writer writes 0)";
        }
        return std::nullopt;
    }
    if (expected.type() != found.type()) {
        return where + ": expected " + shortDump(expected) + ", found " + shortDump(found);
    }
    if (expected.is_object()) {
        const auto last = [&](const std::string& key) {
            return std::find(compareLast.begin(), compareLast.end(), key) != compareLast.end();
        };
        for (const bool deferred : {false, true}) {
            for (auto it = expected.begin(); it != expected.end(); ++it) {
                if (last(it.key()) != deferred) {
                    continue;
                }
                if (!found.contains(it.key())) {
                    return pointerChild(path, it.key()) + ": missing (expected " + shortDump(it.value()) + ")";
                }
                if (auto d = firstJsonDifference(it.value(), found.at(it.key()), pointerChild(path, it.key()))) {
                    return d;
                }
            }
        }
        for (auto it = found.begin(); it != found.end(); ++it) {
            if (!expected.contains(it.key())) {
                return pointerChild(path, it.key()) + ": unexpected member " + shortDump(it.value());
            }
        }
        return std::nullopt;
    }
    if (expected.is_array()) {
        const std::size_t n = std::min(expected.size(), found.size());
        for (std::size_t i = 0; i < n; ++i) {
            if (auto d = firstJsonDifference(expected[i], found[i], pointerChild(path, i))) {
                return d;
            }
        }
        if (expected.size() != found.size()) {
            return where + ": expected " + std::to_string(expected.size()) + " elements, found " +
                   std::to_string(found.size());
        }
        return std::nullopt;
    }
    if (expected != found) {
        return where + ": expected " + shortDump(expected) + ", found " + shortDump(found);
    }
    return std::nullopt;
}

} // namespace pl
