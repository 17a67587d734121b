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
from .errors import Infeasible
from .explain import explain
from .fast import solve_fast
from .objective import MILLI, Objective
from .policy import Policy
from .rules import Choice, Round, apply_matrix, choice_matrix, eligible_mask, event_mask

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
    try:
        chosen, recipients, status, bound_milli = _optimum(objective, method, constraints, time_limit)
    except Infeasible:
        raise Infeasible(
            f"no legal choice satisfies max_chosen={max_chosen}, must_include={sorted(must_include)}, "
            f"must_exclude={sorted(must_exclude)}"
        ) from None
    outcome = apply_matrix(board, chosen, recipients)
    value_milli = objective.value_of(outcome.settled)
    choice = to_choice(board, chosen, recipients)
    alternatives = _top(objective, choice, value_milli, top_k, constraints, time_limit)
    result = objective.game_result(event_mask(board, outcome.settled))
    bound = value_milli if bound_milli is None else max(value_milli, int(np.floor(bound_milli + 1e-9)))
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


def _optimum(
    objective: Objective, method: str, constraints: Constraints, time_limit: float | None
) -> tuple[BoolArray, IntArray, str, float | None]:
    """The optimal choice matrices by one path, with its status and (CP-SAT only) proven bound."""
    if method == "fast":
        fast = solve_fast(objective)
        return (*objective.matrix_of(fast.single_times, fast.team_options), "OPTIMAL", None)
    if method == "cpsat":
        cp = solve_cpsat(objective, time_limit=time_limit, constraints=constraints)
        return (*objective.matrix_of(cp.single_times, cp.team_options, cp.layout), cp.status, cp.bound)
    if method == "brute":
        chosen, recipients, _ = solve_brute(objective, constraints=constraints)
        return chosen, recipients, "OPTIMAL", None
    raise ValueError(f"unknown method {method!r} (expected auto, cpsat, fast or brute)")


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
    """A unit assignment as choice matrices (see :meth:`Objective.matrix_of`)."""
    return objective.matrix_of(times, team_options)


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
    best_times, best_options = objective.assignment_of(*choice_matrix(board, best))
    if int(eligible_mask(board).sum()) * board.rounds <= 12 and constraints.empty:
        scored: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, int, tuple[bool, ...]]] = {}
        for chosen, recipients in enumerate_choices(objective):
            times, options = objective.assignment_of(chosen, recipients)
            key = (tuple(int(t) for t in times), options)
            if key not in scored:
                scored[key] = (
                    objective.score_matrix(chosen, recipients),
                    -int(chosen.sum()),
                    objective.tie_bits(times, options),
                )
        del scored[(tuple(int(t) for t in best_times), best_options)]
        ranked = sorted(scored.items(), key=lambda item: item[1], reverse=True)
        for (times_key, options), (value, _, _) in ranked[: k - 1]:
            chosen, recipients = objective.matrix_of(np.array(times_key, dtype=np.int64), options)
            choice = to_choice(board, chosen, recipients)
            out.append(Alternative(len(out) + 1, choice, value / MILLI, (best_value - value) / MILLI))
        return tuple(out)
    forbid = [(tuple(int(t) for t in best_times), best_options)]
    for _ in range(k - 1):
        try:
            cp = solve_cpsat(
                objective,
                time_limit=time_limit,
                constraints=Constraints(
                    constraints.max_chosen, constraints.must_include, constraints.must_exclude, tuple(forbid)
                ),
            )
        except Infeasible:
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
