#!/usr/bin/env bash
# device-check.sh [OUTDIR]: the one script a session with a CUDA device runs (docs/live-mode.md).
# Runs every GPU check and benchmark through the headless CLI (-DPREEMPTLAB_GUI=OFF: the GPU machine has no Qt,
# so the checks run through the CLI, not Qt Test). OUTDIR defaults to $OUT, else ./device-check-out.
#
# The CLI: device-kit/bin/preemptlab-cli when scripts/device-kit.sh made it from these very sources (its stamp
# matches scripts/source-stamp.sh) and it and its CUDA module (device-kit/lib/libpreemptlab-cuda.so, which it
# loads from ../lib for the device commands) load here; otherwise built from source into build-device/ (bin/ and
# lib/), with device-kit/prefix supplying nlohmann_json and OpenSSL where the machine lacks them.
#
# Steps, in order of value, inside one time budget (DEVICE_CHECK_BUDGET_S, default 480 s, so that the whole
# call stays inside the device tool's 600 s even with the build):
#   gpu-info, gpu-selftest, calibrate, run --live (swap), run --live --calibration (adaptive), memcheck
#   (compute-sanitizer on a shorter selftest, last because it is the slowest).
# OUTDIR gets at most 8 files (the device tool brings back no more), refreshed after every step so that what
# ran comes back even if the call is cut off:
#   summary.txt          one line per step: exit code and seconds; the CLI used; the device; then one
#                        "target ..." line per live-mode target (calibrate's verdicts and memcheck's): met,
#                        not met, not measured
#   gpu-info.txt         the device, driver, runtime
#   selftest.txt         gpu-selftest's report
#   calibration.json     the measurements and fits (preemptlab.calibration.v1)
#   calibrate.log        calibrate's table
#   memcheck.txt         compute-sanitizer's report (its tail when long)
#   device-check.tar.gz  every log and receipt (build logs, live runs, gpu-info.json, the above)
# Exit status: 0 when every step passed, 1 otherwise.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${1:-${OUT:-$PWD/device-check-out}}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
BUILD=${BUILD_DIR:-$SRC/build-device}
KIT=${DEVICE_KIT:-$SRC/device-kit}
ARCHS=${PREEMPTLAB_CUDA_ARCHS:-90}
JOBS=$(nproc 2>/dev/null || echo 4)
BUDGET=${DEVICE_CHECK_BUDGET_S:-480}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX")
SUMMARY=$WORK/summary.txt
: >"$SUMMARY"
failed=0

publish() { # copy the key files and a tarball of everything into OUTDIR (at most 8 files)
    local f
    for f in summary.txt gpu-info.txt selftest.txt calibration.json calibrate.log; do
        [ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUTDIR/$f"
    done
    if [ -f "$WORK/memcheck.txt" ]; then
        if [ "$(wc -c <"$WORK/memcheck.txt")" -gt 4000000 ]; then
            tail -c 4000000 "$WORK/memcheck.txt" >"$OUTDIR/memcheck.txt"
        else
            cp "$WORK/memcheck.txt" "$OUTDIR/memcheck.txt"
        fi
    fi
    tar -czf "$OUTDIR/device-check.tar.gz.part" -C "$WORK" . 2>/dev/null &&
        mv "$OUTDIR/device-check.tar.gz.part" "$OUTDIR/device-check.tar.gz"
}

step() { # step NAME LIMIT_S LOGFILE COMMAND...: run within what is left of the budget
    local name=$1 limit=$2 log=$3
    shift 3
    local left=$((BUDGET - SECONDS))
    if [ "$left" -lt 15 ]; then
        echo "$name: skipped ($left s left of the $BUDGET s budget)" >>"$SUMMARY"
        failed=1
        publish
        return 1
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    local t0=$SECONDS
    timeout -k 10 "$limit" "$@" >"$log" 2>&1  # -k: a step that ignores SIGTERM is killed 10 s later
    local rc=$?
    local note=""
    # 124: the timeout; 137 (SIGKILL) is the timeout's -k only when the limit was reached, else maybe memory.
    if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ $((SECONDS - t0)) -ge "$limit" ]; }; then
        note=", timed out at $limit s"
    elif [ "$rc" -eq 137 ]; then
        note=", killed (SIGKILL: out of memory?)"
    fi
    echo "$name: exit $rc ($((SECONDS - t0)) s$note)" >>"$SUMMARY"
    [ "$rc" -eq 0 ] || failed=1
    publish
    return "$rc"
}

cli_loads() { # the CLI starts (--version) and its CUDA module finds every library; why not, in cli-load.txt
    local module
    module=$(dirname "$1")/../lib/libpreemptlab-cuda.so
    {
        echo "\$ ldd $1"
        ldd "$1" 2>&1
        echo "\$ $1 --version"
        timeout -k 5 20 "$1" --version 2>&1
        echo "exit $?"
        echo "\$ ldd $module"
        ldd "$module" 2>&1
    } >>"$WORK/cli-load.txt"
    timeout -k 5 20 "$1" --version >/dev/null 2>&1 && [ -f "$module" ] && ldd "$module" >/dev/null 2>&1 &&
        ! ldd "$module" 2>&1 | grep -q 'not found'
}

# Where the CUDA runtime and cuBLAS may live (the kit's CLI was linked on another machine). The kit's libcrypto
# only where the machine has no libcrypto.so.3 of its own: LD_LIBRARY_PATH is searched before the system's
# cache, so adding it everywhere would put the kit's OpenSSL under cmake too.
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d
done
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
if ! "$LDCONFIG" -p 2>/dev/null | grep -q 'libcrypto\.so\.3 ' && [ -d "$KIT/prefix/lib" ]; then
    export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$KIT/prefix/lib
fi
# nvcc for a build from source, compute-sanitizer for memcheck.
[ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH

CLI=""
stamp=$("$SRC/scripts/source-stamp.sh" "$SRC")
kitstamp=$(cat "$KIT/stamp" 2>/dev/null || true)
if [ -x "$KIT/bin/preemptlab-cli" ] && [ "$kitstamp" = "$stamp" ] &&
    cli_loads "$KIT/bin/preemptlab-cli"; then
    CLI=$KIT/bin/preemptlab-cli
    echo "cli: device-kit/bin/preemptlab-cli (built by device-kit.sh from these sources, ${stamp:0:12})" >>"$SUMMARY"
else
    reason="no device-kit"
    if [ -x "$KIT/bin/preemptlab-cli" ]; then
        if [ "$kitstamp" != "$stamp" ]; then
            reason="device-kit CLI is from other sources: kit ${kitstamp:0:12}, here ${stamp:0:12}"
        else
            reason="device-kit CLI does not load here (cli-load.txt in the tarball says why)"
        fi
    fi
    echo "cli: building from source ($reason)" >>"$SUMMARY"
    HINTS=()
    if [ -d "$KIT/prefix" ]; then
        HINTS=(-DCMAKE_PREFIX_PATH="$KIT/prefix")
        # Only where the system has no libcrypto headers: then FindOpenSSL takes the kit's.
        [ -f /usr/include/openssl/evp.h ] || HINTS+=(-DOPENSSL_ROOT_DIR="$KIT/prefix")
    fi
    GEN=()
    [ ! -f "$BUILD/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
    step configure 120 "$WORK/configure.log" cmake -S "$SRC" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DPREEMPTLAB_GUI=OFF -DPREEMPTLAB_CUDA=ON -DPREEMPTLAB_TESTS=OFF -DPREEMPTLAB_CUDA_ARCHS="$ARCHS" \
        "${HINTS[@]}" || { cat "$SUMMARY"; exit 1; }
    step build 300 "$WORK/build.log" cmake --build "$BUILD" -j"$JOBS" --target preemptlab-cli ||
        { cat "$SUMMARY"; exit 1; }
    CLI=$BUILD/bin/preemptlab-cli
fi

step gpu-info 60 "$WORK/gpu-info.txt" "$CLI" gpu-info
timeout -k 5 30 "$CLI" gpu-info --json >"$WORK/gpu-info.json" 2>/dev/null
[ -f "$WORK/gpu-info.txt" ] && echo "device: $(head -n 1 "$WORK/gpu-info.txt")" >>"$SUMMARY"
step gpu-selftest 180 "$WORK/selftest.txt" "$CLI" gpu-selftest
step calibrate 240 "$WORK/calibrate.log" "$CLI" calibrate --out "$WORK/calibration.json"
# calibrate judges the swap and prefill targets itself (core/cost/calibration.h, targetReport).
if grep -q '^target ' "$WORK/calibrate.log" 2>/dev/null; then
    grep '^target ' "$WORK/calibrate.log" >>"$SUMMARY"
else
    echo "target swap and prefill: not measured (calibrate wrote no verdict; see calibrate.log)" >>"$SUMMARY"
fi
publish

# swap-wins: a small model, 128 MiB of host pool and 70 evictions, so both live runs fit their minute. (Not
# `ls A *`: ls sorts its arguments, which put azure-code-slice, 16 GiB of pinned host memory, first.)
SAMPLE=$SRC/samples/swap-wins.workload.json
[ -f "$SAMPLE" ] || SAMPLE=$(find "$SRC/samples" -name '*.workload.json' | sort | head -n 1)
if [ -n "$SAMPLE" ]; then
    step run-live 60 "$WORK/live-run.txt" "$CLI" run "$SAMPLE" --recovery swap --live \
        --out "$WORK/live-receipt.json"
    # The measured calibration in use: derived rates (printed), adaptive choosing with them, and each live
    # annotation's modelled_us from the fits beside its measured_us.
    if [ -s "$WORK/calibration.json" ]; then
        step run-live-calibrated 60 "$WORK/live-calibrated-run.txt" "$CLI" run "$SAMPLE" --recovery adaptive \
            --live --calibration "$WORK/calibration.json" --tick-ms 10 --out "$WORK/live-calibrated-receipt.json"
    fi
fi

SANITIZER=$(command -v compute-sanitizer || true)
# In this order: the default toolkit first, then versioned ones, then NVIDIA's standalone installs.
for s in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer \
    /usr/local/cuda-*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer/compute-sanitizer; do
    [ -z "$SANITIZER" ] && [ -x "$s" ] && SANITIZER=$s
done
if [ -n "$SANITIZER" ]; then
    failedBefore=$failed
    memcheckRc=0
    step memcheck 300 "$WORK/memcheck.txt" "$SANITIZER" --tool memcheck --leak-check full --error-exitcode 9 \
        "$CLI" gpu-selftest --cycles 20 || memcheckRc=$?
    # The step's exit code mixes two verdicts: 9 is memcheck's (errors found); any other non-zero is the
    # selftest's own or the tool's. Say which, with memcheck's own summary line.
    verdict=$(grep -m1 "ERROR SUMMARY" "$WORK/memcheck.txt" 2>/dev/null | sed 's/^=* *//')
    echo "memcheck verdict: ${verdict:-no ERROR SUMMARY line (see memcheck.txt)}" >>"$SUMMARY"
    # The selftest under the tool can fail its leak check for the tool's own device allocations (it compares
    # free memory exactly); memcheck's finding is the ERROR SUMMARY, the selftest's is the gpu-selftest step.
    if grep -q "ERROR SUMMARY: 0 errors" "$WORK/memcheck.txt" 2>/dev/null && grep -q "^FAIL" "$WORK/memcheck.txt"; then
        echo "memcheck: clean; the selftest under it failed $(grep -c '^FAIL' "$WORK/memcheck.txt") check(s):" \
            "$(grep '^FAIL' "$WORK/memcheck.txt" | cut -c1-120 | tr '\n' ';')" >>"$SUMMARY"
    fi
    if grep -q "ERROR SUMMARY: 0 errors" "$WORK/memcheck.txt" 2>/dev/null; then
        echo "target memcheck clean on the selftest: met (${verdict})" >>"$SUMMARY"
        # Clean is the memcheck verdict; the selftest's own is the gpu-selftest step above. A step that ran to
        # its end (not timed out or killed) and failed only the exact free-memory check under the tool does
        # not fail the run; any other failing check still does.
        otherFails=$(grep '^FAIL' "$WORK/memcheck.txt" | grep -vc '^FAIL leak: ')
        if [ "$memcheckRc" -ne 124 ] && [ "$memcheckRc" -ne 137 ] && [ "$otherFails" -eq 0 ]; then
            failed=$failedBefore
        fi
    elif grep -q "Device not supported" "$WORK/memcheck.txt" 2>/dev/null; then
        echo "memcheck: compute-sanitizer does not support this device or runtime (not a finding)" >>"$SUMMARY"
        echo "target memcheck clean on the selftest: not measured (device not supported by the tool)" >>"$SUMMARY"
    elif [ -n "$verdict" ]; then
        echo "target memcheck clean on the selftest: not met (${verdict})" >>"$SUMMARY"
    else
        echo "target memcheck clean on the selftest: not measured (no ERROR SUMMARY line)" >>"$SUMMARY"
    fi
    publish
else
    echo "memcheck: skipped (compute-sanitizer not found)" >>"$SUMMARY"
    echo "target memcheck clean on the selftest: not measured (compute-sanitizer not found)" >>"$SUMMARY"
    publish
fi

echo "total: $SECONDS s of a $BUDGET s budget" >>"$SUMMARY"
publish
cat "$SUMMARY"
rm -rf "$WORK"
exit "$failed"
