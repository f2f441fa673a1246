#!/bin/sh
# Scaling benchmark (issue 10): tournaments of many short games between two C instant bots
# (bench/bots/instant.c), then a resume of each finished tournament; wall time per game and
# the referee's peak RSS (/usr/bin/time -v "Maximum resident set size").
#
#   cargo build --release -p bao-referee
#   bench/scripts/scaling.sh [GAMES ...]          # default: 2000 20000
#
# Environment: BAO_REFEREE (default target/release/bao-referee), BAO_SCALING_DIR (work folder,
# default a new temporary one; each tournament folder is removed after its row),
# BAO_SCALING_PLIES (--max-plies, default 4), BAO_SCALING_CONCURRENCY (default 1),
# BAO_SCALING_ARGS (more tournament arguments, e.g. --pid-namespace).
# Runs under `nice`. Prints one tab-separated row per size.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
referee=${BAO_REFEREE:-$root/target/release/bao-referee}
work=${BAO_SCALING_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bao-scaling.XXXXXX")}
plies=${BAO_SCALING_PLIES:-4}
concurrency=${BAO_SCALING_CONCURRENCY:-1}
extra=${BAO_SCALING_ARGS:-}

[ -x "$referee" ] || { echo "error: no $referee (cargo build --release -p bao-referee)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed for the peak RSS" >&2; exit 2; }
command -v cc >/dev/null || { echo "error: no C compiler cc for bench/bots/instant.c" >&2; exit 2; }
mkdir -p "$work"
cc -O2 -o "$work/instant" "$root/bench/bots/instant.c"

# field NAME FILE: the value of a /usr/bin/time -v line.
field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }
# seconds TIME: "h:mm:ss" or "m:ss.ss" as seconds.
seconds() { echo "$1" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'; }

[ $# -gt 0 ] || set -- 2000 20000
printf 'games\tplies/game\trun s\tms/game\trun peak RSS MB\tresume s\tresume peak RSS MB\tjournal lines\n'
for games in "$@"; do
    out=$work/tournament-$games
    rm -rf "$out"
    # shellcheck disable=SC2086 # $extra is a list of words
    /usr/bin/time -v -o "$work/time-$games.run" nice "$referee" tournament \
        --bot name=a cmd="$work/instant" --bot name=b cmd="$work/instant" \
        --games "$games" --concurrency "$concurrency" --max-plies "$plies" --tc 3600s+1s \
        --out "$out" --plain $extra >/dev/null 2>"$work/stderr-$games.run" ||
        { echo "error: the tournament of $games games failed, see $work/stderr-$games.run" >&2; exit 1; }
    /usr/bin/time -v -o "$work/time-$games.resume" nice "$referee" tournament --resume --out "$out" --plain \
        >/dev/null 2>"$work/stderr-$games.resume" ||
        { echo "error: resuming the tournament of $games games failed, see $work/stderr-$games.resume" >&2; exit 1; }
    lines=$(wc -l <"$out/journal.jsonl")
    run_s=$(seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$work/time-$games.run")")
    resume_s=$(seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$work/time-$games.resume")")
    run_kb=$(field 'Maximum resident set size (kbytes)' "$work/time-$games.run")
    resume_kb=$(field 'Maximum resident set size (kbytes)' "$work/time-$games.resume")
    awk -v g="$games" -v p="$plies" -v rs="$run_s" -v rk="$run_kb" -v ss="$resume_s" -v sk="$resume_kb" -v l="$lines" \
        'BEGIN { printf "%d\t%d\t%.1f\t%.2f\t%.1f\t%.2f\t%.1f\t%d\n", g, p, rs, rs * 1000 / g, rk / 1024, ss, sk / 1024, l }'
    rm -rf "$out"
done
