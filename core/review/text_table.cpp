#include "core/review/text_table.h"

#include <algorithm>

namespace pl::review {

std::string alignedColumns(const std::vector<std::vector<std::string>>& lines) {
    std::vector<std::size_t> width;
    for (const auto& l : lines) {
        width.resize(std::max(width.size(), l.size()), 0);
        for (std::size_t i = 0; i < l.size(); ++i) {
            width[i] = std::max(width[i], l[i].size());
        }
    }
    std::string out;
    for (const auto& l : lines) {
        for (std::size_t i = 0; i < l.size(); ++i) {
            out += l[i];
            if (i + 1 < l.size()) {
                out.append(width[i] - l[i].size() + 2, ' ');
            }
        }
        out += '\n';
    }
    return out;
}

} // namespace pl::review
