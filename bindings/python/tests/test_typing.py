"""The package is typed truthfully: the stub of the extension (bao/_bao.pyi) matches the
module at run time (mypy's stubtest), and the SDK and the search bot type-check under
`mypy --strict` against it."""

from __future__ import annotations

import subprocess
import sys
import tempfile

from conftest import ROOT, require


def mypy_available() -> bool:
    return subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode == 0


def run(*args: str) -> subprocess.CompletedProcess:
    require(mypy_available(), "mypy is not installed in this environment (pip install mypy)")
    # Run from a scratch folder: mypy's cache goes there, not into the repository.
    with tempfile.TemporaryDirectory() as scratch:
        return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=600, cwd=scratch)


def test_the_stub_matches_the_extension() -> None:
    result = run("mypy.stubtest", "bao._bao")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_sdk_and_the_search_bot_type_check_strictly() -> None:
    result = run("mypy", "--strict", "-p", "bao")
    assert result.returncode == 0, result.stdout + result.stderr
    result = run("mypy", "--strict", str(ROOT / "sample-bots" / "python-search" / "bot.py"))
    assert result.returncode == 0, result.stdout + result.stderr
