#pragma once
// BookkeepingLiveBackend: pl::LiveBackend over any LiveDevice. LiveBookkeeper decides which arena blocks and
// host slots each engine call touches; the device does the work and times it. On a GPU the device is a
// DeviceContext (live_backend_cuda.cpp); in the tests it is a host fake that records, per block, which
// request's positions it holds, so the whole call protocol (engine -> backend -> device) is checked on the CPU
// (tests/gpu/test_live_protocol.cpp).
#include "gpu/copy_plan.h"
#include "core/cost/calibration.h"
#include "gpu/device_options.h"
#include "gpu/kv_layout.h"
#include "gpu/live_bookkeeper.h"
#include "gpu/transformer_shape.h"

#include "core/live_backend.h"
#include "core/workload.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

// The device work a live run asks for. Errors are returned as text (nullopt: done); times in microseconds.
class LiveDevice {
  public:
    virtual ~LiveDevice() = default;
    virtual std::string name() const = 0;
    virtual std::int64_t deviceBlocks() const = 0; // arena blocks
    virtual std::int64_t hostSlots() const = 0;    // pinned pool blocks
    virtual std::int64_t blockSize() const = 0;    // tokens per block
    virtual std::int64_t blockBytes() const = 0;   // one block over all layers, K and V
    // Prefill positions [start, start + count) of the request `seed`; its blocks, in order, are `blockTable`,
    // and positions [0, start) are already in them (attention reads them).
    virtual std::optional<std::string> prefill(std::uint32_t seed, std::int64_t start, std::int64_t count,
                                               const std::vector<std::int64_t>& blockTable, double* us) = 0;
    // Copies whole blocks pairwise (deviceBlocks[i] <-> hostSlots[i]).
    virtual std::optional<std::string> swap(SwapMethod method, CopyDirection dir,
                                            const std::vector<std::int64_t>& deviceBlocks,
                                            const std::vector<std::int64_t>& hostSlots, double* us) = 0;
};

// What a live run of a workload allocates: the arena has the workload's capacity_blocks of block_size_tokens
// with the model whose bf16 KV matches kv_bytes_per_token (or `options.model`); the host pool holds what
// host_capacity_bytes holds in modelled blocks, capped at options.max_host_bytes of real blocks.
// Shared prefixes: the device keeps every request's K/V in blocks of its own (it does not share blocks), so
// a workload with prefix_blocks needs more arena than the engine's pool. A dry run of the workload through the
// same bookkeeping, on a host device that does nothing, finds the peak, and the arena gets that many blocks
// (the note says so). nullopt + `error` for an unknown model or a dry run that fails.
struct LiveSizing {
    TransformerShape model;
    KvShape arena;
    std::int64_t host_slots = 1;
    std::string note; // how the model was chosen, and the cap when it applied
};
std::optional<LiveSizing> sizeLiveRun(const pl::Workload& workload, const LiveOptions& options, std::string* error);

// The synthetic model's seed for a request (its token ids and so its K/V).
inline std::uint32_t liveSeedOf(std::int32_t request) { return 0x5EEDu + static_cast<std::uint32_t>(request); }

// gpu-selftest's leak check, kept here so the CPU tests run the very same calls: a small workload (64 blocks
// of 16 tokens of the "tiny" model, 32 host slots), cycle i (grow request i % 5, then evict it by swap and
// swap it back, or drop it and measure a replay; every third cycle it finishes), and the final release.
// A cycle returns the first error met ("" if none).
pl::Workload leakCheckWorkload();
std::string leakCheckCycle(pl::LiveBackend& backend, std::int64_t i);
void leakCheckFinish(pl::LiveBackend& backend);

class BookkeepingLiveBackend final : public pl::LiveBackend {
  public:
    // `calibration`, when given, fills each measurement's modelled_us; `note` says how the model was chosen.
    BookkeepingLiveBackend(std::unique_ptr<LiveDevice> device, SwapMethod method,
                           std::optional<cost::Calibration> calibration, std::string note);

    std::string deviceName() const override;
    void onContextGrown(std::int32_t request, std::int64_t contextTokens) override;
    pl::LiveMeasurement swapOut(std::int32_t request, std::int64_t tokens) override;
    pl::LiveMeasurement swapIn(std::int32_t request, std::int64_t tokens) override;
    pl::LiveMeasurement dropAndReplay(std::int32_t request, std::int64_t tokens) override;
    void drop(std::int32_t request) override;
    void onFinished(std::int32_t request) override;
    std::string lastError() const override { return lastError_; }

    const LiveBookkeeper& bookkeeper() const { return book_; }

  private:
    void remember(const std::string& e);
    pl::LiveMeasurement failed(const std::string& e);
    pl::LiveMeasurement copy(const SwapStep& step, CopyDirection dir);

    std::unique_ptr<LiveDevice> device_;
    SwapMethod method_;
    std::optional<cost::Calibration> calibration_;
    std::string note_;
    LiveBookkeeper book_;
    std::string lastError_;
};

} // namespace pl::gpu
