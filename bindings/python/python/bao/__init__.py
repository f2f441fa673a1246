"""The exact rules of Bao la Kiswahili and Bao la Kujifunza, from bao-referee's engine.

Every answer comes from the Rust crate ``bao-rules`` (the referee's own rules engine),
through the extension module ``bao._bao``. ``bao.run`` speaks the bot protocol of
PROTOCOL.md, so that a bot is one function. See docs/python.md.
"""

from bao._bao import (
    MAX_LAPS,
    MAX_SEEDS,
    RULES_REVISION,
    BaoError,
    IllegalMoveError,
    Outcome,
    Position,
    PositionError,
    SowStep,
    __version__,
    from_absolute,
    to_absolute,
)
from bao.sdk import Deadline, GameEnd, NewGame, Request, SdkError, current_request, info, run

__all__ = [
    "MAX_LAPS",
    "MAX_SEEDS",
    "RULES_REVISION",
    "BaoError",
    "Deadline",
    "GameEnd",
    "IllegalMoveError",
    "NewGame",
    "Outcome",
    "Position",
    "PositionError",
    "Request",
    "SdkError",
    "SowStep",
    "__version__",
    "current_request",
    "from_absolute",
    "info",
    "run",
    "to_absolute",
]
