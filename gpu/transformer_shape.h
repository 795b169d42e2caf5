#pragma once
// TransformerShape: the model whose prefill live mode runs for recompute, and whose KV shape sizes the arena.
// Weights are synthetic (synthetic.h) but the shapes are real, so the FLOPs and bytes are those of the model.
// Presets use the published configurations; "tiny" is the selftest's model. Host-only, C++17.

#include "gpu/kv_layout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pl::gpu {

struct TransformerShape {
    std::string name = "tiny";
    std::int64_t layers = 2;
    std::int64_t hidden = 256;
    std::int64_t heads = 4;
    std::int64_t kv_heads = 2;
    std::int64_t head_dim = 64;
    std::int64_t ffn = 512;        // intermediate size of the gated MLP
    double rope_theta = 500000.0;  // Llama 3
};

// tiny, then the cost model's presets (core/cost/model_preset.h) by the same names and KV shapes: llama-3.1-8b,
// llama-3.1-70b (about 128 GiB of bf16 weights: an H200 holds it, an H100 does not), llama-2-7b, mistral-7b,
// qwen2.5-7b.
const std::vector<TransformerShape>& transformerPresets();
std::optional<TransformerShape> findTransformerPreset(const std::string& name);
std::string transformerPresetNames();
// Why the shape cannot run (names the field), or nullopt: heads a multiple of kv_heads, head_dim even and a
// multiple of 8, hidden = heads x head_dim, all positive.
std::optional<std::string> checkShape(const TransformerShape& s);

// A shape for a workload that declares only kv_bytes_per_token: a preset whose bf16 KV matches exactly and
// whose bf16 weights are at most kMaxAutoWeightBytes (so not llama-3.1-70b: only by name), else Llama-like
// layers of 8 KV heads x 128 (4,096 bytes per layer per token) or 1 KV head x 128 (512), rounded up. `note`
// says which and why.
inline constexpr std::int64_t kMaxAutoWeightBytes = std::int64_t{32} << 30;
TransformerShape shapeForKvBytes(std::int64_t kvBytesPerToken, std::string* note);

KvShape kvShapeOf(const TransformerShape& s, std::int64_t blockSize, std::int64_t numBlocks, KvDtype dtype);
std::int64_t weightParams(const TransformerShape& s); // per-layer projections and MLP, all layers
// FLOPs of a prefill of `tokens` new tokens after `past` cached ones: 2 x params x tokens for the GEMMs,
// plus 4 x layers x heads x head_dim per (query, key) pair of the causal attention.
double prefillFlops(const TransformerShape& s, std::int64_t past, std::int64_t tokens);

} // namespace pl::gpu
