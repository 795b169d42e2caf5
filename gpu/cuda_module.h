#pragma once
// The CUDA module, libpreemptlab-cuda.so: live mode's device code (the kernels, DeviceContext, the live
// backend, gpu-selftest, calibrate), built as a shared module that links the CUDA runtime and cuBLAS, so that
// only a program that asks for a device maps them (cuda_loader.cpp dlopens it on the first such call; a
// `preemptlab-cli --help` no longer maps ~200 MB of cuBLAS, docs/reliability.md).
//
// The module exports one symbol, preemptlab_cuda_module(), the table below; everything else in it is hidden
// (its copies of core and the gpu host library included). The table's functions never let an exception out:
// the module's types are hidden, so the program could not catch them by type. Values cross the table by
// reference (std::string, std::optional, std::unique_ptr<LiveBackend>, std::ostream): the program and the
// module are built together against the same libstdc++. A backend the module made keeps its code (its vtable)
// in the module, so the module is never unloaded.
//
// Sources in the module include this header, never device_api.h: their functions are pl::gpu::cuda's, and
// device_api.h's pl::gpu functions of the same names would make calls with pl::gpu arguments ambiguous (ADL).

#include "core/cost/calibration.h"
#include "gpu/device_info.h"
#include "gpu/device_options.h"

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pl {
class LiveBackend;
struct Workload;
} // namespace pl

namespace pl::gpu {

// The table's layout. Raise it when the table or a type that crosses it (device_options.h, DeviceInfo,
// cost::Calibration, pl::LiveBackend, pl::Workload) changes, so that a program refuses a module of another build.
inline constexpr int kCudaModuleAbi = 1;

// device_api.h's calls, one pointer each; same meaning, `error` set whenever the call fails.
struct CudaModule {
    int abi = kCudaModuleAbi;
    std::optional<DeviceInfo> (*probe)(std::string* error) = nullptr;
    std::unique_ptr<pl::LiveBackend> (*make)(const pl::Workload& workload, const LiveOptions& options,
                                             std::string* error) = nullptr;
    int (*selftest)(const SelftestOptions& options, std::ostream& log, std::string* error) = nullptr;
    std::optional<std::string> (*calibrate)(const CalibrateOptions& options, cost::Calibration& out, std::ostream& log,
                                            std::vector<std::string>* failures,
                                            const std::function<void(const cost::Calibration&)>& checkpoint) = nullptr;
};

// The name of the entry point, for dlsym.
inline constexpr const char* kCudaModuleEntry = "preemptlab_cuda_module";
using CudaModuleEntry = const CudaModule* (*)();

// The module's own implementations (live_backend_cuda.cpp, selftest.cpp, calibrate.cpp), which the table wraps.
namespace cuda {
std::optional<DeviceInfo> probeDevice(std::string* error);
std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, const LiveOptions& options,
                                                 std::string* error);
int runSelftest(const SelftestOptions& options, std::ostream& log, std::string* error);
std::optional<std::string> runCalibration(const CalibrateOptions& options, cost::Calibration& out, std::ostream& log,
                                          std::vector<std::string>* failures,
                                          const std::function<void(const cost::Calibration&)>& checkpoint);
} // namespace cuda

} // namespace pl::gpu

// The module's one exported symbol (cuda_module.cpp): its table, with abi = kCudaModuleAbi.
extern "C" __attribute__((visibility("default"))) const pl::gpu::CudaModule* preemptlab_cuda_module();
