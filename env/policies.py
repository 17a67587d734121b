"""Board policies on a :class:`solver.Board`: the agents', and the Python form of each seat policy the compiled game
runs (``env.kernels.game.decide_scripted``, tested equal to these in tests/test_env_v1.py and
tests/test_games_benchmark.py).

A board policy takes a :class:`solver.Board` (the proliferate about to happen) and the
game's generator, and returns solver matrices.  Every choice goes through
:meth:`solver.rules.ChoiceMatrix.from_rows`, so the solver checks its legality and fills in the
implicit Two-Headed Giant poison recipients (701.34b).  The agents users act with live in
:mod:`env.agents`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solver.core import (
    DEFAULT_POLICY,
    Board,
    BoolArray,
    CardType,
    ChoiceMatrix,
    IntArray,
    Policy,
    Variant,
    eligible_mask,
)

from .decide import decide_boards

__all__ = [
    "BOARD_POLICIES",
    "BoardPolicy",
    "everything_choice",
    "matrices",
    "noop_choice",
    "oracle_choice",
    "random_choice",
    "rule_choice",
]

#: (board, rng) -> (rounds x objects chosen, rounds x teams poison recipient rows).
BoardPolicy = Callable[[Board, np.random.Generator], tuple[BoolArray, IntArray]]

_CREATURE = int(CardType.CREATURE)


def matrices(
    board: Board, rows: list[list[int]], recipients: list[dict[int, int]] | None = None
) -> tuple[BoolArray, IntArray]:
    """Per-round chosen rows (and named 2HG recipients, team -> head row) as checked solver matrices."""
    matrix = ChoiceMatrix.from_rows(board, rows, recipients)
    return matrix.chosen, matrix.recipients


def _two_head_recipients(board: Board, chosen: list[int], pick: Callable[[list[int]], int]) -> dict[int, int]:
    """A recipient for every poisoned 2HG team with both heads chosen (701.34b), picked by ``pick``."""
    col = board.kind_column("poison")
    if board.variant is not Variant.TWO_HEADED_GIANT or col < 0:
        return {}
    out: dict[int, int] = {}
    for team in range(board.n_teams):
        heads = [i for i in chosen if i < board.n_players and board.team[i] == team and board.counts[i, col] > 0]
        if len(heads) > 1:
            out[team] = pick(heads)
    return out


def noop_choice(board: Board, rng: np.random.Generator) -> tuple[BoolArray, IntArray]:
    """Choose nothing (always legal, 701.34a: "any number" includes zero)."""
    return matrices(board, [[] for _ in range(board.rounds)])


def random_choice(board: Board, rng: np.random.Generator) -> tuple[BoolArray, IntArray]:
    """Each eligible object with probability 1/2 in each round; a random head gets a 2HG team's poison."""
    eligible = eligible_mask(board).nonzero()[0]
    rows: list[list[int]] = []
    named: list[dict[int, int]] = []
    for _ in range(board.rounds):
        chosen: list[int] = eligible[rng.random(len(eligible)) < 0.5].tolist()
        rows.append(chosen)
        named.append(_two_head_recipients(board, chosen, lambda heads: heads[int(rng.integers(len(heads)))]))
    return matrices(board, rows, named)


def rule_choice(
    board: Board, rng: np.random.Generator | None = None, policy: Policy | None = None
) -> tuple[BoolArray, IntArray]:
    """The per-object filter of classic engine AIs (Forge's, for one), not an optimiser.

    Choose an ally's object whose counter kinds are, on balance, good for their holder, and
    an opponent player or creature whose kinds are, on balance, bad for them; never an
    opponent's noncreature permanent.  It looks at which kinds are present, not how many,
    and ignores thresholds, deaths and the game result: that is what the oracle adds.
    Kind weights are the solver's (:class:`solver.Policy`; the default one unless one is given).
    """
    weight = (policy or DEFAULT_POLICY).kind_weights(board.kinds)
    balance = (board.counts > 0) @ weight
    ally = board.is_ally
    # The one mask, fresh and writable: Board.has_type would first build its cache of every type's mask.
    creature_or_player = (board.types & _CREATURE) != 0
    creature_or_player[: board.n_players] = True
    good = np.where(ally, balance > 0, (balance < 0) & creature_or_player)
    chosen: list[int] = (good & eligible_mask(board)).nonzero()[0].tolist()
    named = _two_head_recipients(board, chosen, min)
    return matrices(board, [chosen] * board.rounds, [named] * board.rounds)


def everything_choice(board: Board, rng: np.random.Generator | None = None) -> tuple[BoolArray, IntArray]:
    """Every eligible permanent the proliferator controls, and the proliferator: the "grow my stuff" reflex."""
    rows = np.arange(board.n_objects)
    mine = (board.controller == board.proliferator) | (rows == board.proliferator)
    chosen: list[int] = np.flatnonzero(mine & eligible_mask(board)).tolist()
    return matrices(board, [chosen] * board.rounds)


def oracle_choice(
    board: Board, rng: np.random.Generator | None = None, policy: Policy | None = None
) -> tuple[BoolArray, IntArray]:
    """The solver's optimum (exact fast path, canonical tie-break)."""
    plan = decide_boards([board], policy)[0]
    return plan.chosen, plan.recipients


BOARD_POLICIES: dict[str, BoardPolicy] = {
    "noop": noop_choice,
    "random": random_choice,
    "rule": rule_choice,
    "oracle": oracle_choice,
    "everything": everything_choice,
}
