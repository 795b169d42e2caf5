#pragma once
// The slow property suites shrink their grids under sanitizers (about 3-10x slower): scripts/sanitize-test.sh
// sets PREEMPTLAB_SANITIZER_SCALE=N and those suites then run about 1/N of their combinations, chosen so that
// every policy value still appears. Unset (the normal build): 1, the full grid.

#include <cstdlib>

namespace pltest {

inline int sanitizerScale() {
    const char* value = std::getenv("PREEMPTLAB_SANITIZER_SCALE");
    const int scale = value ? std::atoi(value) : 1;
    return scale < 1 ? 1 : scale;
}

} // namespace pltest
