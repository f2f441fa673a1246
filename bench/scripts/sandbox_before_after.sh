#!/bin/sh
# The sandbox's cost before and after a change (issue 21), side by side in one run: two
# builds of bao-bench run `bench sandbox` in turn, PAIRS times each, pinned to one CPU, so
# that the load of the machine drifts over both alike; then, for each build and way, the
# median over the runs of each run's median start and life (µs).
#
#   cargo build --release -p bao-bench     # once per build; copy each binary aside
#   bench/scripts/sandbox_before_after.sh BEFORE AFTER [PAIRS] [ROUNDS] [CPU]
#
# PAIRS defaults to 8, ROUNDS (lifecycles of each way per run) to 30, CPU to 1.
set -eu
before=$1
after=$2
pairs=${3:-8}
rounds=${4:-30}
cpu=${5:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
while [ "$i" -lt "$pairs" ]; do
    for build in before after; do
        eval binary=\$$build
        taskset -c "$cpu" "$binary" bench sandbox --rounds "$rounds" --json >"$out/$build-$i.json"
    done
    i=$((i + 1))
done
python3 - "$out" "$pairs" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
print(f"{'build':<7} {'way':<15} {'start median':>13} {'life median':>12}   (median of {pairs} runs' medians, µs)")
for build in ["before", "after"]:
    runs = [json.load(open(f"{out}/{build}-{i}.json")) for i in range(pairs)]
    for w, way in enumerate(runs[0]):
        start = statistics.median(run[w]["start"]["median_us"] for run in runs)
        life = statistics.median(run[w]["life"]["median_us"] for run in runs)
        print(f"{build:<7} {way['isolation']:<15} {start:>13.0f} {life:>12.0f}")
PY
