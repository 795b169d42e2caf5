// noDeviceText (no_device.h): the words for "no device", from the probe's error.
#include "gpu/no_device.h"

#include <string_view>

namespace pl::gpu {

std::string noDeviceText(const std::string& error) {
    // queryDevice (cuda/device_context.cu) names the call that failed first: "cudaGetDeviceCount: ...".
    constexpr std::string_view kCount = "cudaGetDeviceCount: ";
    if (error.compare(0, kCount.size(), kCount) == 0) return "no NVIDIA GPU found (" + error + ")";
    return "no usable CUDA device: " + error;
}

} // namespace pl::gpu
