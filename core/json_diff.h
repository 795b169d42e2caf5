#pragma once
// The first difference between two JSON documents, as "PATH: expected X, found Y" (used by verify).

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace pl {

// Walks both documents in key order; nullopt when they are equal.
std::optional<std::string> firstJsonDifference(const nlohmann::json& expected, const nlohmann::json& found,
                                               const std::string& path = "");

} // namespace pl
