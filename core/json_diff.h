#pragma once
// The first difference between two JSON documents, as "PATH: expected X, found Y" (used by verify).

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pl {

// Walks both documents in key order; nullopt when they are equal. The members of the top object named in
// `compareLast` are compared after all the others: a receipt's hashes ("event_hash" sorts before "events") only
// summarise the fields they cover, so a changed field is named rather than the hash recomputed over it.
// Integers compare by value; a negative zero ("-0", which nlohmann reads as a signed 0 where the writer's 0 is
// unsigned) is named as such instead of "expected 0, found 0".
std::optional<std::string> firstJsonDifference(const nlohmann::json& expected, const nlohmann::json& found,
                                               const std::string& path = "",
                                               const std::vector<std::string>& compareLast = {});

} // namespace pl
