"""The protocol's checks (solver.validation): each returns the value or records one problem at the value's path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.errors import Problem
from solver.formats import join, keyed
from solver.validation import (
    Problems,
    choice_round,
    index,
    int_between,
    json_type,
    lone_surrogate_path,
    recipients,
    rerooted,
    unique_ids,
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


def test_rerooted_keeps_list_and_field_paths_apart() -> None:
    nested = [Problem("", "bad"), Problem("players[0].team", "t"), Problem("[2]", "i")]
    assert rerooted(nested, "board") == [
        Problem("board", "bad"),
        Problem("board.players[0].team", "t"),
        Problem("board[2]", "i"),
    ]


@pytest.mark.parametrize(
    ("value", "name"),
    [(None, "null"), (True, "a boolean"), (1.5, "a number"), ("", "a string"), ([], "a list"), ({}, "an object")],
)
def test_json_type_names(value: object, name: str) -> None:
    assert json_type(value) == name
    json.dumps(value)
