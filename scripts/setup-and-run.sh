#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds the lab in build/ (the lab only: no test suites, which are
# scripts/test.sh's job; -DPREEMPTLAB_TESTS=OFF), and opens it on a bundled sample.
# usage: scripts/setup-and-run.sh [WORKLOAD]     (default: samples/seed-example.workload.json)
# The CLI of README's tour: cmake --build build -j2 --target preemptlab-cli (or all of it: cmake --build build -j2).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPREEMPTLAB_TESTS=OFF -DPREEMPTLAB_PCH=ON
cmake --build build -j"$(nproc)" --target preemptlab
exec build/bin/preemptlab --workload "${1:-samples/seed-example.workload.json}"
