"""The bot protocol of PROTOCOL.md for Python bots: ``bao.run(choose_move)``.

The runner answers ``hello`` with ``ready``; for each ``move_request`` it

1. starts a :class:`Deadline` from the request's clock the moment the line is read,
2. rebuilds the :class:`bao.Position` from the request's notation with the rules engine,
3. checks that the referee's ``legal`` list is exactly the engine's legal moves,
4. calls ``choose_move(position, legal, deadline)``,
5. checks the answer is one of the legal moves and sends it, flushed.

It plays any number of games in one process (protocol 1.1): ``ready`` says
``"games": "many"``, so a tournament may keep the process after ``game_over`` and send the
next game's ``hello`` instead of ``quit``; ``new_game`` is called again, and ``choose_move``
keeps working. A bot may keep anything between games (a transposition table, an opening
book loaded once) but must take its side, the variant and the clock from each game, never
assuming the same side or opponent as before. ``run(..., many_games=False)`` leaves
``"games"`` out: one game per process, ``quit`` after every game.

``bao.info(...)`` sends an ``info`` line while the bot thinks. While the runner runs,
``sys.stdout`` is the process's stderr: a stray ``print`` cannot corrupt the protocol.
This mirrors the Rust SDK ``bao-sdk`` (``sdk/``); the deadline formula is the same.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass
from typing import IO, Any, Callable, Dict, List, Optional

from bao._bao import Position

#: The protocol version this SDK speaks.
PROTOCOL_VERSION = 1
#: The longest line accepted from the referee, in bytes (its lines are under 1 KiB).
MAX_LINE_BYTES = 1 << 20
#: Fischer: the number of moves the remaining time is planned over.
MOVES_TO_GO = 30
#: Fischer: the hard budget is at most this many soft budgets.
HARD_PER_SOFT = 4
#: The shortest safety margin kept in hand before the clock runs out, seconds.
MIN_SAFETY = 0.005
#: The longest ``info`` comment sent, in bytes (the referee logs no more).
MAX_COMMENT_BYTES = 1024

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


class SdkError(Exception):
    """Why ``run`` stopped before ``quit``: a bad line from the referee, another protocol
    version, a legal-move list that differs from this engine's, or an illegal choice."""


def safety(t: float) -> float:
    """``min(t / 2, 5 ms + t / 20)``: the margin kept in hand out of ``t`` seconds."""
    return min(t / 2, MIN_SAFETY + t / 20)


class Deadline:
    """How long the bot may think about one move, in seconds from when the request was read.

    ``soft``: aim to answer by then (an iterative search starts no new iteration past it).
    ``hard``: answer by then at the latest. Both are ``None`` when unlimited.

    ========================  ===================================  =====================================
    mode                      soft                                 hard
    ========================  ===================================  =====================================
    Fischer, R left, inc I    ``min(R/30 + 3I/4, hard)``           ``min(R - safety(R), 4 (R/30 + 3I/4))``
    move time T               ``hard / 2``                         ``T - safety(T)``
    unlimited                 ``None``                             ``None``
    ========================  ===================================  =====================================
    """

    __slots__ = ("start", "soft", "hard", "mode")

    def __init__(self, start: float, soft: Optional[float], hard: Optional[float], mode: str) -> None:
        #: When the request was read (``time.monotonic()``).
        self.start = start
        #: The soft budget, seconds from ``start``, or ``None``.
        self.soft = soft
        #: The hard budget, seconds from ``start``, or ``None``.
        self.hard = hard
        #: ``"fischer"``, ``"move_time"`` or ``"unlimited"``.
        self.mode = mode

    @classmethod
    def from_clock(cls, clock: Dict[str, Any], start: Optional[float] = None) -> "Deadline":
        """The budgets for a request's ``clock`` object, read at ``start`` (default: now)."""
        start = time.monotonic() if start is None else start
        move_time_ms = clock.get("move_time_ms")
        if move_time_ms is not None:
            t = move_time_ms / 1000
            hard = max(0.0, t - safety(t))
            return cls(start, hard / 2, hard, "move_time")
        remaining = clock["you_ms"] / 1000
        increment = clock.get("increment_ms", 0) / 1000
        target = remaining / MOVES_TO_GO + increment * 3 / 4
        hard = min(max(0.0, remaining - safety(remaining)), target * HARD_PER_SOFT)
        return cls(start, min(target, hard), hard, "fischer")

    @classmethod
    def unlimited(cls) -> "Deadline":
        """No limit (analysis, tests)."""
        return cls(time.monotonic(), None, None, "unlimited")

    @classmethod
    def fixed(cls, soft: float, hard: float) -> "Deadline":
        """Exactly ``soft`` and ``hard`` seconds from now (``soft`` is cut to ``hard``)."""
        return cls(time.monotonic(), min(soft, hard), hard, "move_time")

    def elapsed(self) -> float:
        """Seconds since the request was read."""
        return time.monotonic() - self.start

    def remaining(self) -> float:
        """Seconds left until the hard budget runs out (0 once it has; ``inf`` when unlimited)."""
        if self.hard is None:
            return math.inf
        return max(0.0, self.hard - self.elapsed())

    def expired(self) -> bool:
        """Whether the hard budget has run out: answer now."""
        return self.hard is not None and self.elapsed() >= self.hard

    def soft_expired(self) -> bool:
        """Whether the soft budget has run out: start no new work."""
        return self.soft is not None and self.elapsed() >= self.soft

    def extend_soft(self, numerator: int, denominator: int) -> "Deadline":
        """This deadline with the soft budget times ``numerator / denominator``, never past
        the hard budget."""
        soft = self.soft
        if soft is not None and self.hard is not None:
            soft = min(soft * numerator / max(denominator, 1), self.hard)
        return Deadline(self.start, soft, self.hard, self.mode)

    def __repr__(self) -> str:
        return f"Deadline(mode={self.mode!r}, soft={self.soft!r}, hard={self.hard!r}, elapsed={self.elapsed():.4f})"


@dataclass(frozen=True)
class NewGame:
    """A new game, from ``hello``."""

    #: The side this bot plays: ``"S"`` or ``"N"``.
    side: str
    #: ``"kiswahili"`` or ``"kujifunza"``.
    variant: str
    #: The start position.
    start: Position
    #: This bot's clock: ``base_ms``, ``increment_ms``, ``move_time_ms``, ``startup_ms``, ``margin_ms``.
    time_control: Dict[str, Any]


@dataclass(frozen=True)
class GameEnd:
    """The end of a game, from ``game_over``."""

    #: ``"S"``, ``"N"``, or ``None`` for a draw or an aborted game.
    winner: Optional[str]
    #: Why the game ended (``front_row_empty``, ``timeout``, ...).
    reason: str
    #: The result in words, e.g. ``"S wins (front_row_empty)"``.
    result: str
    #: Plies played.
    plies: int


@dataclass(frozen=True)
class Request:
    """The ``move_request`` being answered, for a bot that wants more than the position:
    ``bao.sdk.current_request()`` returns it while ``choose_move`` runs."""

    #: The request's id.
    id: int
    #: Plies played before this one (0-based).
    ply: int
    #: The opponent's last move in the opponent's own notation, or ``None``.
    opponent_move: Optional[str]
    #: The request's ``clock`` object (this bot's and its opponent's time, ms).
    clock: Dict[str, Any]


# The output stream and the request of the move being chosen (None between moves).
_out: Optional[IO[bytes]] = None
_request: Optional[Request] = None


def current_request() -> Optional[Request]:
    """The request ``choose_move`` is answering, or ``None`` outside ``choose_move``."""
    return _request


def _send(out: IO[bytes], message: Dict[str, Any]) -> None:
    out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    out.flush()


def _integer(value: Any, low: int, high: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"info: {field} must be a number, not {type(value).__name__}")
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError(f"info: {field} is NaN")
        value = low if value == -math.inf else high if value == math.inf else round(value)
    return int(min(max(value, low), high))


def info(
    depth: Optional[float] = None,
    score: Optional[float] = None,
    nodes: Optional[float] = None,
    comment: Optional[str] = None,
) -> None:
    """Sends an ``info`` line now (only while ``choose_move`` runs; elsewhere it does nothing).

    Numbers are sent as the JSON integers the protocol requires: a float is rounded, and
    every value is clamped to its field's range (``depth`` 0..2^32-1, ``score`` a signed
    64-bit integer from this bot's point of view, ``nodes`` 0..2^64-1). ``comment`` is cut
    to 1024 bytes."""
    if _out is None or _request is None:
        return
    message: Dict[str, Any] = {"type": "info"}
    if depth is not None:
        message["depth"] = _integer(depth, 0, (1 << 32) - 1, "depth")
    if score is not None:
        message["score"] = _integer(score, _I64_MIN, _I64_MAX, "score")
    if nodes is not None:
        message["nodes"] = _integer(nodes, 0, (1 << 64) - 1, "nodes")
    if comment is not None:
        text = str(comment).encode()[:MAX_COMMENT_BYTES]
        message["comment"] = text.decode(errors="ignore")
    _send(_out, message)


ChooseMove = Callable[[Position, List[str], Deadline], str]


def _answer(choose_move: ChooseMove, message: Dict[str, Any], received: float, out: IO[bytes]) -> Dict[str, Any]:
    global _request
    request_id = message["id"]
    deadline = Deadline.from_clock(message["clock"], received)
    notation = message["position"]["notation"]
    try:
        position = Position.from_text(notation)
    except ValueError as e:
        raise SdkError(f"move_request {request_id}: the position is not valid here: {e}") from e
    legal = position.legal_moves()
    if legal != message["legal"]:
        raise SdkError(
            f"move_request {request_id}: the referee lists the legal moves {message['legal']} in "
            f"{notation!r}, but this bot's rules engine finds {legal}"
        )
    _request = Request(request_id, message.get("ply", 0), message.get("opponent_move"), message["clock"])
    try:
        chosen = choose_move(position, list(legal), deadline)
    finally:
        _request = None
    if chosen not in legal:
        raise SdkError(
            f"move_request {request_id}: the bot chose {chosen!r}, which is not among the legal moves "
            f"{legal} of {notation!r}"
        )
    return {"type": "move", "id": request_id, "move": str(chosen)}


def run(
    choose_move: ChooseMove,
    *,
    name: str = "python-bot",
    author: Optional[str] = None,
    version: Optional[str] = None,
    new_game: Optional[Callable[[NewGame], None]] = None,
    game_over: Optional[Callable[[GameEnd], None]] = None,
    many_games: bool = True,
    stdin: Optional[IO[bytes]] = None,
    stdout: Optional[IO[bytes]] = None,
) -> None:
    """Plays games on stdin/stdout until ``quit`` or the end of input.

    ``choose_move(position, legal, deadline)`` returns one of ``legal`` (canonical move
    texts, the mover's perspective, never empty). ``name``, ``author`` and ``version`` go in
    ``ready``; ``new_game`` is called on every ``hello`` (before ``ready``), ``game_over`` on
    every ``game_over``. With ``many_games`` (the default) ``ready`` says ``"games": "many"``
    and the process may be kept for further games, each starting with its own ``hello``
    (clear per-game state in ``new_game``); ``many_games=False`` asks for one game per
    process. ``stdin``/``stdout`` (binary streams) default to the process's.
    Raises :class:`SdkError` when the referee's lines or legal moves cannot be trusted,
    or when ``choose_move`` returns a move that is not legal (it is not sent)."""
    global _out
    reader = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    saved_stdout = sys.stdout
    sys.stdout = sys.stderr  # a stray print() must not reach the referee
    _out = out
    try:
        line_number = 0
        while True:
            line = reader.readline(MAX_LINE_BYTES + 1)
            received = time.monotonic()
            if not line:
                return
            line_number += 1
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                raise SdkError(f"line {line_number} from the referee is longer than {MAX_LINE_BYTES} bytes")
            try:
                message = json.loads(line)
                kind = message["type"]
            except (ValueError, KeyError, TypeError) as e:
                raise SdkError(f"line {line_number} from the referee is not a message: {e}: {line[:200]!r}") from e
            if kind == "hello":
                if message.get("protocol") != PROTOCOL_VERSION:
                    raise SdkError(
                        f"the referee speaks protocol version {message.get('protocol')}; "
                        f"this bot speaks version {PROTOCOL_VERSION}"
                    )
                if new_game is not None:
                    try:
                        start = Position.from_text(message["start"])
                    except ValueError as e:
                        raise SdkError(f"line {line_number}: hello: field \"start\": {e}") from e
                    new_game(NewGame(message["side"], message["variant"], start, message["time_control"]))
                ready: Dict[str, Any] = {"type": "ready", "name": name}
                if author is not None:
                    ready["author"] = author
                if version is not None:
                    ready["version"] = version
                if many_games:
                    ready["games"] = "many"
                _send(out, ready)
            elif kind == "move_request":
                _send(out, _answer(choose_move, message, received, out))
            elif kind == "game_over":
                # A quit follows, or (a kept process) the next game's hello.
                if game_over is not None:
                    game_over(
                        GameEnd(message.get("winner"), message["reason"], message["result"], message["plies"])
                    )
            elif kind == "quit":
                return
            else:
                # Protocol version 1 sends no other type; a later one may add some.
                print(f"bao.run: ignoring a message of unknown type {kind!r}", file=sys.stderr)
    finally:
        _out = None
        sys.stdout = saved_stdout
