#pragma once
// LiveBackend: the interface a real device implements so the engine's evictions and resumes are also carried
// out for real (gpu/ implements it with CUDA: gpu/device_api.h, makeLiveBackend). The engine calls it as the
// events happen; the backend reports what it measured. Measurements never feed back into the hashed
// simulation: they are annotations written beside the modelled estimate, outside the hashed fields.
//
// Call protocol (request = index into the workload's normalised request list):
//   onContextGrown(r, n)   r's resident context is now n tokens (prefill chunk or decode): the backend
//                          allocates blocks and writes K/V for the new positions by running the model.
//   swapOut(r, t)          evict by swap (t = all context tokens) or hybrid (t = the swapped prefix): the
//                          first t tokens' blocks are copied to host memory; every device block of r is freed.
//   swapIn(r, t)           resume by swap: the host copy comes back into fresh blocks (t as at swapOut).
//   drop(r)                evict by recompute: the device K/V of r is discarded now.
//   dropAndReplay(r, t)    the replay: t tokens are prefilled again after the swapped-in prefix (hybrid) or
//                          from position 0 (recompute; any K/V still resident is dropped first, so calling it
//                          without drop() also works). Measures the real prefill.
//   onFinished(r)          r completed or was censored: everything it holds is freed.

#include "model.h"

#include <cstdint>
#include <string>

namespace pl {

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

} // namespace pl
