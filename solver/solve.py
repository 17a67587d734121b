"""The decision API that the CLI, the server, the analysis and the env use: ``solve``, ``score``, ``top_k``.

``method="auto"`` takes the exact fast path -- the compiled core's optimum of the board as a
batch of one (:meth:`solver.objective.Objective.best`, :mod:`solver.kernels.exact`), exact for
the objective by construction -- whenever there are no extra constraints, the pick-limit
programme (:mod:`solver.limited`, reported as ``fast``) for constraints where no object couples
seats, and CP-SAT (:mod:`solver.cpsat`) otherwise; ``"cpsat"``, ``"fast"`` and ``"brute"`` force
a path.  The fast path reports the core's own value; the other paths' choices are scored by
:meth:`solver.objective.Objective.score_matrix`, the single scoring code of a given choice.

A time limit bounds the whole call, top-k included, and a cancel token stops it early; either
way the answer is the best found so far, with status ``FEASIBLE`` when it is not proven, and
never an exception: when CP-SAT has found nothing yet, the exact fast-path optimum (no
constraints) or a simple choice that meets the constraints is the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from . import rules
from .board import Board, BoolArray, IntArray
from .brute import enumerate_choices, solve_brute
from .budget import Budget, CancelToken
from .cpsat import Constraints, SearchStopped, preload, solve_cpsat, unit_index
from .decision import Alternative, Decision, ExplanationRow, Given, choice_from_json, json_member, json_number
from .errors import Infeasible
from .explain import explain
from .inputs import BoardLike, ChoiceLike, PolicyLike, as_board, as_choice, as_policy
from .limited import solve_limited
from .objective import MILLI, Assignment, Objective, UnitKind
from .policy import Policy
from .rules import (
    Choice,
    Outcome,
    apply_matrix,
    choice_matrix,
    choice_of_matrix,
    eligible_mask,
    event_mask,
    why_ineligible,
)
from .status import GameResult, Method, Status

__all__ = [
    "Score",
    "apply_proliferate",
    "decision_from_json",
    "derive_choice",
    "eligible",
    "explain_choice",
    "score",
    "solve",
    "top_k",
    "worst_value",
]


@dataclass(frozen=True)
class Score:
    """The value of a given choice, the best value, and the regret (best minus this), in points."""

    value: float
    best: float
    regret: float


class _Optimum(NamedTuple):  # a tuple, not a frozen dataclass: built on every solve (microseconds count)
    chosen: BoolArray
    recipients: IntArray
    status: Status
    bound_milli: float | None
    method: Method
    #: The value in milli-points when the path already scored its choice through the objective.
    value_milli: int | None = None


def solve(
    board: BoardLike,
    policy: PolicyLike = None,
    *,
    top_k: int = 1,
    time_limit: float | None = None,
    method: Method | str = Method.AUTO,
    max_chosen: int | None = None,
    must_include: Iterable[str] = (),
    must_exclude: Iterable[str] = (),
    cancel: CancelToken | None = None,
) -> Decision:
    """The optimal proliferate choice for ``board`` under ``policy``.

    Args:
        board: a :class:`~solver.board.Board`, a mapping (board JSON), JSON text or a path.
        policy: a :class:`~solver.policy.Policy`, a mapping shaped like the TOML policy file,
            a path to one, or None for the default weights.
        top_k: how many distinct best choices to list in ``decision.alternatives`` (>= 1).
        time_limit: seconds for the whole call, top-k included (None: no limit).  When it is
            reached the answer is the best found so far, status ``FEASIBLE`` if not proven.
        method: ``auto`` (fast path without constraints, else CP-SAT), ``fast``, ``cpsat``
            or ``brute`` (small boards; the reference).
        max_chosen: at most this many objects chosen per proliferate.
        must_include: ids chosen in at least one proliferate.
        must_exclude: ids never chosen.
        cancel: any object with ``is_set()`` (a :class:`threading.Event`); once another thread
            sets it, the search stops and the best answer found so far is returned.

    Returns:
        A :class:`~solver.decision.Decision`; its outcome and explanation are built on first use.

    Raises:
        BoardError: the board is malformed (``problems`` names each field).
        PolicyError: the policy is malformed.
        TypeError: board, policy or cancel of a type not listed above.
        ValueError: bad ``top_k``, ``time_limit``, ``method`` or constraint ids.
        Infeasible: no legal choice satisfies the constraints.
        SearchStopped: only with constraints, when the search was stopped before CP-SAT found
            any choice and no simple choice meeting them exists (a RuntimeError).

    >>> decision = solve("solver/examples/classic.json", top_k=2)
    >>> decision.chosen, decision.value, decision.status
    (('bob', 'bears', 'tamiyo', 'courser'), 4.0, <Status.OPTIMAL: 'OPTIMAL'>)
    >>> [alt.value for alt in decision.alternatives]
    [4.0, 3.0]
    """
    start = time.perf_counter()
    budget = Budget.start(time_limit, cancel)
    if top_k != 1 or method in (Method.CPSAT, "cpsat"):
        preload()  # CP-SAT will be needed: its first load overlaps reading the board
    # A loaded board as it is, without as_board's test against every accepted form (microseconds count).
    board_, policy_ = board if isinstance(board, Board) else as_board(board), as_policy(policy)
    chosen_method = _method(method)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError(f"top_k must be an integer >= 1, not {top_k!r}")
    include, exclude = _id_list("must_include", must_include), _id_list("must_exclude", must_exclude)
    objective = Objective(board_, policy_)
    constraints = _constraints(objective, max_chosen, include, exclude)
    limited = None
    if chosen_method is Method.AUTO:
        chosen_method = Method.FAST if constraints.empty else Method.CPSAT
        if not constraints.empty:  # exact without CP-SAT (nor its load) where nothing couples the objects
            limited = _limited(objective, constraints)
    if chosen_method is Method.FAST and not constraints.empty:
        raise ValueError("the fast path takes no constraints; use method='cpsat' or 'auto'")
    try:
        best = limited if limited is not None else _optimum(objective, chosen_method, constraints, budget)
    except Infeasible:
        raise Infeasible(
            f"no legal choice satisfies max_chosen={max_chosen}, must_include={sorted(include)}, "
            f"must_exclude={sorted(exclude)}"
        ) from None
    value_milli = best.value_milli
    if value_milli is None:
        value_milli = objective.score_matrix(best.chosen, best.recipients)
    choice = choice_of_matrix(board_, best.chosen, best.recipients)
    alternatives, complete = _top(objective, choice, value_milli, top_k, constraints, budget)
    status = best.status if complete else Status.FEASIBLE
    bound = value_milli
    if best.bound_milli is not None:
        bound = max(value_milli, int(np.floor(best.bound_milli + 1e-9)))
    return decision_of(
        objective, choice, value_milli, status, bound, best.method, alternatives, time.perf_counter() - start,
        best.chosen, best.recipients,
    )  # fmt: skip


#: ``object.__setattr__``: a frozen dataclass's own way to set its fields.
_set = object.__setattr__


def decision_of(
    objective: Objective,
    choice: Choice,
    value_milli: int,
    status: Status,
    bound_milli: int,
    method: Method,
    alternatives: tuple[Alternative, ...],
    elapsed: float,
    chosen: BoolArray,
    recipients: IntArray,
) -> Decision:
    """The :class:`~solver.decision.Decision` of ``choice`` (its matrices ``chosen`` / ``recipients``) on the
    objective's board: what :func:`solve` and :func:`solver.batch.solve_many` return.

    Filled field by field (``object.__setattr__``, as the generated frozen ``__init__`` does, without its
    argument handling: about a microsecond a board); Decision's ``__init__`` checks nothing.  Not through
    ``__dict__``, which would give each decision a dictionary of its own for the GC to walk (``solve_many``
    of 5,000 boards took twice as long that way).
    """
    decision = object.__new__(Decision)
    _set(decision, "board", objective.board)
    _set(decision, "policy", objective.policy)
    _set(decision, "choice", choice)
    _set(decision, "value", value_milli / MILLI)
    _set(decision, "status", status)
    _set(decision, "bound", bound_milli / MILLI)
    _set(decision, "method", method)
    _set(decision, "alternatives", alternatives)
    _set(decision, "elapsed", elapsed)
    _set(decision, "derive", Derived(objective, chosen, recipients))
    return decision


def best_alternative(choice: Choice, value_milli: int) -> Alternative:
    """The first of a decision's alternatives: its own choice, rank 1, no regret."""
    first = object.__new__(Alternative)
    _set(first, "rank", 1)
    _set(first, "choice", choice)
    _set(first, "value", value_milli / MILLI)
    _set(first, "regret", 0.0)
    return first


def top_k(
    board: BoardLike,
    k: int,
    policy: PolicyLike = None,
    *,
    time_limit: float | None = None,
    method: Method | str = Method.AUTO,
    max_chosen: int | None = None,
    must_include: Iterable[str] = (),
    must_exclude: Iterable[str] = (),
    cancel: CancelToken | None = None,
) -> tuple[Alternative, ...]:
    """The ``k`` best distinct choices, best first: :func:`solve` with ``top_k=k``, its ``alternatives``.

    Parameters, limits and errors are those of :func:`solve`; when the time limit or a
    cancellation stops the search, the alternatives found so far are returned.

    >>> [alt.regret for alt in top_k("solver/examples/classic.json", 3)]
    [0.0, 1.0, 1.0]
    """
    decision = solve(
        board,
        policy,
        top_k=k,
        time_limit=time_limit,
        method=method,
        max_chosen=max_chosen,
        must_include=must_include,
        must_exclude=must_exclude,
        cancel=cancel,
    )
    return decision.alternatives


def score(board: BoardLike, choice: ChoiceLike, policy: PolicyLike = None) -> Score:
    """The value of ``choice`` and its regret against the optimum.

    ``choice`` is a :class:`~solver.rules.Choice` or a list of ids (the same choice in every
    proliferate).  Raises IllegalChoice for a choice the rules do not allow.

    >>> score("solver/examples/classic.json", ["bob", "bears", "tamiyo", "liliana", "courser"])
    Score(value=3.0, best=4.0, regret=1.0)
    """
    board_ = as_board(board)
    objective = Objective(board_, as_policy(policy))
    chosen, recipients = choice_matrix(board_, as_choice(choice, board_))
    value = objective.score_matrix(chosen, recipients)
    best = objective.best().value
    return Score(value=value / MILLI, best=best / MILLI, regret=(best - value) / MILLI)


def explain_choice(board: BoardLike, choice: ChoiceLike, policy: PolicyLike = None) -> tuple[ExplanationRow, ...]:
    """Why each eligible object is worth choosing or not, given the rest of ``choice``.

    >>> rows = explain_choice("solver/examples/classic.json", ["bob"])
    >>> [(row.id, row.chosen) for row in rows][:2]
    [('bob', 1), ('bears', 0)]
    """
    board_ = as_board(board)
    return derive_choice(board_, as_policy(policy), as_choice(choice, board_)).explanation()


def worst_value(board: BoardLike, policy: PolicyLike = None) -> float:
    """The value of the worst legal choice (for normalised regret)."""
    return Objective(as_board(board), as_policy(policy)).best(sense=-1).value / MILLI


def eligible(board: BoardLike) -> tuple[str, ...]:
    """Ids that may be chosen (701.34a), in board order (players first): :func:`solver.rules.eligible`."""
    return rules.eligible(as_board(board))


def apply_proliferate(board: BoardLike, choice: ChoiceLike) -> Outcome:
    """Apply a legal choice (701.34), then the state-based actions: :func:`solver.rules.apply_proliferate`.

    Raises :class:`~solver.errors.IllegalChoice` for a choice 701.34 does not allow.
    """
    board_ = as_board(board)
    return rules.apply_proliferate(board_, as_choice(choice, board_))


def decision_from_json(data: Mapping[str, Any], board: BoardLike, policy: PolicyLike = None) -> Decision:
    """A decision from its JSON form (``to_json``, a protocol ``result``), for the board it answers.

    ``chosen`` or ``rounds``, ``value``, ``status``, ``bound`` and ``method`` are required;
    the parts left out (with the protocol's ``fields``) are derived again from the board,
    the policy and the choice, by the same rules.  Raises ValueError naming a missing or
    malformed key.

    >>> import solver
    >>> board = "solver/examples/classic.json"
    >>> data = solver.solve(board).to_json(["rounds", "value", "status", "bound", "method"])
    >>> decision_from_json(data, board).explanation[0].id
    'bob'
    """
    board_ = as_board(board)
    policy_ = as_policy(policy)
    if not isinstance(data, Mapping):
        raise ValueError(f"decision JSON must be an object (as to_json writes it), not {type(data).__name__}")
    try:
        choice = choice_from_json(data, board_.rounds)
        value = json_number(data, "value")
        derived = derive_choice(board_, policy_, choice)
        given = Given(derived, data)
        alternatives = tuple(Alternative.from_json(a) for a in data.get("alternatives") or ())
        return Decision(
            board=board_,
            policy=policy_,
            choice=choice,
            value=value,
            status=json_member(Status, data, "status"),
            bound=json_number(data, "bound"),
            method=json_member(Method, data, "method"),
            alternatives=alternatives or (Alternative(1, choice, value, 0.0),),
            elapsed=json_number(data, "elapsed_ms", 0.0) / 1000,
            derive=given,
        )
    except KeyError as exc:
        raise ValueError(f"decision JSON: missing {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"decision JSON: {exc}") from None


def derive_choice(board: Board, policy: Policy, choice: Choice) -> Derived:
    """The lazily computed parts of a decision for a given (legal) choice."""
    return Derived(Objective(board, policy), *choice_matrix(board, choice))


class Derived:
    """Outcome, explanation and game result of one choice, computed when first asked for."""

    def __init__(self, objective: Objective, chosen: BoolArray, recipients: IntArray) -> None:
        self._objective, self._chosen, self._recipients = objective, chosen, recipients

    @cached_property
    def _outcome(self) -> Outcome:
        return apply_matrix(self._objective.board, self._chosen, self._recipients)

    def outcome(self) -> Outcome:
        return self._outcome

    def explanation(self) -> tuple[ExplanationRow, ...]:
        return explain(self._objective, self._chosen, self._recipients)

    def game_result(self) -> GameResult:
        events = event_mask(self._objective.board, self._outcome.settled)
        return GameResult(self._objective.game_result(events))


def _method(method: Method | str) -> Method:
    if isinstance(method, Method):
        return method
    try:
        return Method(method)
    except ValueError:
        raise ValueError(f"unknown method {method!r} (expected auto, cpsat, fast or brute)") from None


def _optimum(objective: Objective, method: Method, constraints: Constraints, budget: Budget) -> _Optimum:
    """The optimal choice matrices by one path, with its status and (CP-SAT only) proven bound."""
    if method is Method.FAST:  # its value is the core's own, worked out with the choice: no second settle
        best = objective.best()
        return _Optimum(best.chosen, best.recipients, Status.OPTIMAL, None, method, best.value)
    if method is Method.BRUTE:
        chosen, recipients, _ = solve_brute(objective, constraints=constraints)
        return _Optimum(chosen, recipients, Status.OPTIMAL, None, method)
    fast_hint = _fast_assignment(objective)
    hint = None if fast_hint is None else _respecting(objective, fast_hint, constraints)
    try:
        cp = solve_cpsat(objective, constraints=constraints, hint=hint, budget=budget)
    except SearchStopped:
        if constraints.empty and fast_hint is not None:  # the fast path is exact: this is the optimum
            best = objective.best()  # already found for the hint
            return _Optimum(best.chosen, best.recipients, Status.OPTIMAL, None, Method.FAST, best.value)
        return _fallback(objective, constraints, fast_hint)
    matrices = objective.matrix_of(cp.single_times, cp.team_options, cp.layout)
    return _Optimum(*matrices, Status(cp.status), cp.bound, method)


def _limited(objective: Objective, constraints: Constraints) -> _Optimum | None:
    """The constrained optimum by :func:`solver.limited.solve_limited`, or None where CP-SAT must decide."""
    index = unit_index(objective)
    include = frozenset(index[r][1] for r in constraints.must_include)
    exclude = frozenset(index[r][1] for r in constraints.must_exclude)
    found = solve_limited(objective, constraints.max_chosen, include, exclude)
    if found is None:
        return None
    times, layout = found
    return _Optimum(*objective.matrix_of(times, (), layout), Status.OPTIMAL, None, Method.FAST)


def _fast_assignment(objective: Objective) -> Assignment | None:
    """The unconstrained optimum by the exact fast path, or None where it does not apply (many free seats)."""
    try:
        best = objective.best()
    except ValueError:
        return None
    times, options = objective.assignment_of(best.chosen, best.recipients)
    return Assignment(times, options)


def _respecting(objective: Objective, hint: Assignment, constraints: Constraints) -> Assignment:
    """A hint moved towards the constraints: forced single objects in, forbidden ones out."""
    times = hint.single_times.copy()
    index = unit_index(objective)
    for row in constraints.must_include:
        kind, u, _ = index[row]
        if kind is UnitKind.SINGLE:
            times[u] = max(int(times[u]), 1)
    for row in constraints.must_exclude:
        kind, u, _ = index[row]
        if kind is UnitKind.SINGLE:
            times[u] = 0
    return Assignment(times, hint.team_options)


def _fallback(objective: Objective, constraints: Constraints, fast_hint: Assignment | None) -> _Optimum:
    """A choice that meets the constraints, when CP-SAT was stopped before finding one.

    The forced objects alone, spread over the proliferates so no round exceeds the pick
    limit; for a 2HG team, its option with the fewest picks that holds its forced heads and
    none of its forbidden ones.  Its bound is the unconstrained optimum, which no
    constrained choice can beat.
    """
    board, units = objective.board, objective.units
    rounds = board.rounds
    index = unit_index(objective)
    capacity = np.full(rounds, constraints.max_chosen if constraints.max_chosen is not None else board.n_objects)
    included = {index[r] for r in constraints.must_include}
    excluded = {index[r] for r in constraints.must_exclude}
    team_options = []
    for t, team in enumerate(units.teams):
        fits = [
            (o.picks, j)
            for j, o in enumerate(team.options)
            if all(o.times[pos] > 0 for kind, u, pos in included if kind == "team" and u == t)
            and all(o.times[pos] == 0 for kind, u, pos in excluded if kind == "team" and u == t)
        ]
        if not fits:
            raise SearchStopped("no choice meeting the constraints was found within the time limit")
        j = min(fits)[1]
        team_options.append(j)
        for r, (heads, _) in enumerate(team.options[j].pattern):
            capacity[r] -= len(heads)
    layout = np.zeros((rounds, len(units.single_rows)), dtype=bool)
    r = 0
    for kind, u, _ in sorted(included):
        if kind != "single":
            continue
        while r < rounds and capacity[r] <= 0:
            r += 1
        if r == rounds:
            raise SearchStopped("no choice meeting the constraints was found within the time limit")
        layout[r, u] = True
        capacity[r] -= 1
    if (capacity < 0).any():
        raise SearchStopped("no choice meeting the constraints was found within the time limit")
    times = layout.sum(axis=0).astype(np.int64)
    bound = None
    if fast_hint is not None:
        chosen, recipients = objective.matrix_of(fast_hint.single_times, fast_hint.team_options)
        bound = float(objective.score_matrix(chosen, recipients))
    return _Optimum(*objective.matrix_of(times, tuple(team_options), layout), Status.FEASIBLE, bound, Method.CPSAT)


def _id_list(name: str, ids: Iterable[str]) -> tuple[str, ...]:
    if isinstance(ids, str):
        raise TypeError(f"{name} must be a list of object ids, not a string")
    return tuple(ids)


_NO_CONSTRAINTS = Constraints()


def _constraints(
    objective: Objective, max_chosen: int | None, include: tuple[str, ...], exclude: tuple[str, ...]
) -> Constraints:
    if max_chosen is None and not include and not exclude:
        return _NO_CONSTRAINTS  # the default call: nothing to check against the board
    board = objective.board
    ok = eligible_mask(board)
    rows: dict[str, tuple[int, ...]] = {}
    for name, ids in (("must_include", include), ("must_exclude", exclude)):
        found = []
        for obj_id in ids:
            row = board.index.get(obj_id)
            if row is None or not ok[row]:
                raise ValueError(f"{name}: {why_ineligible(board, obj_id)}")
            found.append(row)
        rows[name] = tuple(found)
    if max_chosen is not None:
        if isinstance(max_chosen, bool) or not isinstance(max_chosen, int | np.integer) or max_chosen < 0:
            raise ValueError(f"max_chosen must be an integer >= 0, not {max_chosen!r}")
        if max_chosen >= int(ok.sum()):
            max_chosen = None  # no round can choose more objects than there are: no limit at all
    return Constraints(max_chosen=max_chosen, must_include=rows["must_include"], must_exclude=rows["must_exclude"])


# ---------------------------------------------------------------------------- top-k
def _top(
    objective: Objective,
    best: Choice,
    best_value: int,
    k: int,
    constraints: Constraints,
    budget: Budget,
) -> tuple[tuple[Alternative, ...], bool]:
    """The k best distinct choices (distinct in how many rounds each object is chosen), and whether all are proven.

    Each further alternative is one CP-SAT run with the earlier ones forbidden; when the
    budget runs out, the alternatives found so far are returned.
    """
    first = best_alternative(best, best_value)
    if k == 1:
        return (first,), True
    out = [first]
    board = objective.board
    best_times, best_options = objective.assignment_of(*choice_matrix(board, best))
    if int(eligible_mask(board).sum()) * board.rounds <= 12 and constraints.empty:
        return _top_enumerated(objective, out, best_times, best_options, best_value, k), True
    forbid = [(tuple(int(t) for t in best_times), best_options)]
    complete = True
    for _ in range(k - 1):
        if budget.stopped:
            return tuple(out), False
        try:
            cp = solve_cpsat(
                objective,
                constraints=Constraints(
                    constraints.max_chosen, constraints.must_include, constraints.must_exclude, tuple(forbid)
                ),
                budget=budget,
            )
        except Infeasible:
            break  # no further distinct choice exists
        except SearchStopped:
            return tuple(out), False
        complete = complete and cp.status == Status.OPTIMAL
        chosen, recipients = objective.matrix_of(cp.single_times, cp.team_options, cp.layout)
        value = objective.score_matrix(chosen, recipients)
        choice = choice_of_matrix(board, chosen, recipients)
        out.append(Alternative(len(out) + 1, choice, value / MILLI, (best_value - value) / MILLI))
        forbid.append((tuple(int(t) for t in cp.single_times), cp.team_options))
    return tuple(out), complete


def _top_enumerated(
    objective: Objective,
    out: list[Alternative],
    best_times: IntArray,
    best_options: tuple[int, ...],
    best_value: int,
    k: int,
) -> tuple[Alternative, ...]:
    """Top-k on a tiny board: score every choice (at most 2**12), ranked like the solvers rank."""
    board = objective.board
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
        choice = choice_of_matrix(board, chosen, recipients)
        out.append(Alternative(len(out) + 1, choice, value / MILLI, (best_value - value) / MILLI))
    return tuple(out)
