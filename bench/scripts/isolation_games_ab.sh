#!/bin/sh
# What a game costs under each isolation and CPU confinement of the referee (issue 21: the
# sandbox against `--isolation pid`; issue 30: `--cpus-per-bot 1` against none), side by
# side in one run: ROUNDS rounds, each running a `tournament` of GAMES games of two instant
# bots (BOT, e.g. bao-random) for every variant in turn, one game at a time, pinned to CPU;
# then for each variant the median over the rounds of the wall time per game (ms, the
# tournament's start included, spread over its games), and the median of its difference to
# the first variant's in the same round.
#
#   bench/scripts/isolation_games_ab.sh REFEREE BOT [ROUNDS] [GAMES] [CPU]
#
# ROUNDS defaults to 6, GAMES to 40, CPU to 1 ("-" for no pinning). The bot's folder must be
# readable by other users (as root each sandbox runs as a uid of its own).
set -eu
referee=$1
bot=$2
rounds=${3:-6}
games=${4:-40}
cpu=${5:-1}
out=$(mktemp -d)
chmod 755 "$out"
trap 'rm -rf "$out"' EXIT
pin=""
[ "$cpu" = "-" ] || pin="taskset -c $cpu"
variants="pid|--isolation pid
full|--isolation full
pid,cpus=none|--isolation pid --cpus-per-bot none
full,cpus=none|--isolation full --cpus-per-bot none"
i=0
while [ "$i" -lt "$rounds" ]; do
    echo "$variants" | while IFS='|' read -r name flags; do
        dir="$out/t-$i-$(echo "$name" | tr ',=' '__')"
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        $pin "$referee" tournament --bot name=a "cmd=$bot" --bot name=b "cmd=$bot" --games "$games" \
            --concurrency 1 --max-plies 1000 --plain --out "$dir" $flags >/dev/null 2>"$out/err"
        t1=$(date +%s%N)
        echo "$name $(( (t1 - t0) / games / 1000 ))" >>"$out/times"
        rm -rf "$dir"
    done
    echo "round $i done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    i=$((i + 1))
done
python3 - "$out/times" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    name, us = line.split()
    times.setdefault(name, []).append(int(us) / 1000)
first = None
for name, values in times.items():
    median = statistics.median(values)
    first = first or values
    paired = statistics.median(v - f for v, f in zip(values, first))
    runs = ", ".join(f"{v:.1f}" for v in values)
    print(f"{name:<16} {median:7.1f} ms a game (round by round against the first: median {paired:+.1f} ms; runs {runs})")
PY
