#!/usr/bin/env python3
"""Compares two tournament folders that must hold the same tournament: a merge of shards
(bao-referee merge --out) and the same tournament played unsharded.

    python3 compare_runs.py MERGED UNSHARDED

The same plan.json; the same games (every journal line, by game number, all but the
timing fields); the same moves in every game's log; the same results.json, all but the
timing figures. Prints a summary and exits 0, or prints the first differences and exits 1.
Used by test-one-node.sh."""

import json
import sys
from pathlib import Path

# Fields that measure time, so differ between two runs of the same games.
JOURNAL_TIMING = {"duration_ms", "finished_at", "worst_lag_us"}
RESULTS_TIMING = {"worst_lag_ms", "worst_lag_game"}


def journal(folder):
    games = {}
    for number, line in enumerate((folder / "journal.jsonl").read_text().splitlines(), 1):
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry["game"] in games:
            sys.exit(f"{folder}/journal.jsonl:{number}: game {entry['game']} twice")
        games[entry["game"]] = entry
    return games


def moves(folder, entry):
    """The plies of a game's log: (side, move) in order, and its result line without times."""
    plies, result = [], None
    for line in (folder / entry["log"]).read_text().splitlines():
        event = json.loads(line)
        if event.get("type") == "ply":
            plies.append((event["side"], event["move"]))
        elif event.get("type") == "result":
            result = (event.get("result"), event.get("winner"), event.get("reason"))
    return plies, result


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_runs.py MERGED UNSHARDED")
    merged, unsharded = Path(sys.argv[1]), Path(sys.argv[2])
    problems = []

    plans = [json.loads((f / "plan.json").read_text()) for f in (merged, unsharded)]
    if plans[0] != plans[1]:
        keys = sorted(k for k in set(plans[0]) | set(plans[1]) if plans[0].get(k) != plans[1].get(k))
        problems.append(f"plan.json differs in: {', '.join(keys)}")

    games = [journal(f) for f in (merged, unsharded)]
    if set(games[0]) != set(games[1]):
        problems.append(
            f"different games: merged has {sorted(games[0])}, unsharded has {sorted(games[1])}"
        )
    for number in sorted(set(games[0]) & set(games[1])):
        a, b = ({k: v for k, v in g[number].items() if k not in JOURNAL_TIMING} for g in games)
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            problems.append(f"game {number}: the journal lines differ in {', '.join(keys)}: {a} vs {b}")
            continue
        if moves(merged, games[0][number]) != moves(unsharded, games[1][number]):
            problems.append(f"game {number}: the logs hold different moves or results")

    results = [json.loads((f / "results.json").read_text()) for f in (merged, unsharded)]
    a, b = ({k: v for k, v in r.items() if k not in RESULTS_TIMING} for r in results)
    if a != b:
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        problems.append(f"results.json differs in: {', '.join(keys)}")
    if not a.get("complete") or a.get("games_counted") != a.get("games_planned"):
        problems.append(f"the merged tournament is not complete: {a.get('games_counted')} of {a.get('games_planned')} games")

    if problems:
        for p in problems[:20]:
            print(f"compare_runs: {p}", file=sys.stderr)
        sys.exit(1)
    plies = sum(entry["plies"] for entry in games[0].values())
    print(
        f"compare_runs: identical: {len(games[0])} games ({plies} plies), "
        f"plan.json, every journal line and log's moves, results.json; reasons {a['reasons']}, "
        "standings " + ", ".join(f"{s['name']} {s['score']}" for s in a["standings"])
    )


main()
