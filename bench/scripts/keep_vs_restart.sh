#!/bin/sh
# Kept processes against restarts (issue 27): games/s of a `--max-plies 20` tournament between
# two bots of one kind, with each bot's process kept from game to game (`--restart on-fault`,
# the default for bots whose ready says "games":"many", protocol 1.1) and with a new process
# for every game (`--restart always`, what every bot got before). Three kinds of bot:
#
#   c       the C instant bot (bench/bots/instant.c --many, compiled with cc -O2)
#   python  the Python starter (sample-bots/python/random_bot.py)
#   java    the Java starter (java sample-bots/java/Bot.java: compiled in memory at every start)
#
# Both modes are measured side by side: every round runs each kind in both modes, the order of
# the two modes alternating from round to round (kept first in odd rounds), so that the
# machine's load drifts over both alike. Games/s is the tournament's games over its wall time,
# from the command's start to its exit (the bots' start-up, the referee's start and its
# writing of the results included), on a monotonic clock (/proc/uptime).
#
#   cargo build --release -p bao-referee
#   bench/scripts/keep_vs_restart.sh [KIND ...]        # default: c python java
#
# Environment: BAO_REFEREE (default target/release/bao-referee), BAO_KEEP_ROUNDS (default 3),
# BAO_KEEP_PLIES (--max-plies, default 20), BAO_KEEP_GAMES_C / _PYTHON / _JAVA (games per
# tournament, even; default 400 / 60 / 20), BAO_KEEP_CONCURRENCY (default 1), BAO_KEEP_DIR
# (work folder, default a new temporary one; each tournament folder is removed after its row),
# BAO_KEEP_ARGS (more tournament arguments, e.g. --isolation none).
# Runs under `nice`. Prints one tab-separated row per tournament (round, kind, mode, games,
# seconds, games/s, the 1-minute load average at its start, the bot processes started fresh,
# from the logs' ready records: 2 a game with restarts), then per kind the median games/s
# of each mode and their ratio.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
referee=${BAO_REFEREE:-$root/target/release/bao-referee}
rounds=${BAO_KEEP_ROUNDS:-3}
plies=${BAO_KEEP_PLIES:-20}
concurrency=${BAO_KEEP_CONCURRENCY:-1}
extra=${BAO_KEEP_ARGS:-}
work=${BAO_KEEP_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bao-keep.XXXXXX")}
kinds=${*:-c python java}

[ -x "$referee" ] || { echo "error: no $referee (cargo build --release -p bao-referee)" >&2; exit 2; }
mkdir -p "$work"

# games KIND / command KIND SEED: the games of a tournament and a bot's command line.
games() {
    case $1 in
        c) echo "${BAO_KEEP_GAMES_C:-400}" ;;
        python) echo "${BAO_KEEP_GAMES_PYTHON:-60}" ;;
        java) echo "${BAO_KEEP_GAMES_JAVA:-20}" ;;
    esac
}
command_of() {
    case $1 in
        c) echo "$work/instant --many" ;;
        python) echo "python3 -B $root/sample-bots/python/random_bot.py --seed $2" ;;
        java) echo "java $root/sample-bots/java/Bot.java --seed $2" ;;
    esac
}
for kind in $kinds; do
    case $kind in
        c) command -v cc >/dev/null || { echo "error: no C compiler cc for bench/bots/instant.c" >&2; exit 2; }
           cc -O2 -o "$work/instant" "$root/bench/bots/instant.c" ;;
        python) command -v python3 >/dev/null || { echo "error: no python3" >&2; exit 2; } ;;
        java) command -v java >/dev/null || { echo "error: no java" >&2; exit 2; } ;;
        *) echo "error: unknown kind $kind (c, python or java)" >&2; exit 2 ;;
    esac
done

# uptime: the monotonic clock, seconds (CLOCK_BOOTTIME, 10 ms steps).
uptime_s() { cut -d' ' -f1 /proc/uptime; }
load() { cut -d' ' -f1 /proc/loadavg; }

# run ROUND KIND MODE: one tournament, one row.
run() {
    out="$work/t-$2-$3-$1"
    n=$(games "$2")
    la=$(load)
    start=$(uptime_s)
    # shellcheck disable=SC2086 # BAO_KEEP_ARGS is words
    if ! nice "$referee" tournament --out "$out" --plain --games "$n" --max-plies "$plies" \
        --concurrency "$concurrency" --restart "$3" --startup-time 60s $extra \
        --bot name=a "cmd=$(command_of "$2" 1)" --bot name=b "cmd=$(command_of "$2" 2)" \
        >"$work/stdout" 2>"$work/stderr"; then
        echo "error: the $2 $3 tournament failed:" >&2
        tail -5 "$work/stderr" >&2
        exit 1
    fi
    end=$(uptime_s)
    played=$(ls "$out/games" | grep -c '\.jsonl$')
    [ "$played" -eq "$n" ] || { echo "error: $out: $played game logs, $n expected" >&2; exit 1; }
    # The processes really were kept (or not): the ready records of kept ones say "fresh":false.
    kept=$(cat "$out"/games/*.jsonl | grep '"type":"ready"' | grep -c '"fresh":false' || true)
    fresh=$((2 * n - kept))
    case $3 in
        always) [ "$fresh" -eq $((2 * n)) ] || { echo "error: $out: $fresh fresh processes, $((2 * n)) expected" >&2; exit 1; } ;;
        on-fault) [ "$fresh" -le $((2 * concurrency)) ] || { echo "error: $out: $fresh fresh processes: not kept" >&2; exit 1; } ;;
    esac
    rm -rf "$out"
    awk -v r="$1" -v k="$2" -v m="$3" -v g="$n" -v s="$start" -v e="$end" -v la="$la" -v f="$fresh" \
        'BEGIN { printf "%s\t%s\t%s\t%d\t%.2f\t%.2f\t%s\t%d\n", r, k, m, g, e - s, g / (e - s), la, f }' |
        tee -a "$work/rows.tsv"
}

printf 'round\tkind\tmode\tgames\tseconds\tgames/s\tload\tfresh processes\n'
: >"$work/rows.tsv"
round=1
while [ "$round" -le "$rounds" ]; do
    for kind in $kinds; do
        if [ $((round % 2)) -eq 1 ]; then
            run "$round" "$kind" on-fault
            run "$round" "$kind" always
        else
            run "$round" "$kind" always
            run "$round" "$kind" on-fault
        fi
    done
    round=$((round + 1))
done

# The median games/s of each kind and mode, and kept over restarted.
printf '\nkind\tkept games/s\trestarted games/s\tkept/restarted\n'
for kind in $kinds; do
    median() {
        awk -F'\t' -v k="$kind" -v m="$1" '$2 == k && $3 == m { print $6 }' "$work/rows.tsv" | sort -g |
            awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
    }
    kept=$(median on-fault)
    fresh=$(median always)
    awk -v k="$kind" -v a="$kept" -v b="$fresh" 'BEGIN { printf "%s\t%.2f\t%.2f\t%.1f×\n", k, a, b, a / b }'
done
