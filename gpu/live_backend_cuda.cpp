// CudaLiveBackend: pl::LiveBackend on a DeviceContext. The bookkeeping (which blocks and slots each request
// holds) is LiveBookkeeper's; this class turns each step into device work and measures it.
#include "device_api.h"
#include "device_context.h"
#include "live_bookkeeper.h"

#include "live_backend.h"
#include "model.h"

#include <algorithm>

namespace pl::gpu {

namespace {

class CudaLiveBackend final : public pl::LiveBackend {
  public:
    CudaLiveBackend(std::unique_ptr<DeviceContext> ctx, LiveOptions options, std::string modelNote)
        : ctx_(std::move(ctx)), options_(std::move(options)), note_(std::move(modelNote)),
          book_(ctx_->arena().shape().num_blocks, ctx_->hostPool().shape().num_blocks,
                ctx_->arena().shape().block_size) {}

    std::string deviceName() const override {
        return ctx_->info().name + " (" + note_ + ", " + toString(options_.method) + " swaps)";
    }

    void onContextGrown(std::int32_t request, std::int64_t contextTokens) override {
        PrefillStep step;
        if (auto e = book_.grow(request, contextTokens, &step)) {
            remember(*e);
            return;
        }
        double us = 0.0;
        if (auto e = ctx_->prefill(seedOf(request), step.start, step.count, step.block_table, &us)) {
            remember(*e);
        }
    }

    pl::LiveMeasurement swapOut(std::int32_t request, std::int64_t tokens) override {
        SwapStep step;
        if (auto e = book_.swapOut(request, tokens, &step)) {
            return failed(*e);
        }
        return copy(step, CopyDirection::DeviceToHost);
    }

    pl::LiveMeasurement swapIn(std::int32_t request, std::int64_t /*tokens*/) override {
        SwapStep step;
        if (auto e = book_.swapIn(request, &step)) {
            return failed(*e);
        }
        return copy(step, CopyDirection::HostToDevice);
    }

    pl::LiveMeasurement dropAndReplay(std::int32_t request, std::int64_t tokens) override {
        // The engine calls this when it evicts: measure the replay now on scratch blocks; the request's own
        // K/V is rebuilt by onContextGrown when it resumes (LiveBookkeeper::replayScratch).
        PrefillStep step;
        if (auto e = book_.replayScratch(request, tokens, &step)) {
            return failed(*e);
        }
        pl::LiveMeasurement m;
        const auto err = ctx_->prefill(seedOf(request), step.start, step.count, step.block_table, &m.measured_us);
        book_.releaseScratch();
        if (err) {
            return failed(*err);
        }
        m.tokens_computed = step.count;
        if (options_.calibration && options_.calibration->prefill_fit) {
            // Marginal cost of `count` tokens after `start` on the fitted curve.
            const auto& f = *options_.calibration->prefill_fit;
            auto at = [&](double t) { return f.c0 + f.c1 * t + f.c2 * t * t; };
            const double s = static_cast<double>(step.start), e = s + static_cast<double>(step.count);
            m.modelled_us = step.start == 0 ? at(e) : at(e) - at(s);
        }
        return m;
    }

    void drop(std::int32_t request) override { book_.drop(request); }
    void onFinished(std::int32_t request) override { book_.release(request); }
    std::string lastError() const override { return lastError_; }

  private:
    static std::uint32_t seedOf(std::int32_t request) { return 0x5EEDu + static_cast<std::uint32_t>(request); }

    void remember(const std::string& e) {
        if (lastError_.empty()) {
            lastError_ = e;
        }
    }
    pl::LiveMeasurement failed(const std::string& e) {
        remember(e);
        pl::LiveMeasurement m;
        m.ok = false;
        m.error = e;
        return m;
    }

    pl::LiveMeasurement copy(const SwapStep& step, CopyDirection dir) {
        pl::LiveMeasurement m;
        std::int64_t copies = 0;
        if (auto e = ctx_->swap(options_.method, dir, step.device_blocks, step.host_slots, &m.measured_us, &copies)) {
            return failed(*e);
        }
        m.bytes_moved = static_cast<std::int64_t>(step.device_blocks.size()) * ctx_->arena().blockBytes();
        if (options_.calibration) {
            for (const SwapFit& f : options_.calibration->swap_fits) {
                if (f.method == toString(options_.method) && f.direction == toString(dir) &&
                    f.block_size == ctx_->arena().shape().block_size) {
                    m.modelled_us = f.fixed_us + static_cast<double>(m.bytes_moved) / (f.bandwidth_gbps * 1e3);
                }
            }
        }
        return m;
    }

    std::unique_ptr<DeviceContext> ctx_;
    LiveOptions options_;
    std::string note_;
    LiveBookkeeper book_;
    std::string lastError_;
};

} // namespace

bool builtWithCuda() { return true; }

std::optional<DeviceInfo> probeDevice(std::string* error) { return queryDevice(error); }

std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, std::string* error) {
    return makeLiveBackend(workload, LiveOptions{}, error);
}

std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, const LiveOptions& options,
                                                 std::string* error) {
    const pl::Config& cfg = workload.config;
    std::string note;
    TransformerShape shape;
    if (!options.model.empty()) {
        auto preset = findTransformerPreset(options.model);
        if (!preset) {
            if (error) {
                *error = "model '" + options.model + "' is not a preset (" + transformerPresetNames() + ")";
            }
            return nullptr;
        }
        shape = *preset;
        note = "model " + shape.name;
    } else {
        shape = shapeForKvBytes(cfg.kv_bytes_per_token, &note);
    }
    DeviceSetup setup;
    setup.arena = kvShapeOf(shape, cfg.block_size_tokens, cfg.capacity_blocks, options.dtype);
    // The host pool holds what the workload's host_capacity_bytes holds in modelled blocks, within the cap.
    const std::int64_t modelledBlock = std::max<std::int64_t>(1, cfg.kv_bytes_per_token * cfg.block_size_tokens);
    const std::int64_t realBlock = KvLayout(setup.arena).blockBytes();
    const std::int64_t wanted = std::max<std::int64_t>(1, cfg.host_capacity_bytes / modelledBlock);
    const std::int64_t cap = std::max<std::int64_t>(1, options.max_host_bytes / std::max<std::int64_t>(1, realBlock));
    setup.host_slots = std::min(wanted, cap);
    if (wanted > cap) {
        note += ", host pool capped at " + std::to_string(cap) + " of " + std::to_string(wanted) + " blocks";
    }
    setup.with_model = true;
    setup.model = shape;
    auto ctx = DeviceContext::create(setup, error);
    if (!ctx) {
        return nullptr;
    }
    return std::make_unique<CudaLiveBackend>(std::move(ctx), options, note);
}

} // namespace pl::gpu
