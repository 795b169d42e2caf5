// Live mode in a build without CUDA: every entry point says so, and nothing pretends to have run.
#include "gpu/device_api.h"

#include "core/live_backend.h"

namespace pl::gpu {

namespace {
constexpr const char* kNoCuda = "built without CUDA (configure with nvcc available, -DPREEMPTLAB_CUDA=ON)";
}

bool builtWithCuda() { return false; }

std::optional<DeviceInfo> probeDevice(std::string* error) {
    if (error) {
        *error = kNoCuda;
    }
    return std::nullopt;
}

std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload& workload, std::string* error) {
    return makeLiveBackend(workload, LiveOptions{}, error);
}

std::unique_ptr<pl::LiveBackend> makeLiveBackend(const pl::Workload&, const LiveOptions&, std::string* error) {
    if (error) {
        *error = kNoCuda;
    }
    return nullptr;
}

int runSelftest(const SelftestOptions&, std::ostream&, std::string* error) {
    if (error) {
        *error = kNoCuda;
    }
    return 3;
}

std::optional<std::string> runCalibration(const CalibrateOptions&, cost::Calibration&, std::ostream&,
                                          std::vector<std::string>*, const std::function<void(const cost::Calibration&)>&) {
    return kNoCuda;
}

} // namespace pl::gpu
