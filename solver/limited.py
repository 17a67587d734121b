"""An exact path for a pick limit and forced or forbidden objects, without CP-SAT, where no object couples seats.

When no single unit changes which seats lose and there is no 2HG team (every unit is
"decided alone" in :mod:`solver.kernels.exact`'s terms), the game result is the same whatever is
chosen, so the value of a choice is the sum of its units' material.  A pick limit (at most
``k`` objects per proliferate, over ``R`` proliferates) then only bounds the units' round
counts ``c_u`` (0..R) by ``sum c_u <= k * R``: any such counts can be laid out with at most
``k`` objects in every round (unit after unit on consecutive slots of ``R`` rounds, each
taken ``k`` times, so no unit lands twice in one round).  A knapsack programme over the
units with unit weights is exact: most material, then fewest picks, then, unit by unit in
board order, more rounds for the earlier objects (the solvers' tie-break).  ``must_include``
asks ``c_u >= 1`` and ``must_exclude`` ``c_u = 0``.

This answers the usual constrained call in microseconds to milliseconds, whether or not
OR-Tools has been loaded (which takes 0.3-1.5 s and stalls the interpreter meanwhile), so
the first such call of a process keeps its time limit with the proven optimum (issue 24,
item 6).  Where it does not apply (coupled seats, teams, no-goods) :func:`solve_limited`
returns None and CP-SAT decides.
"""

from __future__ import annotations

import numpy as np

from .board import BoolArray, IntArray
from .objective import Objective

__all__ = ["solve_limited"]

#: The key of a budget the programme cannot reach (far below any total, far above overflow).
_DEAD = -(1 << 60)
#: Cells of the programme's table (units x picks) past which CP-SAT decides instead (16 MB).
MAX_CELLS = 2_000_000


def solve_limited(
    objective: Objective,
    max_chosen: int | None,
    include: frozenset[int],
    exclude: frozenset[int],
) -> tuple[IntArray, BoolArray] | None:
    """Rounds per single unit and their layout (rounds x single units), or None where the path does not apply.

    ``include`` and ``exclude`` are single-unit numbers.  Raises nothing: an infeasible
    combination returns None too, for CP-SAT to prove and report.
    """
    units = objective.units
    if units.teams or len(units.coupled) or objective.game_over(units.base_events):
        return None
    rounds = objective.board.rounds
    n = len(units.single_rows)
    mat = units.single_material.astype(np.int64)
    picks_bound = n * rounds + 1
    # Rank of "unit u chosen in c rounds": material first, then fewer picks.
    keys = mat * picks_bound - np.arange(rounds + 1)[None, :]
    for u in exclude:
        keys[u, 1:] = _DEAD
    for u in include:
        keys[u, 0] = _DEAD
    if max_chosen is None:  # nothing couples the units: each takes its best allowed count
        times = np.argmax(keys, axis=1).astype(np.int64) if n else np.zeros(0, dtype=np.int64)
        if (keys[np.arange(n), times] <= _DEAD).any():
            return None
        return times, np.arange(rounds)[:, None] < times[None, :]
    capacity = min(n * rounds, max_chosen * rounds)
    if (n + 1) * (capacity + 1) > MAX_CELLS:
        return None
    # best[u][b]: the best key of units u.. within b picks (the suffix programme, so the
    # reconstruction can give each earlier unit as many rounds as stays optimal).
    best = np.full((n + 1, capacity + 1), 0, dtype=np.int64)
    for u in range(n - 1, -1, -1):
        nxt = best[u + 1]
        row = np.full(capacity + 1, _DEAD, dtype=np.int64)
        for c in range(rounds + 1):
            if keys[u, c] <= _DEAD or c > capacity:
                continue
            cand = np.full(capacity + 1, _DEAD, dtype=np.int64)
            cand[c:] = np.where(nxt[: capacity + 1 - c] > _DEAD, nxt[: capacity + 1 - c] + keys[u, c], _DEAD)
            np.maximum(row, cand, out=row)
        best[u] = row
    if best[0, capacity] <= _DEAD // 2:
        return None  # the constraints allow no choice
    times = np.zeros(n, dtype=np.int64)
    left = capacity
    for u in range(n):
        target = best[u, left]
        for c in range(min(rounds, left), -1, -1):
            if keys[u, c] > _DEAD and best[u + 1, left - c] > _DEAD and keys[u, c] + best[u + 1, left - c] == target:
                times[u] = c
                left -= c
                break
    return times, _layout(times, rounds, max_chosen)


def _layout(times: IntArray, rounds: int, per_round: int) -> BoolArray:
    """Each unit in its ``times[u]`` earliest rounds with room left, or else on consecutive slots mod ``rounds``.

    The first gives the earlier objects the earlier rounds, as the solvers' tie-break does;
    when it would leave a later unit too few rounds with room, the second always fits (the
    counts total at most ``per_round * rounds``, and ``times[u] <= rounds``).
    """
    n = len(times)
    layout = np.zeros((rounds, n), dtype=bool)
    room = np.full(rounds, per_round)
    for u in range(n):
        open_rounds = np.flatnonzero(room > 0)[: int(times[u])]
        if len(open_rounds) < times[u]:
            break
        layout[open_rounds, u] = True
        room[open_rounds] -= 1
    else:
        return layout
    layout[:] = False
    slot = 0
    for u in range(n):
        for s in range(slot, slot + int(times[u])):
            layout[s % rounds, u] = True
        slot += int(times[u])
    return layout
