#pragma once
// BlockPool: which blocks of a fixed-size pool (device arena blocks or pinned host slots) are free. It hands
// out the lowest free ids first, so a fresh pool gives contiguous runs (which the coalesced and batched copy
// plans exploit) and a run is deterministic. Host-only bookkeeping. Memory grows with the ids ever handed out,
// not with the capacity: the ids from `fresh_` up were never used and are free without being listed.

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace pl::gpu {

class BlockPool {
  public:
    explicit BlockPool(std::int64_t capacity = 0);

    std::int64_t capacity() const { return capacity_; }
    std::int64_t freeCount() const { return static_cast<std::int64_t>(free_.size()) + capacity_ - fresh_; }
    std::int64_t usedCount() const { return capacity_ - freeCount(); }
    // The most ids that were ever in use at once.
    std::int64_t peakUsed() const { return peak_; }
    bool isFree(std::int64_t id) const { return id >= fresh_ ? id < capacity_ : free_.count(id) != 0; }

    // `n` ids (lowest first), or nullopt with nothing taken when fewer than n are free.
    std::optional<std::vector<std::int64_t>> allocate(std::int64_t n);
    // Returns the ids to the pool. False (and nothing changed) if an id is out of range, already free or
    // listed twice.
    bool release(const std::vector<std::int64_t>& ids);

  private:
    std::int64_t capacity_ = 0;
    std::int64_t fresh_ = 0;       // ids [fresh_, capacity_) were never handed out
    std::int64_t peak_ = 0;
    std::set<std::int64_t> free_;  // released ids, all below fresh_
};

} // namespace pl::gpu
