"""Time limits bound the whole call and cancellation stops it; either way the answer is the best found so far."""

from __future__ import annotations

import math
import threading
import time

import pytest
from contract_helpers import MARGIN, big_board
from timing_helpers import retried_on_overrun, within

import solver
from solver.budget import Budget
from solver.cpsat import Constraints, SearchStopped, solve_cpsat
from solver.objective import Assignment, Objective

CLASSIC = "solver/examples/classic.json"


@pytest.fixture(scope="module", autouse=True)
def _ortools_loaded() -> None:
    """Import OR-Tools once up front, so the first timed test measures the solve, not the import."""
    import ortools.sat.python.cp_model  # noqa: F401


@retried_on_overrun
def test_top_k_with_a_time_limit_answers_in_time_with_the_best_so_far() -> None:
    board = big_board()
    best = solver.solve(board)
    started = time.perf_counter()
    decision = solver.solve(board, top_k=5, time_limit=0.5)
    elapsed = time.perf_counter() - started
    within(elapsed, 0.5 + MARGIN)
    assert decision.value == best.value and decision.chosen == best.chosen  # the fast path's optimum is never lost
    assert 1 <= len(decision.alternatives) <= 5
    assert decision.status == (solver.Status.OPTIMAL if len(decision.alternatives) == 5 else solver.Status.FEASIBLE)
    values = [alt.value for alt in decision.alternatives]
    assert values == sorted(values, reverse=True)


@retried_on_overrun
def test_constrained_solve_with_a_tiny_limit_answers_a_choice_that_meets_the_constraints() -> None:
    board = big_board()
    eligible = solver.eligible(board)
    include, exclude = eligible[3:6], eligible[:2]
    started = time.perf_counter()
    decision = solver.solve(
        board, time_limit=0.01, max_chosen=2, must_include=include, must_exclude=exclude, method="cpsat"
    )
    within(time.perf_counter() - started, 0.01 + MARGIN)
    assert decision.status == solver.Status.FEASIBLE
    assert all(len(rnd.chosen) <= 2 for rnd in decision.rounds)
    chosen = {obj for rnd in decision.rounds for obj in rnd.chosen}
    assert set(include) <= chosen and not set(exclude) & chosen
    assert decision.bound >= decision.value
    assert solver.score(board, decision.choice).value == decision.value


def test_forcing_cpsat_with_a_tiny_limit_still_answers_the_optimum() -> None:
    """Issue 10.5: ``--method cpsat --time-limit 0.001`` used to be an internal error."""
    decision = solver.solve(CLASSIC, method="cpsat", time_limit=0.001)
    assert decision.value == 4.0 and decision.status == solver.Status.OPTIMAL


@retried_on_overrun
def test_cancel_set_before_the_call_returns_the_exact_answer_at_once() -> None:
    board = big_board()
    cancel = threading.Event()
    cancel.set()
    started = time.perf_counter()
    decision = solver.solve(board, top_k=5, cancel=cancel)
    within(time.perf_counter() - started, MARGIN)
    assert decision.value == solver.solve(board).value
    assert decision.status == solver.Status.FEASIBLE and len(decision.alternatives) == 1


@retried_on_overrun
def test_cancel_from_another_thread_stops_a_long_search() -> None:
    """A pick limit on 2,000 objects takes CP-SAT seconds; setting the token ends it within the poll interval."""
    board = big_board()
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    started = time.perf_counter()
    timer.start()
    decision = solver.solve(board, max_chosen=5, cancel=cancel)
    elapsed = time.perf_counter() - started
    timer.join()
    within(elapsed, 0.3 + MARGIN)
    assert all(len(rnd.chosen) <= 5 for rnd in decision.rounds)
    assert decision.status in (solver.Status.FEASIBLE, solver.Status.OPTIMAL)


def test_cpsat_without_any_solution_in_time_says_so() -> None:
    objective = Objective(big_board())
    with pytest.raises(SearchStopped):
        solve_cpsat(objective, constraints=Constraints(max_chosen=5), budget=Budget(deadline=time.perf_counter()))


def test_cpsat_honours_its_hint() -> None:
    """The fast path's optimum as a hint is where CP-SAT starts; the proven answer is the same."""
    objective = Objective(solver.load_board(CLASSIC))
    best = objective.best()
    times, options = objective.assignment_of(best.chosen, best.recipients)
    cp = solve_cpsat(objective, hint=Assignment(times, options))
    assert cp.status == "OPTIMAL" and list(cp.single_times) == list(times)


@pytest.mark.parametrize("limit", [0, -1, math.nan, True, "1"])
def test_bad_time_limits_are_value_errors(limit: object) -> None:
    with pytest.raises(ValueError, match="time_limit"):
        solver.solve(CLASSIC, time_limit=limit)  # type: ignore[arg-type]


def test_a_cancel_without_is_set_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="is_set"):
        solver.solve(CLASSIC, cancel=True)  # type: ignore[arg-type]


def test_huge_max_chosen_means_no_limit() -> None:
    """Issue 10.5: ``--max-chosen 99999999999999999999`` used to overflow inside OR-Tools."""
    decision = solver.solve(CLASSIC, max_chosen=10**20)
    assert decision.value == 4.0 and decision.method == solver.Method.FAST


class _SetAfter:
    """A cancel token that turns set after it has been asked ``n`` times (a cancel at an exact stage)."""

    def __init__(self, n: int) -> None:
        self.asked = 0
        self.n = n

    def is_set(self) -> bool:
        self.asked += 1
        return self.asked > self.n


def test_a_search_cancelled_between_building_and_solving_stops_cleanly() -> None:
    objective = Objective(solver.load_board(CLASSIC))
    with pytest.raises(SearchStopped):
        solve_cpsat(objective, constraints=Constraints(max_chosen=1), cancel=_SetAfter(1))
    # CP-SAT forced: ``auto`` decides this board's pick limit exactly without it (solver/limited.py).
    decision = solver.solve(CLASSIC, max_chosen=1, method="cpsat", cancel=_SetAfter(1))
    assert decision.status == solver.Status.FEASIBLE and decision.value <= 4.0
