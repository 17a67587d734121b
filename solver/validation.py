"""The protocol's request checks, one field at a time, every problem at its JSON path.

Boards and game records are defined by the Structs of :mod:`solver.formats` and validated
by msgspec (the board loader, the record reader); what remains here is what the protocol's
request parser (:mod:`solver.protocol.messages`) still checks by hand until its messages
move onto Structs too (issue 27, item 4): a :class:`Problems` collector and typed checks
that either return the value or record why not and return None.  The wording of the choice
checks (:func:`choice_round`) is the record Structs' (their ``expected`` extras), so a choice
is refused alike by the record reader and the protocol's ``evaluate``.  Paths and text
validity come from :mod:`solver.formats`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .errors import Problem
from .formats import NOT_TEXT as _NOT_TEXT
from .formats import is_text, join, json_type, keyed, lone_surrogate_path

__all__ = [
    "Problems",
    "choice_round",
    "index",
    "int_between",
    "json_type",
    "lone_surrogate_path",
    "recipients",
    "rerooted",
    "text",
    "unique_ids",
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
def index(path: str, i: int) -> str:
    """The path of a list item: ``players[0]``."""
    return f"{path}[{i}]"


# ---------------------------------------------------------------------- checks
def int_between(value: object, path: str, low: int, high: int, problems: Problems) -> int | None:
    """An integer from ``low`` to ``high``, else None with the problem recorded.

    For settings whose whole range is part of the interface (the protocol's ``top_k``), so the
    message states the range rather than only the bound that was crossed.
    """
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    problems.add(path, f"must be an integer from {low} to {high}")
    return None


def text(value: str, path: str, problems: Problems) -> bool:
    """Whether a string is valid Unicode text, recording the problem if not."""
    if is_text(value):
        return True
    problems.add(path, _NOT_TEXT)
    return False


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


# ---------------------------------------------------------------------- whole documents
def rerooted(problems: Iterable[Problem], prefix: str) -> list[Problem]:
    """Problems of a nested document (a record's board, a request's policy), re-rooted at its path ``prefix``."""
    return [Problem(_under(prefix, p.path), p.message) for p in problems]


def _under(prefix: str, path: str) -> str:
    return prefix if not path else f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"
