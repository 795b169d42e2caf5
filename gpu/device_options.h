#pragma once
// What a caller asks of live mode's device calls (device_api.h): plain values, apart from the calls, so that
// host-only code (live_backend_core.h sizes a live run, calibration_run.h orders a calibration) and the CUDA
// module's table (cuda_module.h) take them without seeing device_api.h's functions.

#include "core/cost/calibration.h"
#include "gpu/copy_plan.h"
#include "gpu/kv_layout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

struct LiveOptions {
    std::string model;                         // transformer preset; empty: from kv_bytes_per_token
    SwapMethod method = SwapMethod::Gather;    // how swaps are copied
    KvDtype dtype = KvDtype::Bf16;
    std::int64_t max_host_bytes = std::int64_t{16} << 30; // cap on the pinned pool
    std::optional<cost::Calibration> calibration;    // fills LiveMeasurement::modelled_us when given
};

struct SelftestOptions {
    std::int64_t cycles = 2000; // evict/resume cycles of the leak check
};

struct CalibrateOptions {
    std::string model = "llama-3.1-8b";
    std::vector<std::int64_t> block_sizes{8, 16, 32};
    std::vector<std::int64_t> copy_blocks{1, 4, 16, 64, 256};      // blocks per swap
    std::vector<std::int64_t> prefill_tokens{512, 1024, 2048, 4096, 8192};
    int repetitions = 5;
};

} // namespace pl::gpu
