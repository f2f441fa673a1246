"""Every position of the repository's rules cases (rules/tests/data/*.jsonl, the cases the
Rust engine is tested on) gives the same notation, legal moves, next position and result
through the binding."""

from __future__ import annotations

from collections import Counter

import bao
from conftest import rules_cases

CASES = list(rules_cases())


def test_there_are_cases_of_every_file() -> None:
    files = Counter(case["file"] for case in CASES)
    assert set(files) >= {"special.jsonl", "random-kiswahili.jsonl", "random-kujifunza.jsonl"}, files
    assert all(count > 0 for count in files.values())


def test_every_case_agrees() -> None:
    failures = []
    moves_played = 0
    for case in CASES:
        where = f"{case['file']}:{case['line']}"
        position = bao.Position.from_text(case["position"])
        if str(position) != case["position"]:
            failures.append(f"{where}: str(from_text(x)) = {position} != x")
            continue
        legal = position.legal_moves()
        if legal != case["legal"]:
            failures.append(f"{where}: legal {legal} != case {case['legal']}")
            continue
        if not case["move"]:
            if not position.outcome().is_over:
                failures.append(f"{where}: no legal move but outcome {position.outcome()}")
            continue
        after = position.play(case["move"])  # after legal_moves(): the kept successor
        moves_played += 1
        fresh = bao.Position.from_text(case["position"]).play(case["move"])  # no list: the move is run
        if fresh != after:
            failures.append(f"{where}: {case['move']}: play on a fresh position gives {fresh}, after legal_moves() {after}")
        if str(after) != case["next"] or str(after.outcome()) != case["result"]:
            failures.append(f"{where}: {case['move']} gives {after} {after.outcome()}, case {case['next']} {case['result']}")
        if not position.is_legal(case["move"]):
            failures.append(f"{where}: is_legal({case['move']}) is false")
    assert moves_played > 1000, moves_played
    assert not failures, f"{len(failures)} of {len(CASES)} cases disagree:\n" + "\n".join(failures[:20])


def test_successors_are_the_legal_moves_with_play() -> None:
    for case in CASES[::7]:
        position = bao.Position.from_text(case["position"])
        successors = position.successors()
        assert [move for move, _ in successors] == case["legal"]
        for move, after in successors:
            assert after == position.play(move)
