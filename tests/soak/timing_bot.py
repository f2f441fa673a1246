#!/usr/bin/env python3
"""A bot that answers at a chosen moment by its own clock, for tests/soak/fairness.py.

Every move is answered INSIDE_MS before the end of its time (`clock.you_ms`, the move time or
what is left on its clock), timed from the moment the request was read. With --late-every K,
every K-th move of the bot is instead answered LATE_MS after its time plus the margin: a move
the referee must forfeit on time, whatever it is doing itself.

Usage: timing_bot.py [--late-every K] [--late-ms 30] [--inside-ms 15]
"""
import json, sys, time

args = sys.argv[1:]
def option(name, default):
    return int(args[args.index(name) + 1]) if name in args else default

LATE_EVERY = option("--late-every", 0)
LATE_MS = option("--late-ms", 30)
INSIDE_MS = option("--inside-ms", 15)

margin_ms = 0
moves = 0
for line in sys.stdin:
    read_at = time.monotonic()
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        margin_ms = message["time_control"]["margin_ms"]
        print(json.dumps({"type": "ready", "name": "late" if LATE_EVERY else "inside"}), flush=True)
    elif kind == "move_request":
        moves += 1
        you_ms = message["clock"]["you_ms"]
        if LATE_EVERY and moves % LATE_EVERY == 0:
            answer_at = read_at + (you_ms + margin_ms + LATE_MS) / 1000.0
        else:
            answer_at = read_at + max(0, you_ms - INSIDE_MS) / 1000.0
        while True:
            left = answer_at - time.monotonic()
            if left <= 0:
                break
            time.sleep(left)
        print(json.dumps({"type": "move", "id": message["id"], "move": message["legal"][0]}), flush=True)
    elif kind == "quit":
        break
