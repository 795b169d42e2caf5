#!/usr/bin/env bash
# Keeps the house's layering (DEVELOPERS.md, "Layout"): core at the bottom with no Qt and no CUDA; ui/ and gpu/
# beside each other on top of it, neither including the other; app/ wires them. Prints every include that
# crosses a line as FILE:LINE: reason, and exits 1 if there is one. Grep-based, so it needs no build: .ci/run
# calls it, and ctest runs it as the test check_layers.
# usage: scripts/check-layers.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

found=0
report() {
    echo "$1: $2"
    found=1
}

# The header an `#include "X"` in FILE names in folder LAYER (gpu, ui): "LAYER/..." spelled out, or a bare name
# that only LAYER holds (not FILE's own folder, not core: those come first on the include path).
names_layer() {
    local file=$1 target=$2 layer=$3
    [[ $target == "$layer"/* ]] && return 0
    [[ -f $layer/$target ]] || return 1
    [[ -f $(dirname "$file")/$target || -f core/$target ]] && return 1
    return 0
}

# check FOLDER FORBIDDEN_LAYERS... [--no-qt] [--no-cuda]
check() {
    local folder=$1
    shift
    local layers=() no_qt=0 no_cuda=0
    for a in "$@"; do
        case $a in
            --no-qt) no_qt=1 ;;
            --no-cuda) no_cuda=1 ;;
            *) layers+=("$a") ;;
        esac
    done
    local file line text target layer
    while IFS=: read -r file line text; do
        if [[ $text =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
            target=${BASH_REMATCH[1]}
            if [[ ! $target =~ ^(core|ui|gpu|app|tests|generated)/ && $target != *.moc ]]; then
                report "$file:$line" "\"$target\" does not name its module (write \"core/...\", \"ui/...\", \"gpu/...\": the path from the repository root)"
            fi
            for layer in "${layers[@]}"; do
                if names_layer "$file" "$target" "$layer"; then
                    report "$file:$line" "$folder/ includes $layer/'s header \"$target\""
                fi
            done
            if ((no_cuda)) && [[ $target == *.cuh || $target == *.cu ]]; then
                report "$file:$line" "$folder/ includes CUDA code \"$target\""
            fi
        elif [[ $text =~ \#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
            target=${BASH_REMATCH[1]}
            if ((no_qt)) && [[ $target =~ ^(Q[A-Za-z]*|Qt[A-Za-z]*/.*|qcustomplot\.h)$ ]]; then
                report "$file:$line" "$folder/ includes Qt's <$target>"
            fi
            if ((no_cuda)) && [[ $target =~ ^(cuda|cublas|cufft|curand|cusparse|cusolver|nvrtc|nvtx|nccl|cub/|thrust/|cooperative_groups|mma\.h) ]]; then
                report "$file:$line" "$folder/ includes CUDA's <$target>"
            fi
        fi
    done < <(grep -rnE --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cuh' --include='*.cu' \
                 '^[[:space:]]*#[[:space:]]*include' "$folder" | sort -t: -k1,1 -k2,2n)
}

check core gpu ui --no-qt --no-cuda # the model: plain C++20, nlohmann_json, OpenSSL
check ui gpu                        # the lab reaches a device through core's LiveBackendFactory (app/lab)
check gpu ui --no-qt                # live mode: core and CUDA only
check app                           # the programs: any module, named
check tests                         # the suites: any module, named

if ((found)); then
    echo "check-layers: the includes above cross the layering (DEVELOPERS.md, \"Layout\")"
    exit 1
fi
echo "check-layers: every include names its module; core includes no Qt, CUDA, gpu/ or ui/ header; ui/ no gpu/ header; gpu/ no Qt or ui/ header"
