#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds PreemptLab in build/, and opens the lab on a bundled sample.
# usage: scripts/setup-and-run.sh [WORKLOAD]     (default: samples/seed-example.workload.json)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
exec build/bin/preemptlab --workload "${1:-samples/seed-example.workload.json}"
