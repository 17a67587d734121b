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
    choice_round,
    finite_number,
    id_string,
    index,
    int_between,
    int_in_range,
    is_int,
    join,
    json_type,
    keyed,
    lone_surrogate_path,
    no_lone_surrogate,
    recipients,
    required,
    rerooted,
    string,
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


def test_unique_ids_refuses_lone_surrogates() -> None:
    result, problems = _run(unique_ids, ["a", "b\udc00"], "chosen")
    assert result == ("a", "b\udc00")  # returned as given: the caller refuses the document on any problem
    assert [p.path for p in problems] == ["chosen[1]"]
    assert "lone surrogate" in problems[0].message


def test_recipients() -> None:
    assert _run(recipients, {"A": "alice"}, "r") == ({"A": "alice"}, [])
    result, problems = _run(recipients, {"A": 1, "B": "bob"}, "r")
    assert result == {"B": "bob"}
    assert problems == [Problem('r["A"]', "must be a player id")]
    assert _run(recipients, [], "r")[0] is None


def test_recipients_refuse_lone_surrogates_in_team_and_head() -> None:
    result, problems = _run(recipients, {"A\ud800": "alice", "B": "b\udfff", "C": "carol"}, "r")
    assert result == {"C": "carol"}
    assert [p.path for p in problems] == ['r["A\\ud800"]', 'r["B"]']
    for problem in problems:
        str(problem).encode("utf-8")


@pytest.mark.parametrize(
    ("raw", "expected", "paths"),
    [
        ({"chosen": ["a", "b"]}, (("a", "b"), {}), []),
        ({"chosen": [], "poison_recipients": None}, ((), {}), []),  # null: none, as when absent
        ({"chosen": ["a"], "poison_recipients": {"T": "a"}}, (("a",), {"T": "a"}), []),
        ({"poison_recipients": {}}, None, ["r.chosen"]),
        ({"chosen": ["a", "a"], "poison_recipients": []}, None, ["r.chosen[1]", "r.poison_recipients"]),
        ({"chosen": "a", "poison_recipients": {"T": ""}}, None, ["r.chosen", 'r.poison_recipients["T"]']),
    ],
)
def test_choice_round(raw: dict[str, Any], expected: object, paths: list[str]) -> None:
    result, problems = _run(choice_round, raw, "r")
    assert result == expected
    assert [p.path for p in problems] == paths


def test_choice_round_names_a_missing_chosen_at_the_document_root() -> None:
    assert _run(choice_round, {}, "") == (None, [Problem("chosen", "required")])


def test_int_between_states_the_whole_range() -> None:
    for bad in (0, 101, True, 1.0, "5", float("inf")):
        assert _run(int_between, bad, "top_k", 1, 100) == (None, [Problem("top_k", "must be an integer from 1 to 100")])
    assert _run(int_between, 100, "top_k", 1, 100) == (100, [])


def test_int_in_range_without_an_upper_bound() -> None:
    assert _run(int_in_range, 10**30, "turn", 0, None) == (10**30, [])
    assert _run(int_in_range, -1, "turn", 0, None) == (None, [Problem("turn", "must be an integer >= 0")])


def test_string_is_any_valid_text() -> None:
    assert _run(string, "", "phase") == ("", [])
    assert _run(string, 3, "phase") == (None, [Problem("phase", "must be a string")])
    assert "lone surrogate" in _run(string, "\ud800", "phase")[1][0].message


def test_required_names_each_missing_key() -> None:
    problems = Problems()
    required({"a": None}, ("a", "b", "c"), "x", problems)
    assert problems.list() == [Problem("x.b", "required"), Problem("x.c", "required")]


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"a": [1, {"b": "ok"}]}, None),
        ("\ud800", ""),
        ({"a": [1, {"b": "x\udfff"}]}, "a[1].b"),
        ({"k\ud800": 1}, "k\\ud800"),
        (json.loads(r'{"\ud83d\ude00": "\ud83d\ude00"}'), None),  # in JSON, a surrogate pair is one character
    ],
)
def test_lone_surrogate_path(value: object, path: str | None) -> None:
    assert lone_surrogate_path(value) == path
    problems = Problems()
    assert no_lone_surrogate(value, "meta", problems) == (path is None)
    assert [p.path for p in problems] == ([] if path is None else [join("meta", path) if path else "meta"])


def test_rerooted_keeps_list_and_field_paths_apart() -> None:
    nested = [Problem("", "bad"), Problem("players[0].team", "t"), Problem("[2]", "i")]
    assert rerooted(nested, "board") == [
        Problem("board", "bad"),
        Problem("board.players[0].team", "t"),
        Problem("board[2]", "i"),
    ]


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
