#pragma once
// Elementwise and row kernels of the synthetic transformer's prefill (the GEMMs are cuBLAS, in
// prefill_model.cu). Activations are bf16, row-major; T new tokens at positions [past, past + T), C = past + T.
//   x, h     [T, hidden]              qkv  [T, (heads + 2 kv_heads) x head_dim]  (q heads, then k, then v)
//   q        [heads, T, head_dim]     kc, vc [kv_heads, C, head_dim]  (context gathered from the arena)
//   s        [heads, T, C] fp32       p    [heads, T, C] bf16          o [heads, T, head_dim]
//   gu       [T, 2 x ffn] (gate, up)  act  [T, ffn]
// Kernels are static: each .cu that includes this header gets its own copy (no ODR clash at link).
#include "gpu/cuda/check.cuh"
#include "gpu/synthetic.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace pl::gpu {

// The arena as the prefill sees it (kv_layout.h) plus the request's block table.
struct ArenaView {
    void* base = nullptr;
    std::int64_t num_blocks = 0, block_size = 0, kv_heads = 0, head_dim = 0;
    int fp8 = 0;
    const std::int64_t* block_table = nullptr; // block of token position p: block_table[p / block_size]
    __device__ __forceinline__ std::int64_t index(std::int64_t layer, int kv, std::int64_t pos, std::int64_t head,
                                                  std::int64_t d) const {
        const std::int64_t blk = block_table[pos / block_size];
        return ((((layer * 2 + kv) * num_blocks + blk) * block_size + pos % block_size) * kv_heads + head) *
                   head_dim +
               d;
    }
    __device__ __forceinline__ void store(std::int64_t i, float v) const {
        if (fp8) {
            static_cast<__nv_fp8_e4m3*>(base)[i] = __nv_fp8_e4m3(v);
        } else {
            static_cast<__nv_bfloat16*>(base)[i] = __float2bfloat16(v);
        }
    }
    __device__ __forceinline__ __nv_bfloat16 load(std::int64_t i) const {
        if (fp8) {
            return __float2bfloat16(static_cast<float>(static_cast<const __nv_fp8_e4m3*>(base)[i]));
        }
        return static_cast<const __nv_bfloat16*>(base)[i];
    }
};

#define PL_GRID_STRIDE(i, n)                                                                                   \
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < (n);           \
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)

static __global__ void initWeightsKernel(__nv_bfloat16* w, std::int64_t n, std::uint32_t tensor, float scale) {
    PL_GRID_STRIDE(i, n) { w[i] = __float2bfloat16(weightValue(tensor, i, scale)); }
}

static __global__ void embedKernel(__nv_bfloat16* x, std::int64_t tokens, std::int64_t hidden, std::uint32_t seed,
                            std::int64_t past) {
    PL_GRID_STRIDE(i, tokens * hidden) {
        const std::int64_t t = i / hidden, d = i % hidden;
        x[i] = __float2bfloat16(embeddingValue(syntheticToken(seed, past + t), d));
    }
}

// One block per row; y = x / rms(x) (the norm's gain is 1 in the synthetic model).
static __global__ void rmsnormKernel(const __nv_bfloat16* x, __nv_bfloat16* y, std::int64_t hidden) {
    __shared__ float partial[32];
    const __nv_bfloat16* row = x + blockIdx.x * hidden;
    float ss = 0.0f;
    for (std::int64_t d = threadIdx.x; d < hidden; d += blockDim.x) {
        const float v = __bfloat162float(row[d]);
        ss += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
    }
    if ((threadIdx.x & 31) == 0) {
        partial[threadIdx.x >> 5] = ss;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) {
            v += __shfl_xor_sync(0xffffffffu, v, o);
        }
        if (threadIdx.x == 0) {
            partial[0] = v;
        }
    }
    __syncthreads();
    const float inv = rsqrtf(partial[0] / static_cast<float>(hidden) + 1e-5f);
    for (std::int64_t d = threadIdx.x; d < hidden; d += blockDim.x) {
        y[blockIdx.x * hidden + d] = __float2bfloat16(__bfloat162float(row[d]) * inv);
    }
}

// RoPE (rotate-half pairs (i, i + head_dim/2), angle = pos x theta^(-2i/head_dim)) on q and k; q goes to
// [heads, T, head_dim]; k and v are written into the request's arena blocks at `layer`.
struct RopeParams {
    std::int64_t tokens = 0, past = 0, heads = 0, kv_heads = 0, head_dim = 0, layer = 0;
    float log2_theta = 0.0f;
};

static __global__ void ropeStoreKernel(const __nv_bfloat16* qkv, __nv_bfloat16* q, ArenaView arena, RopeParams p) {
    const std::int64_t half = p.head_dim / 2;
    const std::int64_t allHeads = p.heads + 2 * p.kv_heads;
    PL_GRID_STRIDE(i, p.tokens * allHeads * half) {
        const std::int64_t t = i / (allHeads * half);
        const std::int64_t h = (i / half) % allHeads;
        const std::int64_t j = i % half;
        const __nv_bfloat16* src = qkv + (t * allHeads + h) * p.head_dim;
        float a = __bfloat162float(src[j]), b = __bfloat162float(src[j + half]);
        const std::int64_t pos = p.past + t;
        if (h < p.heads + p.kv_heads) {
            const float freq = exp2f(-p.log2_theta * static_cast<float>(2 * j) / static_cast<float>(p.head_dim));
            float sn, cs;
            sincosf(static_cast<float>(pos) * freq, &sn, &cs);
            const float ra = a * cs - b * sn, rb = b * cs + a * sn;
            a = ra;
            b = rb;
        }
        if (h < p.heads) {
            __nv_bfloat16* dst = q + (h * p.tokens + t) * p.head_dim;
            dst[j] = __float2bfloat16(a);
            dst[j + half] = __float2bfloat16(b);
        } else {
            const int kv = h < p.heads + p.kv_heads ? 0 : 1;
            const std::int64_t kh = h - p.heads - kv * p.kv_heads;
            arena.store(arena.index(p.layer, kv, pos, kh, j), a);
            arena.store(arena.index(p.layer, kv, pos, kh, j + half), b);
        }
    }
}

// The request's K and V of `layer` for positions [0, context) into [kv_heads, context, head_dim].
static __global__ void gatherContextKernel(ArenaView arena, std::int64_t layer, std::int64_t context, __nv_bfloat16* kc,
                                    __nv_bfloat16* vc) {
    const std::int64_t per = context * arena.head_dim;
    PL_GRID_STRIDE(i, arena.kv_heads * per) {
        const std::int64_t h = i / per, pos = (i % per) / arena.head_dim, d = i % arena.head_dim;
        kc[i] = arena.load(arena.index(layer, 0, pos, h, d));
        vc[i] = arena.load(arena.index(layer, 1, pos, h, d));
    }
}

// One block per score row (head, t): causal softmax over keys [0, past + t], zeros after. With kCached the
// row's visible scores are read from global memory once, kept in dynamic shared memory (past + t + 1 floats) and
// read back from there by the same thread for the sum and the output: 4 B read per visible score instead of 12.
// The arithmetic and its order are the same either way, so both give the same bits; the caller picks kCached
// when the row fits the device's shared memory.
template <bool kCached>
static __global__ void causalSoftmaxKernel(const float* s, __nv_bfloat16* p, std::int64_t tokens, std::int64_t context,
                                    std::int64_t past) {
    __shared__ float red[32];
    extern __shared__ float cached[];
    const std::int64_t row = blockIdx.x;
    const std::int64_t limit = past + row % tokens + 1;
    const float* in = s + row * context;
    __nv_bfloat16* out = p + row * context;
    auto blockReduce = [&](float v, bool isMax) {
        for (int o = 16; o > 0; o >>= 1) {
            const float w = __shfl_xor_sync(0xffffffffu, v, o);
            v = isMax ? fmaxf(v, w) : v + w;
        }
        __syncthreads();
        if ((threadIdx.x & 31) == 0) {
            red[threadIdx.x >> 5] = v;
        }
        __syncthreads();
        float r = isMax ? -INFINITY : 0.0f;
        for (unsigned w = 0; w < (blockDim.x >> 5); ++w) {
            r = isMax ? fmaxf(r, red[w]) : r + red[w];
        }
        return r;
    };
    // Each thread reads back only the entries it cached itself, so no barrier is needed between.
    auto score = [&](std::int64_t j) { return kCached ? cached[j] : in[j]; };
    float m = -INFINITY;
#pragma unroll 4
    for (std::int64_t j = threadIdx.x; j < limit; j += blockDim.x) {
        const float v = in[j];
        if (kCached) {
            cached[j] = v;
        }
        m = fmaxf(m, v);
    }
    m = blockReduce(m, true);
    float sum = 0.0f;
    for (std::int64_t j = threadIdx.x; j < limit; j += blockDim.x) {
        sum += __expf(score(j) - m);
    }
    sum = blockReduce(sum, false);
    const float inv = 1.0f / sum;
    for (std::int64_t j = threadIdx.x; j < context; j += blockDim.x) {
        out[j] = __float2bfloat16(j < limit ? __expf(score(j) - m) * inv : 0.0f);
    }
}

// [heads, T, head_dim] -> [T, heads x head_dim]
static __global__ void mergeHeadsKernel(const __nv_bfloat16* o, __nv_bfloat16* out, std::int64_t heads, std::int64_t tokens,
                                 std::int64_t headDim) {
    PL_GRID_STRIDE(i, heads * tokens * headDim) {
        const std::int64_t t = i / (heads * headDim), h = (i / headDim) % heads, d = i % headDim;
        out[i] = o[(h * tokens + t) * headDim + d];
    }
}

// act = silu(gate) x up, gate and up side by side in gu.
static __global__ void siluMulKernel(const __nv_bfloat16* gu, __nv_bfloat16* act, std::int64_t tokens, std::int64_t ffn) {
    PL_GRID_STRIDE(i, tokens * ffn) {
        const std::int64_t t = i / ffn, j = i % ffn;
        const float g = __bfloat162float(gu[t * 2 * ffn + j]);
        const float u = __bfloat162float(gu[t * 2 * ffn + ffn + j]);
        act[i] = __float2bfloat16(g / (1.0f + __expf(-g)) * u);
    }
}

#undef PL_GRID_STRIDE

} // namespace pl::gpu
