"""The published schema (board-v1.schema.json) against the loader, on mutated boards.

The loader is the authority and accepts more than the schema (aliases, any letter case,
loosely spelt card names), and it checks what a schema cannot (unique ids, references, team
poison, whole-board limits).  What must hold: a problem the loader reports for a reason a
schema can express is a reason the schema rejects the document too, and every board the
loader writes (``dump_board``) is valid against the schema.
"""

from __future__ import annotations

import json
import math
import re
from importlib import resources
from typing import Any

from fuzz_strategies import mutated_boards
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator
from strategies import board_dicts

from solver import BoardError, Problem, load_board
from solver.boardjson import dump_board

SCHEMA = json.loads(resources.files("solver.schema").joinpath("board-v1.schema.json").read_text("utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
_FUZZ = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)

#: Loader messages for what a JSON Schema cannot check: relations between fields, the whole board, text.
_BEYOND_A_SCHEMA = (
    "duplicate id",
    "is not a player id",
    "is a permanent, not a player",
    "team poison is shared",
    "the same counter kind",
    "is not a counter kind",
    "unknown counter kind",  # the kind catalogue (solver/counter_kinds.json): the loader's, docs/board-format.md
    "counter kind must not be empty",
    "has one player",
    "needs at least 2 teams",
    "must be on different teams",
    "teams; the limit is",
    "distinct counter kinds",
    "proliferates in one resolution",
    "magnitude limit",
    "valid Unicode text",
    # Conditions between fields, which the Structs (and so the generated schema) leave to the loader:
    "required in two_headed_giant",
    "required for a creature",
    "required for a Saga",
    "only a battle has a protector",
    "a duel has exactly 2 players",
    "needs at least 2 players",
    "outside two_headed_giant",
    "players and permanents; the limit is",
    " has no ",
)
_STEP = re.compile(r'\.?([^.\[]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


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
        # JSON Schema's "integer" includes 2.0; the loader's does not (docs/board-format.md#numbers).
        # NaN is not JSON at all (Python's json reads it), and compares false with any bound.
        return not (value.is_integer() or math.isnan(value))
    return True


@_FUZZ
@given(mutated_boards())
def test_a_schema_expressible_loader_problem_is_a_schema_error(doc: dict[str, Any]) -> None:
    try:
        board = load_board(doc)
    except BoardError as exc:
        expressible = [p for p in exc.problems if _schema_expressible(doc, p)]
        if expressible:
            assert not VALIDATOR.is_valid(doc), f"the schema accepts a board the loader refuses for {expressible}"
    else:
        assert VALIDATOR.is_valid(dump_board(board)), list(VALIDATOR.iter_errors(dump_board(board)))


@_FUZZ
@given(board_dicts())
def test_every_board_the_loader_writes_is_valid_against_the_schema(data: dict[str, Any]) -> None:
    dumped = dump_board(load_board(data))
    assert VALIDATOR.is_valid(dumped), list(VALIDATOR.iter_errors(dumped))
    assert load_board(dumped) == load_board(data)
