"""hash_key() equals the Rust engine's bao_rules::Position::hash_key on a sample of
positions: the rules cases and random games. The expected keys are computed by the Rust
engine itself (the `hash-keys` program, bindings/python/hash-keys/), not stored."""

from __future__ import annotations

import shutil
import subprocess

import bao
from conftest import ROOT, random_positions, require, rules_cases


def rust_hash_keys(texts: list) -> list:
    cargo = shutil.which("cargo")
    require(cargo is not None, "cargo is not on PATH, so the Rust engine's hash keys cannot be computed")
    manifest = ROOT / "bindings" / "python" / "Cargo.toml"
    result = subprocess.run(
        [cargo, "run", "--quiet", "--locked", "--manifest-path", str(manifest), "-p", "hash-keys"],
        input="\n".join(texts) + "\n",
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0, result.stderr
    return [int(line) for line in result.stdout.split()]


def test_hash_keys_equal_the_rust_engine() -> None:
    positions = [bao.Position.from_text(case["position"]) for case in rules_cases()]
    positions += random_positions(seed=26, games=5)
    texts = [str(p) for p in positions]
    expected = rust_hash_keys(texts)
    assert len(expected) == len(positions)
    mismatches = [(t, p.hash_key(), e) for t, p, e in zip(texts, positions, expected) if p.hash_key() != e]
    assert not mismatches, mismatches[:5]
    # The sample is not trivial: many distinct positions, keys spread over 64 bits.
    assert len(set(expected)) > 1000
    assert max(expected) >= 1 << 63


def test_hash_is_derived_from_the_key_and_stable() -> None:
    for position in random_positions(seed=3, games=1):
        again = bao.Position.from_text(str(position))
        assert hash(again) == hash(position)
        assert again.hash_key() == position.hash_key()
        assert 0 <= position.hash_key() < 1 << 64
