"""A choice to score (the protocol's ``evaluate`` entry, ``proliferate score --choice``): one reader,
:func:`solver.protocol.messages.read_choice`, over the Structs' types; every problem at its path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.errors import Problem
from solver.formats import join, json_type, keyed, lone_surrogate_path
from solver.protocol.messages import EvaluateItem, problems_json, read_choice


def test_paths() -> None:
    assert join("", "players") == "players"
    assert join("players[0]", "team") == "players[0].team"
    assert keyed("permanents[3].counters", "-1/-1") == 'permanents[3].counters["-1/-1"]'
    assert keyed("x", "é") == 'x["é"]'


@given(st.text())
def test_a_path_is_always_writable_as_utf8(key: str) -> None:
    """A lone surrogate (a JSON escape) in a key is escaped, so errors can always be printed."""
    keyed("counters", key).encode("utf-8")
    join("", key).encode("utf-8")


def test_a_list_of_ids_reports_each_bad_item() -> None:
    item, problems = read_choice(["a", "", "a", 3, "b"], "chosen")
    assert item is None
    assert [p.path for p in problems] == ["chosen[1]", "chosen[3]", "chosen[2]"]
    assert Problem("chosen[2]", "duplicate id 'a'") in problems
    assert read_choice("a", "chosen")[1] == [
        Problem("chosen", 'must be a list of ids, {"chosen": [...]} or {"rounds": [...]}')
    ]


def test_ids_refuse_lone_surrogates() -> None:
    item, problems = read_choice(["a", "b\udc00"], "chosen")
    assert item is None
    assert [p.path for p in problems] == ["chosen[1]"]
    assert "lone surrogate" in problems[0].message


def test_recipients_refuse_lone_surrogates_in_team_and_head() -> None:
    _, problems = read_choice({"chosen": [], "poison_recipients": {"A\ud800": "alice", "B": "b\udfff"}}, "r")
    assert [p.path for p in problems] == ['r.poison_recipients["A\\ud800"]', 'r.poison_recipients["B"]']
    for problem in problems:
        str(problem).encode("utf-8")


@pytest.mark.parametrize(
    ("raw", "expected", "paths"),
    [
        ({"chosen": ["a", "b"]}, (("a", "b"), {}), []),
        ({"chosen": [], "poison_recipients": None}, ((), {}), []),  # null: none, as when absent
        ({"chosen": ["a"], "poison_recipients": {"T": "a"}}, (("a",), {"T": "a"}), []),
        ({"chosen": ["a"], "future": 1}, (("a",), {}), []),  # unknown fields are ignored (forward compatibility)
        ({"poison_recipients": {}}, None, ["r.chosen"]),
        ({"chosen": ["a", "a"], "poison_recipients": []}, None, ["r.poison_recipients", "r.chosen[1]"]),
        ({"chosen": "a", "poison_recipients": {"T": ""}}, None, ["r.chosen", 'r.poison_recipients["T"]']),
        ({"rounds": [{"chosen": ["a"]}, {"chosen": ["b", "b"]}]}, None, ["r.rounds[1].chosen[1]"]),
    ],
)
def test_one_round_forms(raw: dict[str, Any], expected: object, paths: list[str]) -> None:
    item, problems = read_choice(raw, "r")
    assert [p.path for p in problems] == paths
    assert (item is None) == (expected is None)
    if expected is not None:
        assert item == EvaluateItem((expected,), repeat=True)  # type: ignore[arg-type]


def test_a_missing_chosen_at_the_document_root() -> None:
    assert read_choice({}, "") == (None, [Problem("chosen", "required")])


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
    assert problems_json(nested, "board") == [
        {"path": "board", "message": "bad"},
        {"path": "board.players[0].team", "message": "t"},
        {"path": "board[2]", "message": "i"},
    ]


@pytest.mark.parametrize(
    ("value", "name"),
    [(None, "null"), (True, "a boolean"), (1.5, "a number"), ("", "a string"), ([], "a list"), ({}, "an object")],
)
def test_json_type_names(value: object, name: str) -> None:
    assert json_type(value) == name
    json.dumps(value)
