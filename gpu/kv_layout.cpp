#include "gpu/kv_layout.h"

namespace pl::gpu {

const char* toString(KvDtype d) { return d == KvDtype::Bf16 ? "bf16" : "fp8"; }

std::optional<KvDtype> parseKvDtype(const std::string& s) {
    if (s == "bf16") {
        return KvDtype::Bf16;
    }
    if (s == "fp8" || s == "fp8_e4m3") {
        return KvDtype::Fp8E4M3;
    }
    return std::nullopt;
}

std::int64_t dtypeBytes(KvDtype d) { return d == KvDtype::Bf16 ? 2 : 1; }

std::optional<std::string> KvLayout::check(const KvShape& s) {
    constexpr std::int64_t kFieldMax = std::int64_t{1} << 20;
    const struct {
        const char* name;
        std::int64_t value;
    } fields[] = {{"layers", s.layers},         {"kv_heads", s.kv_heads},     {"head_dim", s.head_dim},
                  {"block_size", s.block_size}, {"num_blocks", s.num_blocks}};
    for (const auto& f : fields) {
        if (f.value < 1 || f.value > kFieldMax) {
            return std::string(f.name) + ": must be from 1 to " + std::to_string(kFieldMax) + ", got " +
                   std::to_string(f.value);
        }
    }
    const KvLayout l(s);
    if (l.tokenBytes() > kFieldMax || l.chunkBytes() > (std::int64_t{1} << 30)) {
        return "kv_heads x head_dim x block_size: one chunk of " + std::to_string(s.block_size) +
               " tokens is over 1 GiB";
    }
    if (l.chunkBytes() % 16 != 0) {
        return "block_size x kv_heads x head_dim x dtype bytes: a chunk of " + std::to_string(l.chunkBytes()) +
               " bytes is not a multiple of 16";
    }
    // layers, 2 and chunks are each below 2^20 / 2^30: check the product before it can overflow.
    if (s.layers * 2 * s.num_blocks > (std::int64_t{1} << 40) / (l.chunkBytes() / 16 + 1)) {
        return "num_blocks: the arena would exceed 2^44 bytes";
    }
    return std::nullopt;
}

} // namespace pl::gpu
