#pragma once
// DeviceContext: one device's live-mode resources (the paged KV arena, the pinned host pool, a stream, CUDA
// events, cuBLAS and, when asked, the synthetic transformer) behind a plain C++17 interface, so the backend,
// the selftest and calibration compile with g++. Every call checks every CUDA call and returns the error text
// ("cudaMemcpyAsync(...): cudaErrorInvalidValue: invalid argument") instead of throwing; times come from
// CUDA events on the context's stream. Implemented in cuda/device_context.cu.

#include "gpu/copy_plan.h"
#include "gpu/device_info.h"
#include "gpu/kv_layout.h"
#include "gpu/transformer_shape.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

using Error = std::optional<std::string>; // nullopt: success

// Device 0 if usable, else nullopt and the CUDA error text.
std::optional<DeviceInfo> queryDevice(std::string* error);

struct DeviceSetup {
    KvShape arena;                 // num_blocks arena blocks in device memory
    std::int64_t host_slots = 1;   // blocks of pinned, mapped host memory (same layout)
    bool with_model = false;       // allocate the synthetic transformer (prefill)
    TransformerShape model;        // its KV shape must match `arena`
    bool softmax_cache = true;     // keep score rows in shared memory where they fit (false: the selftest's
                                   // second path, which must give the same bits)
};

class DeviceContext {
  public:
    static std::unique_ptr<DeviceContext> create(const DeviceSetup& setup, std::string* error);
    ~DeviceContext();
    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;

    const DeviceInfo& info() const;
    const KvLayout& arena() const;
    const KvLayout& hostPool() const;
    const TransformerShape& model() const;

    // Copies whole blocks pairwise (deviceBlocks[i] <-> hostSlots[i]) with `method`; `copies` is the number
    // of API copies issued (0 for the gather kernel).
    Error swap(SwapMethod method, CopyDirection dir, const std::vector<std::int64_t>& deviceBlocks,
               const std::vector<std::int64_t>& hostSlots, double* us, std::int64_t* copies);
    // One contiguous cudaMemcpyAsync of `bytes` between the arena and the pool: the bandwidth reference.
    Error referenceCopy(CopyDirection dir, std::int64_t bytes, double* us);
    // Prefill positions [start, start + count) of the request `seed` whose blocks are `blockTable`.
    Error prefill(std::uint32_t seed, std::int64_t start, std::int64_t count,
                  const std::vector<std::int64_t>& blockTable, double* us);
    // Deterministic pattern / checksum over whole blocks of the arena (host = false) or the pool (true).
    // The checksum depends on the bytes and their position in the list, not on the block ids.
    Error fillPattern(bool host, const std::vector<std::int64_t>& ids, std::uint32_t seed);
    Error checksum(bool host, const std::vector<std::int64_t>& ids, std::uint64_t* sum);
    // Largest |a - b| and |a| over the first `tokens` tokens of K and V of two block tables in the arena.
    Error compareKv(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b, std::int64_t tokens,
                    double* maxDiff, double* maxAbs);
    // K (kv = 0) or V (kv = 1) of token `pos` of `layer` of a request, as floats (kv_heads x head_dim).
    Error readToken(const std::vector<std::int64_t>& blockTable, std::int64_t layer, int kv, std::int64_t pos,
                    std::vector<float>* out);
    // Dense BF16 GEMM throughput (n x n x n, cuBLAS), TFLOP/s.
    Error gemmTflops(std::int64_t n, double* tflops);
    Error memInfo(std::int64_t* freeBytes, std::int64_t* totalBytes);

  private:
    DeviceContext();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace pl::gpu
