"""The searching starter bot (sample-bots/python-search/bot.py) passes `bao-referee check`
and beats the random bot in a short match (at least 9 of 10 games), run by the referee
with this interpreter, which has the `bao` package installed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, referee_binary, require

BOT = ROOT / "sample-bots" / "python-search" / "bot.py"
COMMAND = f"{shlex.quote(sys.executable)} {shlex.quote(str(BOT))}"


def referee() -> str:
    binary = referee_binary()
    require(
        bool(binary) and os.access(binary, os.X_OK),
        "no bao-referee binary (set BAO_REFEREE, or build it: cargo build --release -p bao-referee)",
    )
    return binary


def test_the_bot_passes_check() -> None:
    result = subprocess.run([referee(), "check", COMMAND], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All 18 checks passed." in result.stdout or "checks passed" in result.stdout, result.stdout


def test_the_bot_beats_random_in_a_short_match(tmp_path: Path) -> None:
    out = tmp_path / "match"
    result = subprocess.run(
        [
            referee(), "tournament", "--out", str(out),
            "--bot", "name=python-search", f"cmd={COMMAND}",
            "--bot", "name=random", "cmd=bao-referee sample-bot random",
            "--games", "10", "--openings", "random:4", "--seed", "26", "--tc", "2+0.05", "--plain",
        ],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["complete"] and results["games_counted"] == 10 and not results["unverified"], results
    (pairing,) = results["pairings"]
    wins = pairing["stats"]["wdl"]["wins"] if pairing["first"] == "python-search" else pairing["stats"]["wdl"]["losses"]
    assert wins >= 9, (wins, result.stdout)
    # The games show the bot searching: depths of 2 and more in its logged info lines.
    depths = []
    for log in (out / "games").glob("*.jsonl"):
        side = None
        for line in log.read_text().splitlines():
            record = json.loads(line)
            if record.get("type") == "ready" and record.get("name") == "python-search":
                side = record["side"]
            if record.get("type") == "ply" and record.get("info"):
                depths += [info.get("depth", 0) for info in record["info"] if record["side"] == side]
    assert max(depths) >= 2, depths[:20]
