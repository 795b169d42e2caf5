#pragma once
// Plain-text tables for the review commands (gate, report): each column as wide as its widest cell, two
// spaces between columns, no trailing spaces.

#include <string>
#include <vector>

namespace pl::review {

std::string alignedColumns(const std::vector<std::vector<std::string>>& lines);

} // namespace pl::review
