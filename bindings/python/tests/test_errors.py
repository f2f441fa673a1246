"""Bad positions and bad moves raise the documented exceptions, naming what is wrong."""

from __future__ import annotations

import re

import pytest

import bao
from conftest import rules_cases

START = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -"


@pytest.mark.parametrize(
    "text,named",
    [
        ("", "expected 6 fields"),
        ("kiswahili S", "expected 6 fields"),
        (START.replace("kiswahili", "chess"), "field 1 (variant)"),
        (START.replace(" S ", " X "), "field 2 (to-move)"),
        (START.replace("0,0,0,0,6,2,2,0/", "0,0,0,6,2,2,0/", 1), "row A has 7 counts"),
        (START.replace("0,0,0,0,6,2,2,0/", "0,0,0,0,06,2,2,0/", 1), "pit A5"),
        (START.replace("22,22", "22"), "field 4 (hands)"),
        (START.replace(" SN ", " NS "), "field 5 (nyumba)"),
        (START[:-1] + "C3", "field 6 (takasia)"),
        (START[:-1] + "A3", "takasia applies only to a player to move with no seeds in hand"),
        ("kujifunza S 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 1,0 -- -", "kujifunza position has no seeds in hand"),
        ("kiswahili S 0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0 0,0 -- -", "both front rows are empty"),
        ("kiswahili S 200,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/100,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -", "at most 255"),
    ],
)
def test_bad_positions_raise_position_error_naming_the_field(text: str, named: str) -> None:
    with pytest.raises(bao.PositionError, match=re.escape(named)) as raised:
        bao.Position.from_text(text)
    assert isinstance(raised.value, bao.BaoError) and isinstance(raised.value, ValueError)
    with pytest.raises(bao.PositionError):
        bao.Position(text)


def test_a_position_must_be_text() -> None:
    with pytest.raises(TypeError):
        bao.Position.from_text(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "position,move,rule,named",
    [
        (START, "A1<", "empty_pit", "pit A1 is empty"),
        (START, "B6<", "namua_back_row", "front pit"),
        (START, "A5<", "nyumba_protected", "functional nyumba"),
        (START, "A6<+", "safari_not_offered", "safari"),
        (START, "a6<", "lower_case_for_south", "lower-case row"),
        (START, "Z6<", "notation", "bad row"),
        (START, "A9<", "notation", "bad column"),
        (START, "A6^", "notation", "bad direction"),
        (START, "A6<<", "notation", "unexpected text"),
        (START, "", "notation", "empty move"),
        # Mtaji, no capture: a takasa from the back row while a front pit holds 2 or more.
        ("kiswahili N 3,1,0,0,0,3,1,0/1,0,0,1,0,2,4,0/1,2,0,1,6,3,12,0/1,2,1,0,7,2,2,8 0,0 -- -", "B2<", "front_row_first", "from the front row"),
        ("kiswahili N 0,1,1,0,5,0,8,1/3,5,3,4,5,1,2,8/0,0,5,1,0,3,0,0/0,1,1,0,2,0,2,2 0,0 -- A6", "A6<", "under_takasia", "under takasia"),
        ("kujifunza N 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/2,3,10,5,2,1,4,1/7,0,1,2,3,4,3,6 0,0 -- -", "A5<", "infinite", "infinite"),
        # A finished game: South's front row is empty.
        ("kiswahili S 0,0,0,0,0,0,0,0/2,2,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 0,0 -- -", "B1<", "game_over", "the game is over"),
    ],
)
def test_bad_moves_raise_illegal_move_error_naming_the_rule(position: str, move: str, rule: str, named: str) -> None:
    p = bao.Position.from_text(position)
    with pytest.raises(bao.IllegalMoveError, match=re.escape(named)) as raised:
        p.play(move)
    assert raised.value.rule == rule
    assert raised.value.move == move
    assert isinstance(raised.value, bao.BaoError)
    with pytest.raises(bao.IllegalMoveError):
        p.sowing_steps(move)
    assert p.is_legal(move) is False


def test_every_illegal_move_of_the_rules_cases_is_named() -> None:
    # Every move that is not legal in a rules case raises, with a rule name and a message.
    seen = set()
    candidates = [f"{row}{col}{d}{s}" for row in "AB" for col in range(1, 9) for d in "<>" for s in ("", "+")]
    for case in rules_cases():
        p = bao.Position.from_text(case["position"])
        for move in candidates:
            if move in case["legal"]:
                assert p.is_legal(move)
                continue
            with pytest.raises(bao.IllegalMoveError) as raised:
                p.play(move)
            assert re.fullmatch("[a-z_]+", raised.value.rule), raised.value.rule
            assert str(raised.value).startswith(move), (move, str(raised.value))
            seen.add(raised.value.rule)
    expected = {
        "capture_required", "empty_pit", "too_few_seeds", "infinite", "under_takasia", "front_row_first",
        "lone_kichwa", "forced_direction", "nyumba_protected", "namua_back_row", "safari_not_offered",
    }
    assert expected <= seen, expected - seen


def test_a_move_must_be_text() -> None:
    with pytest.raises(TypeError):
        bao.Position.start().play(7)  # type: ignore[arg-type]


@pytest.mark.parametrize("call", [
    lambda: bao.Position.start("chess"),
    lambda: bao.Position.start().hand("west"),
    lambda: bao.Position.start().count("C1"),
    lambda: bao.to_absolute("A5<", "E"),
    lambda: bao.to_absolute("a5<", "S"),
])
def test_other_bad_arguments_raise_bao_error(call) -> None:
    with pytest.raises(bao.BaoError):
        call()
