#pragma once
// A small seeded generator for randomised tests (xorshift64): the same draws on every machine and compiler,
// which std::uniform_int_distribution does not promise.
#include <cstdint>

namespace pltest {

class XorShift {
  public:
    explicit XorShift(std::uint64_t seed) : x_(seed != 0 ? seed : 0x9E3779B97F4A7C15ull) {}
    // A draw in [0, n), n >= 1.
    std::int64_t below(std::uint64_t n) {
        x_ ^= x_ << 13;
        x_ ^= x_ >> 7;
        x_ ^= x_ << 17;
        return static_cast<std::int64_t>(x_ % n);
    }

  private:
    std::uint64_t x_;
};

// splitmix64, for the receipt and recovery property tests (their figures in the docs were measured with it).
struct SplitMix {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // A draw in [lo, hi].
    std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
        return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }
};

} // namespace pltest
