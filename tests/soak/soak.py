#!/usr/bin/env python3
"""Soak run: many short games with hostile bots mixed in, the referee sampled.

Runs `bao-referee tournament` with good and hostile bots for a number of rounds and
samples the referee process once a second: resident memory (VmRSS), open file
descriptors, threads, and the number of processes in the system carrying this run's
tag. At the end it checks that every planned game is in the journal exactly once and
that no tagged process is left, and prints the figures.

Usage: python3 tests/soak/soak.py [ROUNDS] [OUT_DIR]
Needs: cargo build --release -p bao-referee -p bao-e2e (for bao-misbehave).
"""
import json, os, statistics, subprocess, sys, time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
OUT = sys.argv[2] if len(sys.argv) > 2 else "/tmp/bao-soak"
B = os.path.abspath("target/release/bao-referee")
M = os.path.abspath("target/release/bao-misbehave")
TAG = f"soak-{os.getpid()}"

bots = [
    ("greedy", f"{B} sample-bot greedy"),
    ("random", f"{B} sample-bot random --seed 1"),
    ("crash", f"{M} --mode crash --after 3 --tag {TAG}"),
    ("illegal", f"{M} --mode illegal-move --after 2 --tag {TAG}"),
    ("stale", f"{M} --mode stale-id --after 4 --tag {TAG}"),
    ("hugeline", f"{M} --mode huge-line --after 1 --tag {TAG}"),
    ("forker", f"{M} --mode fork-setsid --after 2 --tag {TAG}"),
    ("badutf8", f"{M} --mode invalid-utf8 --after 1 --tag {TAG}"),
]
args = [B, "tournament", "--plain", "--out", OUT, "--rounds", str(ROUNDS), "--games", "2",
        "--openings", "random:6", "--seed", "11", "--tc", "0.3+0.05", "--max-plies", "300",
        "--concurrency", "2"]
for name, cmd in bots:
    args += ["--bot", f"name={name}", f"cmd={cmd}"]

subprocess.run(["rm", "-rf", OUT], check=True)
start = time.monotonic()
# Progress lines go to a file: a pipe nobody reads would fill up and stall the referee.
err_path = f"{OUT}.stderr"
err_file = open(err_path, "wb")
proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err_file)
samples = []  # (t, rss_kib, fds, threads, tagged processes)


def tagged():
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if TAG.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                    n += 1
            except OSError:
                pass
    return n


while proc.poll() is None:
    try:
        status = open(f"/proc/{proc.pid}/status").read()
        rss = int(next(l for l in status.splitlines() if l.startswith("VmRSS:")).split()[1])
        threads = int(next(l for l in status.splitlines() if l.startswith("Threads:")).split()[1])
        fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
        samples.append((time.monotonic() - start, rss, fds, threads, tagged()))
    except (OSError, StopIteration):
        pass
    time.sleep(1)
wall = time.monotonic() - start
err_file.close()
err = open(err_path, "rb").read().decode(errors="replace")
journal = [json.loads(l) for l in open(f"{OUT}/journal.jsonl")]
plan = json.load(open(f"{OUT}/plan.json"))
planned = len(plan["schedule"])
indices = sorted(g["game"] for g in journal)
reasons = {}
for g in journal:
    reasons[g["reason"]] = reasons.get(g["reason"], 0) + 1
time.sleep(0.5)
left = tagged()

def summary(i):
    values = [s[i] for s in samples]
    tenth = max(1, len(values) // 10)
    return (min(values), statistics.median(values), max(values),
            statistics.mean(values[:tenth]), statistics.mean(values[-tenth:]))

print(f"exit code {proc.returncode}, wall {wall:.0f} s, {len(journal)} of {planned} games journaled, "
      f"{len(set(indices))} distinct, {sum(1 for g in journal if g['verified'])} verified")
print(f"plies {sum(g['plies'] for g in journal)}, reasons {json.dumps(reasons, sort_keys=True)}")
for i, name in [(1, "RSS KiB"), (2, "open fds"), (3, "threads"), (4, "tagged processes alive")]:
    lo, med, hi, first, last = summary(i)
    print(f"{name:>24}: min {lo} median {med} max {hi}; mean of first 10% {first:.1f}, last 10% {last:.1f}")
print(f"tagged processes left after exit: {left}")
print(f"samples: {len(samples)}")
if err.strip():
    print("stderr tail:", err.strip().splitlines()[-3:])
ok = proc.returncode == 0 and indices == list(range(planned)) and left == 0
sys.exit(0 if ok else 1)
