"""Shared helpers of the binding's tests: where the repository's data and tools are, and
the rule for a test whose tool is missing (fail under BAO_REQUIRE_ALL=1, else skip saying why)."""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

import bao

#: The repository root (this file is bindings/python/tests/conftest.py).
ROOT = Path(__file__).resolve().parents[3]
#: The rules cases and perft figures of the Rust engine's own tests.
RULES_DATA = ROOT / "rules" / "tests" / "data"


def require(condition: bool, why: str) -> None:
    """Skips the test when `condition` is false, saying why on stderr, unless
    BAO_REQUIRE_ALL=1 (as in CI), where a missing tool is a failure."""
    if condition:
        return
    if os.environ.get("BAO_REQUIRE_ALL") == "1":
        pytest.fail(f"BAO_REQUIRE_ALL=1 and {why}")
    print(f"skipped: {why}", file=sys.stderr)
    pytest.skip(why)


def rules_cases() -> Iterator[Dict[str, object]]:
    """Every line of rules/tests/data/*.jsonl, with `file` and `line` added."""
    files = sorted(RULES_DATA.glob("*.jsonl"))
    assert files, f"no rules cases in {RULES_DATA}"
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip():
                case = json.loads(line)
                case["file"], case["line"] = path.name, number
                yield case


def random_positions(seed: int, games: int) -> List[bao.Position]:
    """Every position of `games` uniformly random games of each variant."""
    rng = random.Random(seed)
    positions = []
    for variant in ("kiswahili", "kujifunza"):
        for _ in range(games):
            position = bao.Position.start(variant)
            while True:
                positions.append(position)
                moves = position.legal_moves()
                if not moves:
                    break
                position = position.play(rng.choice(moves))
    return positions


def referee_binary() -> str:
    """The `bao-referee` to run: $BAO_REFEREE, else target/release (or debug) of this
    repository, else one on PATH."""
    configured = os.environ.get("BAO_REFEREE")
    if configured:
        return configured
    for profile in ("release", "debug"):
        candidate = ROOT / "target" / profile / "bao-referee"
        if candidate.is_file():
            return str(candidate)
    return shutil.which("bao-referee") or ""
