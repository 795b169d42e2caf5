#pragma once
// Deterministic synthetic data shared by the device kernels and host code (C++17, __host__ __device__ under
// nvcc): the token ids of a request, the embedding table, the model's weights and the swap test patterns are
// all functions of integers, so a run is reproducible and nothing has to be stored or uploaded.

#include <cstdint>

#if defined(__CUDACC__)
#define PL_HD __host__ __device__ __forceinline__
#else
#define PL_HD inline
#endif

namespace pl::gpu {

// MurmurHash3's 32-bit finaliser: a bijection with good avalanche.
PL_HD std::uint32_t mix32(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

PL_HD std::uint32_t hash3(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    return mix32(a * 0x9e3779b1u ^ mix32(b + 0x7f4a7c15u) ^ mix32(c * 0x85ebca77u + 0x165667b1u));
}

// SplitMix64's finaliser, for checksums.
PL_HD std::uint64_t mix64(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

// Uniform in [-1, 1) from the top 24 bits.
PL_HD float uniformPm1(std::uint32_t h) { return static_cast<float>(h >> 8) * (1.0f / 8388608.0f) - 1.0f; }

inline constexpr std::uint32_t kVocab = 32000;

// Token at position `pos` of the request whose seed is `seed`.
PL_HD std::uint32_t syntheticToken(std::uint32_t seed, std::int64_t pos) {
    return hash3(seed, static_cast<std::uint32_t>(pos), 0x70u) % kVocab;
}
PL_HD float embeddingValue(std::uint32_t token, std::int64_t d) {
    return uniformPm1(hash3(token, static_cast<std::uint32_t>(d), 0xE3u));
}
// Weight `index` of tensor `tensor` (layer x 8 + which), uniform in [-scale, scale).
PL_HD float weightValue(std::uint32_t tensor, std::int64_t index, float scale) {
    return scale * uniformPm1(hash3(tensor, static_cast<std::uint32_t>(index),
                                    static_cast<std::uint32_t>(index >> 32) ^ 0x5Au));
}

} // namespace pl::gpu
