#pragma once
// DeviceInfo: what gpu-info prints and calibration.json records about the device. Plain C++17.
#include <cstdint>
#include <string>

namespace pl::gpu {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::int64_t total_bytes = 0, free_bytes = 0;
    int driver_version = 0, runtime_version = 0, cublas_version = 0;
    bool batch_memcpy = false; // cudaMemcpyBatchAsync is available (runtime >= 12.8)
    bool can_map_host_memory = false;
    std::string pci_bus_id;
};

} // namespace pl::gpu
