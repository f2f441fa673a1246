#!/usr/bin/env bash
# Games per second of a competition server whose games are played by workers
# (games.executor = "workers", docs/worker.md): a fresh arena in a new database of the
# PostgreSQL cluster of BAO_GPS_POSTGRES (a user that may create databases, as
# deploy/postgres/throwaway.sh start prints), BOTS submissions of an instant bot (an
# executable), WORKERS `bao-referee worker --concurrency 1` processes; games counted by
# `bao_games_finished_total` over a window once every bot is active. Usage:
#   BAO_GPS_POSTGRES=URL server/scripts/workers_games_per_second.sh REFEREE_BINARY BOT_BINARY WORKERS [BOTS] [SECONDS] [PORT] [UNSAFE_SANDBOX]
# e.g. BAO_GPS_POSTGRES=postgres://postgres@127.0.0.1:55432/postgres \
#   server/scripts/workers_games_per_second.sh target/debug/bao-referee target/debug/bao-random 2 8 30 18091
# BOTS (default 8) gives the matchmaker pairs to play side by side (a version plays one pair at
# a time); PAIRS (environment) the pairs queued at once; UNSAFE_SANDBOX as in games_per_second.sh.
set -euo pipefail
server=$(realpath "$1"); bot=$(realpath "$2"); workers=${3:?WORKERS}; bots=${4:-8}
window=${5:-30}; port=${6:-18091}; unsafe=${7:-}
pg=${BAO_GPS_POSTGRES:?BAO_GPS_POSTGRES: a PostgreSQL cluster URL (deploy/postgres/throwaway.sh start DIR)}
arena=$(mktemp -d /tmp/bao-wgps-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$arena"' EXIT
db="bao_wgps_$$_$RANDOM"
psql -q "$pg" -c "CREATE DATABASE $db"
export BAO_DATABASE="${pg%/*}/$db"
token=$("$server" serve --data "$arena/a" user add alice --admin 2>/dev/null)
toml="$arena/a/arena.toml"
sed -i 's/upload_bytes = 2097152/upload_bytes = 268435456/; s/unpacked_bytes = 20971520/unpacked_bytes = 268435456/' "$toml"
sed -i 's/submissions_per_hour = 12/submissions_per_hour = 100/; s/queued_per_user = 4/queued_per_user = 100/' "$toml"
sed -i 's/max_plies = 600/max_plies = 1000/; s/^executor = "server"/executor = "workers"/' "$toml"
# Pairs queued at once (PAIRS, default: twice the workers, so that a worker finds a game queued
# when it ends one; at most BOTS / 2 pairs can be played at once).
sed -i "s/^# concurrency = 1/concurrency = ${PAIRS:-$((2 * workers))}/" "$toml"
sed -i 's/^metrics = "admin"/metrics = "public"/' "$toml"
if grep -q '^unsafe_sandbox' "$toml"; then sed -i "s/^unsafe_sandbox = \"\"/unsafe_sandbox = \"$unsafe\"/" "$toml"; fi
if [ "$(id -u)" != 0 ]; then sed -i 's/^allow_unconfined_cpu = false/allow_unconfined_cpu = true/' "$toml"; fi
"$server" serve --data "$arena/a" --listen "127.0.0.1:$port" >"$arena/out" 2>"$arena/err" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$arena/out" 2>/dev/null && break; sleep 0.1; done
if ! grep -q listening "$arena/out"; then
    echo "the server did not start; it said:" >&2
    cat "$arena/out" "$arena/err" >&2
    exit 1
fi
for w in $(seq "$workers"); do
    "$server" worker --concurrency 1 --cache "$arena/cache-$w" >"$arena/w$w.out" 2>"$arena/w$w.err" &
    pids+=($!)
done
for b in $(seq "$bots"); do
    curl -sf -X POST -H "Authorization: Bearer $token" --data-binary @"$bot" \
        "http://127.0.0.1:$port/api/bots/r$b/versions?language=executable&file_name=bot" >/dev/null
done
active() { curl -sf "http://127.0.0.1:$port/metrics" | awk '/^bao_versions\{state="active"\}/ {print $2}'; }
finished() { curl -sf "http://127.0.0.1:$port/metrics" | awk '/^bao_games_finished_total/ {print $2}'; }
started=
for _ in $(seq 600); do
    a=$(active || true); n=$(finished || true)
    if [ "${a:-0}" -ge "$bots" ] && [ -n "$n" ] && [ "$n" -ge 2 ]; then started=1; break; fi
    sleep 0.5
done
if [ -z "$started" ]; then
    echo "the bots were not all active or no two games finished within 300 s; the server said:" >&2
    cat "$arena/out" "$arena/err" "$arena"/w*.err >&2
    exit 1
fi
start=$(finished); t0=$(date +%s.%N)
sleep "$window"
end=$(finished); t1=$(date +%s.%N)
played=$(psql -qAt "$BAO_DATABASE" -c "SELECT count(DISTINCT played_by) FROM games WHERE played_by IS NOT NULL")
echo "$workers workers, $bots bots: $((end - start)) games in $(echo "$t1 - $t0" | bc) s: $(echo "scale=1; ($end - $start) / ($t1 - $t0)" | bc) games/s ($played workers recorded games)"
