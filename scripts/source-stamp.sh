#!/usr/bin/env bash
# source-stamp.sh [SRC]: one sha256 over every file the CLI is built from (CMakeLists.txt, cmake/, core/, gpu/,
# app/cli/), names and contents, in a fixed order. Needs no git: the device machine may get the tree without it.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
dirs=()
for d in CMakeLists.txt cmake core gpu app/cli app/CMakeLists.txt; do
    [ -e "$d" ] && dirs+=("$d")
done
find "${dirs[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
