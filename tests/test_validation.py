"""The validation toolkit: each check returns the value or records one problem at the value's path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.errors import Problem
from solver.validation import (
    Problems,
    finite_number,
    id_string,
    index,
    int_in_range,
    is_int,
    join,
    json_type,
    keyed,
    recipients,
    unique_ids,
    unknown_fields,
)


def _run(check: Any, *args: Any) -> tuple[Any, list[Problem]]:
    problems = Problems()
    return check(*args, problems), problems.list()


def test_paths() -> None:
    assert join("", "players") == "players"
    assert join(index("players", 0), "team") == "players[0].team"
    assert keyed("permanents[3].counters", "-1/-1") == 'permanents[3].counters["-1/-1"]'
    assert keyed("x", "é") == 'x["é"]'


@given(st.text())
def test_a_path_is_always_writable_as_utf8(key: str) -> None:
    """A lone surrogate (a JSON escape) in a key is escaped, so errors can always be printed."""
    keyed("counters", key).encode("utf-8")
    join("", key).encode("utf-8")


@pytest.mark.parametrize("value", [True, False, 2.0, "2", None])
def test_bool_and_float_are_not_json_integers(value: object) -> None:
    assert not is_int(value)


@pytest.mark.parametrize(
    ("value", "low", "message"),
    [
        (-1, 0, "must be an integer >= 0"),
        (2.5, 0, "must be an integer >= 0"),
        (11, 0, "must be at most 10"),
        (11, None, "must be within ±10"),
        ("x", None, "must be an integer"),
    ],
)
def test_int_in_range_reports_why(value: object, low: int | None, message: str) -> None:
    result, problems = _run(int_in_range, value, "at", low, 10)
    assert result is None
    assert problems == [Problem("at", message)]


@given(st.integers(-100, 100))
def test_int_in_range_accepts_exactly_the_range(value: int) -> None:
    result, problems = _run(int_in_range, value, "at", -5, 10)
    assert (result == value) == (-5 <= value <= 10) == (not problems)


@pytest.mark.parametrize(
    ("value", "message"),
    [(float("nan"), "must be a finite number"), (10**400, "must be a finite number"), (11.0, "must be within ±10"),
     (True, "must be a number"), ("1", "must be a number")],
)  # fmt: skip
def test_finite_number_reports_why(value: object, message: str) -> None:
    assert _run(finite_number, value, "v", 10) == (None, [Problem("v", message)])


def test_id_string_refuses_empty_and_lone_surrogates() -> None:
    assert _run(id_string, "alice", "id") == ("alice", [])
    assert _run(id_string, "", "id")[1] == [Problem("id", "must be a non-empty string")]
    (problem,) = _run(id_string, "a\ud800", "id")[1]
    assert "lone surrogate" in problem.message
    str(problem).encode("utf-8")


def test_unique_ids_reports_each_bad_item() -> None:
    result, problems = _run(unique_ids, ["a", "", "a", 3, "b"], "chosen")
    assert result == ("a", "a", "b")
    assert [p.path for p in problems] == ["chosen[1]", "chosen[2]", "chosen[3]"]
    assert "duplicate id 'a'" in problems[1].message
    assert _run(unique_ids, "a", "chosen") == (None, [Problem("chosen", "must be a list of ids")])


def test_recipients() -> None:
    assert _run(recipients, {"A": "alice"}, "r") == ({"A": "alice"}, [])
    result, problems = _run(recipients, {"A": 1, "B": "bob"}, "r")
    assert result == {"B": "bob"}
    assert problems == [Problem('r["A"]', "must be a player id")]
    assert _run(recipients, [], "r")[0] is None


def test_unknown_fields_lists_the_allowed_ones() -> None:
    problems = Problems()
    unknown_fields({"id": 1, "colour": 2}, frozenset({"id", "team"}), "players[0]", problems)
    assert problems.list() == [Problem("players[0].colour", "unknown field (allowed: id, team)")]


@pytest.mark.parametrize(
    ("value", "name"),
    [(None, "null"), (True, "a boolean"), (1.5, "a number"), ("", "a string"), ([], "a list"), ({}, "an object")],
)
def test_json_type_names(value: object, name: str) -> None:
    assert json_type(value) == name
    json.dumps(value)
