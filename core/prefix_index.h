#pragma once
// The prefix cache's index: prefix id -> the block registered under it. It never holds more entries than the
// pool has blocks (an id leaves when its block is reused), however many ids the workload names, so it is a
// small open-addressing table (linear probing, backward-shift erase, doubled at half load): one probe or two
// per lookup, no allocation per entry, and a snapshot of it costs what the cache holds, not what the trace
// names. Ids are >= 0 (the reader checks); -1 marks an empty slot.
#include <cstdint>
#include <vector>

namespace pl {

class PrefixIndex {
  public:
    static constexpr std::int32_t kAbsent = -1;

    std::int32_t find(std::int64_t id) const {
        if (keys_.empty()) {
            return kAbsent;
        }
        for (std::size_t i = home(id);; i = (i + 1) & mask()) {
            if (keys_[i] == id) {
                return blocks_[i];
            }
            if (keys_[i] == kEmpty) {
                return kAbsent;
            }
        }
    }

    // Registers id -> block unless id is already registered; true when it was added.
    bool insert(std::int64_t id, std::int32_t block) {
        if (2 * (size_ + 1) > keys_.size()) {
            grow();
        }
        std::size_t i = home(id);
        for (; keys_[i] != kEmpty; i = (i + 1) & mask()) {
            if (keys_[i] == id) {
                return false;
            }
        }
        keys_[i] = id;
        blocks_[i] = block;
        ++size_;
        return true;
    }

    void erase(std::int64_t id) {
        if (keys_.empty()) {
            return;
        }
        std::size_t i = home(id);
        for (; keys_[i] != id; i = (i + 1) & mask()) {
            if (keys_[i] == kEmpty) {
                return;
            }
        }
        // Backward shift: pull later entries of the probe run into the hole unless that would put one before
        // its home slot, so lookups never meet a gap inside a run.
        for (std::size_t j = (i + 1) & mask(); keys_[j] != kEmpty; j = (j + 1) & mask()) {
            const std::size_t h = home(keys_[j]);
            const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (!stays) {
                keys_[i] = keys_[j];
                blocks_[i] = blocks_[j];
                i = j;
            }
        }
        keys_[i] = kEmpty;
        --size_;
    }

    std::size_t size() const { return size_; }
    std::size_t bytes() const { return keys_.capacity() * sizeof(keys_[0]) + blocks_.capacity() * sizeof(blocks_[0]); }

  private:
    static constexpr std::int64_t kEmpty = -1;
    std::vector<std::int64_t> keys_;
    std::vector<std::int32_t> blocks_;
    std::size_t size_ = 0;
    int bits_ = 0;

    std::size_t mask() const { return keys_.size() - 1; }
    std::size_t home(std::int64_t id) const { // Fibonacci hashing: the top bits of id x 2^64/phi
        return static_cast<std::size_t>((static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
    }
    void grow() {
        std::vector<std::int64_t> keys = std::move(keys_);
        std::vector<std::int32_t> blocks = std::move(blocks_);
        bits_ = keys.empty() ? 10 : bits_ + 1;
        keys_.assign(std::size_t{1} << bits_, kEmpty);
        blocks_.assign(keys_.size(), kAbsent);
        size_ = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (keys[i] != kEmpty) {
                insert(keys[i], blocks[i]);
            }
        }
    }
};

} // namespace pl
