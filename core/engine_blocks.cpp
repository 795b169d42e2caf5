// The block pool: taking and returning blocks, the pool map and (issue 6) the prefix cache.
#include "engine_impl.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pl {


void EngineImpl::takeBlocks(std::int32_t r, std::int64_t n) {
    auto& st = rq(r);
    if (n <= 0) {
        return;
    }
    if (st.blocks == 0) {
        s_.holders += 1;
        if (st.released_tick == t_) {
            s_.released_this_tick -= 1; // it held blocks earlier this tick: count the pair once
        }
    }
    st.blocks += n;
    s_.free_blocks -= n;
    if (e_.options_.track_block_owners) {
        auto& mine = s_.held[static_cast<std::size_t>(r)];
        for (std::int64_t i = 0; i < n; ++i) {
            const auto b = s_.free_list.back();
            s_.free_list.pop_back();
            s_.owner[static_cast<std::size_t>(b)] = r;
            mine.push_back(b);
        }
    }
}

// Return n of r's blocks to the pool: the first n (a landed swap-out prefix) or the last n (dropped tail).
void EngineImpl::releaseBlocks(std::int32_t r, std::int64_t n, bool fromTail) {
    auto& st = rq(r);
    if (n <= 0) {
        return;
    }
    st.blocks -= n;
    s_.free_blocks += n;
    if (st.blocks == 0) {
        s_.holders -= 1;
        s_.released_this_tick += 1;
        st.released_tick = t_;
    }
    if (e_.options_.track_block_owners) {
        auto& mine = s_.held[static_cast<std::size_t>(r)];
        const auto count = static_cast<std::ptrdiff_t>(n);
        auto first = fromTail ? mine.end() - count : mine.begin();
        for (auto it = first; it != first + count; ++it) {
            s_.owner[static_cast<std::size_t>(*it)] = kFreeBlock;
            s_.in_flight[static_cast<std::size_t>(*it)] = 0;
        }
        // Freed blocks go back in reverse so the next allocation reuses the lowest-numbered recently freed.
        for (auto it = first + count; it != first;) {
            --it;
            s_.free_list.push_back(*it);
        }
        mine.erase(first, first + count);
    }
}

} // namespace pl
