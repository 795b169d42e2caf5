#include "core/cost/model_preset.h"

#include "core/presets.h"

#include <charconv>

namespace pl::cost {

std::int64_t kvBytesPerToken(const ModelSpec& m) {
    return 2 * m.layers * m.kv_heads * m.head_dim * m.kv_dtype_bytes;
}

double attentionFlopPerPair(const ModelSpec& m) {
    return 4.0 * static_cast<double>(m.layers) * static_cast<double>(m.heads) * static_cast<double>(m.head_dim);
}

const std::vector<ModelSpec>& modelPresets() {
    // Numbers from each model's published config.json (num_hidden_layers, num_attention_heads,
    // num_key_value_heads, hidden_size / num_attention_heads) and its reported parameter count.
    static const std::vector<ModelSpec> presets = {
        {"llama-3.1-8b", "Llama 3.1 8B", 32, 32, 8, 128, 8.03e9, 2, 2},
        {"llama-3.1-70b", "Llama 3.1 70B", 80, 64, 8, 128, 70.6e9, 2, 2},
        {"llama-2-7b", "Llama 2 7B (MHA)", 32, 32, 32, 128, 6.74e9, 2, 2},
        {"mistral-7b", "Mistral 7B", 32, 32, 8, 128, 7.24e9, 2, 2},
        {"qwen2.5-7b", "Qwen2.5 7B", 28, 28, 4, 128, 7.61e9, 2, 2},
    };
    return presets;
}

std::optional<ModelSpec> findModelPreset(std::string_view name) { return findPreset(modelPresets(), name); }

std::string modelPresetNames() { return presetNames(modelPresets()); }

std::optional<std::int64_t> parseDtypeBytes(std::string_view s) {
    if (s == "bf16" || s == "fp16") {
        return 2;
    }
    if (s == "fp8" || s == "int8") {
        return 1;
    }
    if (s == "fp32") {
        return 4;
    }
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr != s.data() + s.size() || v < 1 || v > 8) {
        return std::nullopt;
    }
    return v;
}

} // namespace pl::cost
