"""Hypothesis strategies for hostile boards: random edits of the bundled examples.

A mutation walks to a random place in a valid example board and breaks it the way real
input breaks: a value of the wrong JSON type, an extreme number (huge, negative, not
finite), a string with a lone surrogate, a deleted or unknown field, a duplicated or
dropped list item, a deeply nested value.  Text mutations edit the JSON text itself.
Starting from valid boards keeps most mutants one edit away from valid, which is where
a loader's bugs hide; starting from random JSON would rarely get past the top level.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

from hypothesis import strategies as st

from solver.cards import SUPPORTED_CARDS

__all__ = ["EXAMPLES", "json_values", "mutated_boards", "mutated_texts"]

EXAMPLES: tuple[dict[str, Any], ...] = tuple(
    json.loads(p.read_text("utf-8"))
    for p in sorted(resources.files("solver.examples").iterdir(), key=lambda p: p.name)
    if p.name.endswith(".json")
)

#: Field names the format knows, so inserted keys are often plausible rather than always unknown.
_FIELDS = (
    "format", "variant", "proliferator", "proliferates", "players", "permanents", "effects", "id", "team",
    "life", "counters", "controller", "name", "types", "power", "toughness", "damage", "keywords", "subtypes",
    "chapters", "protector", "phased_out", "value", "thresholds", "counter_values", "kind", "at", "effect",
    "label", "card", "level", "source", "no_counters", "poisoned_this_turn",
)  # fmt: skip

_SURROGATES = ("\ud800", "\udfff", "a\udc00b")
_STRINGS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(_SURROGATES),
    st.sampled_from(("", "alice", "bob", "ally", "poison", "P1P1", "-1/-1", "arena:7", "%%", "Saga", "creature")),
    st.sampled_from(("win", "lose", "draw", "duel", "two_headed_giant", "free_for_all", "Tribal", "BATTLE")),
    st.sampled_from(SUPPORTED_CARDS),
)
_NUMBERS = st.one_of(
    st.integers(-3, 25),
    st.sampled_from((0, 1, 10**9, 10**9 + 1, 2**31, 2**62, 2**63, 2**64, -(2**63) - 1, 10**30, 10**400)),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from((1e17, 5e15, -1e300, 0.5, -0.0, 2.0)),
)
_SCALARS = st.one_of(st.none(), st.booleans(), _NUMBERS, _STRINGS)


def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Any JSON value, scalars weighted towards the format's own vocabulary and its edge numbers."""
    return st.recursive(
        _SCALARS,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.one_of(st.sampled_from(_FIELDS), _STRINGS), inner, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in a JSON document, the document itself included."""
    out = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _places(value, (*path, i))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


def _mutate(draw: st.DrawFn, doc: dict[str, Any]) -> dict[str, Any]:
    """One edit at a random place."""
    places = [p for p in _places(doc) if p]
    path = draw(st.sampled_from(places))
    parent, last = _parent(doc, path), path[-1]
    action = draw(st.sampled_from(("replace", "replace", "delete", "insert", "duplicate", "nest", "number")))
    if action == "replace":
        parent[last] = draw(json_values())
    elif action == "number":
        parent[last] = draw(_NUMBERS)
    elif action == "delete":
        del parent[last]
    elif action == "nest":
        value: Any = parent[last]
        for _ in range(draw(st.integers(1, 50))):
            value = [value]
        parent[last] = value
    elif action == "duplicate" and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(parent[last]))
    else:
        target = parent[last] if isinstance(parent[last], dict) else parent
        if isinstance(target, dict):
            target[draw(st.one_of(st.sampled_from(_FIELDS), _STRINGS))] = draw(json_values(4))
        else:
            target.append(draw(json_values(4)))
    return doc


@st.composite
def mutated_boards(draw: st.DrawFn, max_edits: int = 3) -> dict[str, Any]:
    """A bundled example with one to ``max_edits`` random edits."""
    doc: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(1, max_edits))):
        doc = _mutate(draw, doc)
    return doc


@st.composite
def mutated_texts(draw: st.DrawFn) -> str:
    """The JSON text of a bundled example with characters deleted, inserted or replaced."""
    text = json.dumps(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(("delete", "insert", "replace", "deep")))
        if action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif action == "insert":
            text = (
                text[:at] + draw(st.text(alphabet='{}[]",:0123456789.eE-+ \\ntrufalsn\ud800', max_size=8)) + text[at:]
            )
        elif action == "replace":
            text = text[:at] + draw(st.characters()) + text[at + 1 :]
        else:
            depth = draw(st.sampled_from((10, 1_000, 100_000)))
            text = text[:at] + "[" * depth + text[at:]
    if not text.lstrip().startswith("{"):
        text = "{" + text  # keep it JSON text, not a file name
    return text
