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
set -euo pipefail
server=$(realpath "$1"); bot=$(realpath "$2"); window=${3:-30}; port=${4:-18090}; unsafe=${5:-}
arena=$(mktemp -d /tmp/bao-gps-XXXXXX)
pid=
trap '[ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -rf "$arena"' EXIT
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
start=$(finished); t0=$(date +%s.%N)
sleep "$window"
end=$(finished); t1=$(date +%s.%N)
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
    import sqlite3
    rows = sqlite3.connect(sys.argv[1] + "/../arena.sqlite3").execute(
        "select started_at, finished_at from games where finished_at is not null order by id").fetchall()
    if len(rows) > 1:
        line += (f"; recorded {median([b - a for a, b in rows]):.1f} ms, "
                 f"gap {median([rows[i + 1][0] - rows[i][1] for i in range(len(rows) - 1)]):.1f} ms")
    print(line)
PY
)
echo "games: $((end - start)) in $(echo "$t1 - $t0" | bc) s: $(echo "scale=2; ($end - $start) / ($t1 - $t0)" | bc) games/s (load: $(cut -d' ' -f1-3 /proc/loadavg)); $split"
