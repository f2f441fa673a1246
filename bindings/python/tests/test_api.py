"""The Python API: accessors, immutability, equality and hashing, pickling, the
perspective conversions, sowing steps' form."""

from __future__ import annotations

import copy
import pickle
import re

import pytest

import bao
from conftest import ROOT

START = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -"
# North to move, mtaji, North's a6 under takasia (the protocol's worked request).
NORTH = "kiswahili N 0,0,1,0,0,0,0,1/0,1,1,1,4,0,0,3/2,2,12,1,1,4,0,5/1,3,10,3,0,4,0,4 0,0 -- A1"


def test_version_is_the_crates() -> None:
    assert bao.__version__ and bao.__version__[0].isdigit()
    assert bao._bao.__version__ == bao.__version__


def test_rules_revision_is_the_engines() -> None:
    source = (ROOT / "rules" / "src" / "revision.rs").read_text()
    (revision,) = re.findall(r"pub const RULES_REVISION: u32 = (\d+);", source)
    assert bao.RULES_REVISION == int(revision)


def test_start_positions() -> None:
    start = bao.Position.start("kiswahili")
    assert str(start) == START
    assert bao.Position.start() == start
    assert start.variant == "kiswahili" and start.side_to_move == "S" and start.stage == "namua"
    assert start.hands == (22, 22) and start.hand("S") == 22 and start.hand("north") == 22
    assert start.nyumba == (True, True) and start.owns_nyumba("N")
    assert start.takasia is None
    assert start.legal_moves() == ["A6<", "A6>", "A7<", "A7>"]
    assert start.outcome().is_over is False and str(start.outcome()) == "ongoing"
    assert start.total_seeds == 64
    kujifunza = bao.Position.start("kujifunza")
    assert kujifunza.stage == "mtaji" and kujifunza.hands == (0, 0) and kujifunza.nyumba == (False, False)
    assert kujifunza.rows == {"A": (2,) * 8, "B": (2,) * 8, "a": (2,) * 8, "b": (2,) * 8}


def test_accessors_read_the_protocol_fields() -> None:
    p = bao.Position.from_text(NORTH)
    assert p.side_to_move == "N" and p.stage == "mtaji" and p.stage_of("S") == "mtaji"
    assert p.takasia == "A1"
    assert p.rows == {
        "A": (0, 0, 1, 0, 0, 0, 0, 1),
        "B": (0, 1, 1, 1, 4, 0, 0, 3),
        "a": (2, 2, 12, 1, 1, 4, 0, 5),
        "b": (1, 3, 10, 3, 0, 4, 0, 4),
    }
    assert p.front_row("N") == (2, 2, 12, 1, 1, 4, 0, 5) and p.back_row("S") == (0, 1, 1, 1, 4, 0, 0, 3)
    assert p.count("a3") == 12 and p.count("B5") == 4 and p.count("b8") == 4
    assert p.board_seeds("S") == 12 and p.board_seeds("N") == 52
    assert p.legal_moves() == ["A2<", "A2>", "A3<", "A3>", "A6<", "A6>", "A8<", "A8>"]
    assert repr(p) == f"Position({NORTH!r})".replace("'", '"')


def test_positions_are_immutable_values() -> None:
    start = bao.Position.start()
    after = start.play("A6<")
    assert str(start) == START, "play leaves the position it was called on unchanged"
    assert after != start and after == bao.Position.from_text(str(after))
    with pytest.raises(AttributeError):
        start.hands = (0, 0)  # type: ignore[misc]
    rows = start.rows
    rows["A"] = (9,) * 8
    assert start.rows["A"] == (0, 0, 0, 0, 6, 2, 2, 0), "rows is a copy"
    table = {start: "start", after: "after"}
    assert table[bao.Position.from_text(START)] == "start"
    assert len({start, bao.Position.start(), after}) == 2
    assert copy.copy(start) is start and copy.deepcopy(after) is after
    assert pickle.loads(pickle.dumps(after)) == after
    assert (start == START) is False and start != START
    with pytest.raises(TypeError):
        start < after  # type: ignore[operator]


def test_play_accepts_north_lower_case_and_gives_the_same_position() -> None:
    p = bao.Position.from_text(NORTH)
    assert p.play("a2<") == p.play("A2<")
    assert p.is_legal("a2<") and not p.is_legal("A1<")


def test_mover_and_absolute_moves() -> None:
    assert bao.to_absolute("A5<", "S") == "A5<"
    assert bao.to_absolute("A5<", "N") == "a5<"
    assert bao.to_absolute("b6>+", "N") == "b6>+"
    assert bao.from_absolute("a5<") == ("N", "A5<")
    assert bao.from_absolute("B3>") == ("S", "B3>")
    assert bao.from_absolute("a6>+") == ("N", "A6>+")
    for side in ("S", "N"):
        for move in ("A1<", "B8>", "A6>+"):
            assert bao.from_absolute(bao.to_absolute(move, side)) == (side, move)
    with pytest.raises(bao.IllegalMoveError):
        bao.from_absolute("C5<")


def test_sowing_steps_have_the_json_form_of_the_game_log() -> None:
    steps = bao.Position.start().sowing_steps("A6<")
    assert [s.to_dict() for s in steps] == [
        {"op": "hand"},
        {"op": "drop", "pit": "A6"},
        {"op": "pick", "pit": "A6", "seeds": 3},
        {"op": "drop", "pit": "A5"},
        {"op": "drop", "pit": "A4"},
        {"op": "drop", "pit": "A3"},
    ]
    assert steps[2].op == "pick" and steps[2].pit == "A6" and steps[2].seeds == 3
    assert steps[0].pit is None and steps[1].seeds is None
    assert steps[2] == bao.Position.start().sowing_steps("A6<")[2] and len(set(steps)) == 6
    assert repr(steps[2]) == 'SowStep("pick", "A6", 3)'


def test_outcome_of_a_finished_game() -> None:
    finished = bao.Position.from_text(
        "kiswahili S 0,0,0,0,0,0,0,0/2,2,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 0,0 -- -"
    )
    outcome = finished.outcome()
    assert outcome.is_over and outcome.winner == "N" and outcome.reason == "front_row_empty"
    assert str(outcome) == "N wins (front_row_empty)" and repr(outcome) == 'Outcome("N wins (front_row_empty)")'
    assert finished.legal_moves() == [] and finished.successors() == []
    assert outcome == finished.outcome() and outcome != bao.Position.start().outcome()
    assert finished.perft(3) == 0 and finished.perft(0) == 1
