#pragma once
// KvLayout: the byte layout of the paged KV arena in device memory and of the pinned host pool that holds
// swapped blocks. Both use the same layout (the host pool has `slots` where the arena has blocks), so one
// block of one layer's K or V (a "chunk") is contiguous in both, and a run of consecutive blocks is
// contiguous within one (layer, K/V) plane:
//
//   arena/pool  [layers][2 (0 = K, 1 = V)][num_blocks][block_size][kv_heads][head_dim]   row-major
//
// This is vLLM V0's layout (one K and one V tensor per layer, each [num_blocks, block_size, kv_heads,
// head_dim]) placed back to back, which is what makes its per-block swap one copy per block per layer per K/V.
// Host-only arithmetic (C++17 so the .cu files can include it); tested in tests/gpu/test_gpu_host.cpp.

#include <cstdint>
#include <optional>
#include <string>

namespace pl::gpu {

enum class KvDtype : int { Bf16 = 0, Fp8E4M3 = 1 };
const char* toString(KvDtype d);
std::optional<KvDtype> parseKvDtype(const std::string& s); // "bf16", "fp8"
std::int64_t dtypeBytes(KvDtype d);

struct KvShape {
    std::int64_t layers = 1;
    std::int64_t kv_heads = 1;
    std::int64_t head_dim = 128;
    std::int64_t block_size = 16; // tokens per block
    std::int64_t num_blocks = 1;  // blocks in the arena (slots in the host pool)
    KvDtype dtype = KvDtype::Bf16;
};

class KvLayout {
  public:
    KvLayout() = default;
    explicit KvLayout(const KvShape& shape) : s_(shape) {}

    // Why a shape cannot be laid out (names the field), or nullopt. Chunks must be a multiple of 16 bytes
    // (the copy kernels move 16-byte vectors) and the arena must stay below 2^44 bytes.
    static std::optional<std::string> check(const KvShape& shape);

    const KvShape& shape() const { return s_; }
    std::int64_t elementBytes() const { return dtypeBytes(s_.dtype); }
    // One token of one layer's K (or V).
    std::int64_t tokenBytes() const { return s_.kv_heads * s_.head_dim * elementBytes(); }
    // One block of one layer's K (or V): the unit of a per-block copy.
    std::int64_t chunkBytes() const { return s_.block_size * tokenBytes(); }
    std::int64_t planeBytes() const { return s_.num_blocks * chunkBytes(); }
    // One block across every layer, K and V: what a swapped block costs in host memory.
    std::int64_t blockBytes() const { return 2 * s_.layers * chunkBytes(); }
    std::int64_t kvBytesPerToken() const { return 2 * s_.layers * tokenBytes(); }
    std::int64_t totalBytes() const { return 2 * s_.layers * planeBytes(); }
    std::int64_t chunkCount() const { return 2 * s_.layers * s_.num_blocks; }

    std::int64_t chunkOffset(std::int64_t layer, std::int64_t kv, std::int64_t block) const {
        return ((layer * 2 + kv) * s_.num_blocks + block) * chunkBytes();
    }
    // Element index (not bytes) of one value.
    std::int64_t elementIndex(std::int64_t layer, std::int64_t kv, std::int64_t block, std::int64_t slot,
                              std::int64_t head, std::int64_t dim) const {
        return ((((layer * 2 + kv) * s_.num_blocks + block) * s_.block_size + slot) * s_.kv_heads + head) *
                   s_.head_dim +
               dim;
    }
    std::int64_t blocksForTokens(std::int64_t tokens) const {
        return (tokens + s_.block_size - 1) / s_.block_size;
    }

  private:
    KvShape s_;
};

} // namespace pl::gpu
