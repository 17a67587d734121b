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

from .board import BoolArray, IntArray
from .objective import Assignment, Objective, UnitKind

__all__ = ["DEAD", "MAX_FREE_SEATS", "NO_OPTION", "FastSolution", "best_options", "best_options_over", "solve_fast"]

#: Seats whose loss one choice can decide; the DP has 2**this states.
MAX_FREE_SEATS = 20

#: The key of a padding option (boards with fewer units or options than their batch).
NO_OPTION = -(1 << 62)

#: The key of an end state a programme may not take (far below any reachable total, far above overflow).
DEAD = -(1 << 60)


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
    chosen, state, _ = _programme(keys, events, game)
    return chosen, state


def best_options_over(
    keys: IntArray, idle: IntArray, events: IntArray, game: IntArray, over: BoolArray, extra: IntArray
) -> tuple[IntArray, IntArray, BoolArray]:
    """:func:`best_options` where a resolution that ends the game is worth its game score alone.

    ``over[b, s]`` says that ending in state ``s`` ends the game for the proliferator (a win,
    a loss or a draw, :func:`solver.objective.game_over_of`): its material is then that of
    choosing nothing, so each option's key is ``idle`` (the unit's nothing material, scaled,
    minus the option's picks) and only the picks still tell options apart.  The programme
    runs once over the states that don't end the game and once over those that do, and each
    board takes the better end; ``extra[b, 0]`` and ``extra[b, 1]`` are the keys of the units
    outside the programme in each case (their best options, or choosing nothing).  Returns
    the options, the final state and whether the game ends, per board.
    """
    live = ~over
    chosen, state, best = _programme(keys, events, np.where(live, game, DEAD))
    if not over.any():
        return chosen, state, np.zeros(len(keys), dtype=bool)
    idle_keys = np.where(keys == NO_OPTION, NO_OPTION, idle)
    chosen_over, state_over, best_over = _programme(idle_keys, events, np.where(over, game, DEAD))
    ended = (best_over + extra[:, 1] > best + extra[:, 0]) if live.any() else np.ones(len(keys), dtype=bool)
    return np.where(ended[:, None], chosen_over, chosen), np.where(ended, state_over, state), ended


def _programme(keys: IntArray, events: IntArray, game: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """:func:`best_options`, and the best total key per board."""
    n_boards, n_units, n_options = keys.shape
    n_states = game.shape[1]
    if n_states == 1:  # no seat's loss is at stake: every unit takes its best option, the first of equals
        best = keys.max(axis=2).sum(axis=1) + game[:, 0] if n_units else game[:, 0].copy()
        return np.argmax(keys, axis=2), np.zeros(n_boards, dtype=np.int64), best
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
    return chosen, state, value_to_go[:, 0]


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
    ended = objective.game_over(state)
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
        alone = np.ones(len(times), dtype=bool)
        alone[coupled] = False
        chosen, state, ended = _coupled(objective, options, base_events, sense, mat[alone], times[alone])
        for (_, kind, i), j in zip(order, chosen, strict=True):
            if kind is UnitKind.SINGLE:
                times[coupled[i]] = rounds - j
            else:
                team_choice[i] = j
        if ended:
            times[alone] = 0
    elif ended:  # the game ends whatever is chosen: every choice is worth the same, choose nothing
        times[:] = 0
    material = units.base_material + int(units.single_material[np.arange(len(times)), times].sum())
    material += sum(units.teams[u].options[j].material for u, j in enumerate(team_choice))
    value = objective.total(material, state) - objective.baseline
    return FastSolution(single_times=times, team_options=tuple(team_choice), value=value, events=state)


def _coupled(
    objective: Objective,
    options: list[list[tuple[int, int, int]]],
    base_events: int,
    sense: int,
    alone_material: IntArray,
    alone_times: IntArray,
) -> tuple[list[int], int, bool]:
    """The DP of one board: the option per coupled unit, every seat-loss event in the end, whether the game ends.

    The options are few and small, so their keys and events are laid out in plain Python and
    handed to :func:`best_options_over` as arrays; the game score of every state is one call.
    ``alone_material`` (sensed) and ``alone_times`` are the independent single units and
    their best rounds, which count when the programme weighs ending the game against not.
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
    rounds = alone_material.shape[1] - 1 if alone_material.size else 0
    max_picks = sum(max(p for _, p, _ in opts) for opts in options) + rounds * len(alone_times) + 1
    keys = [[m * max_picks - p for m, p, _ in opts] + [NO_OPTION] * (width - len(opts)) for opts in options]
    nothing = [next(m for m, p, _ in opts if p == 0) * max_picks for opts in options]  # each unit choosing nothing
    idle = [
        [n - p for _, p, _ in opts] + [NO_OPTION] * (width - len(opts))
        for n, opts in zip(nothing, options, strict=True)
    ]
    events = [[_compact(e, free_bits) for _, _, e in opts] + [0] * (width - len(opts)) for opts in options]
    millis = objective.game_millis(expanded)
    game = millis * (sense * max_picks)
    over = objective.games_over(expanded)
    n_alone = len(alone_times)
    live = int((alone_material[np.arange(n_alone), alone_times] * max_picks - alone_times).sum()) if n_alone else 0
    idle_alone = int(alone_material[:, 0].sum() * max_picks) if n_alone else 0
    chosen, state, ended = best_options_over(
        np.array([keys], dtype=np.int64),
        np.array([idle], dtype=np.int64),
        np.array([events], dtype=np.int64),
        game[None, :],
        over[None, :],
        np.array([[live, idle_alone]], dtype=np.int64),
    )
    end = int(state[0])
    return chosen[0].tolist(), int(expanded[end]), bool(ended[0])


def _compact(events: int, free_bits: list[int]) -> int:
    """An events mask as a DP state: bit ``j`` for the ``j``-th free seat bit."""
    state = 0
    for j, b in enumerate(free_bits):
        state |= ((events >> b) & 1) << j
    return state
