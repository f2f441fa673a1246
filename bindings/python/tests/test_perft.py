"""Perft through the binding equals the Rust engine's figures in rules/tests/data/perft.csv
(read from the file, so the figures follow the engine), by the engine's own counter and by a
count in Python over legal_moves() + play()."""

from __future__ import annotations

import csv
from typing import Dict, List, Tuple

import pytest

import bao
from conftest import RULES_DATA

#: Deepest depth checked per variant with Position.perft (the figures up to a million leaves).
MAX_LEAVES = 1_000_000
#: Depths counted in Python, move by move (the issue asks for Kiswahili >= 6, Kujifunza 5).
PYTHON_DEPTH = {"kiswahili": 7, "kujifunza": 5}


def figures() -> Dict[str, List[Tuple[str, int, int]]]:
    """variant -> [(position, depth, count)] from perft.csv, every row."""
    rows: Dict[str, List[Tuple[str, int, int]]] = {}
    with open(RULES_DATA / "perft.csv", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert header == ["variant", "position", "depth", "count", "run"], header
        for record in reader:
            # The position holds commas: the last three fields are depth, count and run.
            variant, *middle, depth, count, _run = record
            rows.setdefault(variant, []).append((",".join(middle), int(depth), int(count)))
    return rows


FIGURES = figures()


def test_the_figures_cover_both_starts_deep_enough() -> None:
    for variant in ("kiswahili", "kujifunza"):
        start = str(bao.Position.start(variant))
        depths = {depth for position, depth, count in FIGURES[variant] if position == start and count <= MAX_LEAVES}
        assert max(depths) >= PYTHON_DEPTH[variant], (variant, sorted(depths))


@pytest.mark.parametrize(
    "variant,position,depth,count",
    [(v, p, d, c) for v, rows in FIGURES.items() for p, d, c in rows if c <= MAX_LEAVES],
)
def test_perft_equals_the_engine_figure(variant: str, position: str, depth: int, count: int) -> None:
    start = bao.Position.from_text(position)
    assert start == bao.Position.start(variant)
    assert start.perft(depth) == count


def python_perft(position: bao.Position, depth: int) -> int:
    """Perft by legal_moves() and play(): a game-ending move is one leaf."""
    if depth == 0:
        return 1
    total = 0
    for move in position.legal_moves():
        after = position.play(move)
        total += 1 if depth == 1 or after.outcome().is_over else python_perft(after, depth - 1)
    return total


@pytest.mark.parametrize("variant", ["kiswahili", "kujifunza"])
def test_perft_counted_in_python_equals_the_engine_figure(variant: str) -> None:
    depth = PYTHON_DEPTH[variant]
    start = bao.Position.start(variant)
    expected = [c for p, d, c in FIGURES[variant] if p == str(start) and d == depth]
    assert len(expected) == 1, f"perft.csv has no single {variant} row at depth {depth}"
    assert python_perft(start, depth) == expected[0]
