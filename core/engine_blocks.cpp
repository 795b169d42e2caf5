// The block pool: taking and returning blocks, the pool map, and the prefix cache (issue 6).
//
// Counting is all the no-prefix path needs (free_blocks, RequestState::blocks). With prefix sharing and no
// pool map, the cache is kept by runs of ids (prefix_extents.h; EngineImpl forwards to it). Block identities
// are kept when the lab draws the pool (EngineOptions::track_block_owners), the per-block reference the
// property tests compare the runs against:
//   ref[b]        requests holding block b (a shared prefix block has several);
//   block_key[b]  the prefix id b is registered under in prefix_cache, or -1;
//   free blocks   never taken: [fresh_next, capacity_blocks), outside every per-block vector (the map grows
//                 as blocks are first taken); freed without an id: a stack (free_list); freed with an id: a
//                 list in the order they were freed (lru_*), still hittable. Allocation takes the stack
//                 first, then the lowest never-taken block, then the least recently freed block with an id,
//                 whose id then leaves the cache. Under vllm-v1 with enable_prefix_caching every freed
//                 block joins that list (vLLM's one free queue, FreeKVCacheBlockQueue): never-taken blocks
//                 first, then every freed block oldest first, with an id or without. (Until issue 21 the stack held every block from the start,
//                 block 0 on top: the same order, at 13 bytes per block of capacity in every snapshot.)
#include "core/engine_impl.h"

#include <stdexcept>
#include <string>

#include <algorithm>

namespace pl {

namespace {
constexpr std::int32_t kNone = -1;
}

void EngineImpl::holdMore(RequestIndex r, std::int64_t n) {
    auto& st = rq(r);
    if (st.blocks == 0) {
        s_.holders += 1;
        if (st.released_tick == t_) {
            s_.released_this_tick -= 1; // it held blocks earlier this tick: count the pair once
        }
    }
    st.blocks += n;
}

void EngineImpl::lruUnlink(std::int32_t b) {
    const auto i = static_cast<std::size_t>(b);
    const std::int32_t prev = s_.lru_prev[i];
    const std::int32_t next = s_.lru_next[i];
    (prev == kNone ? s_.lru_head : s_.lru_next[static_cast<std::size_t>(prev)]) = next;
    (next == kNone ? s_.lru_tail : s_.lru_prev[static_cast<std::size_t>(next)]) = prev;
    s_.lru_prev[i] = kNone;
    s_.lru_next[i] = kNone;
}

void EngineImpl::lruPushBack(std::int32_t b) {
    const auto i = static_cast<std::size_t>(b);
    s_.lru_prev[i] = s_.lru_tail;
    s_.lru_next[i] = kNone;
    (s_.lru_tail == kNone ? s_.lru_head : s_.lru_next[static_cast<std::size_t>(s_.lru_tail)]) = b;
    s_.lru_tail = b;
}

std::int32_t EngineImpl::popFreeBlock() {
    if (!s_.free_list.empty()) {
        const auto b = s_.free_list.back();
        s_.free_list.pop_back();
        return b;
    }
    if (s_.fresh_next < c_.capacity_blocks) {
        const std::int32_t b = s_.fresh_next++;
        s_.owner.push_back(kFreeBlock);
        s_.in_flight.push_back(0);
        s_.ref.push_back(0);
        s_.block_key.push_back(-1);
        s_.lru_prev.push_back(kNone);
        s_.lru_next.push_back(kNone);
        return b;
    }
    const std::int32_t b = s_.lru_head; // free_blocks > 0 guarantees one
    lruUnlink(b);
    if (s_.block_key[static_cast<std::size_t>(b)] >= 0) { // (in vLLM's one free queue, some blocks have no id)
        s_.cache_version += 1;
        s_.prefix_cache.erase(s_.block_key[static_cast<std::size_t>(b)]);
        s_.block_key[static_cast<std::size_t>(b)] = -1;
    }
    return b;
}

void EngineImpl::takeBlocks(RequestIndex r, std::int64_t n) {
    if (n <= 0) {
        return;
    }
    if (n > s_.free_blocks) { // every caller checked the free pool first; a miscount here would overdraw it
        throw std::logic_error("the engine took " + std::to_string(n) + " blocks with " +
                               std::to_string(s_.free_blocks) + " free");
    }
    holdMore(r, n);
    if (e_.runs_) {
        s_.extents.take(n, s_.free_blocks - s_.extents.cachedFree());
    }
    s_.free_blocks -= n;
    if (e_.tracked_) {
        auto& mine = s_.held[r];
        for (std::int64_t i = 0; i < n; ++i) {
            const auto b = popFreeBlock();
            s_.ref[static_cast<std::size_t>(b)] = 1;
            if (e_.options_.track_block_owners) {
                setOwner(b, r);
            }
            mine.push_back(b);
        }
    }
}

// The lowest-numbered other request holding b (the pool map shows one holder per block); none when none.
// b's holders besides `leaving` number ref[b]. They are nearly always admitted requests or ones whose swap-out
// is in flight, holding b at the same place in their block lists as `leaving` did (`pos`: a shared prefix
// block stands for the same prefix id at the same position). So those requests are asked at `pos` first, then
// anywhere in their lists, and only when they still do not account for all ref[b] holders is every request
// scanned (a scan per release was a tenth of the lab's time on 300,000 requests that share prefixes).
RequestIndex EngineImpl::otherHolder(std::int32_t b, RequestIndex leaving, std::size_t pos) const {
    const auto others = static_cast<std::size_t>(s_.ref[static_cast<std::size_t>(b)]);
    const auto heldAt = [&](RequestIndex r) {
        const auto& mine = s_.held[r];
        return r != leaving && pos < mine.size() && mine[pos] == b;
    };
    const auto heldAnywhere = [&](RequestIndex r) {
        const auto& mine = s_.held[r];
        return r != leaving && std::find(mine.begin(), mine.end(), b) != mine.end();
    };
    // The admitted and copying requests that `holds` says hold b, when they are all of its holders.
    std::vector<RequestIndex> found;
    const auto allAmongAdmitted = [&](const auto& holds) {
        found.clear();
        for (const auto* list : {&s_.running, &s_.copies}) {
            for (const RequestIndex r : *list) {
                if (holds(r)) {
                    found.push_back(r);
                }
            }
        }
        std::sort(found.begin(), found.end());
        found.erase(std::unique(found.begin(), found.end()), found.end()); // copying in: in both lists
        return found.size() == others;
    };
    if (allAmongAdmitted(heldAt) || allAmongAdmitted(heldAnywhere)) {
        return found.empty() ? RequestIndex::none() : found.front();
    }
    for (const RequestIndex r : s_.held.indices()) {
        if (heldAnywhere(r)) {
            return r;
        }
    }
    return RequestIndex::none();
}

// Let go of n of r's blocks: the first n (a landed swap-out prefix) or the last n (dropped tail). Returns
// how many went back to the pool: a block still held by another request stays where it is.
std::int64_t EngineImpl::releaseBlocks(RequestIndex r, std::int64_t n, bool fromTail) {
    auto& st = rq(r);
    if (n <= 0) {
        return 0;
    }
    st.blocks -= n;
    if (st.blocks == 0) {
        s_.holders -= 1;
        s_.released_this_tick += 1;
        st.released_tick = t_;
    }
    if (e_.runs_) {
        const std::int64_t freed = fromTail ? s_.extents.release(r, st.blocks, st.blocks + n) : s_.extents.release(r, 0, n);
        s_.free_blocks += freed;
        return freed;
    }
    if (!e_.tracked_) {
        s_.free_blocks += n;
        return n;
    }
    auto& mine = s_.held[r];
    const auto count = static_cast<std::ptrdiff_t>(n);
    const auto first = fromTail ? mine.end() - count : mine.begin();
    const bool owners = e_.options_.track_block_owners;
    std::int64_t freed = 0;
    // Last block first: a plain block goes on the stack so the next allocation reuses the lowest-numbered
    // recently freed; a block with a prefix id joins the freed list, so a request's tail blocks leave the
    // cache before its leading ones.
    for (auto it = first + count; it != first;) {
        --it;
        const auto b = *it;
        const auto i = static_cast<std::size_t>(b);
        if (owners) {
            s_.in_flight[i] = 0;
        }
        if (--s_.ref[i] > 0) {
            if (owners && ownerOf(b) == r) {
                setOwner(b, otherHolder(b, r, static_cast<std::size_t>(it - mine.begin())));
            }
            continue;
        }
        freed += 1;
        if (owners) {
            s_.owner[i] = kFreeBlock;
        }
        if (s_.block_key[i] >= 0) {
            lruPushBack(b);
            s_.cache_version += 1; // a cached block is no longer held by anyone
        } else if (oneFreeQueue()) {
            lruPushBack(b); // vLLM: every freed block goes to the free queue's tail, reused oldest first
        } else {
            s_.free_list.push_back(b);
        }
    }
    mine.erase(first, first + count);
    s_.free_blocks += freed;
    return freed;
}

// Blocks among r's that no other request holds (what an eviction of r returns to the pool), counted over
// its first `n` blocks.
std::int64_t EngineImpl::exclusiveBlocks(RequestIndex r, std::int64_t n) const {
    if (!e_.prefix_) {
        return n;
    }
    if (e_.runs_) {
        return s_.extents.exclusive(r, n);
    }
    const auto& mine = s_.held[r];
    std::int64_t own = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        own += s_.ref[static_cast<std::size_t>(mine[static_cast<std::size_t>(i)])] == 1 ? 1 : 0;
    }
    return own;
}

// How many of r's leading prefix blocks (at most `limit`) the cache holds; `shared` counts those another
// request holds now (attaching them takes nothing from the free pool).
std::int64_t EngineImpl::prefixHits(RequestIndex r, std::int64_t limit, std::int64_t& shared) {
    const std::uint64_t version = e_.runs_ ? s_.extents.version() : s_.cache_version;
    if (s_.memo_request == r && s_.memo_version == version && s_.memo_limit == limit) {
        shared = s_.memo_shared;
        return s_.memo_hits;
    }
    s_.memo_request = r;
    s_.memo_version = version;
    s_.memo_limit = limit;
    if (e_.runs_) {
        s_.memo_hits = s_.extents.hits(prefixIds(r).runs(), limit, shared);
        s_.memo_shared = shared;
        return s_.memo_hits;
    }
    shared = 0;
    const auto& ids = prefixIds(r);
    const std::int64_t n = std::min(static_cast<std::int64_t>(ids.size()), limit);
    std::int64_t h = 0;
    for (; h < n; ++h) {
        const std::int32_t b = s_.prefix_cache.find(ids[static_cast<std::size_t>(h)]);
        if (b == PrefixIndex::kAbsent) {
            break;
        }
        shared += s_.ref[static_cast<std::size_t>(b)] > 0 ? 1 : 0;
    }
    s_.memo_hits = h;
    s_.memo_shared = shared;
    return h;
}

// r (holding nothing) takes its first h prefix blocks from the cache: reference count + 1 each. Their tokens
// count as computed, and the replay it owes covers the dropped context from its start, so they shorten it.
void EngineImpl::attachPrefix(RequestIndex r, std::int64_t h) {
    if (h <= 0) {
        return;
    }
    auto& st = rq(r);
    const std::int64_t cached = h * c_.block_size_tokens;
    st.computed_tokens = cached;
    st.replay_remaining -= std::min(cached, st.replay_remaining);
    st.replay_done_target = st.replay_remaining;
    s_.totals.cached_tokens += cached;
    holdMore(r, h);
    st.prefix_settled = h;
    if (e_.runs_) {
        s_.free_blocks -= s_.extents.attach(r, prefixIds(r).runs(), h);
        return;
    }
    const auto& ids = prefixIds(r);
    auto& mine = s_.held[r];
    for (std::int64_t i = 0; i < h; ++i) {
        const std::int32_t b = s_.prefix_cache.find(ids[static_cast<std::size_t>(i)]);
        const auto bi = static_cast<std::size_t>(b);
        if (s_.ref[bi]++ == 0) {
            lruUnlink(b);
            s_.cache_version += 1;
            s_.free_blocks -= 1;
            if (e_.options_.track_block_owners) {
                setOwner(b, r);
            }
        }
        mine.push_back(b);
    }
}

// r's context grew: each newly completed leading prefix block is registered under its id, unless that id
// already names another block (the first block computed for an id is the one the cache keeps).
void EngineImpl::registerPrefix(RequestIndex r) {
    auto& st = rq(r);
    const auto& ids = prefixIds(r);
    const std::int64_t full = std::min(static_cast<std::int64_t>(ids.size()), st.computed_tokens / c_.block_size_tokens);
    if (e_.runs_) {
        if (st.prefix_settled < full) {
            s_.extents.registerRange(r, ids.runs(), st.prefix_settled, full);
            st.prefix_settled = full;
        }
        return;
    }
    const auto& mine = s_.held[r];
    for (; st.prefix_settled < full; ++st.prefix_settled) {
        const auto i = static_cast<std::size_t>(st.prefix_settled);
        const auto b = mine[i];
        if (s_.block_key[static_cast<std::size_t>(b)] >= 0) {
            continue; // attached from the cache
        }
        if (s_.prefix_cache.insert(ids[i], b)) {
            s_.block_key[static_cast<std::size_t>(b)] = ids[i];
            s_.cache_version += 1;
        }
    }
}

} // namespace pl
