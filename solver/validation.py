"""Checking parsed JSON by hand, one field at a time, every problem at its JSON path.

The board loader, the game-record reader and the protocol's request parser all walk a
parsed JSON document and must report *every* problem, each at the path of the offending
value (``permanents[3].counters["-1/-1"]``), in one vocabulary of messages.  This module is
that vocabulary: a :class:`Problems` collector and typed checks that either return the
value or record why not and return None.  It is plain functions rather than a schema
library because the loaders need paths and messages in our format, cross-field checks
(ids, references) and a fast path for boards of 100,000 objects.

Conventions: a path is built with :func:`join` (``a.b``), :func:`index` (``a[0]``) and
:func:`keyed` (``a["key"]``); ``""`` is the document itself.  A check's ``path`` is the
path of the value it is given.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeGuard

from .errors import Problem

__all__ = [
    "Problems",
    "finite_number",
    "id_string",
    "index",
    "int_in_range",
    "is_int",
    "is_list",
    "is_text",
    "join",
    "json_type",
    "keyed",
    "recipients",
    "text",
    "unique_ids",
    "unknown_fields",
]


class Problems:
    """The problems found so far in one document, in the order found."""

    def __init__(self) -> None:
        self._items: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self._items.append(Problem(path, message))

    def extend(self, problems: Iterable[Problem]) -> None:
        self._items.extend(problems)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self._items)

    def list(self) -> list[Problem]:
        return list(self._items)


# ---------------------------------------------------------------------- paths
def join(path: str, key: object) -> str:
    """The path of a field: ``players[0].team``."""
    if isinstance(key, str) and _has_surrogate(key):
        key = json.dumps(key)[1:-1]
    return f"{path}.{key}" if path else str(key)


def index(path: str, i: int) -> str:
    """The path of a list item: ``players[0]``."""
    return f"{path}[{i}]"


def keyed(path: str, key: object) -> str:
    """The path of a free-form key, quoted as JSON: ``counters["-1/-1"]``."""
    if not isinstance(key, str):
        return f"{path}[{key!r}]"
    shown = json.dumps(key, ensure_ascii=False)
    if _has_surrogate(key):
        shown = json.dumps(key)  # a lone surrogate cannot be written as UTF-8: escape it
    return f"{path}[{shown}]"


def _has_surrogate(text: str) -> bool:
    """A lone surrogate (from a JSON escape) cannot be written as UTF-8, so paths escape it."""
    return any("\ud800" <= ch <= "\udfff" for ch in text)


# ---------------------------------------------------------------------- types
def is_int(value: object) -> TypeGuard[int]:
    """A JSON integer: ``true`` and ``2.0`` are not."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_list(value: object) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    return isinstance(value, list | tuple)


def json_type(value: object) -> str:
    """The JSON name of a value's type, for messages a caller in any language understands."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    return "an object"


# ---------------------------------------------------------------------- checks
def int_in_range(value: object, path: str, low: int | None, high: int, problems: Problems) -> int | None:
    """An integer in ``low .. high`` (``low`` None: ``-high .. high``), else None with the problem recorded."""
    floor = -high if low is None else low
    if is_int(value) and floor <= value <= high:
        return int(value)
    if not is_int(value):
        problems.add(path, "must be an integer" if low is None else f"must be an integer >= {low}")
    elif low is None:
        problems.add(path, f"must be within ±{high}")
    elif value < low:
        problems.add(path, f"must be an integer >= {low}")
    else:
        problems.add(path, f"must be at most {high}")
    return None


def finite_number(value: object, path: str, bound: float, problems: Problems) -> float | None:
    """A finite number of magnitude at most ``bound``, as a float, else None with the problem recorded."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        problems.add(path, "must be a number")
        return None
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        problems.add(path, "must be a finite number")
        return None
    if abs(number) > bound:
        problems.add(path, f"must be within ±{int(bound) if bound == int(bound) else bound}")
        return None
    return number


def id_string(value: object, path: str, problems: Problems, what: str = "") -> str | None:
    """A non-empty string (an id or a name), else None with the problem recorded."""
    if isinstance(value, str) and value:
        return value if text(value, path, problems) else None
    problems.add(path, f"must be a non-empty string{f' ({what})' if what else ''}")
    return None


def is_text(value: str) -> bool:
    """Valid Unicode text: no lone surrogate (JSON can escape one; no output could carry it)."""
    return value.isascii() or not _has_surrogate(value)


def text(value: str, path: str, problems: Problems) -> bool:
    """Whether a string is valid Unicode text, recording the problem if not."""
    if is_text(value):
        return True
    problems.add(path, "must be valid Unicode text (it contains a lone surrogate escape such as \\ud800)")
    return False


def unique_ids(value: object, path: str, problems: Problems, what: str = "an id") -> tuple[str, ...] | None:
    """A list of distinct non-empty strings; None if it is not a list (each bad item is reported)."""
    if not isinstance(value, list):
        problems.add(path, "must be a list of ids")
        return None
    seen: set[str] = set()
    for i, item in enumerate(value):
        if not (isinstance(item, str) and item):
            problems.add(index(path, i), f"must be a non-empty string ({what}), not {json_type(item)}")
        elif item in seen:
            problems.add(index(path, i), f"duplicate id {item!r}")
        else:
            seen.add(item)
    return tuple(item for item in value if isinstance(item, str) and item)


def recipients(value: object, path: str, problems: Problems) -> dict[str, str] | None:
    """Two-Headed Giant poison recipients: an object mapping a team name to a player id."""
    if not isinstance(value, Mapping):
        problems.add(path, "must be an object mapping a team name to the chosen head that gets its poison")
        return None
    out: dict[str, str] = {}
    for team, head in value.items():
        if isinstance(head, str) and head:
            out[str(team)] = head
        else:
            problems.add(keyed(path, team), "must be a player id")
    return out


def unknown_fields(
    raw: Mapping[Any, Any], allowed: Sequence[str] | frozenset[str], path: str, problems: Problems
) -> None:
    """Report every key of ``raw`` that is not in ``allowed`` (strict formats: a typo is an error)."""
    for key in raw:
        if key not in allowed:
            problems.add(join(path, key), f"unknown field (allowed: {', '.join(sorted(allowed))})")
