#!/usr/bin/env python3
"""The ladder table of docs/ladder.md from the folders written by sample-bots/ladder.sh.

Each rung's Elo over the rung below is the pentanomial estimate of its match with its
95% interval; the Elo relative to random is the sum along the chain, with the interval's
two half-widths added in quadrature (the matches are independent).

Usage: sample-bots/ladder_elo.py OUT_DIR
"""
import json
import math
import sys
from pathlib import Path

CHAIN = ["1-greedy-random", "2-d1-greedy", "3-d2-d1", "4-d4-d2", "5-nodes-d4", "6-time-nodes"]
EXTRA = ["7-time-d2", "8-time-mcts"]


def pairing(out, name):
    results = json.loads((Path(out) / name / "results.json").read_text())
    p = results["pairings"][0]
    stats = p["stats"]
    elo = stats["pentanomial_estimate"]["elo"]
    return p, stats, elo


def main():
    out = sys.argv[1]
    print("| rung | match | W-L-D | score | Elo over the rung below (95%) | Elo over random (95%) |")
    print("|---|---|---|---|---|---|")
    print("| random | | | | | 0 |")
    total, low2, high2 = 0.0, 0.0, 0.0
    for name in CHAIN:
        p, stats, elo = pairing(out, name)
        wdl = stats["wdl"]
        total += elo["estimate"]
        low2 += (elo["estimate"] - elo["lower"]) ** 2
        high2 += (elo["upper"] - elo["estimate"]) ** 2
        print(
            f"| {p['first']} | {p['first']} v {p['second']} | {wdl['wins']}-{wdl['losses']}-{wdl['draws']} "
            f"| {100 * stats['score']:.1f}% | {elo['estimate']:+.0f} [{elo['lower']:+.0f}, {elo['upper']:+.0f}] "
            f"| {total:+.0f} [{total - math.sqrt(low2):+.0f}, {total + math.sqrt(high2):+.0f}] |"
        )
    print()
    print("| other match | W-L-D | score | Elo (95%) | pairs [0, ½, 1, 1½, 2] |")
    print("|---|---|---|---|---|")
    for name in EXTRA:
        p, stats, elo = pairing(out, name)
        wdl = stats["wdl"]
        pent = stats["pentanomial"]
        pairs = [pent["ll"], pent["ld"], pent["dd_or_wl"], pent["wd"], pent["ww"]]
        print(
            f"| {p['first']} v {p['second']} | {wdl['wins']}-{wdl['losses']}-{wdl['draws']} "
            f"| {100 * stats['score']:.1f}% | {elo['estimate']:+.0f} [{elo['lower']:+.0f}, {elo['upper']:+.0f}] | {pairs} |"
        )


if __name__ == "__main__":
    main()
