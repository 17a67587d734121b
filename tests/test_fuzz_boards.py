"""Fuzzing the board loader: every mutated board is a BoardError with paths, or a board the solver decides.

The budget is the Hypothesis profile's: the test command's default (100 examples per test),
``ci`` in CI, and ``release`` (``pytest tests/test_fuzz_boards.py --hypothesis-profile=release``,
see docs/limits.md) for the long run before a release.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from fuzz_strategies import mutated_boards, mutated_texts
from hypothesis import HealthCheck, given, settings

from solver import Board, BoardError, load_board, solve
from solver.boardjson import dump_board

_TOP = ("format", "variant", "proliferator", "proliferates", "players", "permanents", "effects")
_FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], deadline=None)


def _check_error(error: BoardError) -> None:
    """A usable error: at least one problem, each at a path inside the document, all printable as UTF-8."""
    assert error.problems
    for problem in error.problems:
        assert problem.message
        root = re.split(r"[.\[]", problem.path, maxsplit=1)[0]
        assert root in ("", *_TOP) or problem.message.startswith("unknown field"), problem
    str(error).encode("utf-8")
    json.dumps([[p.path, p.message] for p in error.problems], ensure_ascii=False).encode("utf-8")


def _check_board(board: Board) -> None:
    """A correct load: it round-trips, it can be written out, and the solver decides it."""
    dumped = dump_board(board)
    json.dumps(dumped, ensure_ascii=False, allow_nan=False).encode("utf-8")
    assert load_board(dumped) == board
    decision = solve(board)
    assert math.isfinite(decision.value)
    assert decision.value >= 0  # choosing nothing is always allowed


def _outcome(source: Any) -> None:
    try:
        board = load_board(source)
    except BoardError as exc:
        _check_error(exc)
    else:
        _check_board(board)


@_FUZZ
@given(mutated_boards())
def test_a_mutated_board_is_an_error_with_paths_or_a_board_the_solver_decides(doc: dict[str, Any]) -> None:
    _outcome(doc)


@_FUZZ
@given(mutated_boards())
def test_a_mutated_board_read_as_json_text_behaves_like_the_parsed_one(doc: dict[str, Any]) -> None:
    try:
        text = json.dumps(doc)
    except (ValueError, RecursionError):
        return
    _outcome(text)


@_FUZZ
@given(mutated_texts())
def test_mutated_json_text_is_an_error_with_paths_or_a_board_the_solver_decides(text: str) -> None:
    _outcome(text)
