#!/usr/bin/env bash
# Every example command of README.md, PROTOCOL.md and docs/*.md, as written there.
#
# Run it from the repository root after the two commands of the README
# (`cargo run --release -p bao-referee --no-default-features -- match` and `cargo test --workspace`):
#
#     bash docs/examples.sh
#
# It writes my-game.jsonl, my-debug-game.jsonl, logs/, runs/ and results/ in the current
# folder. tests/e2e/doc_examples.rs runs it in a scratch folder (with sample-bots/ linked in
# and the `bao-referee` under test first on PATH) and checks that every line of every ```sh
# block of those files is a line of this script, so that the docs and this script cannot
# drift apart. Setup lines of the docs (cargo, apt-get, npm) are not examples and are not here;
# blocks that are not for this machine (a Slurm batch script) are fenced as ```bash instead.
set -euo pipefail

# --- README.md ---
export PATH="$PWD/target/release:$PATH"
bao-referee match \
  --south "python3 sample-bots/python/random_bot.py" \
  --north "bao-referee sample-bot greedy" --north-name greedy \
  --tc 10+0.1 --log my-game.jsonl
bao-referee verify my-game.jsonl
bao-referee record my-game.jsonl
bao-referee match --south "python3 sample-bots/python/random_bot.py" --north "bao-referee sample-bot greedy" --debug --log my-debug-game.jsonl
bao-referee check "python3 sample-bots/python/random_bot.py"   # exit 0 only when every check passes
bao-referee tournament --out runs/greedy-vs-random \
  --bot name=greedy cmd="bao-referee sample-bot greedy" --bot name=random cmd="bao-referee sample-bot random" \
  --games 20 --openings random:6 --tc 2+0.05 --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05

# --- docs/check.md ---
bao-referee check "python3 sample-bots/python/random_bot.py"
bao-referee check "bao-referee sample-bot greedy" --move-time 1s
bao-referee check "python3 random_bot.py" --dir sample-bots/python --startup-time 10s --json | head -c 300

# --- docs/cli-rules.md ---
S="$(bao-referee rules start kiswahili)"
bao-referee rules legal "$S"              # A6< A6> A7< A7>
bao-referee rules play "$S" 'A7<' 'a5<'   # two lines, see below
bao-referee rules perft "$S" 2            # 14
bao-referee rules show "$S"               # the board, for a person

# --- docs/tournament.md ---
bao-referee tournament \
  --bot name=greedy cmd="bao-referee sample-bot greedy" \
  --bot name=random cmd="bao-referee sample-bot random" \
  --bot name=mine   cmd="python3 -u random_bot.py" dir=sample-bots/python option.seed=3 \
  --games 4 --rounds 2 --openings random:6 --seed 42 \
  --tc 10+0.1 --max-plies 400 --out runs/first
bao-referee tournament --bot name=g cmd="bao-referee sample-bot greedy" --bot name=r cmd="bao-referee sample-bot random" --games 4 --openings random:4 --shard 1/2 --out results/shard-1
bao-referee tournament --bot name=g cmd="bao-referee sample-bot greedy" --bot name=r cmd="bao-referee sample-bot random" --games 4 --openings random:4 --shard 2/2 --out results/shard-2
bao-referee merge results/shard-* --out results/all
bao-referee tournament --bot name=g cmd="bao-referee sample-bot greedy" --bot name=r cmd="bao-referee sample-bot random" --games 2 --max-plies 20 --out runs/traced --trace runs/traced/traces

# --- docs/viewer.md (my-game.jsonl is the README's match) ---
bao-referee show my-game.jsonl                # every ply as a board, then the result
bao-referee show my-game.jsonl --ply 4        # the board after ply 4 (0: the start)
bao-referee show my-game.jsonl --follow       # a game still being written: plies as they arrive
bao-referee show my-game.jsonl --html my-game.html   # one self-contained replay page
