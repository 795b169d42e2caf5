#pragma once
// HardwareSpec: one GPU as the cost model sees it (dense BF16 peak, HBM bandwidth, host link per direction,
// memory size), with presets from the vendors' public data sheets. Link figures are the paper numbers per
// direction; a measured (achieved) bandwidth is given separately as CostInputs::link_gbps.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl::cost {

struct HardwareSpec {
    std::string name;          // preset key ("h100-sxm") or "custom"
    std::string display;       // "H100 SXM"
    double bf16_tflops = 0.0;  // dense BF16 tensor peak, TFLOP/s (no sparsity)
    double hbm_tbps = 0.0;     // device memory bandwidth, TB/s
    double link_gbps = 0.0;    // host link bandwidth per direction on paper, GB/s
    std::string link;          // "PCIe Gen5 x16"
    double memory_gb = 0.0;    // device memory, GB (10^9 bytes); 0 when unknown
    friend bool operator==(const HardwareSpec&, const HardwareSpec&) = default;
};

const std::vector<HardwareSpec>& hardwarePresets();
// The GPU a command uses when none is named.
inline constexpr std::string_view kDefaultHardwarePreset = "h100-sxm";
std::optional<HardwareSpec> findHardwarePreset(std::string_view name);
std::string hardwarePresetNames();

} // namespace pl::cost
