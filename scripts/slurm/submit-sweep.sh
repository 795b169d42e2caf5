#!/usr/bin/env bash
# Runs a PreemptLab sweep as a Slurm job array: N shards (`sweep --shard I/N`), then one merge job
# (`sweep-merge`) that starts only when every shard succeeded (--dependency=afterok). The merged file is
# byte-identical to what the unsharded `preemptlab-cli sweep` writes.
#
#   scripts/slurm/submit-sweep.sh --shards N --out RESULT.csv|RESULT.json [--dir WORKDIR] [--cpus C]
#       [--partition P] [--no-submit] -- WORKLOAD --vary KEY=LO:HI:STEP [--vary ...] [--modes ...] [--metric ...]
#
# Writes WORKDIR/sweep-array.sbatch (#SBATCH --array=1-N, SLURM_ARRAY_TASK_ID -> --shard) and
# WORKDIR/sweep-merge.sbatch, sized from the sweep's estimated cost (`sweep --shard-plan N`): each array task asks
# for C CPUs (--threads C) and a time limit from its shard's estimated request-ticks. Then submits both and
# prints the two job ids (array first); with --no-submit it prints the two sbatch commands instead.
# WORKDIR (default RESULT's name + .shards) must be on a file system the compute nodes share. The CLI is
# $PREEMPTLAB_CLI, else preemptlab-cli on PATH; its absolute path is written into the scripts.
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
shards="" out="" dir="" cpus=1 partition="" submit=1
while [ $# -gt 0 ]; do
    case "$1" in
        --shards) shards="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --dir) dir="$2"; shift 2 ;;
        --cpus) cpus="$2"; shift 2 ;;
        --partition) partition="$2"; shift 2 ;;
        --no-submit) submit=0; shift ;;
        --) shift; break ;;
        -h|--help) usage ;;
        *) echo "submit-sweep.sh: unknown option '$1' (the sweep's own arguments go after --)" >&2; exit 2 ;;
    esac
done
[ -n "$shards" ] && [ -n "$out" ] && [ $# -gt 0 ] || usage
case "$shards" in ''|*[!0-9]*) echo "submit-sweep.sh: --shards: '$shards' is not a whole number" >&2; exit 2 ;; esac
case "$cpus" in ''|*[!0-9]*) echo "submit-sweep.sh: --cpus: '$cpus' is not a whole number" >&2; exit 2 ;; esac
for a in "$@"; do
    case "$a" in --out|--out=*|--shard|--shard=*|--threads|--threads=*|--shard-plan|--shard-plan=*)
        echo "submit-sweep.sh: '$a' is set by this script (--out, --shards, --cpus)" >&2; exit 2 ;;
    esac
done
cli="${PREEMPTLAB_CLI:-$(command -v preemptlab-cli || true)}"
[ -x "$cli" ] || { echo "submit-sweep.sh: no preemptlab-cli (set PREEMPTLAB_CLI or put it on PATH)" >&2; exit 2; }
cli="$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
dir="${dir:-${out%.*}.shards}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
rm -f "$dir"/shard-*-of-*.json # an earlier submission's shards would be refused as foreign by the merge

# The sweep's arguments with the workload made absolute (the jobs may start elsewhere).
args=("$@")
[ -e "${args[0]}" ] && args[0]="$(cd "$(dirname "${args[0]}")" && pwd)/$(basename "${args[0]}")"
plan="$("$cli" sweep "${args[@]}" --shard-plan "$shards")"
# Time limit per array task from the largest shard's estimated request-ticks: 1 us per request-tick (the engine
# takes about 10 ns, docs/performance.md; the estimate leaves out pressure, which can multiply it) over the
# task's CPUs, at least 5 minutes. The merge: 5 minutes plus 1 s per 1,000 points.
read -r max_cost points < <(printf '%s' "$plan" | tr -d ' \n' |
    sed -e 's/.*"points":\([0-9]*\).*"shards":\[\(.*\)\].*/\1 \2/' |
    awk '{ n = split($2, s, "\"cost\":"); m = 0; for (i = 2; i <= n; i++) { c = s[i] + 0; if (c > m) m = c }
           print m, $1 }')
task_min=$(( max_cost / 1000000 / 60 / cpus + 5 ))
merge_min=$(( 5 + points / 60000 ))
quoted="$(printf '%q ' "${args[@]}")"
part_line=""
[ -n "$partition" ] && part_line="#SBATCH --partition=$partition"

cat > "$dir/sweep-array.sbatch" <<SBATCH
#!/usr/bin/env bash
# Shard SLURM_ARRAY_TASK_ID of $shards of the sweep; written by scripts/slurm/submit-sweep.sh.
#SBATCH --job-name=plab-sweep
#SBATCH --array=1-$shards
#SBATCH --cpus-per-task=$cpus
#SBATCH --ntasks=1
#SBATCH --time=$task_min
#SBATCH --output=$dir/shard-%a.log
$part_line
set -euo pipefail
exec $(printf '%q' "$cli") sweep $quoted --shard "\${SLURM_ARRAY_TASK_ID}/$shards" --threads "\${SLURM_CPUS_PER_TASK:-$cpus}" \\
    --out "$dir/shard-\${SLURM_ARRAY_TASK_ID}-of-$shards.json"
SBATCH
cat > "$dir/sweep-merge.sbatch" <<SBATCH
#!/usr/bin/env bash
# The merge of the $shards shards into $out; written by scripts/slurm/submit-sweep.sh.
#SBATCH --job-name=plab-sweep-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=$merge_min
#SBATCH --output=$dir/merge.log
$part_line
set -euo pipefail
exec $(printf '%q' "$cli") sweep-merge "$dir"/shard-*-of-$shards.json --out $(printf '%q' "$out")
SBATCH

if [ "$submit" = 0 ]; then
    echo "sbatch --parsable $dir/sweep-array.sbatch"
    echo "sbatch --dependency=afterok:ARRAY_JOB_ID $dir/sweep-merge.sbatch"
    exit 0
fi
array_id="$(sbatch --parsable "$dir/sweep-array.sbatch")"
array_id="${array_id%%;*}"
merge_id="$(sbatch --parsable --dependency="afterok:$array_id" "$dir/sweep-merge.sbatch")"
merge_id="${merge_id%%;*}"
echo "$array_id $merge_id"
echo "submit-sweep.sh: shards: job array $array_id (1-$shards, logs $dir/shard-N.log); merge: job $merge_id -> $out" >&2
