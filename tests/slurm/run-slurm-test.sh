#!/usr/bin/env bash
# The sharded sweep through a real Slurm on this machine: installs Debian's slurm-wlm and munge when missing,
# starts munged, slurmctld and slurmd (one node: this host) from a scratch folder with their own config, key,
# sockets and ports, submits the job array and the dependent merge with scripts/slurm/submit-sweep.sh (sbatch),
# waits for them (bounded), and compares the merged CSV byte for byte with an unsharded `preemptlab-cli sweep`.
# The daemons it started are stopped by their process ids on every exit.
#
#   tests/slurm/run-slurm-test.sh BUILD_DIR [SHARDS]      (root, or sudo for the apt install; exit 77: skipped)
#
# Exit 0 passed, 1 failed, 77 skipped (the packages cannot be installed or the daemons cannot start here; the
# reason is printed). SLURM_TEST_TIMEOUT (default 240) bounds the wait for the jobs in seconds.
set -uo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: run-slurm-test.sh BUILD_DIR [SHARDS]}" && pwd)"
shards="${2:-3}"
timeout_s="${SLURM_TEST_TIMEOUT:-240}"
cli="$build/bin/preemptlab-cli"
start=$(date +%s)
skip() { echo "slurm-test: SKIPPED: $*"; exit 77; }
fail() { echo "slurm-test: FAILED: $*"; exit 1; }
[ -x "$cli" ] || fail "no $cli (build preemptlab-cli first)"

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null ||
   ! command -v sbatch >/dev/null; then
    echo "slurm-test: installing slurm-wlm and munge"
    t=$(date +%s)
    if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq slurm-wlm munge >/tmp/slurm-test-apt.log 2>&1; then
        $SUDO apt-get update -qq >/dev/null 2>&1 &&
            DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq slurm-wlm munge >/tmp/slurm-test-apt.log 2>&1 ||
            skip "cannot install slurm-wlm and munge (see /tmp/slurm-test-apt.log)"
    fi
    echo "slurm-test: install took $(( $(date +%s) - t )) s"
fi

tmp="$(mktemp -d /tmp/preemptlab-slurm.XXXXXX)"
chmod 755 "$tmp"
pids=()
cleanup() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    [ -n "${KEEP_SLURM_TEST_DIR:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

user="$(id -un)"
host="$(hostname -s)"
# munged with its own key, socket, pid and log (nothing of the system's munge is used).
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
munged -F --force --key-file="$tmp/munge.key" --socket="$tmp/munge/munge.socket" --pid-file="$tmp/munge/munged.pid" \
    --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/munge.socket" ] || skip "munged did not start: $(tail -3 "$tmp/munged.out" "$tmp/munge/munged.log" 2>/dev/null | tr '\n' ' ')"

port=$(( 20000 + $$ % 20000 ))
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/work"
cat >"$tmp/slurm.conf" <<CONF
ClusterName=plabtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=plab Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 100); do
    if sinfo -h -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; then up=1; break; fi
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
    sleep 0.2
done
if [ "$up" != 1 ]; then
    why="$(tail -n 3 "$tmp/slurmctld.out" "$tmp/slurmctld.log" "$tmp/slurmd.out" "$tmp/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    skip "the Slurm daemons did not bring the node up within 20 s: $why"
fi
echo "slurm-test: munged, slurmctld, slurmd up (pids ${pids[*]}) after $(( $(date +%s) - start )) s"

# The sweep: a generated workload of 10,000 requests over a 60-point grid (about 10 s with --threads 2 on two
# cores), as docs/performance.md measures it.
wl="$tmp/work/g10k.workload.json"
"$cli" generate --count 10000 --seed 7 --rate 0.3 --out "$wl" >/dev/null 2>&1 || fail "generate failed"
sweep=("$wl" --vary capacity_blocks=420:1000:20 --vary watermark_blocks=0:8:8)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
t=$(date +%s.%N)
"$cli" sweep "${sweep[@]}" --threads 2 --quiet --out "$tmp/work/unsharded.csv" || fail "the unsharded sweep failed"
t_unsharded=$(since "$t")

t=$(date +%s.%N)
ids="$(PREEMPTLAB_CLI="$cli" "$here/scripts/slurm/submit-sweep.sh" --shards "$shards" --cpus "$cpus" \
       --out "$tmp/work/merged.csv" -- "${sweep[@]}")" || fail "submit-sweep.sh failed"
read -r array_id merge_id <<<"$ids"
echo "slurm-test: submitted array $array_id (1-$shards) and merge $merge_id (afterok)"
state=""
deadline=$(( $(date +%s) + timeout_s ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    state="$(scontrol show job "$merge_id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)"
    case "$state" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
    # A merge whose dependency can never be met stays pending: look at the array.
    if scontrol show job "$array_id" 2>/dev/null | grep -Eq 'JobState=(FAILED|CANCELLED|TIMEOUT)'; then
        state="array failed"; break
    fi
    sleep 0.2
done
t_slurm=$(since "$t")
dir="$tmp/work/merged.shards"
# The unsharded sweep again: the machine's load changes over a minute, so the figure is against the mean of the
# runs before and after.
t=$(date +%s.%N)
"$cli" sweep "${sweep[@]}" --threads 2 --quiet --out "$tmp/work/unsharded2.csv" || fail "the unsharded sweep failed"
t_unsharded2=$(since "$t")
if [ "$state" != COMPLETED ]; then
    echo "--- slurmctld.log"; tail -n 20 "$tmp/slurmctld.log" 2>/dev/null
    for f in "$dir"/*.log; do echo "--- $f"; tail -n 5 "$f"; done
    fail "the merge job ended as '${state:-still pending or running after ${timeout_s} s}'"
fi
cat "$dir/merge.log"
cmp "$tmp/work/unsharded.csv" "$tmp/work/merged.csv" || fail "the merged CSV differs from the unsharded sweep's"
n=$(ls "$dir"/shard-*-of-"$shards".json | wc -l)
[ "$n" = "$shards" ] || fail "$n shard files for $shards shards"
ratio=$(awk -v a="$t_slurm" -v b="$t_unsharded" -v c="$t_unsharded2" 'BEGIN { printf "%.2f", 2 * a / (b + c) }')
printf 'slurm-test: PASSED: %s shards via Slurm (submit to merged file) %s s, unsharded --threads 2 %s s before and %s s after (ratio to their mean %s), merged CSV identical (%s bytes); load average %s; %s s in all\n' \
    "$shards" "$t_slurm" "$t_unsharded" "$t_unsharded2" "$ratio" "$(wc -c <"$tmp/work/merged.csv")" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(( $(date +%s) - start ))"
