"""The exact fast path: per-unit argmax plus a small dynamic programme over seat losses.

Under the objective (:mod:`solver.objective`) material adds over units and the game result
depends only on the set of seats that lose, a bitmask over at most a handful of seats.
Units whose options never change that set are decided alone, by numpy argmax over all of
them at once.  The few that do (poisoned players, threshold permanents, 2HG teams) go
through a dynamic programme whose state is the set of seats lost so far: exact, and
microseconds to milliseconds even on 100,000 objects.

Ties are broken canonically: more value first, then fewer picks (object-rounds chosen),
then, unit by unit in board order, the option that chooses more of the earlier objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .board import IntArray
from .objective import Objective

__all__ = ["MAX_FREE_SEATS", "FastSolution", "solve_fast"]

#: Seats whose loss one choice can decide; the DP has 2**this states.
MAX_FREE_SEATS = 20


@dataclass(frozen=True)
class FastSolution:
    """Per single unit the number of rounds, per team unit the option index; value in milli-points."""

    single_times: IntArray
    team_options: tuple[int, ...]
    value: int


def solve_fast(objective: Objective, sense: int = 1) -> FastSolution:
    """The optimum (``sense=1``) or the worst choice (``sense=-1``) under the objective."""
    units = objective.units
    rounds = objective.board.rounds
    mat = sense * units.single_material
    ev = units.single_events
    coupled = (ev != ev[:, :1]).any(axis=1) if ev.size else np.zeros(0, dtype=bool)
    base_events = units.base_events

    # Independent single units: most material, then fewest rounds (argmax takes the first).
    times = np.argmax(mat, axis=1) if mat.size else np.zeros(0, dtype=np.int64)

    # Coupled units, in board order: options as (material, picks, events) lists.
    order: list[tuple[int, str, int]] = [(int(units.single_rows[u]), "single", int(u)) for u in np.flatnonzero(coupled)]
    order += [(t.heads[0], "team", i) for i, t in enumerate(units.teams)]
    order.sort()
    options: list[list[tuple[int, int, int]]] = []
    for _, kind, u in order:
        if kind == "single":
            options.append([(int(mat[u, c]), c, int(ev[u, c])) for c in range(rounds, -1, -1)])
        else:
            team = units.teams[u]
            options.append([(sense * o.material, o.picks, o.events) for o in team.options])

    # The DP state is the set of seats lost so far, over the seats some coupled option can still change.
    free = 0
    for opts in options:
        for _, _, events in opts:
            free |= events
    free_bits = [b for b in range(free.bit_length()) if (free >> b) & 1 and not (base_events >> b) & 1]
    if len(free_bits) > MAX_FREE_SEATS:
        raise ValueError(f"more than {MAX_FREE_SEATS} seats can be eliminated by one choice; use method='cpsat'")

    def compact(mask: int) -> int:
        return sum(1 << j for j, b in enumerate(free_bits) if (mask >> b) & 1)

    def expand(state: int) -> int:
        return base_events | sum(1 << b for j, b in enumerate(free_bits) if (state >> j) & 1)

    options = [[(m, p, compact(e)) for m, p, e in opts] for opts in options]
    n_states = 1 << len(free_bits)
    states = np.arange(n_states, dtype=np.int64)
    game = np.array([sense * objective.game_milli(expand(s)) for s in range(n_states)], dtype=np.int64)
    max_picks = sum(max(p for _, p, _ in opts) for opts in options) + 1
    # Value-to-go per state as one integer key, value * P - picks: more value first, then fewer picks.
    scale = np.int64(max_picks)
    value_to_go = [game * scale]
    for opts in reversed(options):
        nxt = value_to_go[-1]
        best = np.full(n_states, np.iinfo(np.int64).min, dtype=np.int64)
        for material, picks, events in opts:
            best = np.maximum(best, material * scale - picks + nxt[states | events])
        value_to_go.append(best)
    value_to_go.reverse()

    # Walk forward: each unit, in board order, takes its first option that stays optimal.
    state = 0
    chosen_options: list[int] = []
    for i, opts in enumerate(options):
        target = value_to_go[i][state]
        for j, (material, picks, events) in enumerate(opts):
            if material * scale - picks + value_to_go[i + 1][state | events] == target:
                chosen_options.append(j)
                state |= events
                break
    state = expand(state)

    team_choice = [0] * len(units.teams)
    times = times.copy()
    for (_, kind, u), j in zip(order, chosen_options, strict=True):
        if kind == "single":
            times[u] = rounds - j
        else:
            team_choice[u] = j
    material = units.base_material + int(units.single_material[np.arange(len(times)), times].sum())
    material += sum(units.teams[u].options[j].material for u, j in enumerate(team_choice))
    value = material + objective.game_milli(state) - objective.baseline
    return FastSolution(single_times=times, team_options=tuple(team_choice), value=value)
