#!/usr/bin/env bash
# Installs the Debian 12 packages PreemptLab builds with, only those that are missing. CUDA (nvcc, cuBLAS) is
# optional and not installed here: where /usr/local/cuda exists the build uses it (-DPREEMPTLAB_CUDA=AUTO).
set -euo pipefail
# dpkg-dev and file: cpack -G DEB's dependency list (dpkg-shlibdeps); shared-mime-info: package-check.sh's MIME check.
packages=(build-essential cmake ninja-build pkg-config qt6-base-dev qt6-svg-dev libqcustomplot-dev
          nlohmann-json3-dev libssl-dev clang-14 libclang-rt-14-dev dpkg-dev file shared-mime-info)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
    echo "note: nvcc is at /usr/local/cuda/bin; add it to PATH to build live mode (gpu/)"
fi
