// preemptlab_cuda_module(): the CUDA module's table (cuda_module.h). Each entry calls the module's own function
// and turns any exception into the call's error text, so nothing thrown in the module reaches the program.
#include "gpu/cuda_module.h"

#include "core/live_backend.h"

#include <exception>
#include <ostream>

namespace pl::gpu::cuda {

namespace {

// The text of the exception being handled (call inside a catch).
std::string currentExceptionText() {
    try {
        throw;
    } catch (const std::exception& e) {
        return std::string("unexpected error in the CUDA module: ") + e.what();
    } catch (...) {
        return "unexpected error in the CUDA module (not a std::exception)";
    }
}

void setError(std::string* error, const std::string& text) {
    if (error) {
        *error = text;
    }
}

std::optional<DeviceInfo> probe(std::string* error) {
    try {
        return probeDevice(error);
    } catch (...) {
        setError(error, currentExceptionText());
        return std::nullopt;
    }
}

std::unique_ptr<pl::LiveBackend> make(const pl::Workload& workload, const LiveOptions& options, std::string* error) {
    try {
        return makeLiveBackend(workload, options, error);
    } catch (...) {
        setError(error, currentExceptionText());
        return nullptr;
    }
}

// An exception part way through is a failed check (exit 1), said in the log as the checks say theirs.
int selftest(const SelftestOptions& options, std::ostream& log, std::string* error) {
    try {
        return runSelftest(options, log, error);
    } catch (...) {
        const std::string text = currentExceptionText();
        setError(error, text);
        try {
            log << "FAIL selftest: " << text << "\n";
            log.flush();
        } catch (...) {
        }
        return 1;
    }
}

std::optional<std::string> calibrate(const CalibrateOptions& options, cost::Calibration& out, std::ostream& log,
                                     std::vector<std::string>* failures,
                                     const std::function<void(const cost::Calibration&)>& checkpoint) {
    try {
        return runCalibration(options, out, log, failures, checkpoint);
    } catch (...) {
        return currentExceptionText();
    }
}

const CudaModule kTable{kCudaModuleAbi, &probe, &make, &selftest, &calibrate};

} // namespace

} // namespace pl::gpu::cuda

extern "C" const pl::gpu::CudaModule* preemptlab_cuda_module() { return &pl::gpu::cuda::kTable; }
