#!/usr/bin/env bash
# device-kit.sh [KITDIR]: prepare, on this machine (nvcc needed, no GPU), what a bare GPU machine needs to run
# scripts/device-check.sh without installing anything (docs/live-mode.md, "Running the device check").
#
# A lent GPU machine has CUDA, CMake and ninja but maybe not Debian's nlohmann-json3-dev and libssl-dev, and
# nothing can be fetched there. The kit (default ./device-kit, git-ignored, about 15 MB) holds:
#   prefix/include/nlohmann prefix/share/cmake/nlohmann_json   nlohmann_json, relocatable CMake package
#   prefix/include/openssl prefix/lib/libcrypto.so{,.3}          OpenSSL libcrypto headers and library
#   bin/preemptlab-cli                                           the CLI built here: Release, GUI off, CUDA on
#   lib/libpreemptlab-cuda.so                                    its CUDA module (the CLI loads it from ../lib)
#   stamp                                                        sha256 of the sources it was built from
# device-check.sh uses bin/preemptlab-cli when its stamp matches the sources there and it loads; otherwise it
# builds from source with prefix/ on CMAKE_PREFIX_PATH and OPENSSL_ROOT_DIR. Pass the kit with the device
# tool's `carry`: run(command='scripts/device-check.sh "$OUT"', carry=["device-kit"], timeout_s=600).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
KIT=${1:-$SRC/device-kit}
ARCHS=${PREEMPTLAB_CUDA_ARCHS:-90}
BUILD=${BUILD_DIR:-$SRC/build-kit}

copy_dir() { # copy_dir SRC DEST: files, links resolved (a link may not travel to the device machine)
    mkdir -p "$2"
    cp -rL "$1"/. "$2"/
}
find_one() { # find_one NAME DIR...: the first DIR/NAME that exists
    local name=$1
    shift
    for d in "$@"; do
        [ -e "$d/$name" ] && { echo "$d/$name"; return 0; }
    done
    echo "device-kit: $name not found in $*; install the Debian package (scripts/install-deps.sh)" >&2
    return 1
}

rm -rf "$KIT"
mkdir -p "$KIT/prefix/include" "$KIT/prefix/lib" "$KIT/prefix/share/cmake" "$KIT/bin" "$KIT/lib"

copy_dir "$(find_one nlohmann /usr/include /usr/local/include)" "$KIT/prefix/include/nlohmann"
copy_dir "$(dirname "$(find_one nlohmann_json/nlohmann_jsonConfig.cmake /usr/share/cmake /usr/lib/cmake \
    /usr/lib/x86_64-linux-gnu/cmake)")" "$KIT/prefix/share/cmake/nlohmann_json"
copy_dir "$(find_one openssl /usr/include)" "$KIT/prefix/include/openssl"
# Debian keeps the architecture's configuration headers apart; they belong beside the others.
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
[ -d "/usr/include/$multiarch/openssl" ] && cp -L "/usr/include/$multiarch/openssl"/*.h "$KIT/prefix/include/openssl/"
crypto=$(find_one libcrypto.so.3 "/usr/lib/$multiarch" /usr/lib /lib)
cp -L "$crypto" "$KIT/prefix/lib/libcrypto.so.3"
cp -L "$crypto" "$KIT/prefix/lib/libcrypto.so"

# The stamp is of the sources as the build starts; a source changed during the build voids the kit.
stamp=$("$SRC/scripts/source-stamp.sh" "$SRC")
cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPREEMPTLAB_GUI=OFF -DPREEMPTLAB_CUDA=ON \
    -DPREEMPTLAB_TESTS=OFF -DPREEMPTLAB_CUDA_ARCHS="$ARCHS" >"$KIT/configure.log" 2>&1 ||
    { tail -n 40 "$KIT/configure.log" >&2; echo "device-kit: configure failed ($KIT/configure.log)" >&2; exit 1; }
cmake --build "$BUILD" -j"$(nproc)" --target preemptlab-cli >"$KIT/build.log" 2>&1 ||
    { tail -n 40 "$KIT/build.log" >&2; echo "device-kit: build failed ($KIT/build.log)" >&2; exit 1; }
if [ "$("$SRC/scripts/source-stamp.sh" "$SRC")" != "$stamp" ]; then
    echo "device-kit: the sources changed during the build; run it again" >&2
    exit 1
fi
cp "$BUILD/bin/preemptlab-cli" "$KIT/bin/preemptlab-cli"
cp "$BUILD/lib/libpreemptlab-cuda.so" "$KIT/lib/libpreemptlab-cuda.so"
# What the CLI and its module need at run time (the GPU machine must have these: libcrypto for the CLI, CUDA's
# cudart and cuBLAS for the module).
for f in bin/preemptlab-cli lib/libpreemptlab-cuda.so; do
    echo "$f:"
    readelf -d "$KIT/$f" | grep -E 'NEEDED|RUNPATH|RPATH' || true
done >"$KIT/needed.txt"
echo "$stamp" >"$KIT/stamp"
echo "device-kit: $KIT ($(du -sh "$KIT" | cut -f1)), CLI for sm_$ARCHS, sources $stamp"
# The device tool sends the checkout the session runs from, with `carry` taken from there: build the kit in
# that checkout, after the last change to what scripts/source-stamp.sh covers (there: the sources the CLI is
# built from, ignored files such as editor swap files included, which the tool does not send), or
# device-check.sh builds from source.
echo "device-kit: carry it from $SRC (device-check.sh compares this stamp with scripts/source-stamp.sh there)"
