#pragma once
// Block copy, pattern, checksum and compare kernels over the arena layout (kv_layout.h):
//   [layers][2][num_blocks][block_size][kv_heads][head_dim]
// A "chunk" is one block of one (layer, K/V) plane: chunk_bytes contiguous bytes, moved as 16-byte vectors.
// Work item v (a vector) of a list of n blocks: plane = v / (n x vpc), i = (v / vpc) % n, w = v % vpc, with
// vpc = chunk_bytes / 16. Its logical index (plane, i, w) is the same on both sides of a copy, so
// checksums computed on the device arena and on the host pool agree exactly when the bytes do.
// Kernels are static: each .cu that includes this header gets its own copy (no ODR clash at link).
#include "gpu/cuda/check.cuh"
#include "gpu/synthetic.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace pl::gpu {

struct BlockListParams {
    std::int64_t planes = 0;       // layers x 2
    std::int64_t n = 0;            // blocks in the list
    std::int64_t vpc = 0;          // 16-byte vectors per chunk
    std::int64_t src_blocks = 0;   // num_blocks of the source buffer's layout
    std::int64_t dst_blocks = 0;   // num_blocks of the destination buffer's layout (copies)
    const std::int64_t* src_ids = nullptr; // device-visible, n entries
    const std::int64_t* dst_ids = nullptr;
};

__device__ __forceinline__ std::int64_t vectorOffset(std::int64_t v, const BlockListParams& p, std::int64_t blocks,
                                                     const std::int64_t* ids) {
    const std::int64_t w = v % p.vpc;
    const std::int64_t i = (v / p.vpc) % p.n;
    const std::int64_t plane = v / (p.vpc * p.n);
    return (plane * blocks + ids[i]) * p.vpc + w;
}

// Gather (arena -> mapped pinned host) and scatter (mapped host -> arena): one kernel, any direction.
static __global__ void copyBlocksKernel(const uint4* __restrict__ src, uint4* __restrict__ dst, BlockListParams p) {
    const std::int64_t total = p.planes * p.n * p.vpc;
    for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < total;
         v += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        dst[vectorOffset(v, p, p.dst_blocks, p.dst_ids)] = src[vectorOffset(v, p, p.src_blocks, p.src_ids)];
    }
}

static __global__ void fillPatternKernel(uint4* __restrict__ base, BlockListParams p, std::uint32_t seed) {
    const std::int64_t total = p.planes * p.n * p.vpc;
    for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < total;
         v += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::uint32_t h = hash3(seed, static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32));
        base[vectorOffset(v, p, p.src_blocks, p.src_ids)] = make_uint4(h, mix32(h + 1), mix32(h + 2), mix32(h + 3));
    }
}

static __global__ void checksumKernel(const uint4* __restrict__ base, BlockListParams p, unsigned long long* out) {
    const std::int64_t total = p.planes * p.n * p.vpc;
    unsigned long long acc = 0;
    for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < total;
         v += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const uint4 x = base[vectorOffset(v, p, p.src_blocks, p.src_ids)];
        const std::uint64_t lo = (static_cast<std::uint64_t>(x.y) << 32) | x.x;
        const std::uint64_t hi = (static_cast<std::uint64_t>(x.w) << 32) | x.z;
        acc += mix64(lo ^ mix64(hi ^ mix64(static_cast<std::uint64_t>(v))));
    }
    // Addition is commutative, so the sum does not depend on the schedule: the checksum is deterministic.
    atomicAdd(out, acc);
}

// Largest |a - b| and |a| over the first `tokens` tokens of two requests' K/V (block tables a_ids, b_ids).
struct CompareParams {
    std::int64_t layers = 0, num_blocks = 0, block_size = 0, token_elems = 0; // kv_heads x head_dim
    std::int64_t tokens = 0;
    int fp8 = 0;
    const std::int64_t* a_ids = nullptr;
    const std::int64_t* b_ids = nullptr;
};

__device__ __forceinline__ float loadKv(const void* base, std::int64_t idx, int fp8) {
    if (fp8) {
        return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(base)[idx]);
    }
    return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[idx]);
}

static __global__ void compareKvKernel(const void* arena, CompareParams p, unsigned int* maxDiffBits,
                                unsigned int* maxAbsBits) {
    const std::int64_t perPlane = p.tokens * p.token_elems;
    const std::int64_t total = p.layers * 2 * perPlane;
    float md = 0.0f, ma = 0.0f;
    for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t plane = e / perPlane;
        const std::int64_t rest = e % perPlane;
        const std::int64_t tok = rest / p.token_elems;
        const std::int64_t inner = rest % p.token_elems;
        const std::int64_t blk = tok / p.block_size, slot = tok % p.block_size;
        const std::int64_t ia = ((plane * p.num_blocks + p.a_ids[blk]) * p.block_size + slot) * p.token_elems + inner;
        const std::int64_t ib = ((plane * p.num_blocks + p.b_ids[blk]) * p.block_size + slot) * p.token_elems + inner;
        const float a = loadKv(arena, ia, p.fp8), b = loadKv(arena, ib, p.fp8);
        md = fmaxf(md, fabsf(a - b));
        ma = fmaxf(ma, fabsf(a));
    }
    // Non-negative floats order like their bit patterns.
    atomicMax(maxDiffBits, __float_as_uint(md));
    atomicMax(maxAbsBits, __float_as_uint(ma));
}

// Grid for a grid-stride kernel: enough blocks to fill every SM at the kernel's occupancy, no more than the
// work needs.
template <typename Kernel>
cudaError_t gridFor(Kernel kernel, int threads, std::int64_t work, int smCount, int* blocks) {
    int perSm = 0;
    PL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, threads, 0));
    const std::int64_t needed = (work + threads - 1) / threads;
    const std::int64_t full = static_cast<std::int64_t>(perSm > 0 ? perSm : 1) * smCount;
    *blocks = static_cast<int>(needed < full ? (needed > 0 ? needed : 1) : full);
    return cudaSuccess;
}

inline cudaError_t launchCopyBlocks(const void* src, void* dst, const BlockListParams& p, int smCount,
                                    cudaStream_t stream) {
    constexpr int kThreads = 256;
    int blocks = 0;
    PL_CUDA_TRY(gridFor(copyBlocksKernel, kThreads, p.planes * p.n * p.vpc, smCount, &blocks));
    copyBlocksKernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), p);
    return cudaGetLastError();
}

inline cudaError_t launchFillPattern(void* base, const BlockListParams& p, std::uint32_t seed, int smCount,
                                     cudaStream_t stream) {
    constexpr int kThreads = 256;
    int blocks = 0;
    PL_CUDA_TRY(gridFor(fillPatternKernel, kThreads, p.planes * p.n * p.vpc, smCount, &blocks));
    fillPatternKernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint4*>(base), p, seed);
    return cudaGetLastError();
}

inline cudaError_t launchChecksum(const void* base, const BlockListParams& p, unsigned long long* out, int smCount,
                                  cudaStream_t stream) {
    constexpr int kThreads = 256;
    int blocks = 0;
    PL_CUDA_TRY(gridFor(checksumKernel, kThreads, p.planes * p.n * p.vpc, smCount, &blocks));
    PL_CUDA_TRY(cudaMemsetAsync(out, 0, sizeof(unsigned long long), stream));
    checksumKernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(base), p, out);
    return cudaGetLastError();
}

inline cudaError_t launchCompareKv(const void* arena, const CompareParams& p, unsigned int* bits, int smCount,
                                   cudaStream_t stream) {
    constexpr int kThreads = 256;
    int blocks = 0;
    PL_CUDA_TRY(gridFor(compareKvKernel, kThreads, p.layers * 2 * p.tokens * p.token_elems, smCount, &blocks));
    PL_CUDA_TRY(cudaMemsetAsync(bits, 0, 2 * sizeof(unsigned int), stream));
    compareKvKernel<<<blocks, kThreads, 0, stream>>>(arena, p, bits, bits + 1);
    return cudaGetLastError();
}

} // namespace pl::gpu
