#include "gpu/device_memory.h"

#include "core/summary.h"

namespace pl::gpu {

DeviceMemoryNeed deviceMemoryNeed(const DeviceSetup& setup) {
    DeviceMemoryNeed n;
    n.arena_bytes = KvLayout(setup.arena).totalBytes();
    n.weight_bytes = setup.with_model ? 2 * weightParams(setup.model) : 0;
    return n;
}

std::optional<std::string> deviceMemoryShortfall(const DeviceSetup& setup, std::int64_t freeBytes,
                                                 const std::string& device) {
    const DeviceMemoryNeed n = deviceMemoryNeed(setup);
    if (n.total() + kScratchReserveBytes <= freeBytes) {
        return std::nullopt;
    }
    std::string what = "arena " + formatBytes(n.arena_bytes);
    if (setup.with_model) {
        what += ", " + setup.model.name + " weights " + formatBytes(n.weight_bytes);
    }
    return "live mode needs " + formatBytes(n.total()) + " of device memory (" + what + ") and " +
           formatBytes(kScratchReserveBytes) + " to spare for prefill scratch, but " + device + " has " +
           formatBytes(freeBytes) + " free: use fewer blocks (capacity_blocks)" +
           (setup.with_model ? " or a smaller model (the CLI's --model)" : "");
}

} // namespace pl::gpu
