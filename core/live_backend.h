#pragma once
// LiveBackend: the interface a real device implements so the engine's evictions and resumes are also carried
// out for real (gpu/ implements it with CUDA: gpu/device_api.h, makeLiveBackend). The engine calls it as the
// events happen; the backend reports what it measured. Measurements never feed back into the hashed
// simulation: they are annotations written beside the modelled estimate, outside the hashed fields.
//
// Call protocol (request = index into the workload's normalised request list), as core/engine.cpp calls it:
//   onContextGrown(r, n)   r's context is now n tokens (prefill chunk, decode step, or after a resume):
//                          the backend allocates blocks and writes K/V for the positions it does not hold by
//                          running the model, so a recomputed request's K/V is really rebuilt here.
//   swapOut(r, t)          at evict, by swap (t = all context tokens) or hybrid (t = the swapped prefix): the
//                          first t tokens' blocks are copied to host memory; every device block of r is freed.
//   dropAndReplay(r, t)    at evict, recompute or hybrid: the dropped K/V is discarded and the replay of t
//                          tokens is measured now by a real prefill on scratch blocks (released again).
//   swapIn(r, t)           at resume by swap/hybrid: the host copy comes back into fresh blocks.
//   drop(r)                optional: discard r's device K/V without measuring anything.
//   onFinished(r)          r completed or was censored: everything it holds is freed.

#include "core/workload.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace pl {

namespace cost {
struct Calibration;
}

struct LiveMeasurement {
    double measured_us = 0.0;     // wall time of the device work, CUDA events
    std::int64_t bytes_moved = 0; // swap copies
    std::int64_t tokens_computed = 0; // replay prefill
    double modelled_us = 0.0;     // the cost model's estimate for the same work (0 when not calibrated)
    bool ok = true;
    std::string error;            // CUDA error text when !ok
};

class LiveBackend {
  public:
    virtual ~LiveBackend() = default;
    virtual std::string deviceName() const = 0;
    // A request's context grew to `context_tokens` (allocate/write its KV blocks).
    virtual void onContextGrown(std::int32_t request, std::int64_t context_tokens) = 0;
    virtual LiveMeasurement swapOut(std::int32_t request, std::int64_t tokens) = 0;
    virtual LiveMeasurement swapIn(std::int32_t request, std::int64_t tokens) = 0;
    virtual LiveMeasurement dropAndReplay(std::int32_t request, std::int64_t tokens) = 0;
    virtual void onFinished(std::int32_t request) = 0;
    // Additive: evict by recompute (see the protocol above). Default: nothing (dropAndReplay drops anyway).
    virtual void drop(std::int32_t /*request*/) {}
    // Additive: the first error met by a void call (onContextGrown, drop, onFinished), "" if none.
    virtual std::string lastError() const { return {}; }
};

// LiveBackendFactory: what a program needs from a device to offer live mode: whether one is usable, and a
// backend that runs a workload on it. gpu/ makes the real one (pl::gpu::liveBackendFactory(), gpu/device_api.h)
// and app/lab hands it to the lab, so ui/ drives a device without knowing gpu/ (tests hand in scripted ones).
// Both functions may be called from any thread. A default-constructed factory is a program without live mode.
struct LiveBackendFactory {
    // The usable device's name; nullopt with `error` saying why (a CUDA error, "built without CUDA").
    std::function<std::optional<std::string>(std::string* error)> probe;
    // A backend for `workload` (its capacity_blocks of block_size_tokens on the device); `calibration`, when not
    // null, fills each LiveMeasurement's modelled_us. nullptr with `error` when no device is usable or the
    // workload does not fit.
    std::function<std::unique_ptr<LiveBackend>(const Workload& workload, const cost::Calibration* calibration,
                                               std::string* error)>
        make;
    bool offered() const { return probe && make; }
};

} // namespace pl
