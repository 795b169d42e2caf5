#include "gpu/cuda/prefill_model.cuh"

#include <algorithm>
#include <cmath>

namespace pl::gpu {

namespace {

// Row-major C[M, N] = alpha A[M, K] op(B) + beta C, batched with strides; op(B) = B^T when B is stored
// [N, K] (weights, keys), B when stored [K, N] (values). cuBLAS is column-major, so this computes
// C^T = op(B)^T A^T.
cublasStatus_t gemmRowMajor(cublasHandle_t h, bool bIsNK, int m, int n, int k, const void* a, int lda,
                            long long strideA, const void* b, int ldb, long long strideB, void* c,
                            cudaDataType cType, int ldc, long long strideC, int batch, float alpha, float beta) {
    return cublasGemmStridedBatchedEx(h, bIsNK ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b,
                                      CUDA_R_16BF, ldb, strideB, a, CUDA_R_16BF, lda, strideA, &beta, c, cType, ldc,
                                      strideC, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

template <typename Kernel, typename... Args>
cudaError_t launchGridStride(Kernel kernel, std::int64_t work, int smCount, cudaStream_t stream, Args... args) {
    constexpr int kThreads = 256;
    int perSm = 0;
    PL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0));
    const std::int64_t needed = (work + kThreads - 1) / kThreads;
    const std::int64_t full = static_cast<std::int64_t>(perSm > 0 ? perSm : 1) * smCount;
    const int blocks = static_cast<int>(needed < full ? (needed > 0 ? needed : 1) : full);
    kernel<<<blocks, kThreads, 0, stream>>>(args...);
    return cudaGetLastError();
}

int asInt(std::int64_t v) { return static_cast<int>(v); }

} // namespace

PrefillModel::~PrefillModel() {
    for (auto* w : weights_) {
        cudaFree(w);
    }
    for (auto& s : scratch_) {
        cudaFree(s.first);
    }
}

std::optional<std::string> PrefillModel::init(const TransformerShape& shape, cublasHandle_t blas,
                                              cudaStream_t stream, int smCount) {
    if (auto e = checkShape(shape)) {
        return e;
    }
    s_ = shape;
    blas_ = blas;
    stream_ = stream;
    smCount_ = smCount;
    // The softmax keeps a score row in dynamic shared memory when it is at most 48 KiB (12,288 keys) and the
    // device allows it: four or more such blocks (1,024+ threads) still fit an H100/H200 SM's 227 KiB. Longer
    // rows would leave too few threads per SM to keep memory busy, so they read the scores three times instead.
    int device = 0, optin = 0;
    PL_CHECK(cudaGetDevice(&device));
    PL_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const int staticBytes = 32 * static_cast<int>(sizeof(float)); // the kernel's reduction array
    const int cachedMax = std::min(48 * 1024, optin > staticBytes ? optin - staticBytes : 0);
    PL_CHECK(cudaFuncSetAttribute(causalSoftmaxKernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, cachedMax));
    softmaxSmemMax_ = static_cast<std::size_t>(cachedMax);
    const std::int64_t qkvRows = (s_.heads + 2 * s_.kv_heads) * s_.head_dim;
    const std::int64_t sizes[4][2] = {{qkvRows, s_.hidden},
                                      {s_.hidden, s_.heads * s_.head_dim},
                                      {2 * s_.ffn, s_.hidden},
                                      {s_.hidden, s_.ffn}};
    for (std::int64_t l = 0; l < s_.layers; ++l) {
        for (int w = 0; w < 4; ++w) {
            const std::int64_t n = sizes[w][0] * sizes[w][1];
            __nv_bfloat16* p = nullptr;
            PL_CHECK(cudaMalloc(&p, static_cast<std::size_t>(n) * sizeof(__nv_bfloat16)));
            weights_.push_back(p);
            const float scale = 1.0f / std::sqrt(static_cast<float>(sizes[w][1]));
            PL_CHECK(launchGridStride(initWeightsKernel, n, smCount_, stream_, p, n,
                                      static_cast<std::uint32_t>(l * 8 + w), scale));
        }
    }
    PL_CHECK(cudaStreamSynchronize(stream_));
    return std::nullopt;
}

cudaError_t PrefillModel::scratch(std::size_t slot, std::size_t bytes, void** ptr) {
    if (scratch_.size() <= slot) {
        scratch_.resize(slot + 1, {nullptr, 0});
    }
    auto& s = scratch_[slot];
    if (s.second < bytes) {
        // Grow-only: a live run of thousands of evictions reuses these buffers (no leak, no churn).
        PL_CUDA_TRY(cudaStreamSynchronize(stream_));
        PL_CUDA_TRY(cudaFree(s.first));
        s = {nullptr, 0};
        PL_CUDA_TRY(cudaMalloc(&s.first, bytes));
        s.second = bytes;
    }
    *ptr = s.first;
    return cudaSuccess;
}

std::optional<std::string> PrefillModel::run(const ArenaView& arena, std::uint32_t seed, std::int64_t past,
                                             std::int64_t tokens) {
    // Bound the score matrix ([heads, chunk, context] fp32 + bf16) to about 1 GiB by chunking the queries,
    // as a chunked-prefill engine does. The chunking depends only on (past, tokens), so replays repeat it.
    const std::int64_t context = past + tokens;
    const std::int64_t budget = std::int64_t{1} << 30;
    std::int64_t chunk = budget / (s_.heads * context * 6);
    chunk = chunk < 16 ? 16 : (chunk > 4096 ? 4096 : chunk);
    for (std::int64_t done = 0; done < tokens; done += chunk) {
        const std::int64_t n = tokens - done < chunk ? tokens - done : chunk;
        if (auto e = runChunk(arena, seed, past + done, n)) {
            return e;
        }
    }
    return std::nullopt;
}

std::optional<std::string> PrefillModel::runChunk(const ArenaView& arena, std::uint32_t seed, std::int64_t past,
                                                  std::int64_t t) {
    const std::int64_t c = past + t, hd = s_.head_dim, hid = s_.hidden, ffn = s_.ffn;
    const std::int64_t heads = s_.heads, kvh = s_.kv_heads, g = heads / kvh;
    const std::int64_t qkvCols = (heads + 2 * kvh) * hd;
    const auto bf = sizeof(__nv_bfloat16);
    void *x, *h, *qkv, *q, *kc, *vc, *sc, *pr, *o, *ot, *gu, *act;
    PL_CHECK(scratch(0, t * hid * bf, &x));
    PL_CHECK(scratch(1, t * hid * bf, &h));
    PL_CHECK(scratch(2, t * qkvCols * bf, &qkv));
    PL_CHECK(scratch(3, heads * t * hd * bf, &q));
    PL_CHECK(scratch(4, kvh * c * hd * bf, &kc));
    PL_CHECK(scratch(5, kvh * c * hd * bf, &vc));
    PL_CHECK(scratch(6, heads * t * c * sizeof(float), &sc));
    PL_CHECK(scratch(7, heads * t * c * bf, &pr));
    PL_CHECK(scratch(8, heads * t * hd * bf, &o));
    PL_CHECK(scratch(9, t * hid * bf, &ot));
    PL_CHECK(scratch(10, t * 2 * ffn * bf, &gu));
    PL_CHECK(scratch(11, t * ffn * bf, &act));
    auto B = [](void* p) { return static_cast<__nv_bfloat16*>(p); };

    PL_CHECK(launchGridStride(embedKernel, t * hid, smCount_, stream_, B(x), t, hid, seed, past));
    RopeParams rp;
    rp.tokens = t;
    rp.past = past;
    rp.heads = heads;
    rp.kv_heads = kvh;
    rp.head_dim = hd;
    rp.log2_theta = static_cast<float>(std::log2(s_.rope_theta));
    const float attnScale = 1.0f / std::sqrt(static_cast<float>(hd));
    for (std::int64_t l = 0; l < s_.layers; ++l) {
        __nv_bfloat16* const* w = &weights_[static_cast<std::size_t>(l * 4)];
        rmsnormKernel<<<asInt(t), 256, 0, stream_>>>(B(x), B(h), hid);
        PL_CHECK(cudaGetLastError());
        PL_CHECK(gemmRowMajor(blas_, true, asInt(t), asInt(qkvCols), asInt(hid), h, asInt(hid), 0, w[0], asInt(hid),
                              0, qkv, CUDA_R_16BF, asInt(qkvCols), 0, 1, 1.0f, 0.0f));
        rp.layer = l;
        PL_CHECK(launchGridStride(ropeStoreKernel, t * (heads + 2 * kvh) * (hd / 2), smCount_, stream_, B(qkv),
                                  B(q), arena, rp));
        PL_CHECK(launchGridStride(gatherContextKernel, kvh * c * hd, smCount_, stream_, arena, l, c, B(kc), B(vc)));
        // Scores per KV head j: the g query heads sharing it, stacked [g x t, hd], against its keys [c, hd].
        PL_CHECK(gemmRowMajor(blas_, true, asInt(g * t), asInt(c), asInt(hd), q, asInt(hd), g * t * hd, kc,
                              asInt(hd), c * hd, sc, CUDA_R_32F, asInt(c), g * t * c, asInt(kvh), attnScale, 0.0f));
        // A row caches past + t + 1 <= c scores; sized for the longest row of the chunk.
        const std::size_t rowBytes = static_cast<std::size_t>(c) * sizeof(float);
        if (rowBytes <= softmaxSmemMax_) {
            causalSoftmaxKernel<true><<<asInt(heads * t), 256, rowBytes, stream_>>>(static_cast<float*>(sc), B(pr), t,
                                                                                 c, past);
        } else {
            causalSoftmaxKernel<false><<<asInt(heads * t), 256, 0, stream_>>>(static_cast<float*>(sc), B(pr), t, c,
                                                                             past);
        }
        PL_CHECK(cudaGetLastError());
        PL_CHECK(gemmRowMajor(blas_, false, asInt(g * t), asInt(hd), asInt(c), pr, asInt(c), g * t * c, vc, asInt(hd),
                              c * hd, o, CUDA_R_16BF, asInt(hd), g * t * hd, asInt(kvh), 1.0f, 0.0f));
        PL_CHECK(launchGridStride(mergeHeadsKernel, heads * t * hd, smCount_, stream_, B(o), B(ot), heads, t, hd));
        PL_CHECK(gemmRowMajor(blas_, true, asInt(t), asInt(hid), asInt(heads * hd), ot, asInt(heads * hd), 0, w[1],
                              asInt(heads * hd), 0, x, CUDA_R_16BF, asInt(hid), 0, 1, 1.0f, 1.0f));
        rmsnormKernel<<<asInt(t), 256, 0, stream_>>>(B(x), B(h), hid);
        PL_CHECK(cudaGetLastError());
        PL_CHECK(gemmRowMajor(blas_, true, asInt(t), asInt(2 * ffn), asInt(hid), h, asInt(hid), 0, w[2], asInt(hid), 0,
                              gu, CUDA_R_16BF, asInt(2 * ffn), 0, 1, 1.0f, 0.0f));
        PL_CHECK(launchGridStride(siluMulKernel, t * ffn, smCount_, stream_, B(gu), B(act), t, ffn));
        PL_CHECK(gemmRowMajor(blas_, true, asInt(t), asInt(hid), asInt(ffn), act, asInt(ffn), 0, w[3], asInt(ffn), 0, x,
                              CUDA_R_16BF, asInt(hid), 0, 1, 1.0f, 1.0f));
    }
    return std::nullopt;
}

} // namespace pl::gpu
