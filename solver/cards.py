"""The card registry: every card whose effect on proliferate is modelled, one entry each.

A card changes a proliferate in one of two ways.  A *replacement effect* (614) changes how
many counters an event puts on one object: it is a list of :class:`Scope` (which objects,
which kinds, whose proliferate) each with one :class:`Op` on the count.  A card can also
change *how many* proliferates its controller performs (Tekuthal, Inquiry Dominus:
``proliferate_factor``).  Cards with a parameter (Innkeeper's Talent's Class level) declare
it as a :class:`Parameter`, which the loader, the schema and the docs read.

Adding a card is one :class:`Card` in :data:`CARDS` and its test in ``tests/test_cards.py``;
the board (:attr:`Board.rounds`, :attr:`Board.gain`), the loader, the JSON Schema's card
list, ``docs/board-format.md`` and the environments' scenarios all read this registry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from .terms import CardType, Variant

if TYPE_CHECKING:
    from .board import Board, BoolArray, Effect

__all__ = [
    "CARDS",
    "SUPPORTED_CARDS",
    "Card",
    "Op",
    "Parameter",
    "Scope",
    "canonical_card",
    "effect_scopes",
    "scopes_in_force",
]


class Op(Enum):
    """What a replacement effect does to the number of counters an event would put (614.1)."""

    PLUS_ONE = "+1"
    DOUBLE = "x2"
    MINUS_ONE = "-1"
    HALVE = "/2"
    BAN = "0"


def _any_kind(kind: str) -> bool:
    return True


@dataclass(frozen=True)
class Scope:
    """The (object, kind) cells an effect controlled by player row ``c`` touches, and what it does there."""

    op: Op
    objects: Callable[[Board, int], BoolArray]
    kinds: Callable[[str], bool] = _any_kind


@dataclass(frozen=True)
class Parameter:
    """A number a card's effect depends on, stored on :class:`~solver.board.Effect` under ``name``."""

    name: str
    low: int
    high: int
    default: int
    doc: str


@dataclass(frozen=True)
class Card:
    """One card: its printed name, its replacement effects, and how it changes the number of proliferates.

    ``scopes(board, c, effect)`` gives the scopes in force when player row ``c`` controls the
    card on ``board`` (they may depend on who proliferates and on the effect's parameters).
    ``ops`` lists every operation those scopes can use, so bounds can be worked out without
    a board.  ``proliferate_factor`` multiplies the proliferates its controller performs.
    """

    name: str
    summary: str
    scopes: Callable[[Board, int, Effect], tuple[Scope, ...]]
    ops: frozenset[Op] = frozenset()
    proliferate_factor: int = 1
    parameters: tuple[Parameter, ...] = ()


# ---------------------------------------------------------------------- object masks
def _everything(board: Board, c: int) -> BoolArray:
    return np.ones(board.n_objects, dtype=bool)


def _is_player(board: Board) -> BoolArray:
    out = np.zeros(board.n_objects, dtype=bool)
    out[: board.n_players] = True
    return out


def _controlled_by(board: Board, c: int) -> BoolArray:
    out: BoolArray = (board.controller == c) & ~_is_player(board)
    return out


def _typed(board: Board, c: int | None, card_types: CardType) -> BoolArray:
    mask: BoolArray = (board.types & int(card_types)) != 0
    if c is not None:
        mask &= _controlled_by(board, c)
    return mask


def _own_creatures(board: Board, c: int) -> BoolArray:
    return _typed(board, c, CardType.CREATURE)


def _own_artifacts_and_creatures(board: Board, c: int) -> BoolArray:
    return _typed(board, c, CardType.ARTIFACT | CardType.CREATURE)


def _all_creatures(board: Board, c: int) -> BoolArray:
    return _typed(board, None, CardType.CREATURE)


def _melira_players(board: Board, c: int) -> BoolArray:
    out = np.zeros(board.n_objects, dtype=bool)
    if board.variant is Variant.TWO_HEADED_GIANT:
        out[: board.n_players] = board.team == board.team[c]  # 810.10c
    else:
        out[c] = True
    return out


def _solemnity_objects(board: Board, c: int) -> BoolArray:
    return _is_player(board) | _typed(
        board, None, CardType.ARTIFACT | CardType.CREATURE | CardType.ENCHANTMENT | CardType.LAND
    )


def _constrictor_objects(board: Board, c: int) -> BoolArray:
    out = _typed(board, c, CardType.ARTIFACT | CardType.CREATURE)
    out[c] = True
    return out


def _team_permanents(board: Board, c: int) -> BoolArray:
    out: BoolArray = (board.team[board.controller] == board.team[c]) & ~_is_player(board)
    return out


def _plus_one_plus_one(kind: str) -> bool:
    return kind == "+1/+1"


def _minus_one_minus_one(kind: str) -> bool:
    return kind == "-1/-1"


def _poison(kind: str) -> bool:
    return kind == "poison"


# ---------------------------------------------------------------------- scopes per card
def _static(name: str, summary: str, *scopes: Scope) -> Card:
    """A card whose scopes are in force whoever proliferates; its operations are those of its scopes."""
    return Card(name, summary, lambda board, c, effect: scopes, frozenset(scope.op for scope in scopes))


def _vorinclex(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    if board.proliferator == c:
        return (Scope(Op.DOUBLE, _everything),)
    if board.team[board.proliferator] != board.team[c]:
        return (Scope(Op.HALVE, _everything),)
    return ()


def _innkeepers_talent(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    if board.proliferator == c and effect.level >= 3:
        return (Scope(Op.DOUBLE, _everything),)
    return ()


def _none(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    return ()


_REGISTRY = (
    _static(
        "Doubling Season",
        "doubles counters put on permanents its controller controls",
        Scope(Op.DOUBLE, _controlled_by),
    ),
    Card(
        "Vorinclex, Monstrous Raider",
        "doubles counters its controller puts; halves (rounded down) those its controller's opponents put",
        _vorinclex,
        frozenset({Op.DOUBLE, Op.HALVE}),
    ),
    Card(
        "Innkeeper's Talent",
        "at Class level 3, doubles counters its controller puts on permanents and players",
        _innkeepers_talent,
        frozenset({Op.DOUBLE}),
        parameters=(Parameter("level", 1, 3, 3, "Class level; the doubling is level 3's ability"),),
    ),
    _static(
        "Winding Constrictor",
        "one more counter on artifacts and creatures its controller controls, and on its controller",
        Scope(Op.PLUS_ONE, _constrictor_objects),
    ),
    _static(
        "Pir, Imaginative Rascal",
        "one more counter on permanents its controller's team controls",
        Scope(Op.PLUS_ONE, _team_permanents),
    ),
    _static(
        "Hardened Scales",
        "one more +1/+1 counter on creatures its controller controls",
        Scope(Op.PLUS_ONE, _own_creatures, _plus_one_plus_one),
    ),
    _static(
        "Ozolith, the Shattered Spire",
        "one more +1/+1 counter on artifacts and creatures its controller controls",
        Scope(Op.PLUS_ONE, _own_artifacts_and_creatures, _plus_one_plus_one),
    ),
    _static(
        "Corpsejack Menace",
        "doubles +1/+1 counters put on creatures its controller controls",
        Scope(Op.DOUBLE, _own_creatures, _plus_one_plus_one),
    ),
    _static(
        "Branching Evolution",
        "doubles +1/+1 counters put on creatures its controller controls",
        Scope(Op.DOUBLE, _own_creatures, _plus_one_plus_one),
    ),
    _static(
        "Primal Vigor",
        "doubles +1/+1 counters put on any creature",
        Scope(Op.DOUBLE, _all_creatures, _plus_one_plus_one),
    ),
    _static(
        "Vizier of Remedies",
        "one fewer -1/-1 counter on creatures its controller controls",
        Scope(Op.MINUS_ONE, _own_creatures, _minus_one_minus_one),
    ),
    _static(
        "Melira, Sylvok Outcast",
        "no poison counters on its controller (their team in Two-Headed Giant), "
        "no -1/-1 counters on creatures its controller controls",
        Scope(Op.BAN, _melira_players, _poison),
        Scope(Op.BAN, _own_creatures, _minus_one_minus_one),
    ),
    _static(
        "Solemnity",
        "no counters on players, artifacts, creatures, enchantments or lands",
        Scope(Op.BAN, _solemnity_objects),
    ),
    Card(
        "Tekuthal, Inquiry Dominus",
        "its controller proliferates twice instead of once",
        _none,
        proliferate_factor=2,
    ),
)

#: Every modelled card by printed name, in the order the docs and the schema list them.
CARDS: Mapping[str, Card] = MappingProxyType({card.name: card for card in _REGISTRY})

#: The cards whose effects are modelled, by their printed names.
SUPPORTED_CARDS: tuple[str, ...] = tuple(CARDS)

_PUNCT = re.compile(r"[^a-z0-9]")
_BY_KEY = {_PUNCT.sub("", name.lower()): name for name in SUPPORTED_CARDS}


def canonical_card(name: str) -> str | None:
    """The printed name of a supported card, matching case and punctuation loosely; None if unknown."""
    return _BY_KEY.get(_PUNCT.sub("", name.lower()))


def scopes_in_force(board: Board) -> list[tuple[Scope, int]]:
    """Every scope in force on the board, with the row of the player controlling it."""
    return [(scope, controller) for _, scope, controller in effect_scopes(board)]


def effect_scopes(board: Board) -> list[tuple[Effect, Scope, int]]:
    """:func:`scopes_in_force` with the effect each scope comes from (e.g. to name the card behind a count)."""
    out: list[tuple[Effect, Scope, int]] = []
    for effect in board.effects:
        controller = board.ids.index(effect.controller, 0, board.n_players)
        out.extend((effect, scope, controller) for scope in CARDS[effect.card].scopes(board, controller, effect))
    return out
