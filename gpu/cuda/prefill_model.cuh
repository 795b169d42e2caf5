#pragma once
// PrefillModel: a Llama-shaped decoder with deterministic synthetic weights (synthetic.h), run over a chunk of
// a request's tokens. Per layer: RMSNorm, QKV projection (cuBLAS), RoPE, K/V written into the request's paged
// arena blocks, causal attention over the whole context read back from the arena (cuBLAS batched GEMMs over
// KV heads around a softmax kernel), output projection with residual, RMSNorm, gated SiLU MLP (cuBLAS) with
// residual. No LM head: recompute only needs the K/V. Weights per layer l (row-major [out, in], bf16):
//   wqkv [(heads + 2 kv_heads) x head_dim, hidden]   wo [hidden, heads x head_dim]
//   wgu  [2 x ffn, hidden] (gate rows, then up rows) wd [hidden, ffn]
// Same inputs and same chunking give bitwise-identical K/V (cuBLAS is deterministic for a fixed shape,
// device and stream; the kernels have no atomics).
#include "gpu/cuda/prefill_kernels.cuh"
#include "gpu/transformer_shape.h"

#include <cublas_v2.h>

#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

class PrefillModel {
  public:
    PrefillModel() = default;
    ~PrefillModel();
    PrefillModel(const PrefillModel&) = delete;
    PrefillModel& operator=(const PrefillModel&) = delete;

    std::optional<std::string> init(const TransformerShape& shape, cublasHandle_t blas, cudaStream_t stream,
                                    int smCount);
    // Positions [past, past + tokens) of request `seed`; arena.block_table covers past + tokens.
    std::optional<std::string> run(const ArenaView& arena, std::uint32_t seed, std::int64_t past,
                                   std::int64_t tokens);
    const TransformerShape& shape() const { return s_; }
    // Every score row read from global memory three times (the path rows over 12,288 keys take): the
    // selftest runs both paths on the same prompt and expects the same bits.
    void disableSoftmaxCache() { softmaxSmemMax_ = 0; }

  private:
    std::optional<std::string> runChunk(const ArenaView& arena, std::uint32_t seed, std::int64_t past,
                                        std::int64_t tokens);
    cudaError_t scratch(std::size_t slot, std::size_t bytes, void** ptr);

    TransformerShape s_;
    cublasHandle_t blas_ = nullptr;
    cudaStream_t stream_ = nullptr;
    int smCount_ = 1;
    std::size_t softmaxSmemMax_ = 0; // the longest score row (bytes) the softmax may keep in shared memory
    std::vector<__nv_bfloat16*> weights_; // 4 per layer
    std::vector<std::pair<void*, std::size_t>> scratch_;
};

} // namespace pl::gpu
