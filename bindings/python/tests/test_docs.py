"""docs/python.md runs as written: its ```python blocks execute in order (one namespace),
the SDK example passes `bao-referee check` as a bot, and every line of its ```bash blocks
runs in a scratch folder where `.venv` is this interpreter's environment (the install
commands and the test command are the setup CI has just done, so they are left out)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import bao
from conftest import ROOT
from test_search_bot import referee

DOC = ROOT / "docs" / "python.md"
#: Lines of the bash blocks that are setup, not examples: CI ran them before these tests.
SETUP = ("python3 -m venv", ".venv/bin/pip install", ".venv/bin/python -m pytest")


def blocks(language: str) -> List[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)


def test_the_python_examples_run() -> None:
    python = blocks("python")
    assert len(python) >= 5
    namespace = {"__name__": "docs_python_md"}
    for block in python:
        exec(compile(block, str(DOC), "exec"), namespace)


def bot_example() -> str:
    (bot,) = [block for block in blocks("python") if "bao.run(" in block]
    return bot


def test_the_bash_examples_run(tmp_path: Path) -> None:
    binary = referee()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bao-referee").symlink_to(binary)
    work = tmp_path / "work"
    work.mkdir()
    (work / ".venv").symlink_to(sys.prefix)
    for name in ("sample-bots", "bindings"):
        (work / name).symlink_to(ROOT / name)
    (work / "my_bot.py").write_text(bot_example())
    lines = [line for block in blocks("bash") for line in block.splitlines() if line.strip() and not line.startswith(SETUP)]
    assert len(lines) >= 4, lines
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"}
    for line in lines:
        result = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{line}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        if line.startswith(".venv/bin/python -c"):
            assert result.stdout.strip() == f"{bao.__version__} ['A6<', 'A6>', 'A7<', 'A7>']", result.stdout
        if " check " in line:
            assert "All 18 checks passed." in result.stdout, result.stdout
    assert (work / "my-python-game.jsonl").is_file() and (work / "python-search-game.jsonl").is_file()
