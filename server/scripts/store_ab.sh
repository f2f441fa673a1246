#!/usr/bin/env bash
# The store's cost: games per second of one competition server on SQLite and on PostgreSQL,
# side by side: PAIRS pairs of windows of `games_per_second.sh` (a fresh arena each, two
# submissions of the instant bot), the order swapped every pair (ABBA...), pinned to CPU ("-"
# for none). PostgreSQL windows use a new database of the cluster at PG_URL each (a cluster of
# its own: its WAL and CPU figures are the whole cluster's). Prints every window, the medians,
# the median of the pairs' ratios (postgres / sqlite), what it means in ms a game, and
# PostgreSQL's load per 1,000 games. Usage:
#   server/scripts/store_ab.sh REFEREE BOT PG_URL [PAIRS] [SECONDS] [CPU]
# e.g. url=$(deploy/postgres/throwaway.sh start /tmp/bao-pg-bench 55434)
#      server/scripts/store_ab.sh target/release/bao-referee target/release/bao-random "$url" 5 20 1
set -euo pipefail
here=$(dirname "$(realpath "$0")")
referee=$1; bot=$2; pg=$3; pairs=${4:-5}; window=${5:-20}; cpu=${6:-1}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pin=()
[ "$cpu" = "-" ] || pin=(taskset -c "$cpu")
port=$((18800 + RANDOM % 500))
for i in $(seq "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then order="sqlite postgres"; else order="postgres sqlite"; fi
    for which in $order; do
        port=$((port + 1))
        if [ "$which" = postgres ]; then
            line=$(BAO_GPS_POSTGRES=$pg "${pin[@]}" "$here/games_per_second.sh" "$referee" "$bot" "$window" "$port")
        else
            line=$(env -u BAO_DATABASE "${pin[@]}" "$here/games_per_second.sh" "$referee" "$bot" "$window" "$port")
        fi
        echo "pair $i $which: $line"
        echo "$i $which $line" >>"$out"
    done
done
python3 - "$out" <<'PY'
import re, statistics, sys
rates, pg = {}, []
for line in open(sys.argv[1]):
    pair, which = line.split()[:2]
    rates.setdefault(which, {})[int(pair)] = float(re.search(r": ([0-9.]+) games/s", line).group(1))
    m = re.search(r"PostgreSQL per 1,000 games: (\d+) commits, (\d+) rows written, ([0-9.]+) MB of WAL, ([0-9.]+) CPU s", line)
    if m:
        pg.append([float(x) for x in m.groups()])
med = statistics.median
s, p = rates["sqlite"], rates["postgres"]
ratios = [p[i] / s[i] for i in s if i in p and s[i] > 0]
print(f"median games/s: sqlite {med(s.values()):.2f}, postgres {med(p.values()):.2f}; "
      f"median ratio postgres/sqlite {med(ratios):.3f} over {len(ratios)} pairs")
print(f"in ms a game: sqlite {1000 / med(s.values()):.1f}, postgres {1000 / med(p.values()):.1f}")
if pg:
    cols = list(zip(*pg))
    print(f"PostgreSQL per 1,000 games (medians of {len(pg)} windows): {med(cols[0]):.0f} commits, "
          f"{med(cols[1]):.0f} rows written, {med(cols[2]):.1f} MB of WAL, {med(cols[3]):.2f} CPU s")
PY
