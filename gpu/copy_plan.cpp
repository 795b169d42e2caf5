#include "gpu/copy_plan.h"

namespace pl::gpu {

const char* toString(CopyDirection d) { return d == CopyDirection::DeviceToHost ? "d2h" : "h2d"; }

std::optional<std::string> checkBlockLists(const KvLayout& device, const KvLayout& host,
                                           const std::vector<std::int64_t>& deviceBlocks,
                                           const std::vector<std::int64_t>& hostSlots) {
    if (deviceBlocks.size() != hostSlots.size()) {
        return "copy plan: " + std::to_string(deviceBlocks.size()) + " device blocks but " +
               std::to_string(hostSlots.size()) + " host slots";
    }
    for (std::size_t i = 0; i < deviceBlocks.size(); ++i) {
        if (deviceBlocks[i] < 0 || deviceBlocks[i] >= device.shape().num_blocks) {
            return "copy plan: device block [" + std::to_string(i) + "] = " + std::to_string(deviceBlocks[i]) +
                   " is outside 0.." + std::to_string(device.shape().num_blocks - 1);
        }
        if (hostSlots[i] < 0 || hostSlots[i] >= host.shape().num_blocks) {
            return "copy plan: host slot [" + std::to_string(i) + "] = " + std::to_string(hostSlots[i]) +
                   " is outside 0.." + std::to_string(host.shape().num_blocks - 1);
        }
    }
    if (device.chunkBytes() != host.chunkBytes() || device.shape().layers != host.shape().layers) {
        return "copy plan: the arena and the host pool have different block shapes";
    }
    return std::nullopt;
}

std::optional<std::string> checkPrefillTable(const KvLayout& arena, std::int64_t start, std::int64_t count,
                                             const std::vector<std::int64_t>& blockTable) {
    if (start < 0 || count < 0 || arena.blocksForTokens(start + count) > static_cast<std::int64_t>(blockTable.size())) {
        return "prefill: " + std::to_string(blockTable.size()) + " blocks cannot hold " +
               std::to_string(start + count) + " tokens";
    }
    for (std::int64_t b : blockTable) {
        if (b < 0 || b >= arena.shape().num_blocks) {
            return "prefill: block " + std::to_string(b) + " is outside the arena";
        }
    }
    return std::nullopt;
}

std::vector<BlockRun> blockRuns(const std::vector<std::int64_t>& deviceBlocks,
                                const std::vector<std::int64_t>& hostSlots) {
    std::vector<BlockRun> runs;
    for (std::size_t i = 0; i < deviceBlocks.size() && i < hostSlots.size(); ++i) {
        if (!runs.empty()) {
            BlockRun& r = runs.back();
            if (deviceBlocks[i] == r.device + r.count && hostSlots[i] == r.host + r.count) {
                ++r.count;
                continue;
            }
        }
        runs.push_back({deviceBlocks[i], hostSlots[i], 1});
    }
    return runs;
}

namespace {

std::vector<CopySpan> planFromRuns(const KvLayout& device, const KvLayout& host, const std::vector<BlockRun>& runs,
                                   CopyDirection dir) {
    std::vector<CopySpan> plan;
    const std::int64_t chunk = device.chunkBytes();
    plan.reserve(runs.size() * 2 * static_cast<std::size_t>(device.shape().layers));
    for (std::int64_t layer = 0; layer < device.shape().layers; ++layer) {
        for (std::int64_t kv = 0; kv < 2; ++kv) {
            for (const BlockRun& r : runs) {
                const std::int64_t d = device.chunkOffset(layer, kv, r.device);
                const std::int64_t h = host.chunkOffset(layer, kv, r.host);
                const std::int64_t bytes = r.count * chunk;
                plan.push_back(dir == CopyDirection::DeviceToHost ? CopySpan{d, h, bytes} : CopySpan{h, d, bytes});
            }
        }
    }
    return plan;
}

} // namespace

std::vector<CopySpan> perBlockPlan(const KvLayout& device, const KvLayout& host,
                                   const std::vector<std::int64_t>& deviceBlocks,
                                   const std::vector<std::int64_t>& hostSlots, CopyDirection dir) {
    std::vector<BlockRun> runs;
    runs.reserve(deviceBlocks.size());
    for (std::size_t i = 0; i < deviceBlocks.size() && i < hostSlots.size(); ++i) {
        runs.push_back({deviceBlocks[i], hostSlots[i], 1});
    }
    return planFromRuns(device, host, runs, dir);
}

std::vector<CopySpan> coalescedPlan(const KvLayout& device, const KvLayout& host,
                                    const std::vector<std::int64_t>& deviceBlocks,
                                    const std::vector<std::int64_t>& hostSlots, CopyDirection dir) {
    return planFromRuns(device, host, blockRuns(deviceBlocks, hostSlots), dir);
}

std::int64_t planBytes(const std::vector<CopySpan>& plan) {
    std::int64_t total = 0;
    for (const CopySpan& c : plan) {
        total += c.bytes;
    }
    return total;
}

double gigabytesPerSecond(std::int64_t bytes, double us) {
    return us > 0.0 ? static_cast<double>(bytes) / (us * 1e3) : 0.0;
}

} // namespace pl::gpu
