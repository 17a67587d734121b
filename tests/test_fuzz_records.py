"""The published record schema (game-record-v1.schema.json) against the record reader, on mutated records.

As for boards (test_fuzz_schema.py), the reader is the authority: it accepts a little more
than the schema (null for an absent optional field) and checks what a schema cannot (text
without lone surrogates, the first round repeating ``chosen``).  What must hold: a problem
the reader reports for a reason a schema can express makes the schema reject the record too;
every record the reader accepts is written back (``to_json``) valid against the schema and
read back equal; and a choice is refused by the record reader exactly when the protocol's
``evaluate`` refuses it, with the same messages, since both read it with the same types (solver.formats).
"""

from __future__ import annotations

import copy
import json
import math
import re
from importlib import resources
from typing import Any

from fuzz_strategies import EXAMPLES, json_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from solver.analysis.records import RecordError, parse_record
from solver.errors import Problem
from solver.protocol.messages import ProtocolError, parse_request


def _schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(resources.files("solver.schema").joinpath(name).read_text("utf-8"))
    return loaded


_BOARD_SCHEMA = _schema("board-v1.schema.json")
_RECORD_SCHEMA = _schema("game-record-v1.schema.json")
BOARD = Draft202012Validator(_BOARD_SCHEMA)
RECORD = Draft202012Validator(
    _RECORD_SCHEMA,
    registry=Registry().with_resources(
        [(s["$id"], Resource.from_contents(s)) for s in (_RECORD_SCHEMA, _BOARD_SCHEMA)]
    ),
)
_FUZZ = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)

#: Reader messages for what a JSON Schema cannot check: text validity and relations between fields.
_BEYOND_A_SCHEMA = ("valid Unicode text", "must repeat the record's chosen")
_STEP = re.compile(r'\.?([^.\[]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
_NUMBERS = st.one_of(
    st.integers(-3, 25),
    st.sampled_from((2**53, -(2**63), 10**30, 10**400)),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from((2.0, -0.0, 0.5)),
)


# ---------------------------------------------------------------------------- strategies
def _ids(board: dict[str, Any]) -> list[str]:
    return [item["id"] for key in ("players", "permanents") for item in board.get(key, [])]


@st.composite
def valid_records(draw: st.DrawFn) -> dict[str, Any]:
    """A record the reader accepts, on a bundled example board; optional fields drawn in or out."""
    board = copy.deepcopy(draw(st.sampled_from(EXAMPLES)))
    ids = _ids(board)
    chosen = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
    teams = sorted({p["team"] for p in board["players"] if "team" in p})
    recipients = draw(st.dictionaries(st.sampled_from(teams), st.sampled_from(ids), max_size=2)) if teams else {}
    game: str | int = draw(st.one_of(st.text(min_size=1, max_size=8), st.integers(-(2**40), 2**40)))
    record: dict[str, Any] = {
        "game": game,
        "turn": draw(st.integers(0, 99)),
        "decider": board["proliferator"],
        "board": board,
        "chosen": chosen,
    }
    optional = {
        "poison_recipients": st.just(recipients),
        "rounds": st.lists(
            st.builds(lambda c: {"chosen": c}, st.lists(st.sampled_from(ids), unique=True, max_size=3)),
            max_size=2,
        ).map(lambda rest: [{"chosen": list(chosen), "poison_recipients": dict(recipients)}, *rest]),
        "phase": st.text(max_size=8),
        "source": st.text(max_size=8),
        "candidates": st.lists(st.sampled_from(ids), unique=True),
        "meta": st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=4), max_size=3),
    }
    keys = draw(st.sets(st.sampled_from(sorted(optional))))
    if "rounds" in keys:
        keys.add("poison_recipients")  # the first round repeats them
    for key in keys:
        record[key] = draw(optional[key])
    return record


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value of the record outside its board (board JSON is fuzzed on its own)."""
    out = [path]
    if path == ("board",):
        return out
    if isinstance(node, dict):
        for key, value in node.items():
            out += _places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _places(value, (*path, i))
    return out


@st.composite
def mutated_records(draw: st.DrawFn, max_edits: int = 3) -> dict[str, Any]:
    """A valid record with 1 to ``max_edits`` edits: wrong types, edge numbers, lone surrogates, keys gone or added."""
    doc: dict[str, Any] = draw(valid_records())
    for _ in range(draw(st.integers(1, max_edits))):
        path = draw(st.sampled_from([p for p in _places(doc) if p]))
        parent: Any = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        action = draw(st.sampled_from(("replace", "number", "delete", "insert", "duplicate")))
        if action == "replace":
            parent[last] = draw(json_values())
        elif action == "number":
            parent[last] = draw(_NUMBERS)
        elif action == "delete":
            del parent[last]
        elif action == "duplicate" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif isinstance(parent[last], dict):
            parent[last][draw(st.sampled_from(("chosen", "poison_recipients", "x", "")))] = draw(json_values(4))
        elif isinstance(parent[last], list):
            parent[last].append(draw(json_values(4)))
        else:
            parent[last] = draw(json_values())
    return doc


# ---------------------------------------------------------------------------- helpers
def _value_at(doc: Any, path: str) -> Any:
    """The value a problem's path points at, or None if the path leads nowhere."""
    for match in _STEP.finditer(path):
        key, position, quoted = match.groups()
        step: Any = int(position) if position is not None else json.loads(quoted) if quoted else key
        try:
            doc = doc[step]
        except (KeyError, IndexError, TypeError):
            return None
    return doc


def _schema_expressible(doc: Any, problem: Problem) -> bool:
    if any(fragment in problem.message for fragment in _BEYOND_A_SCHEMA):
        return False
    value = _value_at(doc, problem.path)
    if isinstance(value, float):
        # JSON Schema's "integer" includes 2.0; the reader's does not.  NaN compares false with any bound.
        return not (value.is_integer() or math.isnan(value))
    return True


def _record_problems(data: dict[str, Any]) -> list[Problem]:
    try:
        parse_record(data)
    except RecordError as exc:
        return list(exc.problems)
    return []


# ---------------------------------------------------------------------------- properties
@_FUZZ
@given(mutated_records())
def test_a_schema_expressible_reader_problem_is_a_schema_error(doc: dict[str, Any]) -> None:
    problems = _record_problems(doc)
    expressible = [p for p in problems if _schema_expressible(doc, p)]
    if expressible:
        assert not RECORD.is_valid(doc), f"the schema accepts a record the reader refuses for {expressible}"


@_FUZZ
@given(st.one_of(valid_records(), mutated_records()))
def test_every_record_the_reader_accepts_is_written_back_valid_and_read_back_equal(doc: dict[str, Any]) -> None:
    try:
        record = parse_record(doc)
    except RecordError:
        return
    written = record.to_json()
    if BOARD.is_valid(written["board"]):  # the board's contents are the board loader's business, checked at resolve
        assert RECORD.is_valid(written), list(RECORD.iter_errors(written))
    assert parse_record(json.loads(json.dumps(written))) == record


@_FUZZ
@given(valid_records())
def test_the_reader_and_the_schema_accept_the_same_valid_records(doc: dict[str, Any]) -> None:
    assert _record_problems(doc) == []
    assert RECORD.is_valid(doc), list(RECORD.iter_errors(doc))


_CHOICE = st.fixed_dictionaries(
    {"chosen": json_values()}, optional={"poison_recipients": json_values(), "x": json_values(2)}
)


@_FUZZ
@given(_CHOICE)
def test_a_choice_is_refused_alike_by_the_record_reader_and_the_protocol(choice: dict[str, Any]) -> None:
    """One toolkit for one kind of field: the same problems at the same relative paths, the same messages."""
    board = EXAMPLES[0]
    record = {"game": "g", "turn": 1, "decider": board["proliferator"], "board": board, **choice}
    record.pop("x", None)  # records refuse unknown fields; the protocol ignores them for forward compatibility
    from_records = {(p.path, p.message) for p in _record_problems(record)}
    try:
        parse_request({"type": "solve", "id": 1, "board": board, "evaluate": [choice]}, 10_000)
    except ProtocolError as exc:
        problems = exc.data["problems"]
        from_protocol = {(p["path"].removeprefix("evaluate[0]").removeprefix("."), p["message"]) for p in problems}
    else:
        from_protocol = set()
    assert from_records == from_protocol
