#include "core/cost/hardware_preset.h"

#include "core/presets.h"

namespace pl::cost {

const std::vector<HardwareSpec>& hardwarePresets() {
    // NVIDIA data sheets (dense figures: the sheets' BF16 numbers "with sparsity" are halved).
    // PCIe per direction on paper: Gen5 x16 64 GB/s, Gen4 x16 32 GB/s.
    static const std::vector<HardwareSpec> presets = {
        {"h100-sxm", "H100 SXM", 989.0, 3.35, 64.0, "PCIe Gen5 x16", 80.0},
        {"h200", "H200 SXM", 989.0, 4.8, 64.0, "PCIe Gen5 x16", 141.0},
        {"a100-80gb", "A100 80GB SXM", 312.0, 2.039, 32.0, "PCIe Gen4 x16", 80.0},
        {"l40s", "L40S", 362.05, 0.864, 32.0, "PCIe Gen4 x16", 48.0},
    };
    return presets;
}

std::optional<HardwareSpec> findHardwarePreset(std::string_view name) { return findPreset(hardwarePresets(), name); }

std::string hardwarePresetNames() { return presetNames(hardwarePresets()); }

} // namespace pl::cost
