#pragma once
// LiveBackend: the interface a real device implements so the engine's evictions and resumes are also carried
// out for real (gpu/ implements it with CUDA). The engine calls it as the events happen; the backend reports
// what it measured. Measurements never feed back into the hashed simulation: they are annotations.

#include "model.h"

#include <cstdint>
#include <string>

namespace pl {

struct LiveMeasurement {
    double measured_us = 0.0;     // wall time of the device work, CUDA events
    std::int64_t bytes_moved = 0; // swap copies
    std::int64_t tokens_computed = 0; // replay prefill
    double modelled_us = 0.0;     // the cost model's estimate for the same work
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
};

} // namespace pl
