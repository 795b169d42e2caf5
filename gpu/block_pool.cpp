#include "block_pool.h"

namespace pl::gpu {

BlockPool::BlockPool(std::int64_t capacity) : capacity_(capacity < 0 ? 0 : capacity) {
    for (std::int64_t i = 0; i < capacity_; ++i) {
        free_.insert(free_.end(), i);
    }
}

std::optional<std::vector<std::int64_t>> BlockPool::allocate(std::int64_t n) {
    if (n < 0 || n > freeCount()) {
        return std::nullopt;
    }
    std::vector<std::int64_t> ids;
    ids.reserve(static_cast<std::size_t>(n));
    auto it = free_.begin();
    for (std::int64_t i = 0; i < n; ++i) {
        ids.push_back(*it);
        it = free_.erase(it);
    }
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
