"""The protocol SDK: bao.run on an in-memory transcript, the deadline formula (the same as
the Rust SDK's), and the checks that stop a bot instead of sending a wrong line."""

from __future__ import annotations

import io
import json
import sys
import time
from typing import Any, Dict, List

import pytest

import bao
from bao import sdk

START = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -"
HELLO = {
    "type": "hello", "protocol": 1, "side": "S", "variant": "kiswahili", "start": START,
    "time_control": {"base_ms": 60000, "increment_ms": 1000, "move_time_ms": None, "startup_ms": 5000, "margin_ms": 100},
    "limits": {"max_line_bytes": 65536, "max_info_per_move": 100, "max_comment_bytes": 1024},
}


def request(request_id: int, notation: str = START, legal: Any = None, clock: Any = None, **extra: Any) -> Dict[str, Any]:
    position = bao.Position.from_text(notation)
    return {
        "type": "move_request", "id": request_id, "ply": 2 * (request_id - 1),
        "position": {"notation": notation, "variant": position.variant, "to_move": position.side_to_move},
        "legal": position.legal_moves() if legal is None else legal,
        "opponent_move": None,
        "clock": clock or {"you_ms": 60000, "opponent_ms": 60000, "increment_ms": 1000, "move_time_ms": None},
        **extra,
    }


def converse(messages: List[Dict[str, Any]], choose_move, **options: Any) -> List[Dict[str, Any]]:
    """Runs the SDK on `messages` and returns the lines it wrote, parsed."""
    reader = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    writer = io.BytesIO()
    bao.run(choose_move, stdin=reader, stdout=writer, **options)
    text = writer.getvalue().decode()
    assert text.endswith("\n") or text == ""
    return [json.loads(line) for line in text.splitlines()]


def first(position: bao.Position, legal: List[str], deadline: bao.Deadline) -> str:
    return legal[0]


def test_a_game_handshake_moves_and_end() -> None:
    seen: Dict[str, Any] = {}
    after_first = bao.Position.start().play("A6<").play("A5<")

    def choose(position: bao.Position, legal: List[str], deadline: bao.Deadline) -> str:
        seen.setdefault("positions", []).append(position)
        seen["request"] = bao.current_request()
        assert isinstance(deadline, bao.Deadline) and deadline.hard is not None
        print("a stray print goes to stderr, not to the referee")
        bao.info(depth=3, score=12.6, nodes=1000, comment="thinking")
        return legal[-1]

    lines = converse(
        [HELLO, request(1), request(2, str(after_first), opponent_move="A5<"),
         {"type": "game_over", "result": "S wins (front_row_empty)", "winner": "S", "reason": "front_row_empty", "plies": 3},
         {"type": "quit"}, request(3)],
        choose,
        name="tester", author="me", version="1",
        new_game=lambda game: seen.update(game=game),
        game_over=lambda end: seen.update(end=end),
    )
    assert lines == [
        {"type": "ready", "name": "tester", "author": "me", "version": "1", "games": "many"},
        {"type": "info", "depth": 3, "score": 13, "nodes": 1000, "comment": "thinking"},
        {"type": "move", "id": 1, "move": "A7>"},
        {"type": "info", "depth": 3, "score": 13, "nodes": 1000, "comment": "thinking"},
        {"type": "move", "id": 2, "move": after_first.legal_moves()[-1]},
    ], "nothing after quit is answered"
    assert seen["positions"] == [bao.Position.start(), after_first]
    assert seen["game"] == bao.NewGame("S", "kiswahili", bao.Position.start(), HELLO["time_control"])
    assert seen["end"] == bao.GameEnd("S", "front_row_empty", "S wins (front_row_empty)", 3)
    assert seen["request"].id == 2 and seen["request"].opponent_move == "A5<" and seen["request"].ply == 2
    assert bao.current_request() is None
    assert sys.stdout is not sys.stderr, "stdout is given back"


def test_end_of_input_ends_the_run_quietly() -> None:
    assert converse([HELLO], first) == [{"type": "ready", "name": "python-bot", "games": "many"}]
    assert converse([], first) == []


def test_two_games_in_one_process_each_from_its_own_hello() -> None:
    """Protocol 1.1: after game_over a kept process gets the next game's hello (here North, in
    the learners' variant, with a move-time clock) instead of quit; the SDK answers it with
    ready, calls new_game again, and plays the second game from its own position."""
    kujifunza = bao.Position.start("kujifunza")
    after_south = kujifunza.play(kujifunza.legal_moves()[0])
    second_hello = {
        **HELLO, "side": "N", "variant": "kujifunza", "start": str(kujifunza),
        "time_control": {"base_ms": None, "increment_ms": 0, "move_time_ms": 500, "startup_ms": 5000, "margin_ms": 100},
    }
    end = {"type": "game_over", "result": "draw (max_plies)", "winner": None, "reason": "max_plies", "plies": 1}
    games: List[bao.NewGame] = []
    ends: List[bao.GameEnd] = []
    positions: List[bao.Position] = []

    def choose(position: bao.Position, legal: List[str], deadline: bao.Deadline) -> str:
        positions.append(position)
        return legal[0]

    lines = converse(
        [HELLO, request(1), end, second_hello,
         request(1, str(after_south), clock={"you_ms": 500, "opponent_ms": 500, "increment_ms": 0, "move_time_ms": 500}),
         end, {"type": "quit"}],
        choose,
        name="twice", new_game=games.append, game_over=ends.append,
    )
    ready = {"type": "ready", "name": "twice", "games": "many"}
    assert lines == [
        ready, {"type": "move", "id": 1, "move": bao.Position.start().legal_moves()[0]},
        ready, {"type": "move", "id": 1, "move": after_south.legal_moves()[0]},
    ]
    assert [(g.side, g.variant, g.start) for g in games] == [
        ("S", "kiswahili", bao.Position.start()), ("N", "kujifunza", kujifunza)
    ]
    assert games[1].time_control["move_time_ms"] == 500
    assert positions == [bao.Position.start(), after_south] and after_south.side_to_move == "N"
    assert len(ends) == 2


def test_one_game_per_process_on_request() -> None:
    assert converse([HELLO], first, many_games=False) == [{"type": "ready", "name": "python-bot"}]


def test_info_numbers_are_integers_clamped_to_their_fields() -> None:
    def choose(position: bao.Position, legal: List[str], deadline: bao.Deadline) -> str:
        bao.info(depth=-4, score=float("inf"), nodes=2.0**70)
        bao.info(comment="é" * 600)
        return legal[0]

    lines = converse([HELLO, request(1)], choose)
    assert lines[1] == {"type": "info", "depth": 0, "score": (1 << 63) - 1, "nodes": (1 << 64) - 1}
    assert len(lines[2]["comment"].encode()) <= 1024 and set(lines[2]["comment"]) == {"é"}
    bao.info(depth=1)  # outside choose_move: nothing is sent, nothing raised
    with pytest.raises(TypeError):
        converse([HELLO, request(1)], lambda p, l, d: bao.info(depth="3") or l[0])


def test_a_choice_outside_the_legal_moves_is_not_sent() -> None:
    out = io.BytesIO()
    reader = io.BytesIO(json.dumps(HELLO).encode() + b"\n" + json.dumps(request(1)).encode() + b"\n")
    with pytest.raises(bao.SdkError, match="not among the legal moves"):
        bao.run(lambda p, l, d: "A1<", stdin=reader, stdout=out)
    assert b'"move"' not in out.getvalue()


def test_a_legal_list_that_differs_from_the_engine_stops_the_bot() -> None:
    with pytest.raises(bao.SdkError, match="this bot's rules engine finds"):
        converse([HELLO, request(1, legal=["A6<", "A7<"])], first)


@pytest.mark.parametrize(
    "line,named",
    [
        (b"not json\n", "not a message"),
        (b'{"no_type": 1}\n', "not a message"),
        (json.dumps({**HELLO, "protocol": 2}).encode() + b"\n", "protocol version 2"),
        (b"", None),
    ],
)
def test_bad_referee_lines_stop_with_sdk_error(line: bytes, named: Any) -> None:
    if named is None:  # the test's own request() cannot build a bad position: write it by hand
        message = request(1)
        message["position"]["notation"] = "kiswahili S"
        line, named = json.dumps(message).encode() + b"\n", "not valid here"
    with pytest.raises(bao.SdkError, match=named):
        bao.run(first, stdin=io.BytesIO(line), stdout=io.BytesIO())


def test_deadline_formula_matches_the_rust_sdk() -> None:
    # The cases of sdk/src/deadline.rs, in seconds.
    d = bao.Deadline.from_clock({"you_ms": 10_000, "increment_ms": 100, "move_time_ms": None}, 0.0)
    assert d.mode == "fischer"
    assert d.soft == pytest.approx(10 / 30 + 0.075) and d.hard == pytest.approx((10 / 30 + 0.075) * 4)
    d = bao.Deadline.from_clock({"you_ms": 50, "increment_ms": 0, "move_time_ms": None}, 0.0)
    assert d.soft == pytest.approx(0.05 / 30) and d.hard == pytest.approx(0.05 / 30 * 4)
    d = bao.Deadline.from_clock({"you_ms": 50, "increment_ms": 100, "move_time_ms": None}, 0.0)
    assert d.hard == pytest.approx(0.0425) and d.soft == d.hard
    assert bao.Deadline.from_clock({"you_ms": 0, "increment_ms": 0, "move_time_ms": None}, 0.0).hard == 0
    d = bao.Deadline.from_clock({"you_ms": 50, "increment_ms": 0, "move_time_ms": 50}, 0.0)
    assert d.mode == "move_time" and d.hard == pytest.approx(0.0425) and d.soft == pytest.approx(0.02125)
    assert bao.Deadline.from_clock({"you_ms": 4, "move_time_ms": 4}, 0.0).hard == pytest.approx(0.002)
    assert sdk.safety(1.0) == pytest.approx(0.055) and sdk.safety(0.006) == pytest.approx(0.003)


def test_deadline_expiry_and_extension() -> None:
    past = bao.Deadline(time.monotonic() - 0.1, 0.03, 0.06, "move_time")
    assert past.expired() and past.soft_expired() and past.remaining() == 0
    open_ended = bao.Deadline.unlimited()
    assert not open_ended.expired() and not open_ended.soft_expired() and open_ended.remaining() == float("inf")
    fixed = bao.Deadline.fixed(0.1, 0.25)
    assert fixed.extend_soft(2, 1).soft == pytest.approx(0.2)
    assert fixed.extend_soft(5, 1).soft == pytest.approx(0.25)
    assert fixed.extend_soft(1, 0).soft == pytest.approx(0.1)
    assert bao.Deadline.unlimited().extend_soft(2, 1).soft is None
    fresh = bao.Deadline.fixed(3600, 7200)
    assert not fresh.expired() and fresh.remaining() > 3600
