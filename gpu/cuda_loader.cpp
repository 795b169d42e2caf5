// device_api.h in a CUDA build: each call that needs a device loads the CUDA module (cuda_module.h) once, the
// first time, and forwards to its table. Until then, and in a program that never asks, no CUDA library is
// mapped. Where the module is:
//   $PREEMPTLAB_CUDA_MODULE                                  when set (a file; relative to the working folder)
//   <folder of the program>/../lib/libpreemptlab-cuda.so     the build tree (build/bin, build/lib)
//   <folder of the program>/../lib/preemptlab/libpreemptlab-cuda.so   an installed layout
// A module that cannot be loaded (missing, a CUDA library it needs missing or unmappable, another build's
// table) makes every call fail with one text naming each path tried and why; the CLI exits 3 with it.
// The module is never unloaded: backends it made keep their code there.
#include "gpu/cuda_module.h"
#include "gpu/device_api.h"

#include "core/live_backend.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace pl::gpu {

namespace {

constexpr const char* kModuleFile = "libpreemptlab-cuda.so";

struct LoadedModule {
    const CudaModule* table = nullptr; // nullptr: `error` says why
    std::string error;
};

// Where to look, in order.
std::vector<std::string> modulePaths(std::string* why) {
    if (const char* env = std::getenv("PREEMPTLAB_CUDA_MODULE"); env && *env) {
        std::error_code ec;
        const auto path = std::filesystem::absolute(env, ec);
        return {ec ? std::string(env) : path.string()};
    }
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
        *why = "/proc/self/exe: " + ec.message() + " (set PREEMPTLAB_CUDA_MODULE to the module's path)";
        return {};
    }
    const auto lib = (exe.parent_path() / ".." / "lib").lexically_normal();
    return {(lib / kModuleFile).string(), (lib / "preemptlab" / kModuleFile).string()};
}

// dlerror()'s text, led by `path` unless it already names it (a library the module needs is named alone).
std::string dlText(const std::string& path) {
    const char* e = dlerror();
    const std::string text = e ? e : "unknown dlopen error";
    return text.rfind(path, 0) == 0 ? text : path + ": " + text;
}

LoadedModule load() {
    std::string why;
    const std::vector<std::string> paths = modulePaths(&why);
    for (const std::string& path : paths) {
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            why += (why.empty() ? "" : "; ") + dlText(path);
            continue;
        }
        const auto entry = reinterpret_cast<CudaModuleEntry>(dlsym(handle, kCudaModuleEntry));
        if (!entry) {
            why += (why.empty() ? "" : "; ") + dlText(path);
            dlclose(handle); // nothing of it is in use yet
            continue;
        }
        const CudaModule* table = entry();
        if (!table || table->abi != kCudaModuleAbi) {
            why += (why.empty() ? "" : "; ") + path + ": a module of another build (table version " +
                   std::to_string(table ? table->abi : -1) + ", this program needs " +
                   std::to_string(kCudaModuleAbi) + ")";
            dlclose(handle);
            continue;
        }
        return {table, {}};
    }
    return {nullptr, "live mode's CUDA module could not be loaded: " + why};
}

// The table, loaded on the first call (thread-safe); nullptr with `error` set when it cannot be.
const CudaModule* module(std::string* error) {
    static const LoadedModule loaded = load();
    if (!loaded.table && error) {
        *error = loaded.error;
    }
    return loaded.table;
}

} // namespace

bool builtWithCuda() { return true; }

std::optional<DeviceInfo> probeDevice(std::string* error) {
    const CudaModule* m = module(error);
    return m ? m->probe(error) : std::nullopt;
}

std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, std::string* error) {
    return makeLiveBackend(workload, LiveOptions{}, error);
}

std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, const LiveOptions& options,
                                                 std::string* error) {
    const CudaModule* m = module(error);
    return m ? m->make(workload, options, error) : nullptr;
}

int runSelftest(const SelftestOptions& options, std::ostream& log, std::string* error) {
    const CudaModule* m = module(error);
    return m ? m->selftest(options, log, error) : 3;
}

std::optional<std::string> runCalibration(const CalibrateOptions& options, cost::Calibration& out, std::ostream& log,
                                          std::vector<std::string>* failures,
                                          const std::function<void(const cost::Calibration&)>& checkpoint) {
    std::string error;
    const CudaModule* m = module(&error);
    return m ? m->calibrate(options, out, log, failures, checkpoint) : std::optional<std::string>(error);
}

} // namespace pl::gpu
