#!/usr/bin/env python3
"""A random bao-referee bot in plain Python: a template for writing your own.

Give the referee this command line as one of the two bot programs (see
`bao-referee match --help` for how):

    python3 sample-bots/python/random_bot.py --seed 1

It needs only the Python 3 standard library. To write your own bot, copy this
file and replace choose_move().

How a bot talks to the referee (PROTOCOL.md has every detail):

* The referee writes one JSON object per line to the bot's stdin; the bot
  writes one JSON object per line to its stdout. Every object has a "type".
* stdout is for protocol lines ONLY. A stray print() there is a protocol
  violation and loses the game. Write logs and debugging output to stderr,
  which the referee saves (up to 1 MiB) in the game log.
* Flush stdout after every line, or the referee will wait for a line that is
  still sitting in your buffer, and your clock keeps running.

The conversation:

    referee -> bot   {"type":"hello", ...}            answer within startup_ms:
    bot -> referee   {"type":"ready","name":"..."}
    referee -> bot   {"type":"move_request","id":1,...}  answer before your clock runs out:
    bot -> referee   {"type":"move","id":1,"move":"A6<"}
    ...              (one move_request per turn, ids 1, 2, 3, ...)
    referee -> bot   {"type":"game_over", ...}
    referee -> bot   {"type":"quit"}                   exit promptly (within 1 s)

Several games in one process (protocol 1.1): this bot says "games":"many" in
its ready, so the referee may keep it running after a game. Then, instead of
quit, the game_over is followed by a new hello (another side, variant, start
or time control; another opponent) that is answered with ready exactly like
the first one. A bot may keep anything between games (a cache, a hash table,
an opening book loaded once), but must take its side and everything else from
each hello. This bot keeps nothing: with --seed N every game starts its random
generator from N again, so a game in a kept process is the game a fresh
process would play. A bot that cannot play another game (it keeps per-game
state it cannot reset) leaves "games" out and gets quit after every game.
"""

import argparse
import json
import os
import random
import sys
import time

# The protocol version this bot was written for (sent by the referee in hello).
PROTOCOL_VERSION = 1


def log(*parts):
    """Write a diagnostic line to stderr (never to stdout!)."""
    print("random_bot.py:", *parts, file=sys.stderr, flush=True)


def send(message):
    """Write one protocol message to the referee: compact JSON, one line, flushed."""
    # separators=(",", ":") keeps the line short; json.dumps never writes a raw
    # newline inside a line (newlines in strings are escaped as \n).
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def choose_move(request, rng):
    """Pick a move for a move_request.

    This is the part to replace with your own engine. The request holds:
      request["position"]["notation"]  the position in the notation of docs/rules.md
      request["position"]["rows"]      {"A": [8 ints], "B": [...], "a": [...], "b": [...]}:
                                       A, B are South's rows, a, b North's, each in
                                       its owner's numbering (index 0 = column 1)
      request["position"]["to_move"]   "S" or "N" (that is you)
      request["legal"]                 every legal move, e.g. ["A6<", "A6>", ...], in
                                       your own perspective (A, B are your rows)
      request["clock"]["you_ms"]       milliseconds left on your clock for this move
    A bot may trust the "legal" list: it is never empty, and any entry is a
    legal answer.
    """
    return rng.choice(request["legal"])


def main():
    parser = argparse.ArgumentParser(description="A random bao-referee bot.")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the random generator (default: from the time and the process id)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() ^ (os.getpid() << 32)
    log("seed", seed)  # --seed N replays a game
    rng = random.Random(seed)
    games = 0

    # Read the referee's lines one by one. readline() returns "" at end of
    # input (the referee closed our stdin): then we simply exit.
    while True:
        line = sys.stdin.readline()
        if not line:
            log("end of input; exiting")
            return 0
        try:
            message = json.loads(line)
        except json.JSONDecodeError as error:
            log("the referee sent a line that is not JSON:", error)
            return 1

        # Unknown fields may appear in later protocol versions: only read the
        # ones you need, and ignore the rest.
        kind = message.get("type")

        if kind == "hello":
            # The first message. It says which side we play ("S" moves first),
            # the variant, the start position and the time control.
            if message.get("protocol") != PROTOCOL_VERSION:
                log("unsupported protocol version", message.get("protocol"))
                return 1
            games += 1
            log("game", games, "playing", message["side"], "in", message["variant"],
                "time control", message["time_control"])
            if args.seed is not None:
                rng.seed(seed)  # every game from the same seed, kept process or not
            # Answer with ready within time_control.startup_ms. "name" is
            # required (1 to 64 characters); "author" and "version" are optional.
            # "games": "many" says this process can play another game after
            # game_over (a new hello comes instead of quit).
            send({"type": "ready", "name": "random-py", "author": "bao-referee", "version": "0.1.0",
                  "games": "many"})

        elif kind == "move_request":
            # Our turn. Answer with the SAME id, or we lose (wrong_id).
            move = choose_move(message, rng)
            # Optional: tell the referee what we are thinking. These lines are
            # logged with the move; all their fields are optional.
            send({"type": "info", "comment": "picked %s of %d legal moves" % (move, len(message["legal"]))})
            send({"type": "move", "id": message["id"], "move": move})

        elif kind == "game_over":
            # The game has ended; a quit follows, or the hello of the next
            # game. Nothing to answer.
            log("game over:", message["result"])

        elif kind == "quit":
            # Exit promptly: after a grace period the referee stops the bot.
            return 0

        else:
            # The referee only sends the four types above in protocol version 1.
            log("ignoring a message of unknown type", kind)


if __name__ == "__main__":
    sys.exit(main())
