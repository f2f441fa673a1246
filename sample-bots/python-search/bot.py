"""A searching Bao bot in Python: alpha-beta on the exact rules, a template to start from.

It needs the `bao` package (the referee's own rules engine, built from bindings/python):
    python3 -m venv .venv && .venv/bin/pip install ./bindings/python
    .venv/bin/python sample-bots/python-search/bot.py           # speaks PROTOCOL.md on stdin/stdout
Options: --depth N searches exactly N plies (no clock: reproducible play), --name NAME.
"""

from __future__ import annotations

import argparse
import sys

import bao

WIN = 1_000_000  # the score of a won position, far above any evaluation
FRONT_WEIGHT = 2  # extra points for a front-row seed (every seed on our side is worth 10)


def evaluate(position: bao.Position) -> int:
    """How good `position` is for the side to move: seeds on its side of the board minus the
    opponent's, front-row seeds counted a little more (they attack and can be captured), and
    seeds in hand (namua) counted like board seeds. Change this first to make the bot stronger."""
    me = position.side_to_move
    opponent = "N" if me == "S" else "S"
    material = position.board_seeds(me) + position.hand(me) - position.board_seeds(opponent) - position.hand(opponent)
    front = sum(position.front_row(me)) - sum(position.front_row(opponent))
    return 10 * material + FRONT_WEIGHT * front


class OutOfTime(Exception):
    """Raised inside the search when the hard deadline has passed: the last full depth counts."""


class Searcher:
    """Negamax alpha-beta with iterative deepening. Scores are from the side to move's view."""

    def __init__(self, deadline: bao.Deadline) -> None:
        self.deadline = deadline
        self.nodes = 0

    def search(self, position: bao.Position, depth: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes % 512 == 0 and self.deadline.expired():
            raise OutOfTime
        if depth == 0:
            return evaluate(position)
        children = position.successors()  # every legal move with the position after it
        if not children:
            # No legal move, or our front row is empty: the side to move has lost.
            # Adding `depth` prefers the quickest win and the slowest loss.
            return -WIN - depth
        for _move, child in children:
            score = -self.search(child, depth - 1, -beta, -alpha)
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break  # the opponent will avoid this line: no need to look further
        return alpha

    def root(self, position: bao.Position, depth: int, order: list[tuple[str, bao.Position]]) -> tuple[str, int]:
        """The best (move, score) at `depth`, trying the moves in `order` (best first)."""
        best_move, alpha = order[0][0], -WIN * 2
        for move, child in order:
            score = -self.search(child, depth - 1, -WIN * 2, -alpha)
            if score > alpha:
                best_move, alpha = move, score
        return best_move, alpha


def choose(position: bao.Position, legal: list[str], deadline: bao.Deadline, max_depth: int) -> str:
    """Iterative deepening: depth 1, 2, 3... until the clock says stop, keeping the best move
    of the last depth searched completely and trying it first at the next depth."""
    if len(legal) == 1:
        return legal[0]
    searcher = Searcher(deadline)
    order = position.successors()
    best = legal[0]
    for depth in range(1, max_depth + 1):
        try:
            move, score = searcher.root(position, depth, order)
        except OutOfTime:
            break  # the unfinished depth is thrown away
        best = move
        bao.info(depth=depth, score=score, nodes=searcher.nodes)
        if abs(score) >= WIN:
            break  # a forced win or loss is found: deeper search changes nothing
        order.sort(key=lambda pair: pair[0] != best)  # the best move first, the rest in order
        # Time management: the next depth takes several times as long as this one, so do
        # not start it past a quarter of the soft budget (the hard budget stops it anyway).
        if deadline.soft is not None and deadline.elapsed() * 4 > deadline.soft:
            break
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description="alpha-beta Bao bot on the bao package")
    parser.add_argument("--depth", type=int, default=None, help="search exactly this deep, ignoring the clock")
    parser.add_argument("--name", default="python-search")
    args = parser.parse_args()

    def choose_move(position: bao.Position, legal: list[str], deadline: bao.Deadline) -> str:
        if args.depth is not None:
            return choose(position, legal, bao.Deadline.unlimited(), args.depth)
        return choose(position, legal, deadline, 64)

    try:
        bao.run(choose_move, name=args.name, author="bao-referee", version=bao.__version__)
    except bao.SdkError as e:
        print(f"python-search: {e}", file=sys.stderr)  # stderr is logged by the referee
        sys.exit(1)


if __name__ == "__main__":
    main()
