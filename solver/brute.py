"""Brute force: score every legal choice through the rules engine.  The reference for tests.

It enumerates, for every round, every subset of the eligible objects and every legal 2HG
poison recipient, applies each choice with :func:`solver.rules.counters_after` and scores
it with :meth:`solver.objective.Objective.score_matrix` -- no tables, no shortcuts -- so
the other paths can be checked against the rules themselves.  Exponential: keep the
number of eligible objects times rounds small (the default cap is 16).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from .board import BoolArray, IntArray, Variant
from .cpsat import Constraints
from .errors import Infeasible
from .objective import Objective
from .rules import eligible_mask

__all__ = ["MAX_BRUTE", "enumerate_choices", "solve_brute"]

MAX_BRUTE = 16


def _round_options(objective: Objective) -> list[tuple[BoolArray, IntArray]]:
    board = objective.board
    rows = np.flatnonzero(eligible_mask(board))
    col = board.kind_column("poison")
    shared = board.variant is Variant.TWO_HEADED_GIANT and col >= 0
    out: list[tuple[BoolArray, IntArray]] = []
    for size in range(len(rows) + 1):
        for subset in itertools.combinations(rows, size):
            chosen = np.zeros(board.n_objects, dtype=bool)
            chosen[list(subset)] = True
            per_team: list[list[int]] = [[-1] for _ in range(board.n_teams)]
            if shared:
                for team in range(board.n_teams):
                    heads = [int(r) for r in subset if r < board.n_players and board.team[r] == team]
                    if heads and board.counts[heads[0], col] > 0:
                        per_team[team] = heads
            for combo in itertools.product(*per_team):
                out.append((chosen, np.array(combo, dtype=np.int64)))
    return out


def enumerate_choices(objective: Objective) -> Iterator[tuple[BoolArray, IntArray]]:
    """Every legal choice as ``(rounds x objects, rounds x teams)`` matrices."""
    board = objective.board
    if int(eligible_mask(board).sum()) * board.rounds > MAX_BRUTE:
        raise ValueError(f"brute force is limited to {MAX_BRUTE} eligible object-rounds")
    per_round = _round_options(objective)
    for combo in itertools.product(per_round, repeat=board.rounds):
        yield np.stack([c for c, _ in combo]), np.stack([r for _, r in combo])


def _allowed(chosen: BoolArray, constraints: Constraints) -> bool:
    if constraints.max_chosen is not None and chosen.sum(axis=1).max(initial=0) > constraints.max_chosen:
        return False
    ever = np.asarray(chosen.any(axis=0), dtype=bool)
    return bool(ever[list(constraints.must_include)].all() and not ever[list(constraints.must_exclude)].any())


def solve_brute(
    objective: Objective, sense: int = 1, constraints: Constraints | None = None
) -> tuple[BoolArray, IntArray, int]:
    """The best (or worst) choice under the canonical order: value, then fewest picks, then input order.

    Returned in the canonical per-round layout of :meth:`Objective.matrix_of`, so that all
    paths print the same choice for the same optimum, except under a per-round pick limit.
    """
    best: tuple[int, int, tuple[bool, ...]] | None = None
    found: tuple[BoolArray, IntArray, IntArray, tuple[int, ...], int] | None = None
    constraints = constraints or Constraints()
    for chosen, recipients in enumerate_choices(objective):
        if not _allowed(chosen, constraints):
            continue
        value = objective.score_matrix(chosen, recipients)
        times, options = objective.assignment_of(chosen, recipients)
        key = (sense * value, -int(chosen.sum()), objective.tie_bits(times, options))
        if best is None or key > best:
            best, found = key, (chosen, recipients, times, options, value)
    if found is None:
        raise Infeasible("no legal choice satisfies the constraints")
    if constraints.max_chosen is not None:  # rounds are told apart: keep the placement found
        return found[0], found[1], found[4]
    chosen, recipients = objective.matrix_of(found[2], found[3])
    return chosen, recipients, found[4]
