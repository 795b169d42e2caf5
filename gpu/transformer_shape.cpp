#include "gpu/transformer_shape.h"

#include "core/presets.h"

namespace pl::gpu {

const std::vector<TransformerShape>& transformerPresets() {
    // name, layers, hidden, heads, kv_heads, head_dim, ffn, rope_theta (from each model's config.json)
    static const std::vector<TransformerShape> presets = {
        {"tiny", 2, 256, 4, 2, 64, 512, 500000.0},
        {"llama-3.1-8b", 32, 4096, 32, 8, 128, 14336, 500000.0},
        {"llama-3.1-70b", 80, 8192, 64, 8, 128, 28672, 500000.0},
        {"llama-2-7b", 32, 4096, 32, 32, 128, 11008, 10000.0},
        {"mistral-7b", 32, 4096, 32, 8, 128, 14336, 1000000.0},
        {"qwen2.5-7b", 28, 3584, 28, 4, 128, 18944, 1000000.0},
    };
    return presets;
}

std::optional<TransformerShape> findTransformerPreset(const std::string& name) {
    return findPreset(transformerPresets(), name);
}

std::string transformerPresetNames() { return presetNames(transformerPresets()); }

std::optional<std::string> checkShape(const TransformerShape& s) {
    const struct {
        const char* name;
        std::int64_t v;
    } f[] = {{"layers", s.layers},     {"hidden", s.hidden},     {"heads", s.heads},
             {"kv_heads", s.kv_heads}, {"head_dim", s.head_dim}, {"ffn", s.ffn}};
    for (const auto& x : f) {
        if (x.v < 1 || x.v > 65536) {
            return std::string("model.") + x.name + ": must be from 1 to 65536, got " + std::to_string(x.v);
        }
    }
    if (s.heads % s.kv_heads != 0) {
        return "model.heads: " + std::to_string(s.heads) + " is not a multiple of kv_heads " +
               std::to_string(s.kv_heads);
    }
    if (s.head_dim % 8 != 0) {
        return "model.head_dim: must be a multiple of 8, got " + std::to_string(s.head_dim);
    }
    if (s.hidden != s.heads * s.head_dim) {
        return "model.hidden: must equal heads x head_dim (" + std::to_string(s.heads * s.head_dim) + "), got " +
               std::to_string(s.hidden);
    }
    if (s.hidden % 8 != 0 || s.ffn % 8 != 0) {
        return "model.hidden/ffn: must be multiples of 8";
    }
    return std::nullopt;
}

TransformerShape shapeForKvBytes(std::int64_t kvBytesPerToken, std::string* note) {
    for (const auto& p : transformerPresets()) {
        // Only on request (--model): a 70B's 127.5 GiB of weights would not fit beside an arena on most cards.
        if (2 * weightParams(p) > kMaxAutoWeightBytes) {
            continue;
        }
        if (2 * p.layers * p.kv_heads * p.head_dim * 2 == kvBytesPerToken) {
            if (note) {
                *note = "model " + p.name + " (its bf16 KV is " + std::to_string(kvBytesPerToken) + " B/token)";
            }
            return p;
        }
    }
    TransformerShape s;
    s.head_dim = 128;
    const std::int64_t perLayer = kvBytesPerToken >= 4096 ? 4096 : 512;
    s.kv_heads = perLayer / (2 * 2 * s.head_dim);
    s.layers = (kvBytesPerToken + perLayer - 1) / perLayer;
    if (s.layers < 1) {
        s.layers = 1;
    }
    if (s.layers > 128) {
        s.layers = 128;
    }
    s.heads = s.kv_heads * 4;
    s.hidden = s.heads * s.head_dim;
    s.ffn = s.hidden * 3;
    s.name = "synthetic-" + std::to_string(s.layers) + "x" + std::to_string(s.kv_heads) + "x128";
    if (note) {
        *note = "model " + s.name + ": " + std::to_string(s.layers * perLayer) +
                " B/token of bf16 KV for the workload's " + std::to_string(kvBytesPerToken) +
                " (no preset matches exactly)";
    }
    return s;
}

KvShape kvShapeOf(const TransformerShape& s, std::int64_t blockSize, std::int64_t numBlocks, KvDtype dtype) {
    KvShape k;
    k.layers = s.layers;
    k.kv_heads = s.kv_heads;
    k.head_dim = s.head_dim;
    k.block_size = blockSize;
    k.num_blocks = numBlocks;
    k.dtype = dtype;
    return k;
}

std::int64_t weightParams(const TransformerShape& s) {
    const std::int64_t qkv = s.hidden * (s.heads + 2 * s.kv_heads) * s.head_dim;
    const std::int64_t o = s.heads * s.head_dim * s.hidden;
    const std::int64_t mlp = 3 * s.hidden * s.ffn;
    return s.layers * (qkv + o + mlp);
}

double prefillFlops(const TransformerShape& s, std::int64_t past, std::int64_t tokens) {
    const double gemm = 2.0 * static_cast<double>(weightParams(s)) * static_cast<double>(tokens);
    // Causal pairs: query i (0-based within the chunk) sees past + i + 1 keys.
    const double pairs = static_cast<double>(tokens) * static_cast<double>(past) +
                         static_cast<double>(tokens) * static_cast<double>(tokens + 1) / 2.0;
    return gemm + 4.0 * static_cast<double>(s.layers * s.heads * s.head_dim) * pairs;
}

} // namespace pl::gpu
