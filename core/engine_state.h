#pragma once
// Engine::State: the whole mutable state of a run (internal to core: engine.cpp and session.cpp). Copying it
// is a snapshot; the ledger and the per-tick series live outside it and are truncated on restore.

#include "core/engine.h"
#include "core/prefix_extents.h"
#include "core/prefix_index.h"
#include "core/request_index.h"

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace pl {

struct Engine::State {
    Tick next_tick = 0;
    bool finished = false;
    PerRequest<RequestState> req;
    std::size_t next_arrival = 0;        // index into the (arrival, id)-sorted request list
    // Waiting queue: (priority, request index). Index order is (arrival_tick, id) order, so this is the
    // contract's (priority, arrival_tick, id) order.
    // vllm-v1 under its fcfs policy keeps a deque instead: the key is the place, new arrivals at the back
    // (fcfs_back counts up), preempted requests at the front (fcfs_front counts down).
    // An order-statistics tree (libstdc++'s policy-based red-black tree): an evict's queue_position is
    // order_of_key, O(log n) in the queue's length (a std::set needed a walk from the head, issue 23).
    using WaitingTree =
        __gnu_pbds::tree<std::pair<std::int64_t, RequestIndex>, __gnu_pbds::null_type,
                         std::less<std::pair<std::int64_t, RequestIndex>>, __gnu_pbds::rb_tree_tag,
                         __gnu_pbds::tree_order_statistics_node_update>;
    // The tree with move operations: libstdc++'s policy-based containers have none, so moving a State copied
    // every node of its queue, and moving a snapshot (a vector of them growing) copied the whole state.
    struct WaitingQueue : WaitingTree {
        WaitingQueue() = default;
        WaitingQueue(const WaitingQueue&) = default;
        WaitingQueue& operator=(const WaitingQueue&) = default;
        WaitingQueue(WaitingQueue&& other) { swap(other); } // (not noexcept: the empty tree allocates its head)
        WaitingQueue& operator=(WaitingQueue&& other) {
            clear();
            swap(other);
            return *this;
        }
        ~WaitingQueue() = default;
    };
    WaitingQueue waiting;
    std::int64_t fcfs_front = 0;
    std::int64_t fcfs_back = 0;
    // sglang: new_token_ratio in parts per million (the engine keeps a float; the lab is integer-only).
    std::int64_t new_token_ratio_ppm = 700000;
    std::vector<RequestIndex> running;   // admitted requests in admission order (includes those copying in)
    std::vector<RequestIndex> copies;    // requests with a swap copy in flight, in start order (FIFO link)
    std::int64_t free_blocks = 0;
    std::int64_t pending_out_blocks = 0; // device blocks that return when in-flight swap-outs land
    std::int64_t host_used = 0;
    std::int64_t swapped_waiting = 0;    // waiting requests swapped out or copying out (their blocks to the host)
    std::int64_t admit_counter = 0;
    std::int64_t holders = 0;            // requests holding device blocks (for request_ticks)
    std::int64_t released_this_tick = 0; // requests that let go of their last block during this tick
    std::int64_t unfinished = 0;
    bool running_dirty = false;
    // After the last executed tick: every running request was decoding, and the fewest tokens any of them
    // still had to generate (the quiescent-tick fast path's starting point).
    bool quiet_decode_only = false;
    std::int64_t quiet_min_remaining = 0;          // a running request finished or was evicted: compact `running`
    Totals totals;
    // Pool map (only with EngineOptions::track_block_owners). Every per-block vector covers blocks
    // [0, fresh_next): the blocks taken at least once. Blocks [fresh_next, capacity_blocks) have never been
    // used: free, not in flight, no holder, no prefix id. A fresh pool fills from block 0 upwards.
    std::int32_t fresh_next = 0;
    std::vector<std::int32_t> owner;     // request index per block (RequestIndex::value()), kFreeBlock when free
    std::vector<std::uint8_t> in_flight;
    // Prefix sharing without the pool map: the cache by runs of ids (prefix_extents.h).
    PrefixExtents extents;
    // Block identities (with track_block_owners; engine_blocks.cpp).
    std::vector<std::int32_t> free_list;              // stack of freed block ids without a prefix id
    PerRequest<std::vector<std::int32_t>> held;       // block ids per request, in logical order
    std::vector<std::int32_t> ref;                    // holders per block
    // Prefix cache (prefix sharing with the pool map): id -> block, the id per block, and the free blocks that still carry
    // an id as a doubly linked list, least recently freed at the head.
    PrefixIndex prefix_cache;
    std::vector<std::int64_t> block_key;
    std::vector<std::int32_t> lru_prev;
    std::vector<std::int32_t> lru_next;
    std::int32_t lru_head = -1;
    std::int32_t lru_tail = -1;
    // Bumped whenever a lookup could answer differently (an id registered or dropped, a cached block's holder
    // count crossing zero); the last lookup is memoised against it, so a queue head that waits tick after
    // tick costs one comparison, not a walk through its prefix.
    std::uint64_t cache_version = 0;
    RequestIndex memo_request = RequestIndex::none();
    std::uint64_t memo_version = 0;
    std::int64_t memo_limit = 0;
    std::int64_t memo_hits = 0;
    std::int64_t memo_shared = 0;
};

} // namespace pl
