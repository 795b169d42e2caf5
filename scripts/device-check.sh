#!/usr/bin/env bash
# device-check.sh [OUTDIR]: the one script a session with a CUDA device runs (docs/live-mode.md).
# Builds the headless CLI (-DPREEMPTLAB_GUI=OFF: the GPU machine has no Qt, so the checks run through the
# CLI, not Qt Test), then runs every GPU check and benchmark, writing everything under OUTDIR (default: $OUT,
# else ./device-check-out):
#   configure.log build.log         the build (with nvcc time)
#   gpu-info.txt gpu-info.json      the device
#   selftest.txt                    gpu-selftest (swaps x3 methods, fp8, kernels vs CPU, recompute, leak, errors)
#   memcheck.txt                    compute-sanitizer --tool memcheck on the selftest (when installed)
#   calibration.json calibrate.log  calibrate (swap bandwidth per method/block size/copy size, prefill, fits)
#   live-run.txt                    run --live on a sample (needs the lead's wiring of makeLiveBackend)
#   live-calibrated-run.txt         run --live --calibration calibration.json --tick-ms 10 (rates and modelled us)
#   summary.txt                     one line per step with its exit code
# Exit status: 0 when every step passed, 1 otherwise.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${1:-${OUT:-$PWD/device-check-out}}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
BUILD=${BUILD_DIR:-$SRC/build-device}
ARCHS=${PREEMPTLAB_CUDA_ARCHS:-90}
JOBS=$(nproc 2>/dev/null || echo 4)
SUMMARY=$OUTDIR/summary.txt
: >"$SUMMARY"
failed=0

step() { # step NAME TIMEOUT_S LOGFILE COMMAND...
    local name=$1 limit=$2 log=$3
    shift 3
    local t0=$SECONDS
    timeout "$limit" "$@" >"$log" 2>&1
    local rc=$?
    echo "$name: exit $rc ($((SECONDS - t0)) s)" >>"$SUMMARY"
    [ "$rc" -eq 0 ] || failed=1
    return "$rc"
}

GEN=()
[ ! -f "$BUILD/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
step configure 300 "$OUTDIR/configure.log" cmake -S "$SRC" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DPREEMPTLAB_GUI=OFF -DPREEMPTLAB_CUDA=ON -DPREEMPTLAB_TESTS=OFF -DPREEMPTLAB_CUDA_ARCHS="$ARCHS" || {
    cat "$SUMMARY"
    exit 1
}
step build 600 "$OUTDIR/build.log" cmake --build "$BUILD" -j"$JOBS" --target preemptlab-cli || {
    cat "$SUMMARY"
    exit 1
}
CLI=$BUILD/bin/preemptlab-cli

step gpu-info 60 "$OUTDIR/gpu-info.txt" "$CLI" gpu-info
"$CLI" gpu-info --json >"$OUTDIR/gpu-info.json" 2>/dev/null
step gpu-selftest 300 "$OUTDIR/selftest.txt" "$CLI" gpu-selftest

SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$SANITIZER" ]; then
    step memcheck 600 "$OUTDIR/memcheck.txt" "$SANITIZER" --tool memcheck --leak-check full --error-exitcode 9 \
        "$CLI" gpu-selftest --cycles 20
else
    echo "memcheck: skipped (compute-sanitizer not found)" >>"$SUMMARY"
fi

step calibrate 600 "$OUTDIR/calibrate.log" "$CLI" calibrate --out "$OUTDIR/calibration.json"

SAMPLE=$(ls "$SRC"/samples/swap-wins.workload.json "$SRC"/samples/*.workload.json 2>/dev/null | head -n 1)
if [ -n "$SAMPLE" ]; then
    step run-live 300 "$OUTDIR/live-run.txt" "$CLI" run "$SAMPLE" --recovery swap --live --out "$OUTDIR/live-receipt.json"
    # The measured calibration in use: derived rates (printed), adaptive choosing with them, and each live
    # annotation's modelled_us from the fits beside its measured_us.
    if [ -s "$OUTDIR/calibration.json" ]; then
        step run-live-calibrated 300 "$OUTDIR/live-calibrated-run.txt" "$CLI" run "$SAMPLE" --recovery adaptive \
            --live --calibration "$OUTDIR/calibration.json" --tick-ms 10 --out "$OUTDIR/live-calibrated-receipt.json"
    fi
fi

cat "$SUMMARY"
exit "$failed"
