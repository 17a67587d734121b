"""The pick-limit programme (solver/limited.py): exact where no object couples seats, else it defers to CP-SAT."""

from __future__ import annotations

from typing import Any

import solver
from solver.limited import solve_limited
from solver.objective import Objective


def creatures(n: int, proliferates: int = 1, bob_poison: int = 0) -> solver.Board:
    """Creatures with +1/+1 counters (701.34a: each may get one more), none of which can make a seat lose."""
    board: dict[str, Any] = {
        "format": 1,
        "variant": "duel",
        "proliferator": "alice",
        "proliferates": proliferates,
        "players": [{"id": "alice"}, {"id": "bob", "counters": {"poison": bob_poison}}],
        "permanents": [
            {"id": f"c{i}", "controller": "alice", "types": ["creature"], "power": 1, "toughness": 1,
             "counters": {"+1/+1": 1}}
            for i in range(n)
        ],
    }  # fmt: skip
    return solver.load_board(board)


def test_a_pick_limit_per_proliferate_is_exact_and_holds_in_every_round() -> None:
    """701.34: each proliferate chooses its own objects; max_chosen bounds each of them."""
    board = creatures(5, proliferates=2)
    for limit in range(0, 6):
        auto = solver.solve(board, max_chosen=limit)
        brute = solver.solve(board, max_chosen=limit, method="brute")
        assert auto.method.value == "fast"
        assert auto.value == brute.value
        assert all(len(r.chosen) <= limit for r in auto.rounds)


def test_forced_and_forbidden_objects_are_respected() -> None:
    board = creatures(4)
    auto = solver.solve(board, max_chosen=2, must_include=["c3"], must_exclude=["c0"])
    brute = solver.solve(board, max_chosen=2, must_include=["c3"], must_exclude=["c0"], method="brute")
    assert (auto.value, auto.chosen) == (brute.value, brute.chosen) == (2.0, ("c1", "c3"))


def test_a_seat_that_can_lose_leaves_the_decision_to_cp_sat() -> None:
    """Bob at 9 poison loses to one more (704.5c): choosing him couples the game result, which the programme skips."""
    objective = Objective(creatures(3, bob_poison=9))
    assert solve_limited(objective, 1, frozenset(), frozenset()) is None
    assert solve_limited(Objective(creatures(3)), 1, frozenset(), frozenset()) is not None
