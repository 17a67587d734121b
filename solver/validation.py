"""Checking parsed JSON by hand, one field at a time, every problem at its JSON path.

The board loader, the game-record reader and the protocol's request parser all walk a
parsed JSON document and must report *every* problem, each at the path of the offending
value (``permanents[3].counters["-1/-1"]``), in one vocabulary of messages.  This module is
that vocabulary: a :class:`Problems` collector and typed checks that either return the
value or record why not and return None.  The same kind of field (a list of chosen ids,
Two-Headed Giant poison recipients, one proliferate's choice) is checked by the same function
in all three readers, so a value one of them refuses is refused by the others too.  It is
plain functions rather than a schema library because the loaders need paths and messages in
our format, cross-field checks (ids, references) and a fast path for boards of 100,000 objects.

Conventions: a path is built with :func:`join` (``a.b``), :func:`index` (``a[0]``) and
:func:`keyed` (``a["key"]``); ``""`` is the document itself.  A check's ``path`` is the
path of the value it is given.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeGuard

from .errors import Problem

__all__ = [
    "Problems",
    "choice_round",
    "finite_number",
    "id_string",
    "index",
    "int_between",
    "int_in_range",
    "is_int",
    "is_list",
    "is_text",
    "join",
    "json_type",
    "keyed",
    "lone_surrogate_path",
    "no_lone_surrogate",
    "recipients",
    "required",
    "rerooted",
    "string",
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
def int_in_range(value: object, path: str, low: int | None, high: int | None, problems: Problems) -> int | None:
    """An integer in ``low .. high``, else None with the problem recorded.

    For counts and magnitudes, whose upper bound is a safety limit worth naming only once it is
    exceeded: ``low`` None means ``-high .. high``, ``high`` None no upper bound (a turn number).
    """
    floor = -high if low is None and high is not None else low
    if is_int(value) and (floor is None or floor <= value) and (high is None or value <= high):
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


def int_between(value: object, path: str, low: int, high: int, problems: Problems) -> int | None:
    """An integer from ``low`` to ``high``, else None with the problem recorded.

    For settings whose whole range is part of the interface (the protocol's ``top_k``), so the
    message states the range rather than only the bound that was crossed.
    """
    if is_int(value) and low <= value <= high:
        return int(value)
    problems.add(path, f"must be an integer from {low} to {high}")
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
    problems.add(path, _NOT_TEXT)
    return False


_NOT_TEXT = "must be valid Unicode text (it contains a lone surrogate escape such as \\ud800)"


def string(value: object, path: str, problems: Problems) -> str | None:
    """Any string of valid Unicode text (free text such as a phase name), else None with the problem recorded."""
    if isinstance(value, str):
        return value if text(value, path, problems) else None
    problems.add(path, "must be a string")
    return None


def unique_ids(
    value: object, path: str, problems: Problems, what: str = "an id of the board"
) -> tuple[str, ...] | None:
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
        elif is_text(item):  # the usual case: no path is built for an item that has no problem
            seen.add(item)
        else:
            problems.add(index(path, i), _NOT_TEXT)
    return tuple(item for item in value if isinstance(item, str) and item)


def recipients(value: object, path: str, problems: Problems) -> dict[str, str] | None:
    """Two-Headed Giant poison recipients (701.34b): an object mapping a team name to a player id."""
    if not isinstance(value, Mapping):
        problems.add(path, "must be an object mapping a team name to the chosen head that gets its poison")
        return None
    out: dict[str, str] = {}
    for team, head in value.items():
        at = keyed(path, team)
        if not (isinstance(head, str) and head):
            problems.add(at, "must be a player id")
        elif text(str(team), at, problems) and text(head, at, problems):
            out[str(team)] = head
    return out


def choice_round(
    raw: Mapping[str, Any], path: str, problems: Problems
) -> tuple[tuple[str, ...], dict[str, str]] | None:
    """One proliferate's choice ``{"chosen": [...], "poison_recipients": {...}}``, else None with the problems recorded.

    The record reader and the protocol's ``evaluate`` both read this shape; ``poison_recipients``
    absent or null means none (only Two-Headed Giant boards need it).  Unknown fields are the
    caller's business: records refuse them, the protocol ignores them for forward compatibility.
    """
    before = len(problems)
    ids = None
    if "chosen" in raw:
        ids = unique_ids(raw["chosen"], join(path, "chosen"), problems)
    else:
        problems.add(join(path, "chosen"), "required")
    named = raw.get("poison_recipients")
    heads = {} if named is None else recipients(named, join(path, "poison_recipients"), problems)
    if len(problems) > before or ids is None or heads is None:
        return None
    return ids, heads


def required(raw: Mapping[str, Any], keys: Iterable[str], path: str, problems: Problems) -> None:
    """Report every key of ``keys`` that ``raw`` lacks."""
    for key in keys:
        if key not in raw:
            problems.add(join(path, key), "required")


def unknown_fields(raw: Mapping[Any, Any], allowed: frozenset[str], path: str, problems: Problems) -> None:
    """Report every key of ``raw`` that is not in ``allowed`` (strict formats: a typo is an error)."""
    if raw.keys() <= allowed:  # the usual case, one set comparison in C
        return
    for key in raw:
        if key not in allowed:
            problems.add(join(path, key), f"unknown field (allowed: {', '.join(sorted(allowed))})")


# ---------------------------------------------------------------------- whole documents
def lone_surrogate_path(value: object) -> str | None:
    """The path of the first string or key holding a lone surrogate, or None.

    For free-form parts of a document (a record's ``meta``, a whole protocol message) that no
    typed check walks: such a value could be neither printed nor written back as UTF-8.
    """
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if not is_text(item):
                return path
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                if isinstance(key, str) and not is_text(key):
                    return join(path, key)
                stack.append((join(path, key), sub))
        elif isinstance(item, list | tuple):
            stack.extend((index(path, i), sub) for i, sub in enumerate(item))
    return None


def no_lone_surrogate(value: object, path: str, problems: Problems) -> bool:
    """Whether a free-form value holds only valid text, recording the first offending string or key if not."""
    bad = lone_surrogate_path(value)
    if bad is None:
        return True
    problems.add(_under(path, bad), _NOT_TEXT)
    return False


def rerooted(problems: Iterable[Problem], prefix: str) -> list[Problem]:
    """Problems of a nested document (a record's board, a request's policy), re-rooted at its path ``prefix``."""
    return [Problem(_under(prefix, p.path), p.message) for p in problems]


def _under(prefix: str, path: str) -> str:
    return prefix if not path else f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"
