"""Replacement effects that change what one proliferate adds (rules brief §5; 614, 616).

Each supported card is a list of *operations* on the number of counters an event would put
on one object, each with a scope (whose objects, which kinds, who proliferates).  When
several apply to one event, the affected object's controller, or the affected player,
picks the order (616.1): we try every order and take the best for them, judged by the
kind's default valence in the catalogue.  Once an event would put no counters, later
effects no longer apply to it ("if one or more counters would be put").

The result is :func:`gains`: a matrix, objects x kinds, of how many counters of each kind
each object gets from one proliferate by the board's proliferator if it is chosen.  It is
computed with numpy over all (object, kind) cells at once, grouping cells by which effects
apply to them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from itertools import permutations

import numpy as np

from .board import Board, BoolArray, CardType, IntArray, Variant
from .catalogue import valence

__all__ = ["SUPPORTED_CARDS", "canonical_card", "gains"]


class Op(Enum):
    """What an effect does to the number of counters an event would put."""

    PLUS_ONE = "+1"
    DOUBLE = "x2"
    MINUS_ONE = "-1"
    HALVE = "/2"
    BAN = "0"


def _apply(op: Op, count: int) -> int:
    if op is Op.PLUS_ONE:
        return count + 1
    if op is Op.DOUBLE:
        return count * 2
    if op is Op.MINUS_ONE:
        return max(count - 1, 0)
    if op is Op.HALVE:
        return count // 2
    return 0


@dataclass(frozen=True)
class _Scope:
    """Which (object, kind) cells an effect controlled by player ``c`` touches."""

    op: Op
    objects: Callable[[Board, int], BoolArray]
    kinds: Callable[[str], bool] = lambda kind: True


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


def _plus_one_plus_one(kind: str) -> bool:
    return kind == "+1/+1"


def _minus_one_minus_one(kind: str) -> bool:
    return kind == "-1/-1"


def _vorinclex(board: Board, c: int) -> list[_Scope]:
    if board.proliferator == c:
        return [_Scope(Op.DOUBLE, _everything)]
    if board.team[board.proliferator] != board.team[c]:
        return [_Scope(Op.HALVE, _everything)]
    return []


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


def _pir_objects(board: Board, c: int) -> BoolArray:
    out: BoolArray = (board.team[board.controller] == board.team[c]) & ~_is_player(board)
    return out


#: card name -> function of (board, controller row) giving the scopes in force.
_CARDS: dict[str, Callable[[Board, int], list[_Scope]]] = {
    "Doubling Season": lambda b, c: [_Scope(Op.DOUBLE, _controlled_by)],
    "Vorinclex, Monstrous Raider": _vorinclex,
    "Innkeeper's Talent": lambda b, c: [_Scope(Op.DOUBLE, _everything)] if b.proliferator == c else [],
    "Winding Constrictor": lambda b, c: [_Scope(Op.PLUS_ONE, _constrictor_objects)],
    "Pir, Imaginative Rascal": lambda b, c: [_Scope(Op.PLUS_ONE, _pir_objects)],
    "Hardened Scales": lambda b, c: [
        _Scope(Op.PLUS_ONE, lambda b, c: _typed(b, c, CardType.CREATURE), _plus_one_plus_one)
    ],
    "Ozolith, the Shattered Spire": lambda b, c: [
        _Scope(Op.PLUS_ONE, lambda b, c: _typed(b, c, CardType.ARTIFACT | CardType.CREATURE), _plus_one_plus_one)
    ],
    "Corpsejack Menace": lambda b, c: [
        _Scope(Op.DOUBLE, lambda b, c: _typed(b, c, CardType.CREATURE), _plus_one_plus_one)
    ],
    "Branching Evolution": lambda b, c: [
        _Scope(Op.DOUBLE, lambda b, c: _typed(b, c, CardType.CREATURE), _plus_one_plus_one)
    ],
    "Primal Vigor": lambda b, c: [
        _Scope(Op.DOUBLE, lambda b, c: _typed(b, None, CardType.CREATURE), _plus_one_plus_one)
    ],
    "Vizier of Remedies": lambda b, c: [
        _Scope(Op.MINUS_ONE, lambda b, c: _typed(b, c, CardType.CREATURE), _minus_one_minus_one)
    ],
    "Melira, Sylvok Outcast": lambda b, c: [
        _Scope(Op.BAN, _melira_players, lambda kind: kind == "poison"),
        _Scope(Op.BAN, lambda b, c: _typed(b, c, CardType.CREATURE), _minus_one_minus_one),
    ],
    "Solemnity": lambda b, c: [_Scope(Op.BAN, _solemnity_objects)],
    # Tekuthal changes the number of proliferates, not their result: see Board.rounds.
    "Tekuthal, Inquiry Dominus": lambda b, c: [],
}

#: The cards whose effects are modelled, by their printed names.
SUPPORTED_CARDS: tuple[str, ...] = tuple(_CARDS)

_PUNCT = re.compile(r"[^a-z0-9]")
_BY_KEY = {_PUNCT.sub("", name.lower()): name for name in SUPPORTED_CARDS}


def canonical_card(name: str) -> str | None:
    """The printed name of a supported card, matching case and punctuation loosely; None if unknown."""
    return _BY_KEY.get(_PUNCT.sub("", name.lower()))


def _scopes(board: Board) -> list[tuple[_Scope, int]]:
    out: list[tuple[_Scope, int]] = []
    for effect in board.effects:
        if effect.card == "Innkeeper's Talent" and effect.level < 3:
            continue
        controller = board.ids.index(effect.controller, 0, board.n_players)
        out.extend((scope, controller) for scope in _CARDS[effect.card](board, controller))
    return out


@lru_cache(maxsize=1024)
def _best_count(ops: tuple[Op, ...], want_more: bool) -> int:
    """Counters one proliferate puts when ``ops`` all apply, ordered in the affected party's favour."""
    if Op.BAN in ops:
        return 0
    results = []
    for order in set(permutations(ops)):
        count = 1
        for op in order:
            if count == 0:
                break
            count = _apply(op, count)
        results.append(count)
    return max(results) if want_more else min(results)


def gains(board: Board) -> IntArray:
    """Counters each object gets, per kind, from one proliferate by the proliferator if chosen.

    Zero wherever the object has no counter of that kind (701.34a adds only kinds already
    there).  In Two-Headed Giant the poison column says what a head would receive as the
    team's poison recipient (701.34b); the rules engine adds it once per team.
    """
    has = board.counts > 0
    out: IntArray = has.astype(np.int64)
    scopes = _scopes(board)
    if not scopes or not has.any():
        return out
    if len(scopes) > 62:
        raise ValueError("at most 62 replacement effects are supported on one board")
    sig = np.zeros(has.shape, dtype=np.int64)
    for bit, (scope, controller) in enumerate(scopes):
        rows = scope.objects(board, controller)
        cols = np.array([scope.kinds(kind) for kind in board.kinds], dtype=bool)
        sig |= np.where(rows[:, None] & cols[None, :], np.int64(1) << bit, np.int64(0))
    sig = np.where(has, sig, 0)
    want_more = _wants_more(board)
    cells = np.flatnonzero(sig)
    if cells.size == 0:
        return out
    flat_sig = sig.ravel()[cells]
    flat_more = want_more.ravel()[cells]
    keys, inverse = np.unique(np.stack([flat_sig, flat_more.astype(np.int64)]), axis=1, return_inverse=True)
    counts = np.array(
        [
            _best_count(tuple(scopes[b][0].op for b in range(len(scopes)) if (int(s) >> b) & 1), bool(m))
            for s, m in keys.T
        ],
        dtype=np.int64,
    )
    flat = out.ravel()
    flat[cells] = counts[inverse.ravel()]
    return flat.reshape(out.shape)


def _wants_more(board: Board) -> BoolArray:
    """Whether the affected party wants more of each kind on each object (for 616.1 ordering).

    The affected party is the object's controller (a player for themselves); for a battle
    protected by an opponent of its controller, the controller wants fewer defense counters.
    """
    kind_valence = np.array([valence(kind) for kind in board.kinds], dtype=np.int64)
    more = np.broadcast_to(kind_valence >= 0, board.counts.shape).copy()
    col = board.kind_column("defense")
    if col >= 0:
        hostile = (board.protector >= 0) & (board.team[board.protector] != board.team[board.controller])
        more[:, col] &= ~hostile
    return more
