// The CUDA module's probeDevice and makeLiveBackend (cuda_module.h): a BookkeepingLiveBackend
// (live_backend_core.h, host-only and tested on the CPU) whose device is a DeviceContext sized from the workload.
#include "gpu/cuda_module.h"
#include "gpu/device_context.h"
#include "gpu/live_backend_core.h"

#include "core/live_backend.h"
#include "core/workload.h"

#include <algorithm>

namespace pl::gpu::cuda {

namespace {

// A DeviceContext as the backend's device.
class ContextDevice final : public LiveDevice {
  public:
    explicit ContextDevice(std::unique_ptr<DeviceContext> ctx) : ctx_(std::move(ctx)) {}
    std::string name() const override { return ctx_->info().name; }
    std::int64_t deviceBlocks() const override { return ctx_->arena().shape().num_blocks; }
    std::int64_t hostSlots() const override { return ctx_->hostPool().shape().num_blocks; }
    std::int64_t blockSize() const override { return ctx_->arena().shape().block_size; }
    std::int64_t blockBytes() const override { return ctx_->arena().blockBytes(); }
    std::optional<std::string> prefill(std::uint32_t seed, std::int64_t start, std::int64_t count,
                                       const std::vector<std::int64_t>& blockTable, double* us) override {
        return ctx_->prefill(seed, start, count, blockTable, us);
    }
    std::optional<std::string> swap(SwapMethod method, CopyDirection dir, const std::vector<std::int64_t>& deviceBlocks,
                                    const std::vector<std::int64_t>& hostSlots, double* us) override {
        std::int64_t copies = 0;
        return ctx_->swap(method, dir, deviceBlocks, hostSlots, us, &copies);
    }

  private:
    std::unique_ptr<DeviceContext> ctx_;
};

} // namespace

std::optional<DeviceInfo> probeDevice(std::string* error) { return queryDevice(error); }

std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, const LiveOptions& options,
                                                 std::string* error) {
    auto sizing = sizeLiveRun(workload, options, error);
    if (!sizing) {
        return nullptr;
    }
    const std::string note = sizing->note;
    DeviceSetup setup;
    setup.arena = sizing->arena;
    setup.host_slots = sizing->host_slots;
    setup.model = sizing->model;
    setup.with_model = true;
    auto ctx = DeviceContext::create(setup, error);
    if (!ctx) {
        return nullptr;
    }
    return std::make_unique<BookkeepingLiveBackend>(std::make_unique<ContextDevice>(std::move(ctx)), options.method,
                                                    options.calibration, note);
}

} // namespace pl::gpu::cuda
