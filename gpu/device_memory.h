#pragma once
// What live mode holds in device memory, known before anything is allocated, so a setup that cannot fit is
// refused with the figures ("needs 131.5 GiB ... the device has 79.2 GiB free") instead of failing part way
// through its allocations with CUDA's "out of memory". Host-only, C++17; DeviceContext::create checks it.

#include "gpu/device_context.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pl::gpu {

// Prefill scratch comes on top of the arena and the weights (grow-only buffers sized by the longest chunk;
// about 1 GiB of scores plus the chunk's activations), so at least this much must be free beyond them.
inline constexpr std::int64_t kScratchReserveBytes = std::int64_t{1} << 30;

struct DeviceMemoryNeed {
    std::int64_t arena_bytes = 0;
    std::int64_t weight_bytes = 0; // bf16 layer weights of the synthetic model; 0 without it
    std::int64_t total() const { return arena_bytes + weight_bytes; }
};
DeviceMemoryNeed deviceMemoryNeed(const DeviceSetup& setup);

// nullopt when the setup fits in `freeBytes` with kScratchReserveBytes to spare; else what it needs, of what,
// and what `device` has free.
std::optional<std::string> deviceMemoryShortfall(const DeviceSetup& setup, std::int64_t freeBytes,
                                                 const std::string& device);

} // namespace pl::gpu
