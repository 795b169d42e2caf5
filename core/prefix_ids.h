#pragma once
// A request's prefix block ids (workload v1's `prefix_blocks`), kept as runs of consecutive ids.
//
// Real traces name their prefix blocks in long rising runs (a Mooncake 512-token hash expands to 32 ids in a
// row at 16-token blocks, and a new conversation's hashes are consecutive): the whole conversation trace holds
// 9 million ids in about 33,000 runs. Stored as runs, a workload takes a few hundred kilobytes for them instead
// of 72 MB, and the engine's prefix cache (prefix_extents.h) works on the runs as they are, without a pass over
// every id. It reads like a sequence of ids: size, [i], iteration, push_back; equal sequences compare equal.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace pl {

// Positions [pos, pos + len) hold ids id, id + 1, ..., id + len - 1.
struct IdRun {
    std::int64_t pos = 0;
    std::int64_t id = 0;
    std::int64_t len = 0;
    friend bool operator==(const IdRun&, const IdRun&) = default;
};

class PrefixIds {
  public:
    PrefixIds() = default;
    PrefixIds(std::initializer_list<std::int64_t> ids) { appendAll(ids.begin(), ids.end()); }
    PrefixIds(const std::vector<std::int64_t>& ids) { appendAll(ids.begin(), ids.end()); } // NOLINT: reads as a list

    std::size_t size() const { return static_cast<std::size_t>(size_); }
    bool empty() const { return size_ == 0; }
    std::int64_t operator[](std::size_t i) const; // O(log runs)
    std::int64_t front() const { return runs_.front().id; }
    void push_back(std::int64_t id) {
        // The next id of the last run (unsigned difference: no overflow, whatever the ids).
        if (!runs_.empty() && id > runs_.back().id &&
            static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(runs_.back().id) ==
                static_cast<std::uint64_t>(runs_.back().len)) {
            runs_.back().len += 1;
        } else {
            runs_.push_back(IdRun{size_, id, 1});
        }
        size_ += 1;
    }
    void clear() {
        runs_.clear();
        size_ = 0;
    }
    // Maximal runs, in position order (no run continues where the one before it ends).
    const std::vector<IdRun>& runs() const { return runs_; }
    std::vector<std::int64_t> toVector() const;

    class const_iterator {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = std::int64_t;
        using difference_type = std::ptrdiff_t;
        using pointer = const std::int64_t*;
        using reference = std::int64_t;
        const_iterator() = default;
        const_iterator(const std::vector<IdRun>* runs, std::size_t run) : runs_(runs), run_(run) {}
        std::int64_t operator*() const { return (*runs_)[run_].id + offset_; }
        const_iterator& operator++() {
            if (++offset_ == (*runs_)[run_].len) {
                ++run_;
                offset_ = 0;
            }
            return *this;
        }
        const_iterator operator++(int) {
            const_iterator was = *this;
            ++*this;
            return was;
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.run_ == b.run_ && a.offset_ == b.offset_;
        }

      private:
        const std::vector<IdRun>* runs_ = nullptr;
        std::size_t run_ = 0;
        std::int64_t offset_ = 0;
    };
    const_iterator begin() const { return {&runs_, 0}; }
    const_iterator end() const { return {&runs_, runs_.size()}; }

    friend bool operator==(const PrefixIds&, const PrefixIds&) = default;

  private:
    std::vector<IdRun> runs_;
    std::int64_t size_ = 0;

    template <class It>
    void appendAll(It first, It last) {
        for (; first != last; ++first) {
            push_back(*first);
        }
    }
};

} // namespace pl
