#pragma once
// LiveBookkeeper: which arena blocks and host slots each request holds in a live run, and what device work
// each engine call implies. The CUDA backend asks it for a step, does the step on the device, and reports the
// measurement; all of the state transitions are host-only and tested on the CPU.
//
// Per request:  resident tokens (KV on the device, in `device_blocks`, block i holding tokens
//               [i*block_size, (i+1)*block_size)), host tokens (KV in the pinned pool, in `host_slots`).

#include "gpu/block_pool.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

struct RequestKv {
    std::vector<std::int64_t> device_blocks;
    std::int64_t resident_tokens = 0;
    std::vector<std::int64_t> host_slots;
    std::int64_t host_tokens = 0;
};

// Prefill positions [start, start + count) of a request into `block_table` (all of its blocks, in order).
struct PrefillStep {
    std::int64_t start = 0;
    std::int64_t count = 0;
    std::vector<std::int64_t> block_table;
};

// Copy `tokens` tokens' blocks between device blocks and host slots (pairwise).
struct SwapStep {
    std::int64_t tokens = 0;
    std::vector<std::int64_t> device_blocks;
    std::vector<std::int64_t> host_slots;
};

class LiveBookkeeper {
  public:
    LiveBookkeeper(std::int64_t deviceBlocks, std::int64_t hostSlots, std::int64_t blockSize);

    // The request's resident context grows to `context_tokens` (no-op if it is not larger).
    // Error (nothing changed) when the arena has too few free blocks.
    std::optional<std::string> grow(std::int32_t request, std::int64_t contextTokens, PrefillStep* step);
    // Evict by swap: the first `tokens` resident tokens (clamped) go to host slots; every device block of
    // the request is released (the tail beyond `tokens`, if any, is dropped: hybrid).
    std::optional<std::string> swapOut(std::int32_t request, std::int64_t tokens, SwapStep* step);
    // Resume by swap: the host copy comes back into fresh device blocks; its host slots are released. A
    // hybrid resume's replayed tail is then rebuilt through grow(), after the restored prefix.
    std::optional<std::string> swapIn(std::int32_t request, SwapStep* step);
    // The engine's evict-time replay measurement (core/engine.cpp calls dropAndReplay when it evicts): drop
    // all of the request's device KV (a prefix restored by swap-in too: the request is being evicted), and
    // lend `tokens` tokens of scratch blocks to measure the replay's prefill on. releaseScratch() returns
    // them; the request's own K/V is rebuilt later through grow() when its context grows again on resume.
    std::optional<std::string> replayScratch(std::int32_t request, std::int64_t tokens, PrefillStep* step);
    void releaseScratch();
    // Evict by recompute: drop all device KV now.
    void drop(std::int32_t request);
    // The request finished: release everything it holds.
    void release(std::int32_t request);

    const RequestKv* find(std::int32_t request) const;
    std::int64_t freeDeviceBlocks() const { return device_.freeCount(); }
    std::int64_t freeHostSlots() const { return host_.freeCount(); }
    // The most arena blocks (scratch included) ever held at once (sizeLiveRun's dry run).
    std::int64_t peakDeviceBlocks() const { return device_.peakUsed(); }
    std::int64_t trackedRequests() const { return static_cast<std::int64_t>(requests_.size()); }
    std::int64_t blockSize() const { return blockSize_; }

  private:
    std::int64_t blocksFor(std::int64_t tokens) const { return (tokens + blockSize_ - 1) / blockSize_; }
    void dropDevice(RequestKv& kv);
    void forgetIfEmpty(std::int32_t request);

    BlockPool device_;
    BlockPool host_;
    std::int64_t blockSize_;
    std::map<std::int32_t, RequestKv> requests_;
    std::vector<std::int64_t> scratch_;
};

} // namespace pl::gpu
