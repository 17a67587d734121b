"""Counter kinds: how names are spelled, parsed and classified (rule 122).

Counter kinds are an open vocabulary: two counters are the same kind exactly when
they have the same name (122.1).  Engines spell the same kind several ways
(``P1P1`` in Forge, ``+1/+1`` in the rules, ``p1p1`` in some logs), so every name
that enters the library goes through :func:`canonical_kind` once, at the boundary,
and everything inside compares canonical strings.
"""

from __future__ import annotations

import difflib
import importlib.resources
import json
import re
from functools import lru_cache
from typing import Any

__all__ = [
    "KEYWORD_KINDS",
    "KIND_TABLE",
    "KNOWN_KINDS",
    "PLAYER_KINDS",
    "canonical_kind",
    "is_keyword_kind",
    "is_namespaced",
    "known_kind",
    "pt_delta",
    "same_kind_message",
]


def _load_table() -> tuple[dict[str, Any], ...]:
    """The counter-kind table, ``solver/counter_kinds.json``: every kind printed on a card, one row each."""
    text = importlib.resources.files("solver").joinpath("counter_kinds.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["kinds"])


#: The rows of ``solver/counter_kinds.json`` (kind, class, weight, presence_only, note), read once.
KIND_TABLE: tuple[dict[str, Any], ...] = _load_table()

#: Every catalogued kind (P/T kinds are a rule, 122.1a, and namespaced kinds are the user's own).
KNOWN_KINDS = frozenset(row["kind"] for row in KIND_TABLE)

#: Kinds a player can hold (122.1f, 107.14, 107.17, 728); others may appear on players too.
PLAYER_KINDS = frozenset(row["kind"] for row in KIND_TABLE if row["class"] == "player")

#: Keyword counters (122.1b).  Extra copies are redundant, except exalted.
KEYWORD_KINDS = frozenset(row["kind"] for row in KIND_TABLE if row["class"] == "keyword")

_PT = re.compile(r"^([+-])(\d+)/([+-])(\d+)$")
_FORGE_PT = re.compile(r"^([pm])(\d+)([pm])(\d+)$")
_ARENA = re.compile(r"^arena:(\d+)$")
_WORD = re.compile(r"^[a-z][a-z0-9' -]*$")
#: A kind of the user's or an importer's own: ``<namespace>:<name>`` (``custom:slime``, ``arena:159``).
_NAMESPACED = re.compile(r"^[a-z][a-z0-9]*:[a-z0-9][a-z0-9' -]*$")


class KindError(ValueError):
    """A counter kind name that cannot be normalised."""


@lru_cache(maxsize=4096)
def canonical_kind(name: str) -> str:
    """Return the canonical spelling of a counter kind, or raise :class:`KindError`.

    Canonical forms: P/T kinds as ``+1/+1``, ``-1/-1``, ``+1/+0`` (each half signed);
    Arena's unmapped integer kinds as ``arena:<n>``, namespaced kinds as
    ``<namespace>:<name>``; every other kind as lower-case words separated by single
    spaces (``first strike``).  Accepted aliases: Forge
    names (``P1P1``, ``M1M1``, ``M0M1``, ``FIRST_STRIKE``), any case, a trailing
    ``counter``/``counters``, and unsigned-plus P/T halves (``1/1`` is ``+1/+1``).
    """
    if not isinstance(name, str):
        raise KindError(f"counter kind must be a string, not {type(name).__name__}")
    text = " ".join(name.strip().lower().replace("_", " ").split())
    for suffix in (" counters", " counter"):
        if text.endswith(suffix):
            text = text[: -len(suffix)].strip()
    if not text:
        raise KindError("counter kind must not be empty")
    compact = text.replace(" ", "")
    forge = _FORGE_PT.match(compact)
    if forge:
        ps, p, ts, t = forge.groups()
        return f"{'+' if ps == 'p' else '-'}{int(p)}/{'+' if ts == 'p' else '-'}{int(t)}"
    pt = _PT.match(compact) or _PT.match(_signed(compact))
    if pt:
        ps, p, ts, t = pt.groups()
        return f"{ps}{int(p)}/{ts}{int(t)}"
    if _ARENA.match(compact):
        return compact
    if _NAMESPACED.match(text):
        return text
    if not _WORD.match(text):
        raise KindError(f"{name!r} is not a counter kind (expected e.g. '+1/+1', 'poison', 'first strike')")
    return text


def _signed(text: str) -> str:
    """Give unsigned halves of a P/T kind a '+' so ``1/1`` parses like ``+1/+1``."""
    if "/" not in text:
        return text
    left, _, right = text.partition("/")
    left = left if left[:1] in "+-" else "+" + left
    right = right if right[:1] in "+-" else "+" + right
    return f"{left}/{right}"


@lru_cache(maxsize=4096)
def pt_delta(kind: str) -> tuple[int, int] | None:
    """Power and toughness one counter of a canonical P/T kind adds (122.1a), else None.

    Memoised per kind: every new board asks it of each of its kinds, and boards share kinds.
    """
    match = _PT.match(kind)
    if match is None:
        return None
    ps, p, ts, t = match.groups()
    return (int(p) if ps == "+" else -int(p), int(t) if ts == "+" else -int(t))


def is_keyword_kind(kind: str) -> bool:
    """True for keyword counters (122.1b)."""
    return kind in KEYWORD_KINDS


def same_kind_message(key: object, first: object, kind: str) -> str:
    """Why a second spelling of one kind in the same mapping is refused (board counters, policy weights).

    ``"+1/+1"`` and ``"P1P1"`` are one kind (122.1), so a mapping giving both says two things about it.
    """
    return f"{key!r} and {first!r} are the same counter kind {kind!r} (122.1)"


def is_namespaced(kind: str) -> bool:
    """True for a canonical kind of the user's or an importer's own (``custom:slime``, ``arena:159``)."""
    return ":" in kind


@lru_cache(maxsize=4096)
def known_kind(name: str) -> str:
    """The canonical kind of ``name`` if it is a real one, else :class:`KindError` naming the nearest known kinds.

    A real kind is catalogued (``solver/counter_kinds.json``: every kind printed on a card),
    a P/T kind (122.1a) or namespaced (``custom:slime``, the Arena importer's ``arena:<n>``).
    Anything else is almost certainly a typo (``poision``, ``loyality``) that would otherwise
    be worth 0 and change nothing: boards and policies both refuse it, with this message.
    """
    kind = canonical_kind(name)
    if kind in KNOWN_KINDS or pt_delta(kind) is not None or is_namespaced(kind):
        return kind
    known = sorted(KNOWN_KINDS)
    # The near misses if there are any (a letter or two away), else the nearest names at all.
    near = difflib.get_close_matches(kind, known, n=3, cutoff=0.8) or difflib.get_close_matches(kind, known, n=3)
    if near:
        names = " or ".join(repr(n) for n in near)
        raise KindError(f"unknown counter kind {kind!r}; did you mean {names}?")
    raise KindError(
        f"unknown counter kind {kind!r}: not a kind printed on a card (solver/counter_kinds.json);"
        f" name a kind of your own with a namespace, e.g. 'custom:{kind}'"
    )
