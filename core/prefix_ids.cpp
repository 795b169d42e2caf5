// A request's prefix block ids as runs (prefix_ids.h).
#include "core/prefix_ids.h"

#include <algorithm>

namespace pl {

std::int64_t PrefixIds::operator[](std::size_t i) const {
    const auto p = static_cast<std::int64_t>(i);
    // The last run starting at or before p holds it.
    const auto it = std::upper_bound(runs_.begin(), runs_.end(), p, [](std::int64_t v, const IdRun& r) { return v < r.pos; });
    const IdRun& r = *(it - 1);
    return r.id + (p - r.pos);
}

std::vector<std::int64_t> PrefixIds::toVector() const {
    std::vector<std::int64_t> ids;
    ids.reserve(size());
    for (const IdRun& r : runs_) {
        for (std::int64_t k = 0; k < r.len; ++k) {
            ids.push_back(r.id + k);
        }
    }
    return ids;
}

} // namespace pl
