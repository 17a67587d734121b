"""The solver's optimum for many boards at once: the one door through which the envs ask for it.

The oracle opponents, the regret reward, ``oracle_in_info`` and :meth:`oracle_action` all
need the optimum of several boards per vector step.  They all call :func:`decide_boards`,
so the batched decision core can replace the per-board loop below in this one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from solver.board import Board, BoolArray, IntArray
from solver.fast import solve_fast
from solver.objective import Objective
from solver.policy import Policy

__all__ = ["Plan", "decide_boards"]


@dataclass(frozen=True)
class Plan:
    """An optimal decision: its value (milli-points) and its solver matrices (rounds x objects, rounds x teams)."""

    value: int
    chosen: BoolArray
    recipients: IntArray


def decide_boards(boards: Sequence[Board], policy: Policy | None = None) -> list[Plan]:
    """The optimum of every board under ``policy``, in order (exact fast path, canonical tie-break)."""
    plans: list[Plan] = []
    for board in boards:
        objective = Objective(board, policy)
        best = solve_fast(objective)
        chosen, recipients = objective.matrix_of(best.single_times, best.team_options)
        plans.append(Plan(best.value, chosen, recipients))
    return plans
