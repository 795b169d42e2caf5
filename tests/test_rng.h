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

} // namespace pltest
