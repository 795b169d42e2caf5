#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/ and runs each for SECONDS (default 25).
# usage: scripts/fuzz-ci.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-25}
cc=clang; cxx=clang++
command -v clang++ >/dev/null || { cc=clang-14; cxx=clang++-14; }
CC=$cc CXX=$cxx cmake -S . -B build-fuzz -G Ninja -DPREEMPTLAB_FUZZ=ON -DPREEMPTLAB_GUI=OFF \
    -DPREEMPTLAB_CUDA=OFF -DPREEMPTLAB_TESTS=OFF -DPREEMPTLAB_WERROR=ON
cmake --build build-fuzz --target fuzz_all -j"$(nproc)"
tests/fuzz/run-fuzzers.sh build-fuzz "$seconds" build-fuzz/fuzz-work
