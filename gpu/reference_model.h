#pragma once
// The synthetic transformer's prefill computed plainly on the CPU: the K and V that DeviceContext::prefill
// writes into the arena, for every layer and position, from the same integer-hash weights and tokens
// (synthetic.h) with bf16 rounding where the device rounds (every activation it stores in bf16; scores stay
// fp32). gpu-selftest compares a device prefill of the "tiny" model with it ("model" check), so the whole
// network (attention, MLP, residuals, RoPE) is checked, not only layer 0. Host-only, C++17; slow by design
// (triple loops), meant for small shapes.
#include "gpu/transformer_shape.h"

#include <cstdint>
#include <vector>

namespace pl::gpu {

float roundToBf16(float f); // round to nearest even, as __float2bfloat16

struct ReferenceKv {
    std::int64_t layers = 0, tokens = 0, kv_heads = 0, head_dim = 0;
    std::vector<float> values; // [layer][kv (0 K, 1 V)][pos][kv_head][d]
    float at(std::int64_t layer, int kv, std::int64_t pos, std::int64_t head, std::int64_t d) const {
        return values[static_cast<std::size_t>(
            (((layer * 2 + kv) * tokens + pos) * kv_heads + head) * head_dim + d)];
    }
};

// Positions [0, tokens) of the request `seed`, in one pass (one chunk), as a one-shot recompute.
ReferenceKv referencePrefill(const TransformerShape& shape, std::uint32_t seed, std::int64_t tokens);

} // namespace pl::gpu
