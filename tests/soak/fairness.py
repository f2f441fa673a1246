#!/usr/bin/env python3
"""Fair time under load: a tournament between a bot that is late on purpose and one that is
always on time, with two busy loops competing for the CPU.

The "late" bot answers every LATE_EVERY-th of its moves 30 ms past its time plus margin by its
own clock (every other move 15 ms inside its time); the "inside" bot answers every move 15 ms
inside its time. Each late move must be a timeout verdict against the late bot (never
excused); no on-time move may be forfeited. The figures are read from the game logs, every
one of which must verify.

Usage: python3 tests/soak/fairness.py [GAMES] [OUT_DIR] [--move-time 0.05] [--late-every 10]
Needs: cargo build --release -p bao-referee
"""
import json, os, shutil, statistics, subprocess, sys, time

argv = sys.argv[1:]
def option(name, default):
    if name in argv:
        i = argv.index(name)
        value = argv[i + 1]
        del argv[i:i + 2]
        return value
    return default

MOVE_TIME = option("--move-time", "0.05")
LATE_EVERY = int(option("--late-every", "10"))
CONCURRENCY = option("--concurrency", "2")
GAMES = int(argv[0]) if argv else 600
OUT = argv[1] if len(argv) > 1 else "/tmp/bao-fairness"
B = os.path.abspath(os.environ.get("BAO_REFEREE", "target/release/bao-referee"))
BOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "timing_bot.py"))

shutil.rmtree(OUT, ignore_errors=True)
busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
started = time.monotonic()
try:
    games = GAMES + GAMES % 2
    cmd = [B, "tournament", "--plain", "--out", OUT, "--games", str(games),
           "--move-time", MOVE_TIME, "--max-plies", "0", "--concurrency", CONCURRENCY,
           "--bot", "name=late", "cmd=python3", f"arg={BOT}", "arg=--late-every", f"arg={LATE_EVERY}",
           "--bot", "name=inside", "cmd=python3", f"arg={BOT}"]
    run = subprocess.run(cmd, capture_output=True, text=True)
finally:
    for p in busy:
        p.kill()
        p.wait()
elapsed = time.monotonic() - started
if run.returncode not in (0, 1):
    sys.exit(f"the tournament failed ({run.returncode}):\n{run.stderr[-3000:]}")

moves = late_moves = late_timeouts = late_excused = on_time_forfeits = excused_on_time = 0
late_used_over = []
other_endings = {}
for name in sorted(os.listdir(os.path.join(OUT, "games"))):
    path = os.path.join(OUT, "games", name)
    v = subprocess.run([B, "verify", path], capture_output=True, text=True)
    if v.returncode != 0:
        sys.exit(f"{path} does not verify: {v.stderr}")
    records = [json.loads(l) for l in open(path)]
    header = records[0]
    late_side = "S" if header["south"]["name"] == "late" else "N"
    late_count = 0
    for r in records:
        if r["type"] == "ply":
            moves += 1
            if r["side"] == late_side:
                late_count += 1
                if late_count % LATE_EVERY == 0:
                    # A late move that was played on: not judged late.
                    late_moves += 1
                    late_excused += 1
            if "lag_excused_us" in r:
                excused_on_time += 1
        elif r["type"] == "result":
            o = r.get("offense")
            due_late = late_count + 1  # the late bot's next move number
            if o and o["side"] == late_side and r["reason"] == "timeout" and due_late % LATE_EVERY == 0:
                late_moves += 1
                late_timeouts += 1
                moves += 1
                late_used_over.append(o.get("time_us", 0))
            elif o:
                on_time_forfeits += 1
                other_endings[r["result"] + " " + r["detail"]] = other_endings.get(r["result"] + " " + r["detail"], 0) + 1
            else:
                other_endings[r["result"]] = other_endings.get(r["result"], 0) + 1
                # A game that ended before the late bot's late move: no late move in it.

figures = {
    "games": len(os.listdir(os.path.join(OUT, "games"))),
    "moves": moves,
    "late_moves": late_moves,
    "late_moves_lost_on_time": late_timeouts,
    "late_moves_not_forfeited": late_excused,
    "on_time_moves_forfeited": on_time_forfeits,
    "plies_with_an_excuse": excused_on_time,
    "late_time_us_median": statistics.median(late_used_over) if late_used_over else None,
    "other_endings": other_endings,
    "elapsed_s": round(elapsed, 1),
    "move_time": MOVE_TIME,
    "concurrency": CONCURRENCY,
}
print(json.dumps(figures, indent=1))
ok = late_moves > 0 and late_timeouts == late_moves and on_time_forfeits == 0
sys.exit(0 if ok else 1)
