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

import pytest
from fuzz_strategies import json_values, mutated_boards, mutated_texts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import Board, BoardError, Policy, PolicyError, load_board, solve
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


@_FUZZ
@given(st.one_of(st.text(max_size=12), st.binary(max_size=12), json_values(), st.none(), st.integers(), st.floats()))
def test_any_source_is_a_board_error_or_a_board_never_another_exception(source: Any) -> None:
    """``load_board`` raises BoardError for bad input, nothing else (docs/board-format.md): file names that
    cannot exist (a NUL byte, a lone surrogate) included."""
    try:
        _outcome(source)
    except BoardError:  # pragma: no cover - _outcome catches it
        raise
    except TypeError:  # not a board source at all (a number, None): the documented TypeError of solver.inputs
        assert not isinstance(source, str | bytes | dict)


@_FUZZ
@given(st.one_of(json_values(), st.none(), st.integers(), st.lists(st.integers())))
def test_any_policy_mapping_is_a_policy_error_or_a_policy(data: Any) -> None:
    """``Policy.from_dict`` raises PolicyError for anything that is not a usable policy (docs/limits.md)."""
    try:
        Policy.from_dict(data)
    except PolicyError as exc:
        assert exc.problems
        str(exc).encode("utf-8")


@pytest.mark.parametrize("source", ["\x00", "\ud800", "a\x00b.json", b"\x00"])
def test_impossible_file_names_are_board_errors(source: str | bytes) -> None:
    with pytest.raises(BoardError, match="not a possible file name"):
        load_board(source)
