#!/bin/sh
# Scaling benchmark (issue 10): tournaments of many short games between two C instant bots
# (bench/bots/instant.c), then a resume of each finished tournament; wall time per game and
# the referee's peak RSS (/usr/bin/time -v "Maximum resident set size", which is the largest
# of the referee and the processes it started: the referee's, here). Then a 1,000,000-game
# plan whose journal is *generated* (no game is played): resumed finished, and resumed
# half-finished (the resume streams 500,000 lines, then plays games until it is stopped with
# SIGINT after BAO_SCALING_PLAY seconds).
#
#   cargo build --release -p bao-referee
#   bench/scripts/scaling.sh [GAMES ...]          # default: 2000 20000
#   bench/scripts/scaling.sh 2000 20000 200000 1M # 1M: the generated million-game rows
#
# Environment: BAO_REFEREE (default target/release/bao-referee), BAO_SCALING_DIR (work folder,
# default a new temporary one; each tournament folder is removed after its row),
# BAO_SCALING_PLIES (--max-plies, default 4), BAO_SCALING_CONCURRENCY (default 1),
# BAO_SCALING_LIMIT (seconds: a tournament still running then is stopped with SIGINT and its
# row counts the games it played; default none), BAO_SCALING_RESUME_LIMIT (the same for the
# resume of a run that was stopped, which plays on; default BAO_SCALING_LIMIT), BAO_SCALING_PLAY (seconds the half-finished
# million-game resume runs, default 60), BAO_SCALING_SAMPLE (seconds: while a run plays, the
# referee's VmRSS and the journal's line count are sampled this often from /proc into
# WORK/samples-NAME.tsv, with the referee's CPU time and the load average; default 0, none), BAO_SCALING_ARGS (more tournament arguments, e.g.
# --isolation none), BAO_SCALING_KEPT (1: the instant bots declare "games":"many", protocol
# 1.1, so each keeps its process from game to game: the issue 27 rows "with kept processes";
# default 0, a new process every game).
# Runs under `nice`. Prints one tab-separated row per run, and after each played run its
# segments: the wall time per game of every BAO_SCALING_SEGMENT consecutive journal lines,
# from their finished_at (1 s resolution: a segment should last 10 s or more), to show it is
# flat. The 200,000-game run takes about 200,000 × the per-game time of the 20,000 row
# (at 40–55 ms a game: 2.2–3 hours).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
referee=${BAO_REFEREE:-$root/target/release/bao-referee}
work=${BAO_SCALING_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bao-scaling.XXXXXX")}
plies=${BAO_SCALING_PLIES:-4}
concurrency=${BAO_SCALING_CONCURRENCY:-1}
limit=${BAO_SCALING_LIMIT:-0}
resume_limit=${BAO_SCALING_RESUME_LIMIT:-$limit}
play=${BAO_SCALING_PLAY:-60}
extra=${BAO_SCALING_ARGS:-}
sample=${BAO_SCALING_SAMPLE:-0}
segment=${BAO_SCALING_SEGMENT:-0}
kept=${BAO_SCALING_KEPT:-0}

[ -x "$referee" ] || { echo "error: no $referee (cargo build --release -p bao-referee)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed for the peak RSS" >&2; exit 2; }
command -v cc >/dev/null || { echo "error: no C compiler cc for bench/bots/instant.c" >&2; exit 2; }
mkdir -p "$work"
if [ "$kept" = 1 ]; then
    # The same bot, its ready saying "games":"many" (it answers every hello, and exits only on
    # quit or at the end of its input, so it can play any number of games).
    sed 's/\\"bao-bench\\"}/\\"bao-bench\\",\\"games\\":\\"many\\"}/' "$root/bench/bots/instant.c" >"$work/instant-many.c"
    grep -q 'games\\":\\"many' "$work/instant-many.c" || { echo "error: cannot make instant.c declare games many" >&2; exit 2; }
    cc -O2 -o "$work/instant" "$work/instant-many.c"
else
    cc -O2 -o "$work/instant" "$root/bench/bots/instant.c"
fi

# field NAME FILE: the value of a /usr/bin/time -v line.
field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }
# seconds TIME: "h:mm:ss" or "m:ss.ss" as seconds.
seconds() { echo "$1" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'; }
# row NAME GAMES TIMEFILE STATUS: one tab-separated row.
row() {
    s=$(seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$3")")
    kb=$(field 'Maximum resident set size (kbytes)' "$3")
    awk -v n="$1" -v g="$2" -v s="$s" -v kb="$kb" -v st="$4" \
        'BEGIN { printf "%s\t%d\t%.2f\t%.3f\t%.1f\t%s\n", n, g, s, (g > 0 ? s * 1000 / g : 0), kb / 1024, st }'
}
# bots: the two instant bots' words, one a line.
bots() { printf '%s\n' --bot name=a "cmd=$work/instant" --bot name=b "cmd=$work/instant"; }
# timed NAME GAMES LIMIT OUT COMMAND...: runs COMMAND niced under /usr/bin/time (stopped with
# SIGINT after LIMIT seconds unless 0), prints its row; GAMES "journal" counts the lines
# journaled by the run.
timed() {
    name=$1 games=$2 stop=$3 out=$4
    shift 4
    before=$(cat "$out/journal.jsonl" 2>/dev/null | wc -l)
    status=0
    if [ "$stop" -gt 0 ]; then
        /usr/bin/time -v -o "$work/time" timeout --preserve-status -s INT "$stop" nice "$@" >/dev/null 2>"$work/stderr" &
    else
        /usr/bin/time -v -o "$work/time" nice "$@" >/dev/null 2>"$work/stderr" &
    fi
    timer=$!
    watcher=
    if [ "$sample" -gt 0 ]; then
        sampler "$timer" "$out" >"$work/samples-$(echo "$name" | tr ' ,' '__').tsv" &
        watcher=$!
    fi
    wait "$timer" || status=$?
    [ -z "$watcher" ] || wait "$watcher"
    case $status in
        0 | 130) ;;
        *) echo "error: $name failed ($status), see $work/stderr" >&2; tail -3 "$work/stderr" >&2; exit 1 ;;
    esac
    after=$(wc -l <"$out/journal.jsonl")
    [ "$games" = journal ] && games=$((after - before))
    row "$name" "$games" "$work/time" "exit $status, journal $after lines"
}

# sampler PID OUT: every BAO_SCALING_SAMPLE seconds, the seconds since the start, the journal's
# lines, the VmRSS (kB) and the CPU time (utime + stime, in clock ticks, all its threads) of the
# referee under PID (the first process below it whose program is the referee's), and the
# 1-minute load average, until PID ends. The referee's CPU per game between two samples does
# not depend on the machine's load the way wall time does.
sampler() {
    start=$(date +%s)
    comm=$(basename "$referee" | cut -c1-15)
    printf 'seconds\tjournal lines\treferee VmRSS kB\treferee CPU ticks\tload 1 min\n'
    while kill -0 "$1" 2>/dev/null; do
        pid=$1
        while [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$comm" ]; do
            pid=$(cut -d' ' -f1 "/proc/$pid/task/$pid/children" 2>/dev/null || true)
        done
        rss=$( [ -n "$pid" ] && sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2>/dev/null || true)
        # Fields 14 and 15 of /proc/PID/stat, counted after the ")" that ends the command name.
        cpu=$( [ -n "$pid" ] && sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }' || true)
        lines=$({ wc -l <"$2/journal.jsonl"; } 2>/dev/null || echo 0)
        printf '%d\t%d\t%s\t%s\t%s\n' "$(($(date +%s) - start))" "$lines" "${rss:-?}" "${cpu:-?}" \
            "$(cut -d' ' -f1 /proc/loadavg)"
        sleep "$sample"
    done
}

# segments NAME JOURNAL SIZE: the wall time per game of each SIZE consecutive journal lines,
# from their finished_at (seconds of the day, a day boundary allowed: a time more than 12 h
# before the previous line; concurrent games finish out of order by a second); the first segment is
# timed from its first line, so it counts one game less.
segments() {
    printf 'segments of %s\tgames\tseconds\tms/game\n' "$1"
    sed -n 's/.*"finished_at":"[0-9-]*T\([0-9][0-9]\):\([0-9][0-9]\):\([0-9][0-9]\)Z".*/\1 \2 \3/p' "$2" |
        awk -v size="$3" '
            { t = $1 * 3600 + $2 * 60 + $3; if (NR > 1 && t + 43200 < last) day += 86400; last = t; t += day
              if (NR == 1) { start = t; first = 1; n = 0 }
              n++
              if (n == size) { g = size - first; printf "%d-%d\t%d\t%d\t%.1f\n", NR - size, NR - 1, g, t - start, (g > 0 ? (t - start) * 1000 / g : 0); start = t; n = 0; first = 0 } }
            END { if (n > 0) { g = n - first; printf "%d-%d\t%d\t%d\t%.1f\n", NR - n, NR - 1, g, t - start, (g > 0 ? (t - start) * 1000 / g : 0) } }'
}

# generate GAMES LINES FILE: the journal of the first LINES games of a two-bot plan of GAMES
# games (one pairing, one round: game g is pair g/2 on opening g/2); results cycle through a
# win for each side and a draw.
generate() {
    awk -v lines="$2" 'BEGIN {
        for (g = 0; g < lines; g++) {
            s = g % 2; n = 1 - s; k = g % 3
            if (k == 0) { res = "S wins (front_row_empty)"; win = "\"S\""; why = "front_row_empty" }
            else if (k == 1) { res = "N wins (front_row_empty)"; win = "\"N\""; why = "front_row_empty" }
            else { res = "draw (max_plies)"; win = "null"; why = "max_plies" }
            printf "{\"game\":%d,\"pair\":%d,\"round\":0,\"pairing\":0,\"south_bot\":%d,\"north_bot\":%d,\"south\":\"%s\",\"north\":\"%s\",\"opening\":%d,\"result\":\"%s\",\"winner\":%s,\"reason\":\"%s\",\"plies\":4,\"duration_ms\":12,\"log\":\"games/%05d.jsonl\",\"verified\":true,\"worst_lag_us\":%d,\"finished_at\":\"2026-12-01T12:00:00Z\"}\n", \
                g, int(g / 2), s, n, s ? "b" : "a", n ? "b" : "a", int(g / 2), res, win, why, g, 1000 + g % 997
        }
    }' >"$3"
}

[ $# -gt 0 ] || set -- 2000 20000
printf 'run\tgames\twall s\tms/game\tpeak RSS MB\tstatus\n'
for games in "$@"; do
    out=$work/tournament-$games
    rm -rf "$out"
    if [ "$games" = 1M ]; then
        mkdir -p "$out/games"
        # shellcheck disable=SC2046 # the bot words, one a line
        "$referee" tournament $(bots) --games 1000000 --max-plies "$plies" --tc 3600s+1s --dry-run >"$out/plan.json"
        generate 1000000 1000000 "$out/journal.jsonl"
        timed "resume 1M generated, finished" 1000000 0 "$out" "$referee" tournament --resume --out "$out" --plain
        generate 1000000 500000 "$out/journal.jsonl"
        rm -f "$out/results.json"
        timed "resume 1M generated, half, then play ${play}s" journal "$play" "$out" \
            "$referee" tournament --resume --out "$out" --plain --concurrency "$concurrency"
        rm -rf "$out"
        continue
    fi
    # shellcheck disable=SC2046,SC2086 # the bot words, one a line; $extra is a list of words
    timed "run $games" journal "$limit" "$out" "$referee" tournament $(bots) \
        --games "$games" --concurrency "$concurrency" --max-plies "$plies" --tc 3600s+1s \
        --out "$out" --plain $extra
    size=$segment
    [ "$size" -gt 0 ] || size=$((games / 10 > 100 ? games / 10 : 100))
    segments "run $games" "$out/journal.jsonl" "$size" >"$work/segments-$games.tsv"
    # A finished run plays nothing; one stopped by BAO_SCALING_LIMIT plays on until its limit.
    timed "resume $games" "$(wc -l <"$out/journal.jsonl")" "$resume_limit" "$out" \
        "$referee" tournament --resume --out "$out" --plain --concurrency "$concurrency"
    cat "$work/segments-$games.tsv"
    rm -rf "$out"
done
