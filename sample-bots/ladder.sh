#!/bin/sh
# The reference-bot ladder of docs/ladder.md: each rung against the one below it, 200
# colour-swapped games from random 6-ply openings at 1+0.01, one game at a time.
# Build first: cargo build --release -p bao-referee -p bao-sample-bots
# Usage: sample-bots/ladder.sh OUT_DIR [GAMES]
set -eu
OUT=${1:?usage: ladder.sh OUT_DIR [GAMES]}
GAMES=${2:-200}
B=target/release/bao-referee
A=target/release/bao-alphabeta
M=target/release/bao-mcts
match() { # NAME FIRST_NAME FIRST_CMD SECOND_NAME SECOND_CMD SEED
    nice "$B" tournament --bot name="$2" cmd="$3" --bot name="$4" cmd="$5" \
        --games "$GAMES" --openings random:6 --seed "$6" --tc 1+0.01 --concurrency 1 \
        --plain --out "$OUT/$1" | grep -A1 '^bot'
}
match 1-greedy-random   greedy "target/release/bao-greedy"  random "target/release/bao-random" 101
match 2-d1-greedy       d1 "$A --depth 1"                   greedy "target/release/bao-greedy" 102
match 3-d2-d1           d2 "$A --depth 2"                   d1 "$A --depth 1"                  103
match 4-d4-d2           d4 "$A --depth 4"                   d2 "$A --depth 2"                  104
match 5-nodes-d4        n3000 "$A --nodes 3000"             d4 "$A --depth 4"                  105
match 6-time-nodes      time "$A --time"                    n3000 "$A --nodes 3000"            106
match 7-time-d2         time "$A --time"                    d2 "$A --depth 2"                  107
match 8-time-mcts       alphabeta "$A --time"               mcts "$M --time"                   108
