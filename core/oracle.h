#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>
namespace pl {
struct OracleReport { bool passed = true; std::vector<std::string> violations; };
OracleReport checkReceipt(const nlohmann::json& receipt);
}
