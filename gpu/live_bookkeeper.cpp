#include "gpu/live_bookkeeper.h"

namespace pl::gpu {

LiveBookkeeper::LiveBookkeeper(std::int64_t deviceBlocks, std::int64_t hostSlots, std::int64_t blockSize)
    : device_(deviceBlocks), host_(hostSlots), blockSize_(blockSize < 1 ? 1 : blockSize) {}

std::optional<std::string> LiveBookkeeper::grow(std::int32_t request, std::int64_t contextTokens,
                                                PrefillStep* step) {
    RequestKv& kv = requests_[request];
    *step = PrefillStep{};
    if (contextTokens <= kv.resident_tokens) {
        step->start = kv.resident_tokens;
        step->block_table = kv.device_blocks;
        return std::nullopt;
    }
    const std::int64_t need = blocksFor(contextTokens) - static_cast<std::int64_t>(kv.device_blocks.size());
    if (need > 0) {
        auto ids = device_.allocate(need);
        if (!ids) {
            return "live arena: request " + std::to_string(request) + " needs " + std::to_string(need) +
                   " more blocks, " + std::to_string(device_.freeCount()) + " free";
        }
        kv.device_blocks.insert(kv.device_blocks.end(), ids->begin(), ids->end());
    }
    step->start = kv.resident_tokens;
    step->count = contextTokens - kv.resident_tokens;
    step->block_table = kv.device_blocks;
    kv.resident_tokens = contextTokens;
    return std::nullopt;
}

std::optional<std::string> LiveBookkeeper::swapOut(std::int32_t request, std::int64_t tokens, SwapStep* step) {
    *step = SwapStep{};
    auto it = requests_.find(request);
    if (it == requests_.end() || it->second.resident_tokens == 0) {
        return "live arena: request " + std::to_string(request) + " has no KV on the device to swap out";
    }
    RequestKv& kv = it->second;
    if (kv.host_tokens > 0) {
        return "live arena: request " + std::to_string(request) + " already has KV in the host pool";
    }
    const std::int64_t t = tokens < kv.resident_tokens ? (tokens < 0 ? 0 : tokens) : kv.resident_tokens;
    const std::int64_t n = blocksFor(t);
    auto slots = host_.allocate(n);
    if (!slots) {
        return "live host pool: request " + std::to_string(request) + " needs " + std::to_string(n) +
               " slots, " + std::to_string(host_.freeCount()) + " free";
    }
    step->tokens = t;
    step->device_blocks.assign(kv.device_blocks.begin(), kv.device_blocks.begin() + n);
    step->host_slots = *slots;
    kv.host_slots = *slots;
    kv.host_tokens = t;
    dropDevice(kv);
    forgetIfEmpty(request);
    return std::nullopt;
}

std::optional<std::string> LiveBookkeeper::swapIn(std::int32_t request, SwapStep* step) {
    *step = SwapStep{};
    auto it = requests_.find(request);
    if (it == requests_.end() || it->second.host_tokens == 0) {
        return "live arena: request " + std::to_string(request) + " has no KV in the host pool";
    }
    RequestKv& kv = it->second;
    if (kv.resident_tokens > 0) {
        return "live arena: request " + std::to_string(request) + " is still resident; cannot swap in";
    }
    const std::int64_t n = static_cast<std::int64_t>(kv.host_slots.size());
    auto ids = device_.allocate(n);
    if (!ids) {
        return "live arena: request " + std::to_string(request) + " needs " + std::to_string(n) +
               " blocks to swap in, " + std::to_string(device_.freeCount()) + " free";
    }
    step->tokens = kv.host_tokens;
    step->device_blocks = *ids;
    step->host_slots = kv.host_slots;
    host_.release(kv.host_slots);
    kv.host_slots.clear();
    kv.device_blocks = *ids;
    kv.resident_tokens = kv.host_tokens;
    kv.host_tokens = 0;
    return std::nullopt;
}

std::optional<std::string> LiveBookkeeper::replayScratch(std::int32_t request, std::int64_t tokens,
                                                        PrefillStep* step) {
    *step = PrefillStep{};
    drop(request); // an evicted request keeps nothing on the device, a just-restored prefix neither
    releaseScratch();
    auto ids = device_.allocate(blocksFor(tokens < 0 ? 0 : tokens));
    if (!ids) {
        return "live arena: replay of " + std::to_string(tokens) + " tokens needs " +
               std::to_string(blocksFor(tokens)) + " blocks, " + std::to_string(device_.freeCount()) + " free";
    }
    scratch_ = *ids;
    step->count = tokens < 0 ? 0 : tokens;
    step->block_table = scratch_;
    return std::nullopt;
}

void LiveBookkeeper::releaseScratch() {
    device_.release(scratch_);
    scratch_.clear();
}

void LiveBookkeeper::drop(std::int32_t request) {
    auto it = requests_.find(request);
    if (it != requests_.end()) {
        dropDevice(it->second);
        forgetIfEmpty(request);
    }
}

void LiveBookkeeper::release(std::int32_t request) {
    auto it = requests_.find(request);
    if (it == requests_.end()) {
        return;
    }
    dropDevice(it->second);
    host_.release(it->second.host_slots);
    requests_.erase(it);
}

const RequestKv* LiveBookkeeper::find(std::int32_t request) const {
    auto it = requests_.find(request);
    return it == requests_.end() ? nullptr : &it->second;
}

void LiveBookkeeper::dropDevice(RequestKv& kv) {
    device_.release(kv.device_blocks);
    kv.device_blocks.clear();
    kv.resident_tokens = 0;
}

void LiveBookkeeper::forgetIfEmpty(std::int32_t request) {
    auto it = requests_.find(request);
    if (it != requests_.end() && it->second.device_blocks.empty() && it->second.host_slots.empty()) {
        requests_.erase(it);
    }
}

} // namespace pl::gpu
