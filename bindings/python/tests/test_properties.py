"""Properties over random positions (hypothesis): playing any legal move never raises, and
the sowing steps of every legal move, applied to the position, give play()'s board, hands
and nyumba ownership."""

from __future__ import annotations

from typing import Dict, List

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bao

PITS = [f"{row}{col}" for row in "ABab" for col in range(1, 9)]


@st.composite
def played_positions(draw) -> bao.Position:
    """A position reached by a random game of either variant (choices drawn by hypothesis)."""
    position = bao.Position.start(draw(st.sampled_from(["kiswahili", "kujifunza"])))
    for choice in draw(st.lists(st.integers(min_value=0, max_value=31), max_size=150)):
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(moves[choice % len(moves)])
    return position


@st.composite
def arbitrary_positions(draw) -> bao.Position:
    """Any valid position: random counts, hands, nyumba and takasia (what from_text accepts)."""
    variant = draw(st.sampled_from(["kiswahili", "kujifunza"]))
    counts = draw(st.lists(st.integers(min_value=0, max_value=9), min_size=32, max_size=32))
    rows = "/".join(",".join(str(c) for c in counts[8 * r : 8 * r + 8]) for r in range(4))
    if variant == "kiswahili":
        hands = f"{draw(st.integers(0, 22))},{draw(st.integers(0, 22))}"
        nyumba = draw(st.sampled_from(["SN", "S-", "-N", "--"]))
        takasia = draw(st.sampled_from(["-", "-", "-"] + [f"A{c}" for c in range(1, 9)]))
    else:
        hands, nyumba, takasia = "0,0", "--", "-"
    text = f"{variant} {draw(st.sampled_from('SN'))} {rows} {hands} {nyumba} {takasia}"
    try:
        return bao.Position.from_text(text)
    except bao.PositionError:
        assume(False)
        raise


def replay(position: bao.Position, steps: List[bao.SowStep]) -> Dict[str, object]:
    """The board, hands and nyumba flags after applying `steps` to `position`."""
    board = {pit: position.count(pit) for pit in PITS}
    hands = dict(zip("SN", position.hands))
    nyumba = dict(zip("SN", position.nyumba))
    mover = position.side_to_move
    transit = 0
    for step in steps:
        if step.op == "hand":
            assert transit == 0 and hands[mover] > 0
            hands[mover] -= 1
            transit += 1
        elif step.op == "pick":
            assert transit == 0 and 0 < step.seeds <= board[step.pit]
            board[step.pit] -= step.seeds
            transit += step.seeds
        elif step.op == "capture":
            assert transit == 0 and board[step.pit] == step.seeds > 0
            board[step.pit] = 0
            transit += step.seeds
        elif step.op == "drop":
            assert transit > 0
            board[step.pit] += 1
            transit -= 1
        elif step.op == "nyumba_lost":
            nyumba["S" if step.pit.isupper() else "N"] = False
        else:
            assert step.op in ("kichwa", "safari"), step.op
    assert transit == 0, "every seed in transit is sown"
    return {"board": board, "hands": hands, "nyumba": nyumba}


def state(position: bao.Position) -> Dict[str, object]:
    return {
        "board": {pit: position.count(pit) for pit in PITS},
        "hands": dict(zip("SN", position.hands)),
        "nyumba": dict(zip("SN", position.nyumba)),
    }


def check_every_legal_move(position: bao.Position) -> None:
    legal = position.legal_moves()
    assert legal == sorted(legal)
    assert (not legal) == position.outcome().is_over
    for move in legal:
        after = position.play(move)  # never raises for a listed move
        assert after.side_to_move != position.side_to_move
        assert after.total_seeds == position.total_seeds
        assert replay(position, position.sowing_steps(move)) == state(after), move


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played_positions())
def test_legal_moves_of_played_positions_play_and_replay(position: bao.Position) -> None:
    check_every_legal_move(position)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(arbitrary_positions())
def test_legal_moves_of_arbitrary_positions_play_and_replay(position: bao.Position) -> None:
    check_every_legal_move(position)
    assert bao.Position.from_text(str(position)) == position
