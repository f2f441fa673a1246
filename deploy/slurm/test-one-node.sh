#!/bin/bash
# The Slurm recipe of this folder, run for real: brings up a one-node Slurm from Debian's
# packages (slurm-wlm, munge) in a temporary folder, submits a small sharded tournament with
# submit.sh (the array job tournament.sbatch and the dependent merge.sbatch), waits, and
# compares the merged folder with the same tournament played unsharded: the same plan, the
# same result for every game (and the same moves in its log), the same results.json (all but
# the timing figures). Exits non-zero with a message on the first difference or failure.
#
# Run as root (.ci/run does): it installs the packages with apt-get if they are missing and
# starts munged, slurmctld and slurmd itself (no systemd), on ports 16817/16818, with every
# file under a temporary folder; a trap stops the daemons and removes the folder.
#
#   bash deploy/slurm/test-one-node.sh
#
# BAO_REFEREE: the referee to use (default: target/release/bao-referee, built if missing).
# BAO_KEEP_TMP=1 keeps the temporary folder (its path is printed) for a post-mortem.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
started=$SECONDS

fail() {
    echo "test-one-node: FAIL: $*" >&2
    exit 1
}
say() { echo "test-one-node: $*"; }

[ "$(id -u)" -eq 0 ] || fail "must run as root (it installs packages and starts slurmd)"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
command -v python3 >/dev/null || fail "python3 is needed to compare the results"

referee=${BAO_REFEREE:-$repo/target/release/bao-referee}
if [ ! -x "$referee" ]; then
    say "building $referee"
    cargo build --release --locked -p bao-referee
fi
[ -x "$referee" ] || fail "no referee at $referee"
referee=$(cd "$(dirname "$referee")" && pwd)/$(basename "$referee")

tmp=$(mktemp -d /tmp/bao-slurm-test.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        # Up to 10 s for each daemon to go, then kill it.
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$status" -ne 0 ]; then
        for log in slurmctld slurmd munged; do
            [ -f "$tmp/$log.log" ] && { echo "--- last lines of $log.log" >&2; tail -n 15 "$tmp/$log.log" >&2; }
        done
        for out in "$tmp"/run/slurm-*.out; do
            [ -f "$out" ] && { echo "--- $(basename "$out")" >&2; tail -n 15 "$out" >&2; }
        done
    fi
    if [ "${BAO_KEEP_TMP:-}" = 1 ]; then
        echo "test-one-node: kept $tmp" >&2
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

# --- munge, with its own key and socket
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --foreground \
    --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
    --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
    --log-file="$tmp/munged.log" >"$tmp/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
    [ -S "$tmp/munge/munge.socket" ] && break
    sleep 0.2
done
[ -S "$tmp/munge/munge.socket" ] || fail "munged did not start (see $tmp/munged.log)"

# --- a one-node cluster
node=$(uname -n | cut -d. -f1)
cpus=$(nproc)
# Less memory than the machine has: a node configured with more than it has is drained.
mem=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 / 2))
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/run"
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=baotest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)

say "waiting for the node to be idle"
for _ in $(seq 150); do
    state=$(sinfo -h -N -n "$node" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || fail "the node is not idle after 30 s (sinfo says '${state:-nothing}')"
say "node $node idle after $((SECONDS - started)) s ($cpus CPUs)"

# --- the tournament: three deterministic bots (random with a fixed seed), three shards
cat >"$tmp/bots.toml" <<'BOTS'
[[bots]]
name = "greedy"
cmd = "bao-referee sample-bot greedy"

[[bots]]
name = "random"
cmd = "bao-referee sample-bot random"
args = ["--seed", "7"]

[[bots]]
name = "alphabeta"
cmd = "bao-referee sample-bot alphabeta"
args = ["--depth", "2", "--seed", "5"]
BOTS
# A generous clock: a time loss on a busy machine would make the two runs differ.
args="--games 4 --rounds 1 --openings random:4 --seed 11 --tc 120+1 --max-plies 80 --concurrency 1"
shards=3

cd "$tmp/run"
say "submitting $shards shards and the merge"
jobs=$(BAO_SHARDS=$shards BAO_REFEREE=$referee BAO_OUT=$tmp/run/results BAO_CONFIG=$tmp/bots.toml \
    BAO_TOURNAMENT_ARGS=$args "$repo/deploy/slurm/submit.sh" --cpus-per-task=1 --time=00:10:00) \
    || fail "submit.sh failed"
array=$(sed -n 1p <<<"$jobs")
merge=$(sed -n 2p <<<"$jobs")
[ -n "$array" ] && [ -n "$merge" ] || fail "submit.sh printed no job ids: '$jobs'"
say "array job $array, merge job $merge"

# No accounting here (sacct needs slurmdbd): poll squeue until both jobs have left the queue.
deadline=$((SECONDS + 300))
while [ -n "$(squeue -h -j "$array,$merge" -o %i 2>/dev/null)" ]; do
    [ $SECONDS -lt $deadline ] || fail "jobs still queued or running after 300 s: $(squeue -h -j "$array,$merge")"
    sleep 1
done

# Finished jobs stay known to slurmctld for MinJobAge seconds: their states and exit codes.
job_states() {
    scontrol -o show job "$1" | python3 -c '
import sys
for line in sys.stdin:
    f = dict(w.split("=", 1) for w in line.split() if "=" in w)
    name = f["ArrayJobId"] + "_" + f["ArrayTaskId"] if "ArrayTaskId" in f else f.get("JobId")
    print(name, f.get("JobState"), f.get("ExitCode"))'
}
states=$(job_states "$array"; job_states "$merge")
echo "$states" | sed 's/^/test-one-node:   job /'
tasks=$(job_states "$array" | wc -l)
[ "$tasks" -eq "$shards" ] || fail "the array has $tasks task(s), not $shards"
bad=$(awk '$2 != "COMPLETED" || $3 != "0:0"' <<<"$states")
[ -z "$bad" ] || fail "a job did not complete with exit 0: $bad"
say "the array and the merge completed after $((SECONDS - started)) s"

for i in $(seq "$shards"); do
    [ -f results/shard-$i/results.json ] || fail "no results/shard-$i/results.json"
done
[ -f results/all/results.json ] || fail "the merge wrote no results/all/results.json"

# --- the same tournament, unsharded, on this machine
say "playing the same tournament unsharded"
# shellcheck disable=SC2086
"$referee" tournament --config "$tmp/bots.toml" $args --out "$tmp/unsharded" >"$tmp/unsharded.txt" \
    || fail "the unsharded tournament failed: $(cat "$tmp/unsharded.txt")"

python3 "$repo/deploy/slurm/compare_runs.py" "$tmp/run/results/all" "$tmp/unsharded" \
    || fail "the merged shards differ from the unsharded tournament"
say "PASS in $((SECONDS - started)) s"
