#!/usr/bin/env bash
# Builds everything (warnings are errors) in build-test/ and runs every test suite. This is the README's test
# command and what .ci/run calls.
# usage: scripts/test.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Release -DPREEMPTLAB_WERROR=ON "$@"
cmake --build build-test -j"$(nproc)"
cd build-test
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$(nproc)"
