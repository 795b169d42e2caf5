#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each, seeded from samples/, receipts the CLI writes for the small
# samples, and hand-written trace rows. Prints one summary line per target (executions, coverage, corpus) and
# fails if any target reports a crash, a leak, a timeout or a sanitizer error.
# usage: tests/fuzz/run-fuzzers.sh BUILD_DIR SECONDS [WORK_DIR]
#   FUZZ_SEED=N (environment): libFuzzer's -seed; unset, each run explores differently.
#   FUZZ_RUNS="fuzz_engine:2000 ..." (environment): at most that many executions of a target (-runs). SECONDS still
#     caps the time. CI uses a fixed seed and fixed counts (scripts/fuzz-ci.sh); longer runs with random seeds
#     are how bugs are hunted (docs/reliability.md).
#   BUILD_DIR: a build configured with CC=clang CXX=clang++ -DPREEMPTLAB_FUZZ=ON (target fuzz_all built)
set -euo pipefail
build=$(cd "$1" && pwd)
seconds=$2
work=${3:-$build/fuzz-work}
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/bin
mkdir -p "$work"

seed() { # seed TARGET: fills $work/seeds/TARGET
    local dir=$work/seeds/$1
    rm -rf "$dir" && mkdir -p "$dir"
    case $1 in
    fuzz_workload)
        cp "$src"/samples/*.workload.json "$dir"/ ;;
    fuzz_receipt)
        for s in seed-example livelock-next-block swap-wins recompute-wins multi-tenant; do
            for m in recompute swap adaptive hybrid; do
                "$bin/preemptlab-cli" run "$src/samples/$s.workload.json" --recovery $m --out "$dir/$s-$m.json" 2>/dev/null
            done
        done ;;
    fuzz_trace) # byte 0 bit 0: format (0 Azure, 1 Mooncake); the other bits and byte 1 choose options
        printf '\x00\x00TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n' >"$dir/azure"
        printf '\xc8\x15TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,100,4\n2023-11-16 18:15:46,60,3\n2024-02-29 23:59:59.9999999,7,1\n' >"$dir/azure-spread"
        printf '\x11\x00{"timestamp": 0, "input_length": 1100, "output_length": 7, "hash_ids": [0, 1, 2]}\n{"timestamp": 3000, "input_length": 600, "output_length": 3, "hash_ids": [0, 9]}\n' >"$dir/mooncake"
        printf '\x5b\x96{"timestamp": 0, "input_length": 300, "output_length": 70, "hash_ids": [4]}\n{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [5]}\n' >"$dir/mooncake-spread" ;;
    fuzz_engine)
        head -c 256 /dev/zero >"$dir/zeros"
        printf 'preemptlab fuzz seed: any bytes make a workload' >"$dir/text" ;;
    esac
}

runs_for() { # runs_for TARGET: the -runs option from FUZZ_RUNS, or nothing
    local entry
    for entry in ${FUZZ_RUNS:-}; do
        [ "${entry%%:*}" = "$1" ] && echo "-runs=${entry#*:}"
    done
    return 0
}

status=0
printf '%-14s %10s %8s %8s %8s %s\n' target execs exec/s cov ft result
for t in fuzz_workload fuzz_receipt fuzz_trace fuzz_engine; do
    seed $t
    corpus=$work/corpus/$t
    mkdir -p "$corpus" "$work/artifacts/$t"
    log=$work/$t.log
    rc=0
    # shellcheck disable=SC2046
    "$bin/$t" "$corpus" "$work/seeds/$t" -dict="$src/tests/fuzz/json.dict" -max_total_time="$seconds" \
        ${FUZZ_SEED:+-seed="$FUZZ_SEED"} $(runs_for "$t") -timeout=20 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/$t/" >"$log" 2>&1 || rc=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    result=ok
    if [ "$rc" -ne 0 ]; then
        result="FAILED (rc $rc, see $log and $work/artifacts/$t/)"
        status=1
        grep -E 'FUZZ BUG|ERROR: |runtime error|SUMMARY' "$log" | head -5 || true
    fi
    printf '%-14s %10s %8s %8s %8s %s\n' "$t" "$execs" "$speed" "$cov" "$ft" "$result"
done
exit $status
