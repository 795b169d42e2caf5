#!/usr/bin/env bash
# Engine benchmark figures for docs/performance.md: ns per request-tick, receipt time and size, memory per
# request, Session seeking, and the whole-process time of `run` on the same generated workload.
# usage: scripts/bench.sh [BUILD_DIR]   (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
B="${1:-build}/bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 10000 100000; do
    echo "== generated workload, $n requests"
    "$B/preemptlab-cli" bench --requests "$n" --rate 0.15 --max-ticks $((n * 20)) --repeat 5 --seek --write-workload "$tmp/w$n.json"
    /usr/bin/time -f "run (whole process): %e s wall, %M KiB peak RSS" \
        "$B/preemptlab-cli" run "$tmp/w$n.json" --out "$tmp/r$n.json" 2>&1 | tail -1
    echo "receipt file: $(stat -c %s "$tmp/r$n.json") bytes"
done
