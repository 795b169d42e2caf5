// DeviceContext (device_context.h): the arena, pool, stream, events and cuBLAS of one device.
#include "gpu/device_context.h"
#include "gpu/device_memory.h"

#include "gpu/cuda/copy_kernels.cuh"
#include "gpu/cuda/prefill_model.cuh"

#include <algorithm>
#include <cstring>
#include <memory>

namespace pl::gpu {

std::optional<DeviceInfo> queryDevice(std::string* error) {
    int count = 0; // cudaGetDeviceCount leaves it untouched on error
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        if (error) {
            *error = e != cudaSuccess ? "cudaGetDeviceCount: " + errorText(e)
                                      : std::string("cudaGetDeviceCount: no CUDA device");
        }
        return std::nullopt;
    }
    auto fail = [&](const char* what, cudaError_t err) {
        if (error) {
            *error = std::string(what) + ": " + errorText(err);
        }
        return std::nullopt;
    };
    DeviceInfo info;
    cudaDeviceProp prop{};
    if (cudaError_t err = cudaGetDeviceProperties(&prop, 0); err != cudaSuccess) {
        return fail("cudaGetDeviceProperties", err);
    }
    if (cudaError_t err = cudaSetDevice(0); err != cudaSuccess) {
        return fail("cudaSetDevice", err);
    }
    std::size_t freeB = 0, totalB = 0;
    if (cudaError_t err = cudaMemGetInfo(&freeB, &totalB); err != cudaSuccess) {
        return fail("cudaMemGetInfo", err);
    }
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.total_bytes = static_cast<std::int64_t>(totalB);
    info.free_bytes = static_cast<std::int64_t>(freeB);
    info.can_map_host_memory = prop.canMapHostMemory != 0;
    cudaDriverGetVersion(&info.driver_version);
    cudaRuntimeGetVersion(&info.runtime_version);
    int major = 0, minor = 0, patch = 0;
    cublasGetProperty(MAJOR_VERSION, &major);
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    info.cublas_version = major * 10000 + minor * 100 + patch;
    info.batch_memcpy = CUDART_VERSION >= 12080 && info.runtime_version >= 12080;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, 0) == cudaSuccess) {
        info.pci_bus_id = bus;
    }
    return info;
}

struct DeviceContext::Impl {
    DeviceInfo info;
    KvLayout arena, pool;
    TransformerShape model;
    void* dArena = nullptr;
    void* hPool = nullptr;    // pinned, mapped, portable
    void* hPoolDev = nullptr; // its device address
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    cublasHandle_t blas = nullptr;
    std::int64_t* dIds = nullptr; // block-id lists for kernels (grow-only)
    std::int64_t* hIds = nullptr; // pinned staging for them
    std::size_t idsCap = 0;
    unsigned long long* dScratch = nullptr; // checksum / compare results
    std::unique_ptr<PrefillModel> prefill;

    ~Impl() {
        prefill.reset();
        if (stream) {
            cudaStreamSynchronize(stream);
        }
        cudaFree(dScratch);
        cudaFree(dIds);
        cudaFreeHost(hIds);
        cudaFreeHost(hPool);
        cudaFree(dArena);
        if (blas) {
            cublasDestroy(blas);
        }
        if (start) {
            cudaEventDestroy(start);
        }
        if (stop) {
            cudaEventDestroy(stop);
        }
        if (stream) {
            cudaStreamDestroy(stream);
        }
    }

    Error uploadIds(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
        const std::size_t n = a.size() + b.size();
        if (n > idsCap) {
            PL_CHECK(cudaStreamSynchronize(stream));
            PL_CHECK(cudaFree(dIds));
            PL_CHECK(cudaFreeHost(hIds));
            dIds = nullptr;
            hIds = nullptr;
            idsCap = 0;
            const std::size_t cap = n < 1024 ? 1024 : n * 2;
            PL_CHECK(cudaMalloc(&dIds, cap * sizeof(std::int64_t)));
            PL_CHECK(cudaHostAlloc(&hIds, cap * sizeof(std::int64_t), cudaHostAllocDefault));
            idsCap = cap;
        }
        std::copy(a.begin(), a.end(), hIds);
        std::copy(b.begin(), b.end(), hIds + a.size());
        if (n > 0) {
            PL_CHECK(cudaMemcpyAsync(dIds, hIds, n * sizeof(std::int64_t), cudaMemcpyHostToDevice, stream));
        }
        return std::nullopt;
    }

    Error elapsedUs(double* us) {
        PL_CHECK(cudaEventRecord(stop, stream));
        PL_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        PL_CHECK(cudaEventElapsedTime(&ms, start, stop));
        *us = static_cast<double>(ms) * 1e3;
        return std::nullopt;
    }

    BlockListParams listParams(const KvLayout& src, const KvLayout& dst, std::int64_t n) const {
        BlockListParams p;
        p.planes = 2 * src.shape().layers;
        p.n = n;
        p.vpc = src.chunkBytes() / 16;
        p.src_blocks = src.shape().num_blocks;
        p.dst_blocks = dst.shape().num_blocks;
        p.src_ids = dIds;
        p.dst_ids = dIds + n;
        return p;
    }
};

DeviceContext::DeviceContext() : impl_(std::make_unique<Impl>()) {}
DeviceContext::~DeviceContext() = default;

std::unique_ptr<DeviceContext> DeviceContext::create(const DeviceSetup& setup, std::string* error) {
    auto set = [&](std::string e) {
        if (error) {
            *error = std::move(e);
        }
        return nullptr;
    };
    KvShape poolShape = setup.arena;
    poolShape.num_blocks = setup.host_slots;
    if (auto e = KvLayout::check(setup.arena)) {
        return set("arena: " + *e);
    }
    if (auto e = KvLayout::check(poolShape)) {
        return set("host pool: " + *e);
    }
    auto info = queryDevice(error);
    if (!info) {
        return nullptr;
    }
    if (auto e = deviceMemoryShortfall(setup, info->free_bytes, info->name)) {
        return set(*e);
    }
    std::unique_ptr<DeviceContext> ctx(new DeviceContext());
    Impl& m = *ctx->impl_;
    m.info = *info;
    m.arena = KvLayout(setup.arena);
    m.pool = KvLayout(poolShape);
    auto build = [&]() -> Error {
        PL_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
        PL_CHECK(cudaEventCreate(&m.start));
        PL_CHECK(cudaEventCreate(&m.stop));
        PL_CHECK(cublasCreate(&m.blas));
        PL_CHECK(cublasSetStream(m.blas, m.stream));
        PL_CHECK(cudaMalloc(&m.dArena, static_cast<std::size_t>(m.arena.totalBytes())));
        // On the context's own stream (non-blocking: not ordered with the legacy stream), finished before use.
        PL_CHECK(cudaMemsetAsync(m.dArena, 0, static_cast<std::size_t>(m.arena.totalBytes()), m.stream));
        PL_CHECK(cudaStreamSynchronize(m.stream));
        PL_CHECK(cudaHostAlloc(&m.hPool, static_cast<std::size_t>(m.pool.totalBytes()),
                               cudaHostAllocMapped | cudaHostAllocPortable));
        PL_CHECK(cudaHostGetDevicePointer(&m.hPoolDev, m.hPool, 0));
        PL_CHECK(cudaMalloc(&m.dScratch, 2 * sizeof(unsigned long long)));
        if (setup.with_model) {
            if (setup.model.layers != setup.arena.layers || setup.model.kv_heads != setup.arena.kv_heads ||
                setup.model.head_dim != setup.arena.head_dim) {
                return std::string("model ") + setup.model.name + ": its KV shape differs from the arena's";
            }
            m.model = setup.model;
            m.prefill = std::make_unique<PrefillModel>();
            if (auto e = m.prefill->init(setup.model, m.blas, m.stream, m.info.sm_count)) {
                return "model " + setup.model.name + ": " + *e;
            }
            if (!setup.softmax_cache) {
                m.prefill->disableSoftmaxCache();
            }
        }
        return std::nullopt;
    };
    if (auto e = build()) {
        return set(*e);
    }
    return ctx;
}

const DeviceInfo& DeviceContext::info() const { return impl_->info; }
const KvLayout& DeviceContext::arena() const { return impl_->arena; }
const KvLayout& DeviceContext::hostPool() const { return impl_->pool; }
const TransformerShape& DeviceContext::model() const { return impl_->model; }

Error DeviceContext::swap(SwapMethod method, CopyDirection dir, const std::vector<std::int64_t>& deviceBlocks,
                          const std::vector<std::int64_t>& hostSlots, double* us, std::int64_t* copies) {
    Impl& m = *impl_;
    if (auto e = checkBlockLists(m.arena, m.pool, deviceBlocks, hostSlots)) {
        return e;
    }
    *us = 0.0;
    *copies = 0;
    if (deviceBlocks.empty()) {
        return std::nullopt;
    }
    const bool d2h = dir == CopyDirection::DeviceToHost;
    char* dev = static_cast<char*>(m.dArena);
    char* host = static_cast<char*>(m.hPool);
    char* srcBase = d2h ? dev : host;
    char* dstBase = d2h ? host : dev;
    const cudaMemcpyKind kind = d2h ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
    // The copy plans are host arithmetic: made before the start event, so only the copies are timed.
    std::vector<CopySpan> plan;
    if (method == SwapMethod::PerBlock) {
        plan = perBlockPlan(m.arena, m.pool, deviceBlocks, hostSlots, dir);
    } else if (method == SwapMethod::Batched) {
        plan = coalescedPlan(m.arena, m.pool, deviceBlocks, hostSlots, dir);
    }
#if CUDART_VERSION >= 12080
    std::vector<void*> dsts;
    std::vector<void*> srcs;
    std::vector<std::size_t> sizes;
    if (method == SwapMethod::Batched) {
        for (const CopySpan& c : plan) {
            dsts.push_back(dstBase + c.dst_offset);
            srcs.push_back(srcBase + c.src_offset);
            sizes.push_back(static_cast<std::size_t>(c.bytes));
        }
    }
#endif
    PL_CHECK(cudaEventRecord(m.start, m.stream));
    if (method == SwapMethod::PerBlock) {
        for (const CopySpan& c : plan) {
            PL_CHECK(cudaMemcpyAsync(dstBase + c.dst_offset, srcBase + c.src_offset,
                                     static_cast<std::size_t>(c.bytes), kind, m.stream));
        }
        *copies = static_cast<std::int64_t>(plan.size());
    } else if (method == SwapMethod::Batched) {
#if CUDART_VERSION >= 12080
        cudaMemcpyAttributes attr{};
        attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        cudaMemLocation devLoc{cudaMemLocationTypeDevice, m.info.ordinal};
        cudaMemLocation hostLoc{cudaMemLocationTypeHost, 0};
        attr.srcLocHint = d2h ? devLoc : hostLoc;
        attr.dstLocHint = d2h ? hostLoc : devLoc;
        attr.flags = cudaMemcpyFlagDefault;
        std::size_t attrIdx = 0;
#if CUDART_VERSION >= 13000
        PL_CHECK(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), sizes.size(), &attr, &attrIdx, 1,
                                      m.stream));
#else
        // CUDA 12.8 and 12.9: non-const sources and a failIdx out-parameter.
        std::size_t failIdx = 0;
        PL_CHECK(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), sizes.size(), &attr, &attrIdx, 1,
                                      &failIdx, m.stream));
#endif
        *copies = static_cast<std::int64_t>(plan.size());
#else
        return std::string("batched: cudaMemcpyBatchAsync needs CUDA 12.8 or later at build time");
#endif
    } else {
        // The ids go up inside the timed region: the kernel cannot start without them.
        const auto& srcIds = d2h ? deviceBlocks : hostSlots;
        const auto& dstIds = d2h ? hostSlots : deviceBlocks;
        if (auto e = m.uploadIds(srcIds, dstIds)) {
            return e;
        }
        const KvLayout& srcL = d2h ? m.arena : m.pool;
        const KvLayout& dstL = d2h ? m.pool : m.arena;
        const auto p = m.listParams(srcL, dstL, static_cast<std::int64_t>(deviceBlocks.size()));
        PL_CHECK(launchCopyBlocks(d2h ? m.dArena : m.hPoolDev, d2h ? m.hPoolDev : m.dArena, p, m.info.sm_count,
                                  m.stream));
    }
    return m.elapsedUs(us);
}

Error DeviceContext::referenceCopy(CopyDirection dir, std::int64_t bytes, double* us) {
    Impl& m = *impl_;
    if (bytes < 1 || bytes > m.arena.totalBytes() || bytes > m.pool.totalBytes()) {
        return "reference copy: " + std::to_string(bytes) + " bytes do not fit the arena and the pool";
    }
    const bool d2h = dir == CopyDirection::DeviceToHost;
    PL_CHECK(cudaEventRecord(m.start, m.stream));
    PL_CHECK(cudaMemcpyAsync(d2h ? m.hPool : m.dArena, d2h ? m.dArena : m.hPool, static_cast<std::size_t>(bytes),
                             d2h ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, m.stream));
    return m.elapsedUs(us);
}

Error DeviceContext::prefill(std::uint32_t seed, std::int64_t start, std::int64_t count,
                             const std::vector<std::int64_t>& blockTable, double* us) {
    Impl& m = *impl_;
    *us = 0.0;
    if (!m.prefill) {
        return std::string("prefill: this context was created without a model");
    }
    if (auto e = checkPrefillTable(m.arena, start, count, blockTable)) {
        return e;
    }
    if (count == 0) {
        return std::nullopt;
    }
    PL_CHECK(cudaEventRecord(m.start, m.stream));
    if (auto e = m.uploadIds(blockTable, {})) {
        return e;
    }
    ArenaView view;
    view.base = m.dArena;
    view.num_blocks = m.arena.shape().num_blocks;
    view.block_size = m.arena.shape().block_size;
    view.kv_heads = m.arena.shape().kv_heads;
    view.head_dim = m.arena.shape().head_dim;
    view.fp8 = m.arena.shape().dtype == KvDtype::Fp8E4M3 ? 1 : 0;
    view.block_table = m.dIds;
    if (auto e = m.prefill->run(view, seed, start, count)) {
        return e;
    }
    return m.elapsedUs(us);
}

Error DeviceContext::fillPattern(bool host, const std::vector<std::int64_t>& ids, std::uint32_t seed) {
    Impl& m = *impl_;
    const KvLayout& l = host ? m.pool : m.arena;
    for (std::int64_t id : ids) {
        if (id < 0 || id >= l.shape().num_blocks) {
            return "fill: block " + std::to_string(id) + " out of range";
        }
    }
    if (ids.empty()) {
        return std::nullopt;
    }
    if (auto e = m.uploadIds(ids, {})) {
        return e;
    }
    const auto p = m.listParams(l, l, static_cast<std::int64_t>(ids.size()));
    PL_CHECK(launchFillPattern(host ? m.hPoolDev : m.dArena, p, seed, m.info.sm_count, m.stream));
    PL_CHECK(cudaStreamSynchronize(m.stream));
    return std::nullopt;
}

Error DeviceContext::checksum(bool host, const std::vector<std::int64_t>& ids, std::uint64_t* sum) {
    Impl& m = *impl_;
    const KvLayout& l = host ? m.pool : m.arena;
    *sum = 0;
    for (std::int64_t id : ids) {
        if (id < 0 || id >= l.shape().num_blocks) {
            return "checksum: block " + std::to_string(id) + " out of range";
        }
    }
    if (ids.empty()) {
        return std::nullopt;
    }
    if (auto e = m.uploadIds(ids, {})) {
        return e;
    }
    const auto p = m.listParams(l, l, static_cast<std::int64_t>(ids.size()));
    PL_CHECK(launchChecksum(host ? m.hPoolDev : m.dArena, p, m.dScratch, m.info.sm_count, m.stream));
    unsigned long long out = 0;
    PL_CHECK(cudaMemcpyAsync(&out, m.dScratch, sizeof out, cudaMemcpyDeviceToHost, m.stream));
    PL_CHECK(cudaStreamSynchronize(m.stream));
    *sum = out;
    return std::nullopt;
}

Error DeviceContext::compareKv(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                               std::int64_t tokens, double* maxDiff, double* maxAbs) {
    Impl& m = *impl_;
    const std::int64_t need = m.arena.blocksForTokens(tokens);
    if (tokens < 1 || static_cast<std::int64_t>(a.size()) < need || static_cast<std::int64_t>(b.size()) < need) {
        return std::string("compare: block tables too short for ") + std::to_string(tokens) + " tokens";
    }
    if (auto e = m.uploadIds(a, b)) {
        return e;
    }
    CompareParams p;
    p.layers = m.arena.shape().layers;
    p.num_blocks = m.arena.shape().num_blocks;
    p.block_size = m.arena.shape().block_size;
    p.token_elems = m.arena.shape().kv_heads * m.arena.shape().head_dim;
    p.tokens = tokens;
    p.fp8 = m.arena.shape().dtype == KvDtype::Fp8E4M3 ? 1 : 0;
    p.a_ids = m.dIds;
    p.b_ids = m.dIds + a.size();
    auto* bits = reinterpret_cast<unsigned int*>(m.dScratch);
    PL_CHECK(launchCompareKv(m.dArena, p, bits, m.info.sm_count, m.stream));
    unsigned int out[2] = {0, 0};
    PL_CHECK(cudaMemcpyAsync(out, bits, sizeof out, cudaMemcpyDeviceToHost, m.stream));
    PL_CHECK(cudaStreamSynchronize(m.stream));
    float f[2];
    std::memcpy(f, out, sizeof f);
    *maxDiff = f[0];
    *maxAbs = f[1];
    return std::nullopt;
}

Error DeviceContext::readToken(const std::vector<std::int64_t>& blockTable, std::int64_t layer, int kv,
                               std::int64_t pos, std::vector<float>* out) {
    Impl& m = *impl_;
    const KvShape& s = m.arena.shape();
    const std::int64_t blk = pos / s.block_size;
    if (pos < 0 || blk >= static_cast<std::int64_t>(blockTable.size()) || layer < 0 || layer >= s.layers ||
        blockTable[static_cast<std::size_t>(blk)] < 0 || blockTable[static_cast<std::size_t>(blk)] >= s.num_blocks) {
        return "readToken: position " + std::to_string(pos) + " of layer " + std::to_string(layer) + " is not held";
    }
    const std::int64_t first = m.arena.elementIndex(layer, kv, blockTable[static_cast<std::size_t>(blk)],
                                                    pos % s.block_size, 0, 0);
    const std::int64_t n = s.kv_heads * s.head_dim;
    std::vector<unsigned char> raw(static_cast<std::size_t>(n * m.arena.elementBytes()));
    PL_CHECK(cudaMemcpyAsync(raw.data(), static_cast<char*>(m.dArena) + first * m.arena.elementBytes(), raw.size(),
                             cudaMemcpyDeviceToHost, m.stream));
    PL_CHECK(cudaStreamSynchronize(m.stream));
    out->resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        if (s.dtype == KvDtype::Bf16) {
            __nv_bfloat16 v;
            std::memcpy(&v, raw.data() + 2 * i, 2);
            (*out)[static_cast<std::size_t>(i)] = __bfloat162float(v);
        } else {
            __nv_fp8_e4m3 v;
            std::memcpy(&v, raw.data() + i, 1);
            (*out)[static_cast<std::size_t>(i)] = static_cast<float>(v);
        }
    }
    return std::nullopt;
}

Error DeviceContext::gemmTflops(std::int64_t n, double* tflops) {
    Impl& m = *impl_;
    const std::size_t bytes = static_cast<std::size_t>(n * n) * sizeof(__nv_bfloat16);
    void *a = nullptr, *b = nullptr, *c = nullptr;
    struct Free {
        void** p[3];
        ~Free() {
            for (auto* q : p) {
                cudaFree(*q);
            }
        }
    } guard{{&a, &b, &c}};
    PL_CHECK(cudaMalloc(&a, bytes));
    PL_CHECK(cudaMalloc(&b, bytes));
    PL_CHECK(cudaMalloc(&c, bytes));
    // Random-looking operands: zeros would let the tensor cores run cooler than real work does.
    initWeightsKernel<<<m.info.sm_count * 4, 256, 0, m.stream>>>(static_cast<__nv_bfloat16*>(a), n * n, 1001u, 1.0f);
    initWeightsKernel<<<m.info.sm_count * 4, 256, 0, m.stream>>>(static_cast<__nv_bfloat16*>(b), n * n, 1002u, 1.0f);
    PL_CHECK(cudaGetLastError());
    const float one = 1.0f, zero = 0.0f;
    const int ni = static_cast<int>(n);
    auto run = [&]() {
        return cublasGemmEx(m.blas, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, a, CUDA_R_16BF, ni, b, CUDA_R_16BF, ni,
                            &zero, c, CUDA_R_16BF, ni, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    PL_CHECK(run()); // warm-up
    constexpr int kIters = 10;
    PL_CHECK(cudaEventRecord(m.start, m.stream));
    for (int i = 0; i < kIters; ++i) {
        PL_CHECK(run());
    }
    double us = 0.0;
    if (auto e = m.elapsedUs(&us)) {
        return e;
    }
    *tflops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) * kIters / (us * 1e6);
    return std::nullopt;
}

Error DeviceContext::memInfo(std::int64_t* freeBytes, std::int64_t* totalBytes) {
    std::size_t f = 0, t = 0;
    PL_CHECK(cudaMemGetInfo(&f, &t));
    *freeBytes = static_cast<std::int64_t>(f);
    *totalBytes = static_cast<std::int64_t>(t);
    return std::nullopt;
}

} // namespace pl::gpu
