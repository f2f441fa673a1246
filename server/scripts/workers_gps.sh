#!/usr/bin/env bash
# The workers' games per second, side by side (issue 25): ROUNDS rounds of windows of
#   engine  one server playing in its own engine (games_per_second.sh: two submissions of the
#           instant bot, one game at a time) on a new database of the cluster at PG_URL;
#   w1 w2 w4  a server with games.executor = "workers" and 1, 2 or 4 `worker --concurrency 1`
#           processes (workers_games_per_second.sh: 8 submissions of the instant bot);
# the order reversed every other round (ABBA...). Prints every window, the medians, the median
# of the rounds' ratios to `engine` and to `w1`, and PostgreSQL's load per 1,000 games with
# workers: commits and rows written of the arena's database over the whole run (set-up
# included: the submissions, the gate, the migrations), the cluster's WAL and the CPU seconds
# of its processes over the whole run (use a cluster of its own). Usage:
#   server/scripts/workers_gps.sh REFEREE BOT PG_URL [ROUNDS] [SECONDS]
# e.g. url=$(deploy/postgres/throwaway.sh start /tmp/bao-pg-workers 55447)
#      server/scripts/workers_gps.sh target/release/bao-referee target/release/bao-random "$url" 2 20
set -euo pipefail
here=$(dirname "$(realpath "$0")")
referee=$1; bot=$2; pg=$3; rounds=${4:-2}; window=${5:-20}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
port=$((19300 + RANDOM % 500))
# The cluster's WAL bytes and the CPU seconds of its processes (as games_per_second.sh).
cluster_load() {
    local wal backend pm cpu
    wal=$(psql -qAt "$pg" -c "SELECT wal_bytes FROM pg_stat_wal")
    backend=$(psql -qAt "$pg" -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")
    pm=$(ps -o ppid= -p "$backend" | tr -d ' ')
    cpu=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat")
    for p in $(pgrep -P "$pm"); do
        cpu=$((cpu + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    echo "$wal $(echo "scale=3; $cpu / $(getconf CLK_TCK)" | bc)"
}
configs=(engine w1 w2 w4)
for i in $(seq "$rounds"); do
    if [ $((i % 2)) -eq 1 ]; then order=("${configs[@]}"); else order=(w4 w2 w1 engine); fi
    for which in "${order[@]}"; do
        port=$((port + 1))
        if [ "$which" = engine ]; then
            line=$(BAO_GPS_POSTGRES=$pg "$here/games_per_second.sh" "$referee" "$bot" "$window" "$port")
        else
            before=$(cluster_load)
            line=$(BAO_GPS_POSTGRES=$pg "$here/workers_games_per_second.sh" "$referee" "$bot" "${which#w}" 8 "$window" "$port")
            after=$(cluster_load)
            # The database the run made (workers_games_per_second.sh keeps it): its counters
            # and games, then drop it.
            db=$(psql -qAt "$pg" -c "SELECT datname FROM pg_database WHERE datname LIKE 'bao_wgps_%' ORDER BY oid DESC LIMIT 1")
            url="${pg%/*}/$db"
            read -r commits rows < <(psql -qAt -F' ' "$url" -c "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = current_database()")
            games=$(psql -qAt "$url" -c "SELECT count(*) FROM games WHERE state = 'finished'")
            psql -q "$pg" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null || true
            line="$line; $(python3 - "$before" "$after" "$commits" "$rows" "$games" <<'PY'
import sys
wal0, cpu0 = (float(x) for x in sys.argv[1].split())
wal1, cpu1 = (float(x) for x in sys.argv[2].split())
commits, rows, games = (int(x) for x in sys.argv[3:6])
k = 1000 / max(games, 1)
print(f"PostgreSQL per 1,000 games (whole run, {games} games): {commits * k:.0f} commits, {rows * k:.0f} rows written, "
      f"{(wal1 - wal0) * k / 1e6:.1f} MB of WAL, {(cpu1 - cpu0) * k:.2f} CPU s")
PY
)"
        fi
        echo "round $i $which: $line"
        echo "$i $which $line" >>"$out"
    done
done
python3 - "$out" <<'PY'
import re, statistics, sys
rates, pg = {}, {}
for line in open(sys.argv[1]):
    rnd, which = line.split()[:2]
    rates.setdefault(which, {})[int(rnd)] = float(re.search(r"([0-9.]+) games/s", line).group(1))
    m = re.search(r"PostgreSQL per 1,000 games[^:]*: (\d+) commits, (\d+) rows written, ([0-9.]+) MB of WAL, ([0-9.]+) CPU s", line)
    if m:
        pg.setdefault(which, []).append([float(x) for x in m.groups()])
med = statistics.median
for which in ["engine", "w1", "w2", "w4"]:
    r = rates[which]
    text = f"{which}: median {med(r.values()):.2f} games/s ({1000 / med(r.values()):.1f} ms a game)"
    for base in ["engine", "w1"]:
        if base != which:
            ratios = [r[i] / rates[base][i] for i in r if rates[base].get(i)]
            text += f"; median ratio to {base} {med(ratios):.3f}"
    if which in pg:
        cols = list(zip(*pg[which]))
        text += (f"; PostgreSQL per 1,000 games: {med(cols[0]):.0f} commits, {med(cols[1]):.0f} rows written, "
                 f"{med(cols[2]):.1f} MB of WAL, {med(cols[3]):.2f} CPU s")
    print(text)
PY
