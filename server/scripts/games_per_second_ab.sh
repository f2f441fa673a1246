#!/usr/bin/env bash
# Games per second of two competition servers side by side (issue 21: before and after the
# sandbox): PAIRS pairs of windows, each window a fresh arena of `games_per_second.sh` (two
# submissions of the instant bot, one game at a time, games counted over SECONDS once both
# are active), the two servers in turn, the order swapped every pair (ABBA...) so that the
# machine's drifting load hits both alike; pinned to CPU (server, bots and all; "-" for no
# pinning). Prints every window, then the medians, the median of the pairs' ratios
# (after / before), what that ratio means in milliseconds a game, and the median game's
# duration split into the bots' think time and the rest (the bots' start and end). Usage:
#   server/scripts/games_per_second_ab.sh BEFORE AFTER BOT [PAIRS] [SECONDS] [CPU] [UNSAFE_BEFORE] [UNSAFE_AFTER]
# e.g. server/scripts/games_per_second_ab.sh /tmp/before/bao-server target/release/bao-referee target/release/bao-random 10 20 1 "" process-limit
# (BEFORE, AFTER: executables whose `serve` is the server; UNSAFE_*: what games_per_second.sh
# writes to arena.toml's [sandbox] unsafe_sandbox for each, when the server has that key.)
set -euo pipefail
here=$(dirname "$(realpath "$0")")
before=$1; after=$2; bot=$3; pairs=${4:-10}; window=${5:-20}; cpu=${6:-1}
unsafe_before=${7:-}; unsafe_after=${8:-}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pin=()
[ "$cpu" = "-" ] || pin=(taskset -c "$cpu")
port=$((18300 + RANDOM % 500))
for i in $(seq "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then order="before after"; else order="after before"; fi
    for which in $order; do
        if [ "$which" = before ]; then server=$before; unsafe=$unsafe_before; else server=$after; unsafe=$unsafe_after; fi
        port=$((port + 1))
        line=$("${pin[@]}" "$here/games_per_second.sh" "$server" "$bot" "$window" "$port" "$unsafe")
        echo "pair $i $which: $line"
        echo "$i $which $line" >>"$out"
    done
done
python3 - "$out" <<'PY'
import re, statistics, sys
rates = {}
loads = []
split = {}
for line in open(sys.argv[1]):
    pair, which = line.split()[:2]
    rates.setdefault(which, {})[int(pair)] = float(re.search(r": ([0-9.]+) games/s", line).group(1))
    loads.append(float(re.search(r"load: ([0-9.]+)", line).group(1)))
    m = re.search(r"\): ([0-9.]+) ms, think ([0-9.]+) ms, rest ([0-9.]+) ms; recorded ([0-9.]+) ms, gap ([0-9.]+) ms", line)
    if m:
        split.setdefault(which, []).append(tuple(float(x) for x in m.groups()))
b, a = rates["before"], rates["after"]
ratios = [a[p] / b[p] for p in sorted(b) if b[p] > 0]
mb, ma = statistics.median(b.values()), statistics.median(a.values())
r = statistics.median(ratios)
print(f"before: median {mb:.2f} games/s ({', '.join(f'{b[p]:.2f}' for p in sorted(b))})")
print(f"after:  median {ma:.2f} games/s ({', '.join(f'{a[p]:.2f}' for p in sorted(a))})")
print(f"after/before per pair: {', '.join(f'{x:.3f}' for x in ratios)}; median {r:.3f}")
print(f"per game: before {1000 / mb:.1f} ms, after {1000 / ma:.1f} ms (medians): {1000 / ma - 1000 / mb:+.1f} ms a game; "
      f"by the median ratio, {(1 / r - 1) * 1000 / mb:+.1f} ms on the before median")
for which in ["before", "after"]:
    if which in split:
        d, t, rest, recorded, gap = (statistics.median(x[i] for x in split[which]) for i in range(5))
        print(f"{which}: median over windows of the median game: {d:.1f} ms = think {t:.1f} ms + rest {rest:.1f} ms; "
              f"recorded by the server {recorded:.1f} ms, gap to the next {gap:.1f} ms")
print(f"load average (1 min) over the windows: {min(loads):.1f}-{max(loads):.1f}, median {statistics.median(loads):.1f}")
PY
