"""The error path's walk (solver.formats.type_problems): every problem, at its path, from the Structs' own types.

msgspec stops at the first problem; the walk lists them all, reading the same definition
through ``msgspec.inspect.type_info``, and must accept exactly what msgspec accepts (but
lone surrogates, which no output could carry).
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Annotated, Any, Literal

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec import UNSET, Meta, UnsetType

from solver.board import Permanent
from solver.errors import Problem
from solver.formats import BoardStruct, PermanentStruct, RecordStruct, join, keyed, type_problems


class Item(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, Meta(min_length=1)]
    count: Annotated[int, Meta(ge=0, le=10)] = 0
    life: Annotated[int, Meta(ge=-10, le=10)] | UnsetType = UNSET
    worth: Annotated[float, Meta(ge=-10, le=10)] = 0.0
    mode: Literal["a", "b"] = "a"
    effect: Literal["win", "lose"] | Annotated[float, Meta(ge=-10, le=10)] = 0.0
    setting: Annotated[int, Meta(ge=1, le=3, extra={"whole_range": True})] = 1
    flags: list[str] = []
    tally: dict[str, Annotated[int, Meta(ge=0)]] = {}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("id", 3, "must be a string"),
        ("id", "", "must be a non-empty string"),
        ("count", -1, "must be an integer >= 0"),
        ("count", 2.0, "must be an integer >= 0"),
        ("count", True, "must be an integer >= 0"),
        ("count", 11, "must be at most 10"),
        ("life", "x", "must be an integer"),
        ("life", 11, "must be within ±10"),
        ("life", None, "must be an integer"),  # absent is allowed, null is not
        ("worth", "1", "must be a number"),
        ("worth", float("nan"), "must be a finite number"),
        ("worth", 10**400, "must be a finite number"),
        ("worth", 11.0, "must be within ±10"),
        ("mode", "c", "unknown mode 'c'; expected one of a, b"),
        ("effect", "draw", "must be 'lose', 'win' or a number, not 'draw'"),
        ("effect", 11, "must be within ±10"),
        ("setting", 0, "must be an integer from 1 to 3"),
        ("flags", "x", "must be a list"),
        ("tally", [], "must be an object"),
    ],
)
def test_each_type_words_its_problem(field: str, value: object, message: str) -> None:
    assert type_problems({"id": "x", field: value}, Item) == [Problem(field, message)]


def test_a_permanent_struct_has_the_fields_of_a_permanent_in_their_order() -> None:
    """The loader reads a permanent's fields at once, in this order (``msgspec.structs.astuple``)."""
    assert PermanentStruct.__struct_fields__ == tuple(f.name for f in fields(Permanent))


def test_every_problem_is_listed_with_its_path() -> None:
    found = type_problems({"count": -1, "flags": ["a", 2], "tally": {"k": -1}, "colour": 1}, Item)
    assert [str(p) for p in found] == [
        "colour: unknown field (allowed: count, effect, flags, id, life, mode, setting, tally, worth)",
        "id: required",
        "count: must be an integer >= 0",
        "flags[1]: must be a string",
        'tally["k"]: must be an integer >= 0',
    ]


def test_lone_surrogates_are_refused_where_they_are() -> None:
    found = type_problems({"id": "a\ud800", "tally": {"k\udfff": 1}}, Item)
    assert [p.path for p in found] == ["id", 'tally["k\\udfff"]']
    assert all("lone surrogate" in p.message for p in found)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-12, 12) | st.floats(allow_nan=False, width=32) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_ITEMS = st.fixed_dictionaries(
    {"id": _JSON},
    optional={key: _JSON for key in ("count", "life", "worth", "mode", "effect", "setting", "flags", "tally", "x")},
)


@given(_ITEMS)
def test_the_walk_accepts_exactly_what_msgspec_accepts(doc: dict[str, Any]) -> None:
    try:
        msgspec.json.decode(json.dumps(doc), type=Item)
        accepted = True
    except (msgspec.ValidationError, msgspec.DecodeError):
        accepted = False
    assert accepted == (type_problems(doc, Item) == [])


def test_paths_quote_free_form_keys_and_escape_lone_surrogates() -> None:
    assert join("players[0]", "team") == "players[0].team"
    assert keyed("permanents[3].counters", "-1/-1") == 'permanents[3].counters["-1/-1"]'
    assert keyed("x", "é") == 'x["é"]'
    keyed("counters", "\ud800").encode("utf-8")


def test_the_formats_walk_without_error_on_any_json() -> None:
    docs: list[Any] = [{}, {"board": 3}, {"players": [{"id": 1}]}, [], None]
    for doc in docs:
        type_problems(doc, BoardStruct)
        type_problems(doc, RecordStruct)
