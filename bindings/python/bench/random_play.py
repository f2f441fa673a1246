"""Random play through the Python binding against the same loop inside Rust.

Run it pinned to one core, from the repository root, after ``pip install ./bindings/python``:

    taskset -c 1 python bindings/python/bench/random_play.py

Each run plays ``--plies`` plies of uniformly random games from the start of each variant,
every ply one ``Position.legal_moves()`` and one ``Position.play()`` (a finished game
starts again), and times the same number of plies of the native loop
(``bao._bao._native_random_play``: ``bao_rules::Position::successors``, what those two
calls run). It prints the median of ``--runs`` runs, by the thread's CPU clock (what one
core delivers, whatever else the machine runs) and by the wall clock, the binding's cost
per ply over the native loop, and the cost of one trivial call into the binding.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from typing import Callable, List, Tuple

import bao


def python_loop(variant: str, plies: int, seed: int) -> None:
    """The benchmark: random play with ``legal_moves`` + ``play``."""
    choice = random.Random(seed).choice
    start = bao.Position.start(variant)
    position = start
    played = 0
    while played < plies:
        moves = position.legal_moves()
        if not moves:
            position = start
            continue
        position = position.play(choice(moves))
        played += 1


def timed(work: Callable[[], object]) -> Tuple[float, float]:
    """(thread CPU seconds, wall seconds) of ``work()``."""
    cpu, wall = time.thread_time(), time.perf_counter()
    work()
    return time.thread_time() - cpu, time.perf_counter() - wall


def call_cost(calls: int) -> Tuple[float, float]:
    """Seconds per call of ``Position.hash_key()`` (a trivial method of the binding) and of
    the builtin ``id()`` (a C call that does nothing), by the thread's CPU clock."""
    position = bao.Position.start()
    method = position.hash_key

    def binding() -> None:
        for _ in range(calls):
            method()

    def builtin() -> None:
        for _ in range(calls):
            id(position)

    return timed(binding)[0] / calls, timed(builtin)[0] / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plies", type=int, default=300_000, help="plies per run and variant")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is reported")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    print(f"bao {bao.__version__}, CPUs allowed: {cpus}, load average: {os.getloadavg()[0]:.1f}")
    if len(cpus) != 1:
        print("warning: not pinned to one core (run under taskset -c N)")
    for variant in ("kiswahili", "kujifunza"):
        py_cpu: List[float] = []
        py_wall: List[float] = []
        native_cpu: List[float] = []
        for run in range(args.runs):
            cpu, wall = timed(lambda: python_loop(variant, args.plies, args.seed + run))
            py_cpu.append(args.plies / cpu)
            py_wall.append(args.plies / wall)
            cpu, _ = timed(lambda: bao._bao._native_random_play(variant, args.plies, args.seed + run))
            native_cpu.append(args.plies / cpu)
        py, native = statistics.median(py_cpu), statistics.median(native_cpu)
        print(
            f"{variant}: binding {py:,.0f} plies/s CPU (runs {min(py_cpu):,.0f}-{max(py_cpu):,.0f}; "
            f"wall {statistics.median(py_wall):,.0f}), native {native:,.0f} plies/s CPU "
            f"(runs {min(native_cpu):,.0f}-{max(native_cpu):,.0f}); "
            f"the binding costs {1e6 / py - 1e6 / native:.2f} us a ply over native"
        )
    costs = [call_cost(1_000_000) for _ in range(args.runs)]
    method = statistics.median(c[0] for c in costs)
    builtin = statistics.median(c[1] for c in costs)
    print(f"one call: Position.hash_key() {method * 1e9:.0f} ns, builtin id() {builtin * 1e9:.0f} ns")


if __name__ == "__main__":
    main()
