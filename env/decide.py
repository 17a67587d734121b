"""The solver's optimum for many boards at once: the one door through which the envs ask for it.

The oracle opponents, the regret reward, ``oracle_in_info`` and :meth:`oracle_action` all
need the optimum of several boards per vector step.  They all call :func:`decide_boards`,
which hands every board to the batched decision core (:func:`solver.batch.decide_many`) in
one call: one stacked pass over all the boards' objects rather than one pass per board.  A
lone board (the single env, a lone oracle seat) takes :func:`solver.batch.decide_one`, the
same decision without the cost of stacking one board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from solver.core import Board, BoolArray, IntArray, Policy, decide_many, decide_one

__all__ = ["Plan", "decide_boards"]


@dataclass(frozen=True)
class Plan:
    """An optimal decision: its value (milli-points) and its solver matrices (rounds x objects, rounds x teams)."""

    value: int
    chosen: BoolArray
    recipients: IntArray


def decide_boards(boards: Sequence[Board], policy: Policy | None = None) -> list[Plan]:
    """The optimum of every board under ``policy``, in order (exact fast path, canonical tie-break)."""
    if len(boards) <= 1:
        return [Plan(best.value, best.chosen, best.recipients) for best in (decide_one(b, policy) for b in boards)]
    batch = decide_many(boards, policy)
    values = batch.values.tolist()
    return [Plan(values[b], *batch.matrices(b)) for b in range(len(boards))]
