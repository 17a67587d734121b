"""``solve`` and ``score``: the decision API that the CLI, the server, the analysis and the env use.

``method="auto"`` takes the exact fast path (:mod:`solver.fast`) whenever there are no extra
constraints -- it is exact for the objective by construction -- and CP-SAT
(:mod:`solver.cpsat`) otherwise; ``"cpsat"``, ``"fast"`` and ``"brute"`` force a path.
Whatever the path, the reported value is recomputed from the choice by
:meth:`solver.objective.Objective.score_matrix`, the single scoring code.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import numpy as np

from .board import Board, BoolArray, IntArray
from .brute import enumerate_choices, solve_brute
from .cpsat import Constraints, solve_cpsat
from .decision import Alternative, Decision
from .explain import explain
from .fast import solve_fast
from .objective import MILLI, Objective
from .policy import Policy
from .rules import Choice, Round, apply_matrix, choice_matrix, counters_after, eligible_mask, loss_mask

__all__ = ["Method", "Score", "score", "solve", "worst_value"]

Method = Literal["auto", "cpsat", "fast", "brute"]


@dataclass(frozen=True)
class Score:
    """The value of a given choice, the best value, and the regret (best minus this), in points."""

    value: float
    best: float
    regret: float


def solve(
    board: Board,
    policy: Policy | None = None,
    *,
    top_k: int = 1,
    time_limit: float | None = None,
    method: Method = "auto",
    max_chosen: int | None = None,
    must_include: Iterable[str] = (),
    must_exclude: Iterable[str] = (),
) -> Decision:
    """The optimal proliferate choice for ``board`` under ``policy`` (default weights if None).

    ``max_chosen`` caps the objects chosen per proliferate; ``must_include`` / ``must_exclude``
    force objects in (in at least one round) or out.  Those need CP-SAT (or brute force).
    """
    start = time.perf_counter()
    objective = Objective(board, policy)
    constraints = _constraints(objective, max_chosen, must_include, must_exclude)
    if top_k < 1:
        raise ValueError("top_k must be >= 1")
    if method == "auto":
        method = "fast" if constraints.empty else "cpsat"
    if method == "fast" and not constraints.empty:
        raise ValueError("the fast path takes no constraints; use method='cpsat' or 'auto'")
    status, bound_milli = "OPTIMAL", None
    if method == "fast":
        fast = solve_fast(objective)
        chosen, recipients = to_matrix(objective, fast.single_times, fast.team_options)
    elif method == "cpsat":
        cp = solve_cpsat(objective, time_limit=time_limit, constraints=constraints)
        chosen, recipients = to_matrix(objective, cp.single_times, cp.team_options)
        status = cp.status
        bound_milli = cp.bound
    elif method == "brute":
        chosen, recipients, _ = solve_brute(objective, constraints=constraints)
    else:
        raise ValueError(f"unknown method {method!r} (expected auto, cpsat, fast or brute)")
    outcome = apply_matrix(board, chosen, recipients)
    value_milli = objective.value_of(outcome.settled)
    choice = to_choice(board, chosen, recipients)
    alternatives = _top(objective, choice, value_milli, top_k, constraints, time_limit)
    result = objective.game_result(loss_mask(board, outcome.settled))
    bound = value_milli if bound_milli is None else max(value_milli, int(np.floor(bound_milli)))
    return Decision(
        board=board,
        policy=objective.policy,
        choice=choice,
        value=value_milli / MILLI,
        status=status,
        bound=bound / MILLI,
        method=method,
        outcome=outcome,
        alternatives=alternatives,
        elapsed=time.perf_counter() - start,
        game_result=result,
        _explain=lambda: explain(objective, chosen, recipients),
    )


def score(board: Board, choice: Choice, policy: Policy | None = None) -> Score:
    """The value of ``choice`` and its regret against the optimum (raises IllegalChoice if illegal)."""
    objective = Objective(board, policy)
    chosen, recipients = choice_matrix(board, choice)
    value = objective.score_matrix(chosen, recipients)
    best = solve_fast(objective).value
    return Score(value=value / MILLI, best=best / MILLI, regret=(best - value) / MILLI)


def worst_value(board: Board, policy: Policy | None = None) -> float:
    """The value of the worst legal choice (for normalised regret)."""
    return solve_fast(Objective(board, policy), sense=-1).value / MILLI


# ---------------------------------------------------------------------------- conversions
def to_matrix(objective: Objective, times: IntArray, team_options: tuple[int, ...]) -> tuple[BoolArray, IntArray]:
    """A unit assignment as ``rounds x objects`` and ``rounds x teams`` matrices."""
    board = objective.board
    units = objective.units
    chosen = np.zeros((board.rounds, board.n_objects), dtype=bool)
    recipients = np.full((board.rounds, board.n_teams), -1, dtype=np.int64)
    rounds = np.arange(board.rounds)[:, None]
    chosen[:, units.single_rows] = rounds < np.asarray(times)[None, :]
    for team, j in zip(units.teams, team_options, strict=True):
        for r, (heads, recipient) in enumerate(team.options[j].pattern):
            chosen[r, list(heads)] = True
            recipients[r, team.team] = recipient
    return chosen, recipients


def to_choice(board: Board, chosen: BoolArray, recipients: IntArray) -> Choice:
    rounds = []
    for r in range(chosen.shape[0]):
        named = {board.team_names[t]: board.ids[int(h)] for t, h in enumerate(recipients[r]) if h >= 0}
        ids = tuple(board.ids[i] for i in np.flatnonzero(chosen[r]))
        rounds.append(Round(ids, MappingProxyType(named)))
    return Choice(tuple(rounds))


def _constraints(
    objective: Objective, max_chosen: int | None, include: Iterable[str], exclude: Iterable[str]
) -> Constraints:
    board = objective.board
    ok = eligible_mask(board)
    rows: dict[str, tuple[int, ...]] = {}
    for name, ids in (("must_include", include), ("must_exclude", exclude)):
        found = []
        for obj_id in ids:
            row = board.index.get(obj_id)
            if row is None or not ok[row]:
                raise ValueError(f"{name}: {obj_id!r} is not an eligible object on this board")
            found.append(row)
        rows[name] = tuple(found)
    if max_chosen is not None and max_chosen < 0:
        raise ValueError("max_chosen must be >= 0")
    return Constraints(max_chosen=max_chosen, must_include=rows["must_include"], must_exclude=rows["must_exclude"])


# ---------------------------------------------------------------------------- top-k
def _top(
    objective: Objective,
    best: Choice,
    best_value: int,
    k: int,
    constraints: Constraints,
    time_limit: float | None,
) -> tuple[Alternative, ...]:
    """The k best distinct choices (distinct in how many rounds each object is chosen)."""
    out = [Alternative(1, best, best_value / MILLI, 0.0)]
    if k == 1:
        return tuple(out)
    board = objective.board
    if int(eligible_mask(board).sum()) * board.rounds <= 12 and constraints.empty:
        scored: dict[tuple[object, ...], tuple[int, int, Choice]] = {}
        for chosen, recipients in enumerate_choices(objective):
            key = _signature(objective, chosen, recipients)
            value = objective.score_matrix(chosen, recipients)
            if key not in scored or (value, -int(chosen.sum())) > scored[key][:2]:
                scored[key] = (value, -int(chosen.sum()), to_choice(board, chosen, recipients))
        best_key = _signature(objective, *choice_matrix(board, best))
        ranked = sorted((v for s, v in scored.items() if s != best_key), key=lambda v: (-v[0], -v[1]))
        for value, _, choice in ranked[: k - 1]:
            out.append(Alternative(len(out) + 1, choice, value / MILLI, (best_value - value) / MILLI))
        return tuple(out)
    forbid = [_units_of(objective, *choice_matrix(board, best))]
    for _ in range(k - 1):
        try:
            cp = solve_cpsat(
                objective,
                time_limit=time_limit,
                constraints=Constraints(
                    constraints.max_chosen, constraints.must_include, constraints.must_exclude, tuple(forbid)
                ),
            )
        except RuntimeError:
            break  # no further distinct choice exists
        chosen, recipients = to_matrix(objective, cp.single_times, cp.team_options)
        value = objective.score_matrix(chosen, recipients)
        out.append(
            Alternative(
                len(out) + 1,
                to_choice(board, chosen, recipients),
                value / MILLI,
                (best_value - value) / MILLI,
            )
        )
        forbid.append((tuple(int(t) for t in cp.single_times), cp.team_options))
    return tuple(out)


def _signature(objective: Objective, chosen: BoolArray, recipients: IntArray) -> tuple[object, ...]:
    """What makes two choices the same: rounds per object, and per team the poison each head gets."""
    board = objective.board
    settled_key = counters_after(board, chosen, recipients).tobytes()
    return (tuple(chosen.sum(axis=0)), settled_key)


def _units_of(objective: Objective, chosen: BoolArray, recipients: IntArray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A choice as (rounds per single unit, option per team unit), for CP-SAT no-good cuts."""
    units = objective.units
    times = tuple(int(t) for t in chosen[:, units.single_rows].sum(axis=0))
    team_opts = []
    for team in units.teams:
        pattern_times = tuple(int(chosen[:, h].sum()) for h in team.heads)
        poison = sum(
            int(objective.board.gain[h, objective.board.kind_column("poison")])
            for h in recipients[:, team.team]
            if h >= 0
        )
        team_opts.append(
            next((j for j, o in enumerate(team.options) if o.times == pattern_times and o.poison == poison), 0)
        )
    return times, tuple(team_opts)
