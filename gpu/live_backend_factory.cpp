// pl::gpu::liveBackendFactory: core's LiveBackendFactory over this module's device API, the one a program hands
// to the lab (app/lab/main.cpp). Built in both variants of preemptlab_gpu: without CUDA, probeDevice and
// makeLiveBackend (nodevice.cpp) say "built without CUDA".
#include "gpu/device_api.h"

#include "gpu/no_device.h"

#include "core/live_backend.h"

namespace pl::gpu {

pl::LiveBackendFactory liveBackendFactory() {
    pl::LiveBackendFactory f;
    f.probe = [](std::string* error) -> std::optional<std::string> {
        std::string why;
        const auto device = probeDevice(&why);
        if (!device) {
            if (error) *error = noDeviceText(why); // the lab's words, as the CLI's
            return std::nullopt;
        }
        return device->name;
    };
    f.make = [](const pl::Workload& workload, const cost::Calibration* calibration, std::string* error) {
        LiveOptions options;
        if (calibration) options.calibration = *calibration;
        return makeLiveBackend(workload, options, error);
    };
    return f;
}

} // namespace pl::gpu
