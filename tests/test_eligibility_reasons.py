"""Why an id cannot be chosen, said once (solver.rules.why_ineligible) and repeated by every entry point."""

from __future__ import annotations

import pytest

import solver
from solver.errors import IllegalChoice
from solver.rules import why_ineligible

BOARD = solver.load_board(
    {
        "format": 1,
        "variant": "duel",
        "proliferator": "alice",
        "players": [{"id": "alice"}, {"id": "bob", "counters": {"poison": 3}}],
        "permanents": [
            {"id": "ghost", "controller": "bob", "types": ["artifact"], "counters": {"charge": 1}, "phased_out": True},
            {"id": "bare", "controller": "alice", "types": ["artifact"]},
        ],
    }
)


def test_each_reason_names_the_id_and_the_rule() -> None:
    assert why_ineligible(BOARD, "bob") is None
    assert why_ineligible(BOARD, "alice") == "'alice' has no counters (701.34a)"
    assert why_ineligible(BOARD, "bare") == "'bare' has no counters (701.34a)"
    assert why_ineligible(BOARD, "ghost") == "'ghost' is phased out and treated as nonexistent (702.26b)"
    assert why_ineligible(BOARD, "zed") == "'zed' is not a player or permanent on this board"
    assert {i for i in BOARD.ids if why_ineligible(BOARD, i) is None} == set(solver.eligible(BOARD))


def test_score_and_solve_constraints_give_the_same_reason() -> None:
    with pytest.raises(IllegalChoice, match=r"round 1: 'alice' has no counters \(701\.34a\)"):
        solver.score(BOARD, ["alice"])
    with pytest.raises(ValueError, match=r"must_include: 'alice' has no counters \(701\.34a\)"):
        solver.solve(BOARD, must_include=["alice"])
    with pytest.raises(ValueError, match=r"must_exclude: 'ghost' is phased out"):
        solver.solve(BOARD, must_exclude=["ghost"])
