#pragma once
// The sweep suites' workload (test_sweep, test_sweep_shards, the lab's test_sweep_view): a small pool under
// pressure, so the modes differ and the winner flips within a few grid points.

#include "core/workload.h"

#include <string>

namespace pltest {

// Eight requests of 40 output tokens (64 at most) arriving a tick apart, priorities 0 and 1 in turn, on 16 blocks
// of 8 tokens; prompts of 24 tokens, or 16, 24 and 32 in turn with `mixedPrompts`.
inline pl::Workload pressuredSweepWorkload(const std::string& name, bool mixedPrompts = false) {
    pl::Workload w;
    w.name = name;
    w.config.block_size_tokens = 8;
    w.config.capacity_blocks = 16;
    w.config.kv_bytes_per_token = 512;
    w.config.prefill_tokens_per_tick = 64;
    w.config.transfer_bytes_per_tick = 16384;
    for (int i = 0; i < 8; ++i) {
        pl::RequestSpec r;
        r.id = std::string("r").append(std::to_string(i)); // appended: GCC 12 -Wrestrict false positive
        r.arrival_tick = i;
        r.prompt_tokens = mixedPrompts ? 16 + 8 * (i % 3) : 24;
        r.output_tokens = 40;
        r.max_output_tokens = 64;
        r.priority = i % 2;
        w.requests.push_back(r);
    }
    return w;
}

} // namespace pltest
