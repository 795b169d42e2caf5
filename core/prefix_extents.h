#pragma once
// The prefix cache by runs of ids (issue 6's scale): what the engine uses when the workload shares prefixes
// and nobody draws the pool map. It answers every question the per-block cache in engine_blocks.cpp answers,
// the same way (the property tests run both and compare every event), without naming physical blocks.
//
// Why: a real trace's request holds hundreds of prefix blocks (Mooncake at 16-token blocks: about 750), and
// its ids come in runs of consecutive integers (a 512-token hash expands to 32 ids in a row, and a new
// conversation's hashes are consecutive). Per block, every admission, registration, release and reuse costs a
// hash probe and a list link; per run, it costs one map step.
//
// The model is the per-block one, run-length encoded over the id space. Each cached id has a holder count and,
// when that count is 0, a place in the freed order. An extent is a range [first, first + len) of ids that
// share the count and, when free, sit next to each other in the freed order with the highest id leaving
// first (a request lets go of its blocks last first, and its ids rise with the block). Extents are split
// where an operation covers part of one and merged back where neighbours agree, so there are about as many
// as there are distinct prefix chains in the cache, not blocks.
//
// Per request, the blocks it holds are runs in logical order: `id >= 0` for blocks that are the cache's
// block for those ids (attached or registered by it), -1 for blocks without an id (not yet registered, or
// computed by it while another block already held the id). Blocks past the runs (its newest) have no id.

#include "core/prefix_ids.h"
#include "core/request_index.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace pl {

class PrefixExtents {
  public:
    void reset(std::size_t requests);

    // Free blocks that still carry an id (hittable until reused).
    std::int64_t cachedFree() const { return cachedFree_; }
    // Bumped whenever a lookup could answer differently (the engine memoises its queue head's lookup on it).
    std::uint64_t version() const { return version_; }

    // Leading ids of `ids` (at most `limit`) the cache holds; `shared`: how many of them are held now.
    std::int64_t hits(const std::vector<IdRun>& ids, std::int64_t limit, std::int64_t& shared) const;
    // Request r (holding nothing) takes its first h ids from the cache; returns how many came from the free
    // pool (their holder count was 0).
    std::int64_t attach(RequestIndex r, const std::vector<IdRun>& ids, std::int64_t h);
    // `taken` blocks leave the free pool (they join a request's newest blocks, without an id): id-less ones
    // first (`plainFree` of them), then cached ones from the least recently freed on, whose ids leave the cache.
    void take(std::int64_t taken, std::int64_t plainFree) {
        const std::int64_t fromCache = taken - std::min(taken, plainFree);
        if (fromCache <= 0) {
            return;
        }
        if (head_ != kNoExtent && ext_[static_cast<std::size_t>(head_)].len > fromCache) { // the usual case, inline
            ext_[static_cast<std::size_t>(head_)].len -= fromCache; // the highest ids go first
            cachedFree_ -= fromCache;
            version_ += 1;
            return;
        }
        takeSlow(fromCache);
    }
    // r's blocks at positions [from, to) now hold computed tokens (from: the first block r has not settled,
    // which is the first past its runs): each id not in the cache is registered to r's block there.
    void registerRange(RequestIndex r, const std::vector<IdRun>& ids, std::int64_t from, std::int64_t to) {
        if (!growInPlace(r, ids, from, to)) {
            registerSlow(r, ids, from, to);
        }
    }
    // r lets go of its blocks at positions [lo, hi), last first: a tail (hi: all it holds) or a front (lo: 0).
    // Returns how many went back to the free pool (a block another request holds stays).
    std::int64_t release(RequestIndex r, std::int64_t lo, std::int64_t hi);
    // Of r's first n blocks, those no other request holds.
    std::int64_t exclusive(RequestIndex r, std::int64_t n) const;
    // Positions r's runs cover (its blocks past them have no id).
    std::int64_t heldLength(RequestIndex r) const;
    // Of the first `steps` cached free blocks in reuse order, how many come before the first one among the
    // first `hits` ids of `ids` (all of `steps`, at most cachedFree(), when none is).
    std::int64_t reusableBefore(const std::vector<IdRun>& ids, std::int64_t hits, std::int64_t steps) const;

    std::size_t extentCount() const { return byFirst_.size(); }

  private:
    struct Extent {
        std::int64_t first = 0;
        std::int64_t len = 0;
        std::int32_t ref = 0;
        std::int32_t prev = -1; // freed order (ref == 0 only): toward the head, which is reused first
        std::int32_t next = -1;
        std::int32_t down = -1; // id order: the extent with the next lower / higher ids (not always adjacent)
        std::int32_t up = -1;
    };
    struct Held {
        std::int64_t len = 0;
        std::int64_t id = -1; // first id, or -1: blocks without an id
    };

    std::vector<Extent> ext_;
    std::vector<std::int32_t> spare_;
    std::map<std::int64_t, std::int32_t> byFirst_;
    std::int32_t lowest_ = -1; // id order's first
    mutable std::int32_t finger_ = -1; // the extent find() returned last (a hint)
    std::int32_t head_ = -1;
    std::int32_t tail_ = -1;
    std::int64_t cachedFree_ = 0;
    std::uint64_t version_ = 0;
    PerRequest<std::vector<Held>> held_; // per request, positions [0, sum of len)
    PerRequest<std::int32_t> grown_;     // per request, the extent it last registered into (a hint)
    PerRequest<std::size_t> runAt_;      // per request, the id run its last registration ended in (a hint)
    mutable std::vector<std::pair<std::int32_t, std::int64_t>> scratch_; // reused by reusableBefore and release

    static constexpr std::int32_t kNoExtent = -1;

    // The usual registration, inline: r grows the chain it registered into last time, with ids that continue
    // the same run, and no extent stands in the way: that extent and r's last run get longer, nothing is
    // searched. False (nothing done) otherwise.
    bool growInPlace(RequestIndex r, const std::vector<IdRun>& ids, std::int64_t from, std::int64_t to) {
        const std::int32_t g = grown_[r];
        const std::size_t c = runAt_[r];
        if (g == kNoExtent || c >= ids.size() || from <= ids[c].pos || to > ids[c].pos + ids[c].len) {
            return false; // positions from - 1 .. to - 1 are not all in the run of the last registration
        }
        Extent& ex = ext_[static_cast<std::size_t>(g)];
        const std::int64_t x = ids[c].id + (from - ids[c].pos);
        auto& mine = held_[r];
        if (ex.len == 0 || ex.ref != 1 || ex.first + ex.len != x || mine.empty() || mine.back().id < 0 ||
            mine.back().id + mine.back().len != x) {
            return false;
        }
        const std::int64_t n = to - from;
        if (ex.up != kNoExtent && ext_[static_cast<std::size_t>(ex.up)].first < x + n) {
            return false; // some of these ids are cached already
        }
        ex.len += n;
        mine.back().len += n;
        version_ += 1;
        if (ex.up != kNoExtent && ext_[static_cast<std::size_t>(ex.up)].first == x + n) {
            coalesce(g);
        }
        return true;
    }
    void takeSlow(std::int64_t fromCache);
    void registerSlow(RequestIndex r, const std::vector<IdRun>& ids, std::int64_t from, std::int64_t to);
    std::int32_t find(std::int64_t id) const;
    std::int32_t make(std::int64_t first, std::int64_t len, std::int32_t ref, std::int32_t below);
    void drop(std::int32_t e);
    std::int32_t splitAt(std::int64_t id);
    std::int32_t isolate(std::int64_t lo, std::int64_t hi);
    std::int32_t coalesce(std::int32_t e);
    void coalesceUpTo(std::int32_t first, std::int64_t hi);
    void unlink(std::int32_t e);
    void pushBack(std::int32_t e);
    void insertBefore(std::int32_t e, std::int32_t at);
    static void append(std::vector<Held>& runs, std::int64_t len, std::int64_t id);
};

} // namespace pl
