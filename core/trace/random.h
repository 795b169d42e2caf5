#pragma once
// Rng: the project's one named random generator (xoshiro256** by Blackman and Vigna, seeded through
// splitmix64). The standard engines and distributions differ across standard libraries, so generators and
// the importer's timestamp spreading use this type and the samplers in sampling.h only: the same seed gives
// the same workload on every platform.

#include <cstdint>

namespace pl::trace {

// splitmix64 step: also used on its own to derive a per-row value from (seed, row) without shared state.
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// A stateless hash of (seed, key): the same pair always gives the same value.
constexpr std::uint64_t mix(std::uint64_t seed, std::uint64_t key) {
    std::uint64_t s = seed ^ (key * 0xD1B54A32D192ED03ULL);
    splitmix64(s);
    return splitmix64(s);
}

class Rng {
  public:
    explicit constexpr Rng(std::uint64_t seed) {
        std::uint64_t s = seed;
        for (auto& word : s_) {
            word = splitmix64(s);
        }
    }

    constexpr std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform integer in [0, bound) for bound >= 1, without modulo bias (rejection as in OpenBSD's arc4random_uniform).
    constexpr std::uint64_t below(std::uint64_t bound) {
        const std::uint64_t threshold = (0 - bound) % bound;
        for (;;) {
            const std::uint64_t r = next();
            if (r >= threshold) {
                return r % bound;
            }
        }
    }

    // Uniform double in (0, 1): 53 random bits, never exactly 0 (safe for log).
    double open01() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }

  private:
    std::uint64_t s_[4] = {};
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
};

} // namespace pl::trace
