#pragma once
// CopyPlan: the list of contiguous copies that moves a request's blocks between the device arena and the
// host pool (both laid out as in kv_layout.h). Offsets are bytes from the base of each buffer.
//   per-block: one copy per block per layer per K/V (vLLM V0's swap_blocks): blocks x layers x 2 copies;
//   coalesced: runs where both the device block and the host slot advance by one become one copy per
//              (layer, K/V) plane, so a contiguous victim costs layers x 2 copies whatever its length.
// The `batched` method submits a coalesced plan in one cudaMemcpyBatchAsync; `gather` does not use a plan
// (one kernel walks the block table) but its bytes equal planBytes() of either plan.

#include "gpu/kv_layout.h"
#include "core/cost/swap_method.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

enum class CopyDirection : int { DeviceToHost = 0, HostToDevice = 1 };
const char* toString(CopyDirection d); // "d2h", "h2d"

// The swap method is core's (core/cost/swap_method.h): one enum for the calibration, the CLI and the copies.
using pl::SwapMethod;

struct CopySpan {
    std::int64_t src_offset = 0;
    std::int64_t dst_offset = 0;
    std::int64_t bytes = 0;
    friend bool operator==(const CopySpan& a, const CopySpan& b) {
        return a.src_offset == b.src_offset && a.dst_offset == b.dst_offset && a.bytes == b.bytes;
    }
};

// A run of `count` blocks starting at device block `device` and host slot `host`.
struct BlockRun {
    std::int64_t device = 0;
    std::int64_t host = 0;
    std::int64_t count = 0;
};

// Why the two block lists cannot be copied (different lengths, an id out of range), or nullopt.
std::optional<std::string> checkBlockLists(const KvLayout& device, const KvLayout& host,
                                           const std::vector<std::int64_t>& deviceBlocks,
                                           const std::vector<std::int64_t>& hostSlots);
// Refuses a prefill of positions [start, start + count) whose block table is too short for them or names a
// block outside the arena (DeviceContext::prefill and the tests' host device use the same rule).
std::optional<std::string> checkPrefillTable(const KvLayout& arena, std::int64_t start, std::int64_t count,
                                             const std::vector<std::int64_t>& blockTable);

// Maximal runs of consecutive (device, host) pairs, in list order.
std::vector<BlockRun> blockRuns(const std::vector<std::int64_t>& deviceBlocks,
                                const std::vector<std::int64_t>& hostSlots);

// Plans, ordered layer-major then K before V then list order. The lists must pass checkBlockLists and the two
// layouts must have equal layers, kv_heads, head_dim, block_size and dtype.
std::vector<CopySpan> perBlockPlan(const KvLayout& device, const KvLayout& host,
                                   const std::vector<std::int64_t>& deviceBlocks,
                                   const std::vector<std::int64_t>& hostSlots, CopyDirection dir);
std::vector<CopySpan> coalescedPlan(const KvLayout& device, const KvLayout& host,
                                    const std::vector<std::int64_t>& deviceBlocks,
                                    const std::vector<std::int64_t>& hostSlots, CopyDirection dir);
std::int64_t planBytes(const std::vector<CopySpan>& plan);

// Effective bandwidth in GB/s (1e9 bytes per second) of `bytes` moved in `us` microseconds; 0 when us <= 0.
double gigabytesPerSecond(std::int64_t bytes, double us);

} // namespace pl::gpu
