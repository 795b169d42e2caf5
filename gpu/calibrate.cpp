// calibrate on a CUDA device (the CUDA module's runCalibration, cuda_module.h): calibration_run.h's
// measurements (their order, medians and failures) made with DeviceContexts. Victim blocks are every other
// arena block, as a fragmented pool scatters them, so the batched method gets no coalescing for free.
#include "gpu/calibration_run.h"
#include "gpu/cuda_module.h"
#include "gpu/device_context.h"

#include <memory>
#include <ostream>

namespace pl::gpu::cuda {

namespace {

class CudaCalibrationDevice final : public CalibrationDevice {
  public:
    std::optional<std::string> openPrefill(const TransformerShape& shape, std::int64_t maxTokens) override {
        DeviceSetup setup;
        setup.arena = kvShapeOf(shape, 16, (maxTokens + 15) / 16, KvDtype::Bf16);
        setup.with_model = true;
        setup.model = shape;
        std::string err;
        prefill_ = DeviceContext::create(setup, &err);
        if (!prefill_) {
            return err;
        }
        table_.clear();
        for (std::int64_t i = 0; i < setup.arena.num_blocks; ++i) {
            table_.push_back(i);
        }
        return std::nullopt;
    }
    std::optional<std::string> gemmTflops(std::int64_t n, double* tflops) override {
        return prefill_->gemmTflops(n, tflops);
    }
    std::optional<std::string> prefill(std::int64_t tokens, double* us) override {
        return prefill_->prefill(1234, 0, tokens, table_, us);
    }
    std::optional<std::string> openSwaps(const TransformerShape& shape, std::int64_t blockSize,
                                         std::int64_t maxBlocks) override {
        prefill_.reset(); // the model's weights are not needed for copies
        swaps_.reset();   // one block size's arena at a time
        DeviceSetup setup;
        setup.arena = kvShapeOf(shape, blockSize, 2 * maxBlocks, KvDtype::Bf16);
        setup.host_slots = maxBlocks;
        std::string err;
        swaps_ = DeviceContext::create(setup, &err);
        return swaps_ ? std::nullopt : std::optional<std::string>(err);
    }
    std::int64_t kvBytesPerToken() const override { return swaps_->arena().kvBytesPerToken(); }
    std::int64_t blockBytes() const override { return swaps_->arena().blockBytes(); }
    std::int64_t hostPoolBytes() const override { return swaps_->hostPool().totalBytes(); }
    bool batchMemcpy() const override { return swaps_->info().batch_memcpy; }
    int runtimeVersion() const override { return swaps_->info().runtime_version; }
    std::optional<std::string> referenceCopy(CopyDirection dir, std::int64_t bytes, double* us) override {
        return swaps_->referenceCopy(dir, bytes, us);
    }
    std::optional<std::string> swap(SwapMethod method, CopyDirection dir, const std::vector<std::int64_t>& blocks,
                                    const std::vector<std::int64_t>& slots, double* us, std::int64_t* copies) override {
        return swaps_->swap(method, dir, blocks, slots, us, copies);
    }

  private:
    std::unique_ptr<DeviceContext> prefill_, swaps_;
    std::vector<std::int64_t> table_;
};

} // namespace

std::optional<std::string> runCalibration(const CalibrateOptions& o, cost::Calibration& out, std::ostream& log,
                                          std::vector<std::string>* failures,
                                          const std::function<void(const cost::Calibration&)>& checkpoint) {
    std::string err;
    auto info = probeDevice(&err);
    if (!info) {
        return err;
    }
    const auto shape = findTransformerPreset(o.model);
    if (!shape) {
        return "model '" + o.model + "' is not a preset (" + transformerPresetNames() + ")";
    }
    if (((o.copy_blocks.empty() || o.block_sizes.empty()) && o.prefill_tokens.empty()) || o.repetitions < 1) {
        return std::string("calibrate: nothing to measure");
    }
    cost::Calibration c;
    c.device_name = info->name;
    c.compute_capability = std::to_string(info->cc_major) + "." + std::to_string(info->cc_minor);
    c.driver_version = info->driver_version;
    c.runtime_version = info->runtime_version;
    c.peak_bf16_tflops = cost::datasheetBf16Tflops(info->name);
    CudaCalibrationDevice device;
    std::vector<std::string> failed = measureCalibration(o, *shape, device, c, log, checkpoint);
    if (failures) {
        *failures = std::move(failed);
    }
    out = std::move(c);
    return std::nullopt;
}

} // namespace pl::gpu::cuda
