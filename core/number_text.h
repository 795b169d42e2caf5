#pragma once
// Small number formatting helpers shared by the cost model's reason lines and the CLI's explanations.

#include <cstdint>
#include <string>

namespace pl::cost {

std::string formatFixed(double v, int decimals);   // "34.7"
std::string formatThousands(std::int64_t v);       // "62,359"

} // namespace pl::cost
