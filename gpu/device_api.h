#pragma once
// The face of live mode that the CLI, the lab and the engine's `run --live` call. Plain C++ (no CUDA types),
// so it compiles with g++ everywhere. In a CUDA build these functions (cuda_loader.cpp) load the CUDA module,
// libpreemptlab-cuda.so (cuda_module.h), on the first call that needs a device and forward to it, so a program
// maps the CUDA runtime and cuBLAS only when it uses a device; a module that cannot be loaded is reported as the
// error text, naming the paths tried. A build without CUDA links nodevice.cpp, whose functions report "built
// without CUDA". Either way the CLI exits 3 with the text.

#include "core/cost/calibration.h"
#include "gpu/device_info.h"
#include "gpu/device_options.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pl {
class LiveBackend;
struct LiveBackendFactory;
struct Workload;
} // namespace pl

namespace pl::gpu {

// True in a CUDA build, whether or not its module loads and a device is usable.
bool builtWithCuda();

// Device 0 if usable; else nullopt and `error` holds the CUDA error text (or "built without CUDA").
std::optional<DeviceInfo> probeDevice(std::string* error);

// A backend whose arena has the workload's capacity_blocks of block_size_tokens, and whose host pool holds
// host_capacity_bytes of the workload's modelled KV (in blocks). nullptr + `error` when no device is usable
// or the arena does not fit.
std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, std::string* error);
std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, const LiveOptions& options,
                                                 std::string* error);

// probeDevice and makeLiveBackend as core's LiveBackendFactory (core/live_backend.h): what app/lab hands the lab.
pl::LiveBackendFactory liveBackendFactory();

// Every correctness check of live mode, one line each to `log`. 0: all passed; 1: a check failed;
// 3: no usable device (`error` says why).
int runSelftest(const SelftestOptions& options, std::ostream& log, std::string* error);

// Measures prefill and swaps and fits them (calibration_run.h). The error text when nothing can be measured
// (no usable device, an unknown model); else nullopt, `out` holds what was measured and `failures` (when
// given) one line per measurement that failed, the others having been made.
// `checkpoint`, when given, gets what is measured so far after each phase (calibration_run.h).
std::optional<std::string> runCalibration(const CalibrateOptions& options, cost::Calibration& out, std::ostream& log,
                                          std::vector<std::string>* failures = nullptr,
                                          const std::function<void(const cost::Calibration&)>& checkpoint = {});

} // namespace pl::gpu
