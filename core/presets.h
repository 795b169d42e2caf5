#pragma once
// Lookups over a list of named presets (the cost model's models and GPUs, live mode's transformer shapes):
// every preset type has a `name` field, the key its flags and files use.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl {

// The preset called `name`, or nullopt.
template <class Preset>
std::optional<Preset> findPreset(const std::vector<Preset>& presets, std::string_view name) {
    for (const auto& p : presets) {
        if (p.name == name) {
            return p;
        }
    }
    return std::nullopt;
}

// "a, b, c": the names in order, for "is not one of ..." messages and usage text.
template <class Preset>
std::string presetNames(const std::vector<Preset>& presets) {
    std::string out;
    for (const auto& p : presets) {
        out += (out.empty() ? "" : ", ") + p.name;
    }
    return out;
}

} // namespace pl
