#pragma once
// ModelSpec: the architecture numbers the cost model needs (docs/cost-model.md), and presets for well-known
// models taken from their published configurations. Any other model is given by its numbers.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pl::cost {

struct ModelSpec {
    std::string name;              // preset key ("llama-3.1-8b") or "custom"
    std::string display;           // human name ("Llama 3.1 8B")
    std::int64_t layers = 0;       // transformer layers
    std::int64_t heads = 0;        // attention (query) heads
    std::int64_t kv_heads = 0;     // key/value heads (== heads for MHA, fewer for GQA)
    std::int64_t head_dim = 0;     // dimension of one head
    double params = 0.0;           // parameter count N (weights term of prefill: 2N FLOP per token)
    std::int64_t kv_dtype_bytes = 2;     // 2 for bf16/fp16, 1 for fp8
    std::int64_t weight_dtype_bytes = 2; // bytes per weight read by a decode step (bf16)
    friend bool operator==(const ModelSpec&, const ModelSpec&) = default;
};

// KV bytes one token adds to the cache across all layers: 2 (K and V) x layers x kv_heads x head_dim x bytes.
std::int64_t kvBytesPerToken(const ModelSpec& m);

// Attention FLOP per (query token, context token) pair: 4 x layers x heads x head_dim (QK^T and AV).
double attentionFlopPerPair(const ModelSpec& m);

const std::vector<ModelSpec>& modelPresets();
// The model a command uses when none is named.
inline constexpr std::string_view kDefaultModelPreset = "llama-3.1-8b";
std::optional<ModelSpec> findModelPreset(std::string_view name);
// "llama-3.1-8b, llama-3.1-70b, ..." for help and error messages.
std::string modelPresetNames();

// Parses a KV dtype given as a name (bf16, fp16, fp8, fp32) or a byte count (1..8).
std::optional<std::int64_t> parseDtypeBytes(std::string_view s);

} // namespace pl::cost
