"""The CP-SAT model: the general engine, for extra constraints, top-k and as the reference.

The model is small because everything separable is precomputed by the objective's unit
tables (:class:`solver.objective.Units`); it keeps only what couples:

* ``x_u_r``: single unit ``u`` chosen in round ``r`` (one boolean per eligible object and
  round).  Its value depends only on how many rounds it is chosen in, so rounds are
  ordered (``x[u][r] >= x[u][r+1]``) and the objective is linear in the differences;
* one-hot option booleans per 2HG team (per-round heads and poison recipient), with
  ``recipient[t][r][h]`` booleans derived from them;
* ``lost_s``: seat ``s`` loses, tied both ways to the options that make it lose
  (threshold indicators, poison);
* one-hot game-pattern booleans over the seats that can still change, each worth its game
  score.

Each piece is built by its own small function, in the style of OR-Tools' ``line_balancing_sat``
sample: typed and named variables, and a solution hint from an answer found by other means
(the exact fast path's optimum, or a feasible choice), which CP-SAT tries first.  The search
honours a :class:`solver.budget.Budget`: its time limit, and a cancel token that stops it from
another thread.  ``ortools`` is loaded lazily, on a helper thread (:func:`preload`): it costs
about 0.3-0.6 s and most calls never need it; a call with a time limit waits for it only as
long as its limit allows.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from . import interrupts, threads
from .board import BoolArray, IntArray
from .budget import POLL_SECONDS, Budget, CancelToken, watch
from .errors import Infeasible
from .objective import Assignment, Objective, UnitKind, Units

if TYPE_CHECKING:
    from ortools.sat.python.cp_model import CpModel, CpSolver, CpSolverStatus, IntVar, LinearExpr, LiteralT

__all__ = ["Constraints", "CpSolution", "SearchStopped", "preload", "solve_cpsat", "unit_index"]

#: A unit assignment: rounds per single unit, option index per 2HG team unit.


class SearchStopped(RuntimeError):
    """CP-SAT stopped (time limit or cancellation) before it found any solution."""


@dataclass(frozen=True)
class Constraints:
    """Extra requirements only CP-SAT handles: pick limits, forced and forbidden objects, no-goods."""

    max_chosen: int | None = None
    must_include: tuple[int, ...] = ()
    must_exclude: tuple[int, ...] = ()
    forbid: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = field(default=())

    @property
    def empty(self) -> bool:
        return self.max_chosen is None and not self.must_include and not self.must_exclude and not self.forbid


@dataclass(frozen=True)
class CpSolution(Assignment):
    """The solution per unit; ``layout`` is the rounds x single-units placement when rounds differ."""

    status: str
    bound: float
    layout: BoolArray | None = None


@dataclass(frozen=True)
class _Found:
    """One solution read off the solver, kept apart so a later, interrupted phase cannot lose it."""

    times: IntArray
    team_options: tuple[int, ...]
    layout: BoolArray | None
    value: int
    picks: int


class _Model:
    """One CP-SAT model over an objective's units."""

    def __init__(self, objective: Objective, sense: int) -> None:
        from ortools.sat.python import cp_model

        self.cp = cp_model
        self.model = cp_model.CpModel()
        self.objective = objective
        self.units: Units = objective.units
        self.rounds = objective.board.rounds
        self.sense = sense
        self.terms: list[tuple[IntVar, int]] = []  # material
        self.game_terms: list[tuple[IntVar, int]] = []
        self.over: list[IntVar] = []  # the game patterns that end the game for the proliferator
        self.ended: IntVar | None = None
        self.value: LinearExpr | int = 0
        self.constant = 0
        self.picks: list[tuple[IntVar, int]] = []
        self.round_picks: list[list[tuple[IntVar, int]]] = [[] for _ in range(self.rounds)]
        self.loses: dict[int, list[IntVar]] = {}
        self.x: list[list[IntVar]] = []
        self.fixed: IntArray = np.zeros(0, dtype=np.int64)
        self.counted: dict[int, list[IntVar]] = {}
        self.options: list[list[IntVar]] = []

    # -------------------------------------------------------------- pieces
    def add_singles(self, closed_form: BoolArray, ordered: bool, budget: Budget) -> None:
        """Round booleans for single units; those in ``closed_form`` are decided alone, outside the model.

        A unit whose options never change which seats lose, and that no constraint mentions,
        is worth its best option whatever else is chosen: it enters the model as a constant.
        A unit's value depends only on how many rounds it is chosen in, so when no per-round
        constraint tells rounds apart (``ordered``) its rounds are filled from the first and
        the value is linear in the round booleans; otherwise one-hot count booleans carry it.
        """
        mat = self.units.single_material
        best = np.argmax(self.sense * mat, axis=1) if mat.size else np.zeros(0, dtype=np.int64)
        self.fixed = np.where(closed_form, best, -1)
        for u in range(len(self.units.single_rows)):
            if u % _BUILD_CHECK == 0 and budget.stopped:  # building is the one long Python step
                raise SearchStopped("stopped while the CP-SAT model was being built")
            if closed_form[u]:
                self.constant += int(mat[u, best[u]])
                self.x.append([])
                continue
            xs = [self.model.new_bool_var(f"x_{u}_{r}") for r in range(self.rounds)]
            self.x.append(xs)
            for r, var in enumerate(xs):
                self.picks.append((var, 1))
                self.round_picks[r].append((var, 1))
            if ordered:
                self._add_ordered(u, xs)
            else:
                self._add_counted(u, xs)

    def _add_ordered(self, u: int, xs: list[IntVar]) -> None:
        mat, ev = self.units.single_material, self.units.single_events
        for a, b in itertools.pairwise(xs):
            self.model.add_implication(b, a)
        self.constant += int(mat[u, 0])
        for r, var in enumerate(xs):
            self.terms.append((var, int(mat[u, r + 1] - mat[u, r])))
        if (ev[u] != ev[u, 0]).any():
            for c in range(self.rounds + 1):
                self._add_events(int(ev[u, c]), self._exactly(u, xs, c))

    def _add_counted(self, u: int, xs: list[IntVar]) -> None:
        mat, ev = self.units.single_material, self.units.single_events
        count = [self.model.new_bool_var(f"n_{u}_{c}") for c in range(self.rounds + 1)]
        self.counted[u] = count
        self.model.add_exactly_one(count)
        self.model.add(sum(c * v for c, v in enumerate(count)) == sum(xs))
        for c, var in enumerate(count):
            self.terms.append((var, int(mat[u, c])))
            self._add_events(int(ev[u, c]), var)

    def _exactly(self, u: int, xs: Sequence[IntVar], c: int) -> IntVar:
        """A boolean that is true exactly when unit ``u``'s ordered round booleans say ``c`` rounds."""
        var = self.model.new_bool_var(f"exactly_{u}_{c}")
        parts: list[LiteralT] = []
        if c > 0:
            parts.append(xs[c - 1])
        if c < len(xs):
            parts.append(~xs[c])
        if not parts:
            self.model.add(var == 1)
        else:
            self.model.add_bool_and(parts).only_enforce_if(var)
            self.model.add_bool_or([*(~p for p in parts), var])
        return var

    def add_teams(self) -> None:
        for t, team in enumerate(self.units.teams):
            opts = [self.model.new_bool_var(f"team_{t}_opt_{o}") for o in range(len(team.options))]
            self.model.add_exactly_one(opts)
            self.options.append(opts)
            for var, option in zip(opts, team.options, strict=True):
                self.terms.append((var, option.material))
                self.picks.append((var, option.picks))
                for r, (heads, _) in enumerate(option.pattern):
                    if heads:
                        self.round_picks[r].append((var, len(heads)))
                self._add_events(option.events, var)
            for r in range(self.rounds):
                for head in team.heads:
                    takers = [v for v, o in zip(opts, team.options, strict=True) if o.pattern[r][1] == head]
                    if takers:
                        recipient = self.model.new_bool_var(f"recipient_{t}_{r}_{head}")
                        self.model.add(recipient == sum(takers))

    def _add_events(self, events: int, indicator: IntVar) -> None:
        free = events & ~self.units.base_events
        for seat in range(free.bit_length()):
            if (free >> seat) & 1:
                self.loses.setdefault(seat, []).append(indicator)

    def add_game(self) -> None:
        """Tie each seat's loss to its causes, then score the pattern of losses one-hot."""
        seats = sorted(self.loses)
        lost = {}
        for seat in seats:
            var = self.model.new_bool_var(f"lost_{seat}")
            for cause in self.loses[seat]:
                self.model.add_implication(cause, var)
            self.model.add_bool_or(self.loses[seat]).only_enforce_if(var)
            lost[seat] = var
        patterns = []
        for bits in itertools.product((0, 1), repeat=len(seats)):
            mask = self.units.base_events
            for seat, bit in zip(seats, bits, strict=True):
                mask |= bit << seat
            var = self.model.new_bool_var(f"pattern_{mask}")
            patterns.append((var, bits))
            self.game_terms.append((var, self.objective.game_milli(mask)))
            if self.objective.game_over(mask):
                self.over.append(var)
        self.model.add_exactly_one([v for v, _ in patterns])
        for i, seat in enumerate(seats):
            self.model.add(lost[seat] == sum(v for v, bits in patterns if bits[i]))

    def add_constraints(self, constraints: Constraints, index: dict[int, tuple[UnitKind, int, int]]) -> None:
        if constraints.max_chosen is not None:
            for picks in self.round_picks:
                self.model.add(sum(c * v for v, c in picks) <= constraints.max_chosen)
        for row, forced in [(r, True) for r in constraints.must_include] + [
            (r, False) for r in constraints.must_exclude
        ]:
            kind, u, pos = index[row]
            if kind is UnitKind.SINGLE and forced:
                self.model.add_bool_or(self.x[u])
            elif kind is UnitKind.SINGLE:
                for var in self.x[u]:
                    self.model.add(var == 0)
            else:
                options = self.units.teams[u].options
                holding = [v for v, o in zip(self.options[u], options, strict=True) if o.times[pos] > 0]
                self.model.add(sum(holding) == int(forced))
        for times, team_opts in constraints.forbid:
            literals: list[LiteralT] = []
            for u, t in enumerate(times):
                if u in self.counted:
                    literals.append(~self.counted[u][t])
                else:
                    literals += [self.x[u][r] if r >= t else ~self.x[u][r] for r in range(self.rounds)]
            literals += [~self.options[u][o] for u, o in enumerate(team_opts)]
            self.model.add_bool_or(literals)

    def add_hint(self, hint: Assignment) -> None:
        """Suggest an assignment (the fast path's optimum, or a known feasible choice) for CP-SAT to try first."""
        times, team_options = hint.single_times, hint.team_options
        for u, xs in enumerate(self.x):
            t = int(times[u])
            for r, var in enumerate(xs):
                self.model.add_hint(var, r < t)
            for c, var in enumerate(self.counted.get(u, ())):
                self.model.add_hint(var, c == t)
        for opts, chosen in zip(self.options, team_options, strict=True):
            for o, var in enumerate(opts):
                self.model.add_hint(var, o == chosen)

    # -------------------------------------------------------------- solving
    def solve(self, budget: Budget, no_goods: bool) -> CpSolution:
        """Maximise value, then fewest picks, then the input-order tie-break, within the budget.

        Each phase gets the time still left; a phase cut short keeps the solution of the
        phase before it, so whatever was found is never lost.
        """
        weighted = self.cp.LinearExpr.weighted_sum
        value, max_value = self._value()
        picks = weighted([v for v, _ in self.picks], [c for _, c in self.picks])
        max_picks = sum(c for _, c in self.picks) + 1
        solver = self._solver(no_goods)
        one_solve = max_value * max_picks < 2**53
        if one_solve:  # value first, fewest picks as the tie-break
            self.model.maximize(self.sense * value * max_picks - picks)
        else:  # two solves: value first, then fewest picks at that value
            self.model.maximize(self.sense * value)
        status, found = self._run(solver, budget)
        if status == self.cp.INFEASIBLE:
            raise Infeasible("no legal choice satisfies the constraints")
        if found is None:  # stopped first (the solver may not even have started: read nothing from it)
            raise SearchStopped("CP-SAT was stopped before it found a solution")
        if one_solve:
            bound = (solver.best_objective_bound + max_picks - 1) / max_picks
        else:
            bound = solver.best_objective_bound
            if not budget.stopped:
                self.model.add(self.sense * value >= self.sense * found.value)
                self.model.minimize(picks)
                self._hint_found(found)
                _, better = self._run(solver, budget)
                found = better or found
        if status == self.cp.OPTIMAL and len(self.tie_bits) > 1 and not budget.stopped:
            found = self._break_ties(solver, budget, found, value, picks)
        # The proven bound, as a value relative to choosing nothing, in milli-points.
        relative = self.sense * bound + self.constant + self.units.base_material - self.objective.baseline
        name = "OPTIMAL" if status == self.cp.OPTIMAL else "FEASIBLE"
        return CpSolution(found.times, found.team_options, name, relative, found.layout)

    def _value(self) -> tuple[LinearExpr, int]:
        """The value to maximise (material plus game score), and a bound on its magnitude.

        A game pattern that ends the game for the proliferator (:meth:`Objective.game_over`)
        voids the material: it is worth its game score on top of the material of choosing
        nothing, so ``material`` is an integer variable tied to the material terms when the
        game goes on and to choosing nothing when it ends.
        """
        weighted = self.cp.LinearExpr.weighted_sum
        material = weighted([v for v, _ in self.terms], [c for _, c in self.terms])
        game = weighted([v for v, _ in self.game_terms], [c for _, c in self.game_terms])
        span = sum(abs(c) for _, c in self.terms)
        max_value = span + sum(abs(c) for _, c in self.game_terms) + abs(self.constant)
        if self.over:
            # Choosing nothing, in the model's terms (the constant and the fixed material apart).
            idle = self.objective.nothing_material - self.constant - self.units.base_material
            bound = span + abs(idle)
            held = self.model.new_int_var(-bound, bound, "material")
            ended = self.model.new_bool_var("game_over")
            self.model.add(ended == sum(self.over))
            self.model.add(held == material).only_enforce_if(~ended)
            self.model.add(held == idle).only_enforce_if(ended)
            self.ended = ended
            self.value = held + game
            return self.value, max_value + abs(idle)
        self.value = material + game
        return self.value, max_value

    def _run(self, solver: CpSolver, budget: Budget) -> tuple[CpSolverStatus, _Found | None]:
        remaining = budget.remaining()
        if budget.stopped:
            return self.cp.UNKNOWN, None
        if remaining is not None:
            solver.parameters.max_time_in_seconds = remaining
        with watch(budget, solver.stop_search):
            status = _interruptible(solver, self.model)
        found = self._read(solver) if status in (self.cp.OPTIMAL, self.cp.FEASIBLE) else None
        return status, found

    def _read(self, solver: CpSolver) -> _Found:
        solved = np.array([sum(int(solver.boolean_value(v)) for v in xs) for xs in self.x], dtype=np.int64)
        # Units decided alone change no seat's loss: when the game ends they are worth nothing, so choose none.
        ended = self.ended is not None and solver.boolean_value(self.ended)
        times = np.where(self.fixed >= 0, 0 if ended else self.fixed, solved)
        team_opts = tuple(next(i for i, v in enumerate(o) if solver.boolean_value(v)) for o in self.options)
        layout = None
        if self.counted:  # rounds are told apart (a per-round pick limit): keep the placement found
            layout = np.zeros((self.rounds, len(times)), dtype=bool)
            layout[:] = np.arange(self.rounds)[:, None] < times[None, :]
            for u in self.counted:
                layout[:, u] = [solver.boolean_value(v) for v in self.x[u]]
        value = round(solver.value(self.value))
        picks = round(sum(c * solver.value(v) for v, c in self.picks))
        return _Found(times, team_opts, layout, value, picks)

    def _hint_found(self, found: _Found) -> None:
        self.model.clear_hints()  # type: ignore[no-untyped-call]
        self.add_hint(Assignment(found.times, found.team_options))

    @property
    def tie_bits(self) -> list[IntVar]:
        """The model's decision booleans in the order of :meth:`Objective.tie_bits`."""
        bits: list[IntVar] = []
        for kind, u in self.objective.unit_order:
            bits += self.x[u] if kind is UnitKind.SINGLE else self.options[u]
        return bits

    def _break_ties(
        self, solver: CpSolver, budget: Budget, found: _Found, value: LinearExpr, picks: LinearExpr
    ) -> _Found:
        """Among optimal solutions, prefer earlier objects (the input-order tie-break).

        Fix value and picks at the optimum, then maximise the tie bits lexicographically with
        powers of two.  Exact for up to 62 bits, which covers every model whose ties matter in
        practice; beyond that only the first 62 bits (the earliest units) are ordered.  Cut
        short by the budget, it keeps the best tie-break found (every candidate is optimal).
        """
        self.model.add(value == found.value)
        self.model.add(picks == found.picks)
        bits = self.tie_bits[:62]
        self.model.maximize(sum((1 << (len(bits) - 1 - i)) * b for i, b in enumerate(bits)))
        self._hint_found(found)
        _, better = self._run(solver, budget)
        return better or found

    def _solver(self, no_goods: bool) -> CpSolver:
        solver = self.cp.CpSolver()
        params = solver.parameters
        params.num_workers = 1
        params.random_seed = 0
        # CP-SAT's own SIGINT handler replaces Python's while a search runs: Ctrl-C would stop
        # only that search (a top-k run goes on to the next one), and with searches on several
        # threads the handlers' save and restore race (a lost Ctrl-C, or a call into a solver
        # already gone: std::bad_function_call).  Python's handler keeps the signal;
        # :func:`_interruptible` turns it into a stopped search.
        params.catch_sigint_signal = False
        params.linearization_level = 2
        params.cp_model_probing_level = 0
        params.symmetry_level = 0
        # With no-goods (top-k), presolve's dominance rules add hundreds of thousands of
        # implications on large boards and take seconds; keeping every solution skips them.
        params.keep_all_feasible_solutions_in_presolve = no_goods
        return solver


_CP_MODEL = "ortools.sat.python.cp_model"
#: How long an interrupted caller waits for the stopped search to return (it takes milliseconds).
_STOP_WAIT = 10.0
#: Units between two looks at the budget while the model is built (a few milliseconds of work).
_BUILD_CHECK = 256


def _interruptible(solver: CpSolver, model: CpModel) -> CpSolverStatus:
    """``solver.solve(model)``, which Ctrl-C (or SIGTERM's handler) stops when it runs on the main thread.

    Python runs signal handlers on the main thread only, between bytecodes, so a search in
    native code there would hold KeyboardInterrupt until it ends.  On the main thread the
    search runs on a helper thread while the main thread waits, interruptibly; an exception
    raised by a handler stops the search, waits for it to return, and propagates.
    """
    if threading.current_thread() is not threading.main_thread():
        return solver.solve(model)
    result: list[CpSolverStatus] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            result.append(solver.solve(model))
        except BaseException as exc:
            failure.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=run, name="proliferate-cpsat", daemon=True)
    try:
        threads.start(thread)
    except RuntimeError:  # no thread to spare: search here, uninterruptibly
        return solver.solve(model)
    except BaseException:  # interrupted while starting it: the search may be running already
        solver.stop_search()
        done.wait(_STOP_WAIT)
        raise
    try:
        # An Event, not Thread.join: a join interrupted by a signal can leave the thread
        # looking finished while it still runs, and the interpreter must not exit under it.
        while not done.wait(0.05):
            interrupts.check()  # a stop signal a finaliser dropped
    except BaseException:
        solver.stop_search()
        done.wait(_STOP_WAIT)
        raise
    if failure:
        raise failure[0]
    return result[0]


@cache
def _loading() -> Future[None]:
    """Import OR-Tools and run one tiny search, once, on a helper thread (a caller with a budget can stop waiting).

    The first search pays for CP-SAT's own start-up; doing it here keeps that cost out of
    the first real solve, whose time limit could not interrupt it.
    """
    done: Future[None] = Future()

    def load() -> None:
        try:
            cp_model = importlib.import_module(_CP_MODEL)
            model = cp_model.CpModel()
            model.maximize(model.new_bool_var("warm"))
            warm = cp_model.CpSolver()
            warm.parameters.num_workers = 1
            warm.parameters.catch_sigint_signal = False
            warm.solve(model)
            done.set_result(None)
        except BaseException as exc:
            done.set_exception(exc)

    threads.start(threading.Thread(target=load, name="proliferate-import-ortools", daemon=True))
    return done


def preload(timeout: float | None = None) -> bool:
    """Start loading OR-Tools in the background (see :func:`_loading`); with ``timeout``, wait that long for it.

    True once it is loaded.  ``proliferate serve`` waits for it before it reads requests, so
    no request pays the load; :func:`solver.solve` starts it as soon as it knows CP-SAT will
    be needed, so the load overlaps reading the board.
    """
    loading = _loading()
    if timeout is not None and not loading.done():
        with contextlib.suppress(TimeoutError):
            loading.result(timeout=timeout)
    return loading.done() and loading.exception() is None


def _ortools_ready(budget: Budget) -> bool:
    """Whether OR-Tools is loaded, waiting for it (about 0.3-0.6 s, once) at most as long as the budget allows.

    A budget that runs out leaves the load going on in the background, for the next call.
    The module being in ``sys.modules`` is not enough: it is there from the start of its
    import, and a call that went ahead would wait for the rest of the import, past its limit.
    """
    loading = _loading()
    while not loading.done():
        if budget.stopped:
            return False
        remaining = budget.remaining()
        try:
            loading.result(timeout=POLL_SECONDS if remaining is None else min(POLL_SECONDS, remaining))
        except TimeoutError:
            continue
    loading.result()
    return True


def unit_index(objective: Objective) -> dict[int, tuple[UnitKind, int, int]]:
    """Board row -> (unit kind, unit number, position within the unit)."""
    units = objective.units
    index = {int(r): (UnitKind.SINGLE, u, 0) for u, r in enumerate(units.single_rows)}
    for t, team in enumerate(units.teams):
        for pos, head in enumerate(team.heads):
            index[head] = (UnitKind.TEAM, t, pos)
    return index


def solve_cpsat(
    objective: Objective,
    *,
    sense: int = 1,
    time_limit: float | None = None,
    constraints: Constraints | None = None,
    hint: Assignment | None = None,
    cancel: CancelToken | None = None,
    budget: Budget | None = None,
) -> CpSolution:
    """Solve the objective's model with CP-SAT (one worker, fixed seed: reproducible).

    The search stops at ``time_limit`` seconds, when ``cancel`` is set, or when ``budget``
    (which carries both, for callers that share one budget between several stages) runs
    out; the best solution found by then is returned with status ``FEASIBLE``.  Raises
    :class:`~solver.errors.Infeasible` when the constraints allow no choice and
    :class:`SearchStopped` when stopped before any solution was found.  ``hint`` is tried
    first (any assignment; CP-SAT repairs one that breaks a constraint).
    """
    constraints = constraints or Constraints()
    if budget is None:
        budget = Budget.start(time_limit, cancel)
    if not _ortools_ready(budget):
        raise SearchStopped("stopped while OR-Tools was still loading")
    model = _Model(objective, sense)
    ev = objective.units.single_events
    closed_form = ~(ev != ev[:, :1]).any(axis=1) if ev.size else np.zeros(0, dtype=bool)
    if constraints.max_chosen is not None or constraints.forbid:
        closed_form[:] = False  # a pick limit or a no-good couples every unit
    index = unit_index(objective)
    for row in (*constraints.must_include, *constraints.must_exclude):
        kind, u, _ = index[row]
        if kind is UnitKind.SINGLE:
            closed_form[u] = False
    model.add_singles(closed_form, ordered=constraints.max_chosen is None, budget=budget)
    model.add_teams()
    model.add_game()
    model.add_constraints(constraints, index)
    if hint is not None:
        model.add_hint(hint)
    return model.solve(budget, no_goods=bool(constraints.forbid))
