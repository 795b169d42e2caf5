#include "gpu/block_pool.h"

#include <algorithm>

namespace pl::gpu {

BlockPool::BlockPool(std::int64_t capacity) : capacity_(capacity < 0 ? 0 : capacity) {}

std::optional<std::vector<std::int64_t>> BlockPool::allocate(std::int64_t n) {
    if (n < 0 || n > freeCount()) {
        return std::nullopt;
    }
    std::vector<std::int64_t> ids;
    ids.reserve(static_cast<std::size_t>(n));
    // Released ids are all below fresh_, so taking them first, then fresh ones, is lowest first.
    auto it = free_.begin();
    for (std::int64_t i = 0; i < n; ++i) {
        if (it != free_.end()) {
            ids.push_back(*it);
            it = free_.erase(it);
        } else {
            ids.push_back(fresh_++);
        }
    }
    peak_ = std::max(peak_, usedCount());
    return ids;
}

bool BlockPool::release(const std::vector<std::int64_t>& ids) {
    std::set<std::int64_t> seen;
    for (std::int64_t id : ids) {
        if (id < 0 || id >= capacity_ || isFree(id) || !seen.insert(id).second) {
            return false;
        }
    }
    free_.insert(ids.begin(), ids.end());
    return true;
}

} // namespace pl::gpu
