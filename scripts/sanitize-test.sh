#!/usr/bin/env bash
# Builds the whole test suite with g++ -fsanitize=address,undefined -fno-sanitize-recover=all in build-asan/
# and runs it: any ASan or UBSan report fails the test that triggered it, so ctest fails.
# The GUI suites run too (QT_QPA_PLATFORM=offscreen). The engine's property grids shrink under sanitizers
# (PREEMPTLAB_SANITIZER_SCALE, see docs/reliability.md); nothing is skipped.
# usage: scripts/sanitize-test.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPREEMPTLAB_SANITIZE=ON \
      -DPREEMPTLAB_CUDA=OFF -DPREEMPTLAB_WERROR=ON "$@"
cmake --build build-asan -j"$(nproc)"
cd build-asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/../scripts/lsan.supp
export PREEMPTLAB_SANITIZER_SCALE=${PREEMPTLAB_SANITIZER_SCALE:-4}
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$(nproc)"
