"""From points to winning chances: how much a lost point matters depends on the position.

Lichess grades a chess move by how much it lowers the mover's chance of winning, read off
a logistic curve of the engine's evaluation (Win% = 50 + 50 * (2 / (1 + exp(-k * cp)) - 1)).
We do the same with the objective's *material balance* of a position -- every counter and
permanent on the board valued by :class:`solver.objective.Objective`, from the decider's
side, game results left out -- in place of centipawns.  A decided game result overrides the
curve: a win is 100%, a draw 50%, a loss 0%.

:data:`K` was fitted on games simulated in our own environments: run
``python -m benchmarks.winprob_fit`` (it reads the games of ``benchmarks/games.py``,
``benchmarks/results/games.jsonl.gz``) and see ``benchmarks/results/winprob_fit.json``.
"""

from __future__ import annotations

import math

import numpy as np

from ..board import Board
from ..objective import MILLI, Objective
from ..policy import Policy
from ..rules import Settled

__all__ = ["RESULT_CHANCES", "K", "chances", "material_balance", "settled_material", "win_chances"]

#: Logistic slope per point of material balance, fitted by maximum likelihood on 21,663 decisions of simulated
#: duels and Two-Headed Giant games (``python -m benchmarks.games --games 150`` then ``python -m
#: benchmarks.winprob_fit``: k = 0.0590, log-loss 0.611 against 0.693 for a flat 50%; output in
#: benchmarks/results/winprob_fit.json).  One point at an even board is worth 1.5 points of Win%.
K = 0.059

#: Winning chances (%) once the game result is decided by the choice itself.
RESULT_CHANCES: dict[str, float] = {"win": 100.0, "draw": 50.0, "loss": 0.0}


def win_chances(balance: float, k: float = K) -> float:
    """Win% of a position whose material balance is ``balance`` points, Lichess's curve (50 at an even board)."""
    x = max(-700.0, min(700.0, -k * balance))  # exp overflows past ~709
    return 50.0 + 50.0 * (2.0 / (1.0 + math.exp(x)) - 1.0)


def settled_material(objective: Objective, settled: Settled) -> float:
    """Material balance of a settled board (counters and permanents, game result left out), in points."""
    return objective.material(settled) / MILLI


def material_balance(board: Board, policy: Policy | None = None) -> float:
    """Material balance of ``board`` before any choice, from its proliferator's side, in points."""
    objective = Objective(board, policy)
    return settled_material(objective, objective.settled_nothing)


def chances(result: str, balance: float, k: float = K) -> float:
    """Win% after a resolution: its decided ``result`` if any, else the curve at its material ``balance`` (points)."""
    fixed = RESULT_CHANCES.get(result)
    return fixed if fixed is not None else win_chances(balance, k)


def fit_k(balances: np.ndarray, scores: np.ndarray, high: float = 10.0) -> float:
    """Maximum-likelihood slope of P(win) = 1 / (1 + exp(-k * balance)); ``scores`` are 1, 0.5 or 0.

    The log-likelihood is concave in ``k``, so its derivative falls monotonically and a
    bisection on its sign finds the maximum (Newton overshoots on balances in the hundreds).
    """

    def slope(k: float) -> float:
        p = 1.0 / (1.0 + np.exp(np.clip(-k * balances, -700, 700)))
        return float(((scores - p) * balances).sum())

    low = 0.0
    if slope(low) <= 0:
        return 0.0
    for _ in range(200):
        mid = (low + high) / 2
        if slope(mid) > 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2
