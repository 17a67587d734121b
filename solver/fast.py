"""The exact fast path: per-unit argmax plus a small dynamic programme over seat losses.

Under the objective (:mod:`solver.objective`) material adds over units and the game result
depends only on the set of seats that lose, a bitmask over at most a handful of seats.
Units whose options never change that set are decided alone, by numpy argmax over all of
them at once.  The few that do (poisoned players, threshold permanents, 2HG teams) go
through a dynamic programme whose state is the set of seats lost so far: exact, and
microseconds to milliseconds even on 100,000 objects.  The programme itself
(:func:`best_options`) runs over many boards at once, which is how :mod:`solver.batch`
decides thousands of boards in one pass; one board is a batch of one.

Ties are broken canonically: more value first, then fewer picks (object-rounds chosen),
then, unit by unit in board order, the option that chooses more of the earlier objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .board import IntArray
from .objective import Assignment, Objective, UnitKind

__all__ = ["MAX_FREE_SEATS", "NO_OPTION", "FastSolution", "best_options", "solve_fast"]

#: Seats whose loss one choice can decide; the DP has 2**this states.
MAX_FREE_SEATS = 20

#: The key of a padding option (boards with fewer units or options than their batch).
NO_OPTION = -(1 << 62)


@dataclass(frozen=True)
class FastSolution(Assignment):
    """Per single unit the number of rounds, per team unit the option index; value in milli-points.

    ``events`` is every game event of the resolution (see :func:`solver.rules.row_events`), so
    its game result (:meth:`solver.objective.Objective.game_result`) needs no second settle.
    """

    value: int
    events: int = 0


def best_options(keys: IntArray, events: IntArray, game: IntArray) -> tuple[IntArray, IntArray]:
    """The dynamic programme over coupled units, for a batch of boards (axis 0) of one shape.

    ``keys[b, u, o]`` ranks option ``o`` of unit ``u`` (in board order) on board ``b``:
    ``value * P - picks`` with ``P`` above any total of picks, so more value wins and then
    fewer picks; :data:`NO_OPTION` pads.  ``events[b, u, o]`` is the set of seats the option
    makes lose, as a compact state, and ``game[b, s]`` the key of ending in state ``s``.
    Returns the option taken per unit (each unit, in order, takes its first option that stays
    optimal) and the final state per board.
    """
    n_boards, n_units, n_options = keys.shape
    n_states = game.shape[1]
    if n_states == 1:  # no seat's loss is at stake: every unit takes its best option, the first of equals
        return np.argmax(keys, axis=2), np.zeros(n_boards, dtype=np.int64)
    states = np.arange(n_states, dtype=np.int64)
    boards = np.arange(n_boards)
    rows = boards[:, None]
    # Backwards: from each state, the first option that is optimal for the rest (argmax takes the
    # first); the values to go of a unit are only needed by the unit before it.
    value_to_go = game
    first_best: list[IntArray] = []
    for u in range(n_units - 1, -1, -1):
        reach = (states[None, :, None] | events[:, u, None, :]).reshape(n_boards, -1)
        total = keys[:, u, None, :] + value_to_go[rows, reach].reshape(n_boards, n_states, n_options)
        first_best.append(np.argmax(total, axis=2))
        value_to_go = total.max(axis=2)
    first_best.reverse()

    state = np.zeros(n_boards, dtype=np.int64)
    chosen = np.empty((n_boards, n_units), dtype=np.int64)
    for u in range(n_units):
        first = first_best[u][boards, state]
        chosen[:, u] = first
        state = state | events[boards, u, first]
    return chosen, state


def solve_fast(objective: Objective, sense: int = 1) -> FastSolution:
    """The optimum (``sense=1``) or the worst choice (``sense=-1``) under the objective."""
    units = objective.units
    rounds = objective.board.rounds
    mat = sense * units.single_material
    ev = units.single_events
    coupled = units.coupled
    base_events = units.base_events

    # Independent single units: most material, then fewest rounds (argmax takes the first).
    times = np.argmax(mat, axis=1) if mat.size else np.zeros(0, dtype=np.int64)
    team_choice = [0] * len(units.teams)
    state = base_events
    game: int | None = None  # the game milli-points of the end state, when the programme has them
    if len(coupled) or units.teams:
        # Coupled units, in board order: options as (material, picks, events) lists.
        rows, mat_rows, ev_rows = units.single_rows[coupled].tolist(), mat[coupled].tolist(), ev[coupled].tolist()
        order = [(row, UnitKind.SINGLE, i) for i, row in enumerate(rows)]
        order += [(t.heads[0], UnitKind.TEAM, i) for i, t in enumerate(units.teams)]
        order.sort()
        options: list[list[tuple[int, int, int]]] = []
        for _, kind, i in order:
            if kind is UnitKind.SINGLE:
                options.append([(mat_rows[i][c], c, ev_rows[i][c]) for c in range(rounds, -1, -1)])
            else:
                options.append([(sense * o.material, o.picks, o.events) for o in units.teams[i].options])
        chosen, state, game = _coupled(objective, options, base_events, sense)
        for (_, kind, i), j in zip(order, chosen, strict=True):
            if kind is UnitKind.SINGLE:
                times[coupled[i]] = rounds - j
            else:
                team_choice[i] = j
    if game is None:
        game = objective.game_milli(state)
    material = units.base_material + int(units.single_material[np.arange(len(times)), times].sum())
    material += sum(units.teams[u].options[j].material for u, j in enumerate(team_choice))
    value = material + game - objective.baseline
    return FastSolution(single_times=times, team_options=tuple(team_choice), value=value, events=state)


def _coupled(
    objective: Objective, options: list[list[tuple[int, int, int]]], base_events: int, sense: int
) -> tuple[list[int], int, int]:
    """The DP of one board: the option per coupled unit, every seat-loss event in the end and its game milli-points.

    The options are few and small, so their keys and events are laid out in plain Python and
    handed to :func:`best_options` as two arrays; the game score of every state is one call.
    """
    # The DP state is the set of seats lost so far, over the seats some coupled option can still change.
    free = 0
    for opts in options:
        for _, _, seats_lost in opts:
            free |= seats_lost
    free_bits = [b for b in range(free.bit_length()) if (free >> b) & 1 and not (base_events >> b) & 1]
    if len(free_bits) > MAX_FREE_SEATS:
        raise ValueError(f"more than {MAX_FREE_SEATS} seats can be eliminated by one choice; use method='cpsat'")
    n_states = 1 << len(free_bits)
    states = np.arange(n_states, dtype=np.int64)
    expanded = np.full(n_states, base_events, dtype=np.int64)
    for j, b in enumerate(free_bits):
        expanded |= ((states >> j) & 1) << b
    width = max(len(opts) for opts in options)
    max_picks = sum(max(p for _, p, _ in opts) for opts in options) + 1
    keys = [[m * max_picks - p for m, p, _ in opts] + [NO_OPTION] * (width - len(opts)) for opts in options]
    events = [[_compact(e, free_bits) for _, _, e in opts] + [0] * (width - len(opts)) for opts in options]
    millis = objective.game_millis(expanded)
    game = millis * (sense * max_picks)
    chosen, state = best_options(np.array([keys], dtype=np.int64), np.array([events], dtype=np.int64), game[None, :])
    end = int(state[0])
    return chosen[0].tolist(), int(expanded[end]), int(millis[end])


def _compact(events: int, free_bits: list[int]) -> int:
    """An events mask as a DP state: bit ``j`` for the ``j``-th free seat bit."""
    state = 0
    for j, b in enumerate(free_bits):
        state |= ((events >> b) & 1) << j
    return state
