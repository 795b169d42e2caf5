#!/usr/bin/env bash
# package-check.sh BUILD_DIR [SCRATCH]: builds the Debian package(s) from an already built BUILD_DIR
# (cpack -G DEB, cmake/Install.cmake), unpacks them with dpkg -x into a scratch root (no root, nothing installed
# on this machine) and smoke-runs the programs from there: preemptlab-cli --version, validate and run an installed
# sample, and where the lab was built, a headless screenshot of an installed sample and of one compiled into the
# lab (File > Samples). Checks the installed files (desktop entry, MIME type, icons, licence, attribution), that
# the programs carry no run path into the build tree, and that the main package depends on no CUDA package.
# Exits non-zero on the first failure. .ci/run calls it with build-test/ after scripts/test.sh.
# usage: scripts/package-check.sh build-test            (SCRATCH default: a new temporary folder, removed after)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/package-check.sh BUILD_DIR [SCRATCH]" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
[ -f "$BUILD/CMakeCache.txt" ] || { echo "package-check: $BUILD is not a configured build dir" >&2; exit 2; }
if [ $# -ge 2 ]; then
    SCRATCH=$2
    rm -rf "$SCRATCH"
    mkdir -p "$SCRATCH"
else
    SCRATCH=$(mktemp -d /tmp/preemptlab-package.XXXXXX)
    trap 'rm -rf "$SCRATCH"' EXIT
fi
SCRATCH=$(cd "$SCRATCH" && pwd)
ROOT=$SCRATCH/root
mkdir -p "$ROOT" "$SCRATCH/debs" "$SCRATCH/out"
fail() { echo "package-check: FAILED: $*" >&2; exit 1; }
step() { echo "package-check: $*"; }

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD/CMakeCache.txt")
gui=$(sed -n 's/^PREEMPTLAB_GUI:BOOL=//p' "$BUILD/CMakeCache.txt")
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $BUILD/CMakeCache.txt"

# Only what the package holds (the CUDA module comes with the CLI, which depends on it); a no-op on a built tree.
targets=(preemptlab-cli)
[ "$gui" = "ON" ] && targets+=(preemptlab preemptlab_icons)
step "building ${targets[*]} (a no-op when $BUILD is up to date)"
cmake --build "$BUILD" -j2 --target "${targets[@]}" >/dev/null || fail "cmake --build $BUILD --target ${targets[*]}"
step "cpack -G DEB in $BUILD"
(cd "$BUILD" && cpack -G DEB -B "$SCRATCH/debs" >"$SCRATCH/cpack.log" 2>&1) || { cat "$SCRATCH/cpack.log"; fail "cpack"; }
main_deb=$(ls "$SCRATCH"/debs/preemptlab_"$version"_*.deb 2>/dev/null | head -1 || true)
[ -n "$main_deb" ] || fail "no preemptlab_${version}_*.deb in $SCRATCH/debs"
for deb in "$SCRATCH"/debs/*.deb; do
    step "$(basename "$deb"): $(dpkg-deb -f "$deb" Version) $(du -h "$deb" | cut -f1)"
    dpkg-deb -f "$deb" Depends Recommends Suggests | sed 's/^/    /'
    dpkg -x "$deb" "$ROOT"
done
[ "$(dpkg-deb -f "$main_deb" Version)" = "$version" ] || fail "package version is not $version"
depends=$(dpkg-deb -f "$main_deb" Depends)
echo "$depends" | grep -q "libc6" || fail "Depends was not computed by dpkg-shlibdeps: $depends"
if echo "$depends" | grep -qi "cuda\|cublas"; then fail "preemptlab depends on CUDA: $depends"; fi

step "installed files"
need=(usr/bin/preemptlab-cli usr/share/preemptlab/samples/seed-example.workload.json
      usr/share/doc/preemptlab/LICENSE usr/share/doc/preemptlab/ATTRIBUTION.md usr/share/doc/preemptlab/README.md
      usr/share/doc/preemptlab/copyright usr/share/doc/preemptlab/changelog.Debian.gz
      usr/share/bash-completion/completions/preemptlab-cli usr/share/zsh/vendor-completions/_preemptlab-cli
      usr/share/man/man1/preemptlab-cli.1.gz)
if [ "$gui" = "ON" ]; then
    need+=(usr/bin/preemptlab usr/share/applications/preemptlab.desktop usr/share/mime/packages/preemptlab.xml
           usr/share/icons/hicolor/scalable/apps/preemptlab.svg)
    for s in 16 22 24 32 48 64 128 256; do need+=(usr/share/icons/hicolor/${s}x${s}/apps/preemptlab.png); done
fi
for f in "${need[@]}"; do [ -s "$ROOT/$f" ] || fail "$f is missing from the package"; done
# Debian policy 12.5/12.7: a machine-readable copyright file and a changelog gzipped without a name or a time.
grep -q "^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" "$ROOT/usr/share/doc/preemptlab/copyright" ||
    fail "usr/share/doc/preemptlab/copyright is not a DEP-5 copyright file"
gzip -t "$ROOT/usr/share/doc/preemptlab/changelog.Debian.gz" || fail "changelog.Debian.gz is not gzip"
# The manual page and the bash completion, as installed: the page renders without a warning, the completion
# completes a command and an option through the installed program.
zcat "$ROOT/usr/share/man/man1/preemptlab-cli.1.gz" | head -3 | grep -q "^.TH PREEMPTLAB-CLI 1" ||
    fail "preemptlab-cli.1.gz is not the manual page"
if command -v groff >/dev/null; then
    warnings=$(zcat "$ROOT/usr/share/man/man1/preemptlab-cli.1.gz" | groff -man -Tutf8 -z -ww 2>&1)
    [ -z "$warnings" ] || fail "the manual page has groff warnings: $warnings"
fi
completed=$(PATH="$ROOT/usr/bin:$PATH" bash -c 'source "$1"; COMP_WORDS=(preemptlab-cli run x --ledg); COMP_CWORD=3;
    _preemptlab_cli; echo "${COMPREPLY[*]}"' _ "$ROOT/usr/share/bash-completion/completions/preemptlab-cli")
[ "$completed" = "--ledger-csv" ] || fail "bash completion of 'run x --ledg' gave '$completed', not --ledger-csv"
zcat "$ROOT/usr/share/doc/preemptlab/changelog.Debian.gz" | head -1 | grep -q "^preemptlab ($version) " ||
    fail "changelog.Debian.gz does not start with version $version (resources/debian/changelog)"
for exe in "$ROOT"/usr/bin/*; do
    if readelf -d "$exe" | grep -q "RPATH\|RUNPATH"; then fail "$exe has a run path: $(readelf -d "$exe" | grep PATH)"; fi
done
cuda_deb=$(ls "$SCRATCH"/debs/preemptlab-cuda_*.deb 2>/dev/null | head -1 || true)
if [ -n "$cuda_deb" ]; then
    # The CUDA module is only dlopen'ed: the programs themselves must not need a CUDA library to start.
    [ -s "$ROOT/usr/lib/preemptlab/libpreemptlab-cuda.so" ] || fail "usr/lib/preemptlab/libpreemptlab-cuda.so is missing"
    [ -s "$ROOT/usr/share/doc/preemptlab-cuda/copyright" ] || fail "usr/share/doc/preemptlab-cuda/copyright is missing"
    for exe in "$ROOT"/usr/bin/*; do
        if readelf -d "$exe" | grep -q "NEEDED.*lib\(cudart\|cublas\|cuda\)"; then fail "$exe needs a CUDA library"; fi
    done
fi

# Everything below runs from the scratch root only: no LD_LIBRARY_PATH, no build tree.
unset LD_LIBRARY_PATH
cli=$ROOT/usr/bin/preemptlab-cli
sample=$ROOT/usr/share/preemptlab/samples/seed-example.workload.json
step "$cli --version"
got=$("$cli" --version) || fail "preemptlab-cli --version"
echo "    $got"
[ "$got" = "preemptlab-cli $version (tick-model-1)" ] || fail "--version says '$got', the project is $version"
step "validate and run an installed sample"
"$cli" validate "$sample" >/dev/null || fail "preemptlab-cli validate $sample"
"$cli" run "$sample" --out "$SCRATCH/out/seed.receipt.json" 2>/dev/null || fail "preemptlab-cli run $sample"
grep -q "\"version\":\"$version\"" "$SCRATCH/out/seed.receipt.json" || fail "the receipt does not carry version $version"
"$cli" verify "$SCRATCH/out/seed.receipt.json" >/dev/null 2>&1 || fail "preemptlab-cli verify"

if [ "$gui" = "ON" ]; then
    lab=$ROOT/usr/bin/preemptlab
    step "$lab --version and headless screenshots"
    got=$(QT_QPA_PLATFORM=offscreen "$lab" --version) || fail "preemptlab --version"
    [ "$got" = "preemptlab $version (tick-model-1)" ] || fail "lab --version says '$got', the project is $version"
    QT_QPA_PLATFORM=offscreen "$lab" --workload "$sample" --tick 5 --screenshot "$SCRATCH/out/installed.png" \
        || fail "the lab's screenshot of $sample"
    # File > Samples reads the samples compiled into the lab (:/samples), so it needs no path on disk.
    QT_QPA_PLATFORM=offscreen "$lab" --workload :/samples/starvation.workload.json --tick 54 \
        --screenshot "$SCRATCH/out/bundled.png" || fail "the lab's screenshot of its bundled starvation sample"
    # As the desktop entry starts it for a file manager's workload (Exec=preemptlab %f): the file as the argument.
    QT_QPA_PLATFORM=offscreen "$lab" "$ROOT/usr/share/preemptlab/samples/swap-wins.workload.json" \
        --screenshot "$SCRATCH/out/opened.png" || fail "the lab opening a workload given as its argument"
    for png in installed bundled opened; do
        [ "$(head -c 8 "$SCRATCH/out/$png.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] \
            || fail "$png.png is not a PNG"
    done
    step "the MIME type and the desktop entry"
    if command -v update-mime-database >/dev/null; then
        cp -r "$ROOT/usr/share/mime" "$SCRATCH/mime"
        update-mime-database "$SCRATCH/mime" >/dev/null 2>&1 || fail "update-mime-database rejects preemptlab.xml"
        grep -q "application/x-preemptlab-workload:\*.workload.json" "$SCRATCH/mime/globs2" \
            || fail "*.workload.json is not mapped to application/x-preemptlab-workload"
    fi
    grep -q "^MimeType=application/x-preemptlab-workload;" "$ROOT/usr/share/applications/preemptlab.desktop" \
        || fail "the desktop entry does not name the workload type"
    if command -v desktop-file-validate >/dev/null; then
        desktop-file-validate "$ROOT/usr/share/applications/preemptlab.desktop" || fail "desktop-file-validate"
    fi
fi
step "passed ($(ls "$SCRATCH"/debs/*.deb | xargs -n1 basename | tr '\n' ' '))"
