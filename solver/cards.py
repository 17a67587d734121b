"""The card registry: every card whose effect on proliferate is modelled, one entry each.

A card changes a proliferate in one of two ways.  A *replacement effect* (614) changes how
many counters an event puts on one object: it is a list of :class:`Scope` (which objects,
which kinds, whose proliferate) each with one :class:`Op` on the count.  A card can also
change *how many* proliferates its controller performs (Tekuthal, Inquiry Dominus:
``proliferate_factor``).  Cards with a parameter (Innkeeper's Talent's Class level) declare
it as a :class:`Parameter`, which the loader, the schema and the docs read.

Adding a card is one :class:`Card` in :data:`CARDS` and its test in ``tests/test_cards.py``;
the board (:attr:`Board.rounds`, :func:`solver.effects.gain`), the loader, the JSON Schema's card
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
    ONE = "=1"  # "instead ... one" (Melira, the Living Cure)
    BAN = "0"  # last: a ban ends the event in any order (see solver.effects.best_count)


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
    ``needs_source``: the text names the card itself ("another creature you control", "on
    Mowu"), so an effect of it must say which permanent it is (:attr:`Effect.source`).
    ``once_per_turn``: a kind its controller gets only once a turn under it; a proliferate adds
    the same to every round, so the loader refuses a resolution that would give that kind to
    its controller more than once.
    """

    name: str
    summary: str
    scopes: Callable[[Board, int, Effect], tuple[Scope, ...]]
    ops: frozenset[Op] = frozenset()
    proliferate_factor: int = 1
    parameters: tuple[Parameter, ...] = ()
    needs_source: bool = False
    once_per_turn: str = ""


# ---------------------------------------------------------------------- object masks
def _everything(board: Board, c: int) -> BoolArray:
    return np.ones(board.n_objects, dtype=bool)


def _is_player(board: Board) -> BoolArray:
    out = np.zeros(board.n_objects, dtype=bool)
    out[: board.n_players] = True
    return out


def _controlled_by(board: Board, c: int) -> BoolArray:
    out: BoolArray = board.controller == c
    out[: board.n_players] = False  # a player controls itself, but is no permanent
    return out


def _typed(board: Board, c: int | None, card_types: CardType) -> BoolArray:
    """Permanents of one of ``card_types`` (players have none), controlled by ``c`` unless it is None."""
    mask: BoolArray = (board.types & int(card_types)) != 0
    if c is not None:
        mask &= board.controller == c
    return mask


def _own_creatures(board: Board, c: int) -> BoolArray:
    return _typed(board, c, CardType.CREATURE)


def _own_creatures_and_planeswalkers_and_self(board: Board, c: int) -> BoolArray:
    out = _typed(board, c, CardType.CREATURE | CardType.PLANESWALKER)
    out[c] = True
    return out


def _subtyped(board: Board, names: frozenset[str]) -> BoolArray:
    """Objects with one of these subtypes (any letter case)."""
    return np.fromiter(
        (any(s.lower() in names for s in subs) for subs in board.subtypes), dtype=bool, count=board.n_objects
    )


def _own_creatures_spacecraft_and_planets(board: Board, c: int) -> BoolArray:
    """Creatures, Spacecraft and Planets (artifact subtypes, 205.3g) its controller controls."""
    out: BoolArray = _own_creatures(board, c) | (_subtyped(board, _SHIPS) & _controlled_by(board, c))
    return out


def _own_creatures_and_vehicles(board: Board, c: int) -> BoolArray:
    """Creatures and Vehicles (an artifact subtype, 205.3g) its controller controls."""
    out: BoolArray = _own_creatures(board, c) | (_subtyped(board, _VEHICLES) & _controlled_by(board, c))
    return out


_SHIPS = frozenset({"spacecraft", "planet"})
_VEHICLES = frozenset({"vehicle"})


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
    out: BoolArray = board.team[board.controller] == board.team[c]
    out[: board.n_players] = False
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
        return _DOUBLE_EVERYTHING
    if board.team[board.proliferator] != board.team[c]:
        return _HALVE_EVERYTHING
    return ()


def _laezel(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    """Only counters its controller puts ("If you would put"): the proliferator's own proliferate."""
    if board.proliferator == c:
        return _LAEZEL
    return ()


def _innkeepers_talent(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    if board.proliferator == c and effect.level >= 3:
        return _DOUBLE_EVERYTHING
    return ()


def _source_row(board: Board, effect: Effect) -> int | None:
    """The row of the permanent whose ability the effect is, or None when it is not on the board."""
    row = board.index.get(effect.source) if effect.source is not None else None
    return row if row is not None and row >= board.n_players else None


def _benevolent_hydra(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    """ "another creature you control": its controller's creatures but the Hydra itself."""
    hydra = _source_row(board, effect)

    def others(board: Board, c: int) -> BoolArray:
        out = _own_creatures(board, c)
        if hydra is not None:
            out[hydra] = False
        return out

    return (Scope(Op.PLUS_ONE, others, _plus_one_plus_one),)


def _mowu(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    """ "on Mowu": the card itself only."""
    mowu = _source_row(board, effect)
    if mowu is None:
        return ()

    def itself(board: Board, c: int) -> BoolArray:
        out = np.zeros(board.n_objects, dtype=bool)
        out[mowu] = True
        return out

    return (Scope(Op.PLUS_ONE, itself, _plus_one_plus_one),)


def _controller_only(board: Board, c: int) -> BoolArray:
    out = np.zeros(board.n_objects, dtype=bool)
    out[c] = True
    return out


def _melira_living_cure(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    """ "instead you get one poison counter and you can't get additional poison counters this turn".

    Once its controller got poison this turn, none (their whole team in 2HG, 810.10c); else at
    most one, on them only (a teammate receiving the team's counter is not "you", 810.10).
    """
    if effect.poisoned_this_turn:
        return _MELIRA_CURED
    return _MELIRA_ONE


def _none(board: Board, c: int, effect: Effect) -> tuple[Scope, ...]:
    return ()


# The scopes of the cards whose scopes depend on the board, made once (a board's first gains read them).
_DOUBLE_EVERYTHING = (Scope(Op.DOUBLE, _everything),)
_HALVE_EVERYTHING = (Scope(Op.HALVE, _everything),)
_LAEZEL = (Scope(Op.PLUS_ONE, _own_creatures_and_planeswalkers_and_self),)
_MELIRA_CURED = (Scope(Op.BAN, _melira_players, _poison),)
_MELIRA_ONE = (Scope(Op.ONE, _controller_only, _poison),)

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
        "The Earth Crystal",
        "doubles +1/+1 counters put on creatures its controller controls",
        Scope(Op.DOUBLE, _own_creatures, _plus_one_plus_one),
    ),
    _static(
        "Primal Vigor",
        "doubles +1/+1 counters put on any creature",
        Scope(Op.DOUBLE, _all_creatures, _plus_one_plus_one),
    ),
    _static(
        "Conclave Mentor",
        "one more +1/+1 counter on creatures its controller controls",
        Scope(Op.PLUS_ONE, _own_creatures, _plus_one_plus_one),
    ),
    _static(
        "Kami of Whispered Hopes",
        "one more +1/+1 counter on permanents its controller controls",
        Scope(Op.PLUS_ONE, _controlled_by, _plus_one_plus_one),
    ),
    _static(
        "Solid Ground",
        "one more +1/+1 counter on permanents its controller controls",
        Scope(Op.PLUS_ONE, _controlled_by, _plus_one_plus_one),
    ),
    _static(
        "Caradora, Heart of Alacria",
        "one more +1/+1 counter on creatures and Vehicles its controller controls",
        Scope(Op.PLUS_ONE, _own_creatures_and_vehicles, _plus_one_plus_one),
    ),
    Card(
        "Lae'zel, Vlaakith's Champion",
        "one more counter of each kind its controller puts on creatures and planeswalkers they control, "
        "and on themselves",
        _laezel,
        frozenset({Op.PLUS_ONE}),
    ),
    _static(
        "Loading Zone",
        "doubles counters put on creatures, Spacecraft and Planets its controller controls",
        Scope(Op.DOUBLE, _own_creatures_spacecraft_and_planets),
    ),
    Card(
        "Benevolent Hydra",
        "one more +1/+1 counter on each other creature its controller controls",
        _benevolent_hydra,
        frozenset({Op.PLUS_ONE}),
        needs_source=True,
    ),
    Card(
        "Mowu, Loyal Companion",
        "one more +1/+1 counter on itself",
        _mowu,
        frozenset({Op.PLUS_ONE}),
        needs_source=True,
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
    Card(
        "Melira, the Living Cure",
        "its controller gets at most one poison counter, and none once they got poison this turn",
        _melira_living_cure,
        frozenset({Op.ONE, Op.BAN}),
        parameters=(
            Parameter(
                "poisoned_this_turn",
                0,
                1,
                0,
                "1 once its controller got poison counters this turn (they can't get more)",
            ),
        ),
        once_per_turn="poison",
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
