#include "gpu/live_backend_core.h"

#include "core/engine.h"

#include <algorithm>

namespace pl::gpu {

namespace {

// The dry run's device: takes every step and does nothing (the bookkeeping is what is measured).
class NullDevice final : public LiveDevice {
  public:
    NullDevice(const KvShape& arena, std::int64_t hostSlots) : arena_(arena), hostSlots_(hostSlots) {}
    std::string name() const override { return "dry run"; }
    std::int64_t deviceBlocks() const override { return arena_.shape().num_blocks; }
    std::int64_t hostSlots() const override { return hostSlots_; }
    std::int64_t blockSize() const override { return arena_.shape().block_size; }
    std::int64_t blockBytes() const override { return arena_.blockBytes(); }
    std::optional<std::string> prefill(std::uint32_t, std::int64_t, std::int64_t, const std::vector<std::int64_t>&,
                                       double* us) override {
        *us = 0.0;
        return std::nullopt;
    }
    std::optional<std::string> swap(SwapMethod, CopyDirection, const std::vector<std::int64_t>&,
                                    const std::vector<std::int64_t>&, double* us) override {
        *us = 0.0;
        return std::nullopt;
    }

  private:
    KvLayout arena_;
    std::int64_t hostSlots_;
};

// The most arena blocks a live run of `w` holds at once when every request keeps its own blocks, or the error
// that stopped the dry run. `bound` arena blocks are enough: the engine's pool plus every request's shared
// prefix blocks counted once per request.
std::optional<std::int64_t> peakUnsharedBlocks(const pl::Workload& w, const KvShape& arena, std::int64_t hostSlots,
                                               std::string* error) {
    KvShape big = arena;
    big.num_blocks = w.config.capacity_blocks;
    for (const auto& r : w.requests) {
        big.num_blocks += static_cast<std::int64_t>(r.prefix_blocks.size());
    }
    BookkeepingLiveBackend dry(std::make_unique<NullDevice>(big, hostSlots), SwapMethod::Gather, std::nullopt, "");
    const pl::RunResult run = pl::runWorkload(w, &dry);
    std::string why = dry.lastError();
    for (const auto& a : run.live) {
        if (why.empty() && !a.ok) {
            why = a.error;
        }
    }
    if (!why.empty()) {
        if (error) {
            *error = "sizing the live arena for shared prefixes (dry run): " + why;
        }
        return std::nullopt;
    }
    return dry.bookkeeper().peakDeviceBlocks();
}

} // namespace

std::optional<LiveSizing> sizeLiveRun(const pl::Workload& workload, const LiveOptions& options, std::string* error) {
    const pl::Config& cfg = workload.config;
    LiveSizing s;
    if (!options.model.empty()) {
        auto preset = findTransformerPreset(options.model);
        if (!preset) {
            if (error) {
                *error = "model '" + options.model + "' is not a preset (" + transformerPresetNames() + ")";
            }
            return std::nullopt;
        }
        s.model = *preset;
        s.note = "model " + s.model.name;
    } else {
        s.model = shapeForKvBytes(cfg.kv_bytes_per_token, &s.note);
    }
    s.arena = kvShapeOf(s.model, cfg.block_size_tokens, cfg.capacity_blocks, options.dtype);
    const std::int64_t modelledBlock = std::max<std::int64_t>(1, cfg.kv_bytes_per_token * cfg.block_size_tokens);
    const std::int64_t realBlock = KvLayout(s.arena).blockBytes();
    const std::int64_t wanted = std::max<std::int64_t>(1, cfg.host_capacity_bytes / modelledBlock);
    const std::int64_t cap = std::max<std::int64_t>(1, options.max_host_bytes / std::max<std::int64_t>(1, realBlock));
    s.host_slots = std::min(wanted, cap);
    if (wanted > cap) {
        s.note += ", host pool capped at " + std::to_string(cap) + " of " + std::to_string(wanted) + " blocks";
    }
    if (pl::sharesPrefixes(workload)) {
        const auto peak = peakUnsharedBlocks(workload, s.arena, s.host_slots, error);
        if (!peak) {
            return std::nullopt;
        }
        if (*peak > s.arena.num_blocks) {
            s.note += ", arena " + std::to_string(*peak) + " blocks for the pool's " +
                      std::to_string(s.arena.num_blocks) + " (shared prefixes kept per request)";
            s.arena.num_blocks = *peak;
        }
    }
    return s;
}

pl::Workload leakCheckWorkload() {
    pl::Workload w;
    w.config.block_size_tokens = 16;
    w.config.capacity_blocks = 64;
    w.config.kv_bytes_per_token = 1024; // the "tiny" preset's bf16 KV
    w.config.host_capacity_bytes = 32 * 16 * 1024;
    return w;
}

std::string leakCheckCycle(pl::LiveBackend& backend, std::int64_t i) {
    const auto r = static_cast<std::int32_t>(i % 5);
    backend.onContextGrown(r, 20 + (i * 7) % 90);
    pl::LiveMeasurement m;
    if (i % 2 == 0) {
        m = backend.swapOut(r, 1 << 20);
        if (m.ok) {
            m = backend.swapIn(r, 0);
        }
    } else {
        backend.drop(r);
        m = backend.dropAndReplay(r, 20 + (i * 7) % 90);
    }
    if (!m.ok) {
        return m.error;
    }
    if (i % 3 == 2) {
        backend.onFinished(r);
    }
    return backend.lastError();
}

void leakCheckFinish(pl::LiveBackend& backend) {
    for (std::int32_t r = 0; r < 5; ++r) {
        backend.onFinished(r);
    }
}

BookkeepingLiveBackend::BookkeepingLiveBackend(std::unique_ptr<LiveDevice> device, SwapMethod method,
                                               std::optional<cost::Calibration> calibration, std::string note)
    : device_(std::move(device)), method_(method), calibration_(std::move(calibration)), note_(std::move(note)),
      book_(device_->deviceBlocks(), device_->hostSlots(), device_->blockSize()) {}

std::string BookkeepingLiveBackend::deviceName() const {
    return device_->name() + " (" + note_ + ", " + std::string(toString(method_)) + " swaps)";
}

void BookkeepingLiveBackend::onContextGrown(std::int32_t request, std::int64_t contextTokens) {
    PrefillStep step;
    if (auto e = book_.grow(request, contextTokens, &step)) {
        remember(*e);
        return;
    }
    double us = 0.0;
    if (auto e = device_->prefill(liveSeedOf(request), step.start, step.count, step.block_table, &us)) {
        remember(*e);
    }
}

pl::LiveMeasurement BookkeepingLiveBackend::swapOut(std::int32_t request, std::int64_t tokens) {
    SwapStep step;
    if (auto e = book_.swapOut(request, tokens, &step)) {
        return failed(*e);
    }
    return copy(step, CopyDirection::DeviceToHost);
}

pl::LiveMeasurement BookkeepingLiveBackend::swapIn(std::int32_t request, std::int64_t /*tokens*/) {
    SwapStep step;
    if (auto e = book_.swapIn(request, &step)) {
        return failed(*e);
    }
    return copy(step, CopyDirection::HostToDevice);
}

pl::LiveMeasurement BookkeepingLiveBackend::dropAndReplay(std::int32_t request, std::int64_t tokens) {
    // The engine calls this when it evicts: measure the replay now on scratch blocks; the request's own K/V
    // is rebuilt by onContextGrown when it resumes (LiveBookkeeper::replayScratch).
    PrefillStep step;
    if (auto e = book_.replayScratch(request, tokens, &step)) {
        return failed(*e);
    }
    pl::LiveMeasurement m;
    const auto err =
        device_->prefill(liveSeedOf(request), step.start, step.count, step.block_table, &m.measured_us);
    book_.releaseScratch();
    if (err) {
        return failed(*err);
    }
    m.tokens_computed = step.count;
    if (calibration_ && calibration_->prefill_fit) {
        // Marginal cost of `count` tokens after `start` on the fitted curve.
        const auto& f = *calibration_->prefill_fit;
        auto at = [&](double t) { return f.c0 + f.c1 * t + f.c2 * t * t; };
        const double s = static_cast<double>(step.start), e = s + static_cast<double>(step.count);
        m.modelled_us = step.start == 0 ? at(e) : at(e) - at(s);
    }
    return m;
}

void BookkeepingLiveBackend::drop(std::int32_t request) { book_.drop(request); }

void BookkeepingLiveBackend::onFinished(std::int32_t request) { book_.release(request); }

void BookkeepingLiveBackend::remember(const std::string& e) {
    if (lastError_.empty()) {
        lastError_ = e;
    }
}

pl::LiveMeasurement BookkeepingLiveBackend::failed(const std::string& e) {
    remember(e);
    pl::LiveMeasurement m;
    m.ok = false;
    m.error = e;
    return m;
}

pl::LiveMeasurement BookkeepingLiveBackend::copy(const SwapStep& step, CopyDirection dir) {
    pl::LiveMeasurement m;
    if (auto e = device_->swap(method_, dir, step.device_blocks, step.host_slots, &m.measured_us)) {
        return failed(*e);
    }
    m.bytes_moved = static_cast<std::int64_t>(step.device_blocks.size()) * device_->blockBytes();
    if (calibration_) {
        for (const cost::SwapFit& f : calibration_->swap_fits) {
            if (f.method == toString(method_) && f.direction == toString(dir) && f.block_size == device_->blockSize()) {
                m.modelled_us = f.fixed_us + static_cast<double>(m.bytes_moved) / (f.bandwidth_gbps * 1e3);
            }
        }
    }
    return m;
}

} // namespace pl::gpu
