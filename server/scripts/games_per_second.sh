#!/usr/bin/env bash
# Games per second of a competition server: a fresh arena, two submissions of an instant
# bot (an executable), games counted by `bao_games_finished_total` over a window once both
# are active; then, from the arena's game logs, the median game's duration split into the
# bots' think time and the rest (starting and ending the two bots). Usage:
#   server/scripts/games_per_second.sh REFEREE_BINARY BOT_BINARY [SECONDS] [PORT] [UNSAFE_SANDBOX]
# e.g. server/scripts/games_per_second.sh target/debug/bao-referee target/debug/bao-random 30 18090 process-limit
# (REFEREE_BINARY: a `bao-referee` built with the server, whose `serve` it runs)
# UNSAFE_SANDBOX is written to arena.toml's [sandbox] unsafe_sandbox when the server has that key
# (run by an unprivileged user without delegated cgroups: cgroup-v2,memory-limit; such a run
# also sets games.allow_unconfined_cpu).
# With BAO_GPS_POSTGRES set to a PostgreSQL cluster's URL (a user that may create databases, as
# deploy/postgres/throwaway.sh start prints), the arena's store is a new database of that
# cluster (`serve --database`), and the line ends with PostgreSQL's load per 1,000 games over the
# window: commits, rows written, WAL bytes, and the CPU seconds of the database's processes
# (from /proc, outside the server).
set -euo pipefail
server=$(realpath "$1"); bot=$(realpath "$2"); window=${3:-30}; port=${4:-18090}; unsafe=${5:-}
arena=$(mktemp -d /tmp/bao-gps-XXXXXX)
pid=
trap '[ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -rf "$arena"' EXIT
pg=${BAO_GPS_POSTGRES:-}
if [ -n "$pg" ]; then
    db="bao_gps_$$_$RANDOM"
    psql -q "$pg" -c "CREATE DATABASE $db"
    export BAO_DATABASE="${pg%/*}/$db"
fi
# PostgreSQL's counters for the arena's database: commits, rows inserted+updated+deleted, WAL
# bytes (the cluster's: use a cluster of its own), and the CPU seconds of the cluster's
# processes from /proc: the postmaster's own and its reaped children's, and its live children's.
pg_load() {
    local counters backend pm cpu ticks
    counters=$(psql -qAt "$BAO_DATABASE" -F' ' -c "SELECT d.xact_commit, d.tup_inserted + d.tup_updated + d.tup_deleted, w.wal_bytes FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()")
    backend=$(psql -qAt "$BAO_DATABASE" -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")
    pm=$(ps -o ppid= -p "$backend" | tr -d ' ')
    cpu=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat")
    for p in $(pgrep -P "$pm"); do
        cpu=$((cpu + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    ticks=$(getconf CLK_TCK)
    echo "$counters $(echo "scale=3; $cpu / $ticks" | bc)"
}
token=$("$server" serve --data "$arena/a" user add alice 2>/dev/null)
toml="$arena/a/arena.toml"
sed -i 's/upload_bytes = 2097152/upload_bytes = 268435456/; s/unpacked_bytes = 20971520/unpacked_bytes = 268435456/' "$toml"
sed -i 's/max_plies = 600/max_plies = 1000/; s/submissions_per_hour = 12/submissions_per_hour = 100/' "$toml"
# /metrics is for admins by default: this arena's is public (the games are counted there).
sed -i 's/^metrics = "admin"/metrics = "public"/' "$toml"
if grep -q '^unsafe_sandbox' "$toml"; then sed -i "s/^unsafe_sandbox = \"\"/unsafe_sandbox = \"$unsafe\"/" "$toml"; fi
# Not as root, the bots' CPU cannot be confined (no cgroups of ours): play anyway.
if [ "$(id -u)" != 0 ]; then sed -i 's/^allow_unconfined_cpu = false/allow_unconfined_cpu = true/' "$toml"; fi
"$server" serve --data "$arena/a" --listen "127.0.0.1:$port" >"$arena/out" 2>"$arena/err" &
pid=$!
for _ in $(seq 100); do grep -q listening "$arena/out" 2>/dev/null && break; sleep 0.1; done
if ! grep -q listening "$arena/out"; then
    echo "the server did not start; it said:" >&2
    cat "$arena/out" "$arena/err" >&2
    exit 1
fi
for b in a b; do
    curl -sf -X POST -H "Authorization: Bearer $token" --data-binary @"$bot" \
        "http://127.0.0.1:$port/api/bots/r$b/versions?language=executable&file_name=bot" >/dev/null
done
finished() { curl -sf "http://127.0.0.1:$port/metrics" | awk '/^bao_games_finished_total/ {print $2}'; }
started=
for _ in $(seq 600); do
    n=$(finished || true)
    if [ -n "$n" ] && [ "$n" -ge 2 ]; then started=1; break; fi
    sleep 0.5
done
if [ -z "$started" ]; then
    echo "no two games finished within 300 s; the server said:" >&2
    cat "$arena/out" "$arena/err" >&2
    exit 1
fi
[ -z "$pg" ] || pg_before=$(pg_load)
start=$(finished); t0=$(date +%s.%N)
sleep "$window"
end=$(finished); t1=$(date +%s.%N)
[ -z "$pg" ] || pg_after=$(pg_load)
# Where a game's time goes, from the game logs (every finished game of the arena): its
# duration (the referee's, from the bots' start to the result), the bots' think time (the sum
# of the plies' wall times, as the referee clocked them), and the rest (the bots' start,
# hello and end: the per-game cost of starting two bots, sandboxed or not); and, from the
# database, the game's recorded start to end and the gap from one game's end to the next's
# start.
split=$(python3 - "$arena/a/games" <<'PY'
import glob, json, statistics, sys
games = []
for path in glob.glob(sys.argv[1] + "/*.jsonl"):
    records = []
    for line in open(path):
        try:
            records.append(json.loads(line))
        except ValueError:  # the game still being written
            break
    result = [r for r in records if r.get("type") == "result"]
    if not result or result[0].get("duration_ms") is None:
        continue
    think = sum(r.get("time_us", 0) for r in records if r.get("type") == "ply") / 1000
    games.append((result[0]["duration_ms"], think))
if games:
    median = lambda values: statistics.median(values)
    line = (f"per game (median of {len(games)}): {median([d for d, _ in games]):.1f} ms, "
            f"think {median([t for _, t in games]):.1f} ms, rest {median([d - t for d, t in games]):.1f} ms")
    # The server's own stamps (ms): a game's start to its end as recorded, and the end of one
    # game to the start of the next.
    import os, sqlite3, subprocess
    query = "select started_at, finished_at from games where finished_at is not null order by id"
    if os.environ.get("BAO_DATABASE"):
        out = subprocess.run(["psql", "-qAt", "-F", " ", os.environ["BAO_DATABASE"], "-c", query],
                             capture_output=True, text=True, check=True).stdout
        rows = [tuple(int(x) for x in l.split()) for l in out.splitlines() if l.strip()]
    else:
        rows = sqlite3.connect(sys.argv[1] + "/../arena.sqlite3").execute(query).fetchall()
    if len(rows) > 1:
        line += (f"; recorded {median([b - a for a, b in rows]):.1f} ms, "
                 f"gap {median([rows[i + 1][0] - rows[i][1] for i in range(len(rows) - 1)]):.1f} ms")
    print(line)
PY
)
if [ -n "$pg" ]; then
    split="$split; $(python3 - "$pg_before" "$pg_after" "$((end - start))" <<'PY'
import sys
before = [float(x) for x in sys.argv[1].split()]
after = [float(x) for x in sys.argv[2].split()]
games = int(sys.argv[3])
if games > 0:
    k = 1000 / games
    commits, rows, wal, cpu = ((a - b) * k for a, b in zip(after, before))
    print(f"PostgreSQL per 1,000 games: {commits:.0f} commits, {rows:.0f} rows written, "
          f"{wal / 1e6:.1f} MB of WAL, {cpu:.2f} CPU s")
PY
)"
    psql -q "$pg" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null || true
fi
echo "games: $((end - start)) in $(echo "$t1 - $t0" | bc) s: $(echo "scale=2; ($end - $start) / ($t1 - $t0)" | bc) games/s (load: $(cut -d' ' -f1-3 /proc/loadavg)); $split"
