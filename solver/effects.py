"""What one proliferate adds to each object once replacement effects apply (614, 616.1).

The cards and their scopes live in :mod:`solver.cards`.  When several effects apply to
one event, the affected object's controller, or the affected player, picks the order
(616.1): :func:`best_count` finds the best order for them, judged by the kind's default
valence in the catalogue.  Once an event would put no counters, later effects no longer
apply to it ("if one or more counters would be put").

The result is :func:`gains`: a matrix, objects x kinds, of how many counters of each kind
each object gets from one proliferate by the board's proliferator if it is chosen.  It is
computed with numpy over all (object, kind) cells at once, grouping cells by how many
effects of each operation apply to them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .board import GAIN
from .cards import SUPPORTED_CARDS, Op, canonical_card, scopes_in_force
from .catalogue import valence

if TYPE_CHECKING:
    from .board import Board, BoolArray, IntArray

__all__ = ["SUPPORTED_CARDS", "apply_op", "best_count", "canonical_card", "gain", "gain_bound", "gains"]

#: Operations in a fixed order; a cell's key packs how many of each apply, ``_KEY_BITS`` bits each.
_OPS = tuple(Op)
#: The operations an order is chosen among (a ban, last, ends the event in any order).
_ORDERED = _OPS[:-1]
assert _OPS[-1] is Op.BAN
_KEY_BITS = 10
assert _KEY_BITS * len(_OPS) < 63, "a cell's key and its want-more bit must fit in an int64"
#: Counters one proliferate may put on one object (the loader's limits keep boards far below it).
_TOO_MANY = 2**62
#: Up to this many cells with effects, cells are grouped by key in a dict rather than by ``np.unique``.
_FEW_CELLS = 2_000


def apply_op(op: Op, count: int) -> int:
    """One effect applied to an event that would put ``count`` counters (``count`` >= 1)."""
    if op is Op.PLUS_ONE:
        return count + 1
    if op is Op.DOUBLE:
        return count * 2
    if op is Op.MINUS_ONE:
        return max(count - 1, 0)
    if op is Op.HALVE:
        return count // 2
    if op is Op.ONE:
        return min(count, 1)
    return 0


def best_count(uses: Sequence[int], want_more: bool) -> int:
    """Counters one proliferate puts when effects apply ``uses[i]`` times op ``i`` (in :class:`Op` order).

    The order is the best for the affected party: most counters if ``want_more``, else fewest.

    Every operation is a non-decreasing function of the count, and so is "stop once the
    count is 0", so applying the remaining effects to a larger count never gives fewer
    counters.  The best result over all orders of a multiset of operations is therefore
    the best result of applying one more operation to the best result of the multiset
    without it: a dynamic programme over the counts of each operation used, with
    (plus+1)(double+1)(minus+1)(halve+1)(one+1) states, polynomial in the number of effects.
    A ban makes the count 0 in any order (or the count reached 0 earlier).
    """
    *counted, ban = uses
    if ban:
        return 0
    used = tuple(counted)
    return _table(used, want_more)[used]


@lru_cache(maxsize=64)
def _table(used: tuple[int, ...], want_more: bool) -> dict[tuple[int, ...], int]:
    """The best count for every sub-multiset of these operations: one table answers every cell of a board."""
    pick = max if want_more else min
    table: dict[tuple[int, ...], int] = {(0,) * len(used): 1}
    for total in range(1, sum(used) + 1):
        for state in _states(used, total):
            options = []
            for i, op in enumerate(_ORDERED):
                if state[i]:
                    before = table[(*state[:i], state[i] - 1, *state[i + 1 :])]
                    options.append(apply_op(op, before) if before else 0)
            table[state] = pick(options)
    return table


def _states(used: tuple[int, ...], total: int) -> list[tuple[int, ...]]:
    """Every tuple ``s`` with ``s[i] <= used[i]`` summing to ``total``."""
    if not used:
        return [()] if total == 0 else []
    first, rest = used[0], used[1:]
    room = sum(rest)
    return [(n, *tail) for n in range(max(0, total - room), min(first, total) + 1) for tail in _states(rest, total - n)]


def gain(board: Board) -> IntArray:
    """:func:`gains` of ``board``, read-only, worked out once per board and kept with it.

    Kept in the board's instance dict (key :data:`solver.board.GAIN`) next to its cached
    values, so a board derived by :meth:`~solver.board.Board.with_counts` keeps it while each
    object keeps the same kinds (the only thing counts change that gains depend on).
    """
    state = board.__dict__
    out: IntArray | None = state.get(GAIN)
    if out is None:
        out = gains(board)
        out.flags.writeable = False
        state[GAIN] = out
    return out


def gain_bound(board: Board) -> int:
    """An upper bound on every cell of :func:`gains`, from the scopes in force alone (no cell is worked out).

    Every operation is a non-decreasing function of the count, and only +1 and doubling raise
    it, so leaving the others out of any order never gives fewer counters; with those two
    alone, the most is every +1 first, then every doubling: ``(1 + plus) x 2**double`` for the
    one counter a proliferate puts (701.34a).
    """
    plus = double = 0
    for scope, _ in scopes_in_force(board):
        plus += scope.op is Op.PLUS_ONE
        double += scope.op is Op.DOUBLE
    return (1 + plus) << double


def gains(board: Board) -> IntArray:
    """Counters each object gets, per kind, from one proliferate by the proliferator if chosen.

    Zero wherever the object has no counter of that kind (701.34a adds only kinds already
    there), and on a permanent that can't have counters put on it (``no_counters``: Tatterkite,
    Melira's Keepers, a creature enchanted by Blossombind).  In Two-Headed Giant the poison
    column says what a head would receive as the team's poison recipient (701.34b); the rules
    engine adds it once per team.
    """
    has = (board.counts > 0) & ~board.no_counters[:, None]  # an object that can't have counters put on it gets none
    out: IntArray = has.astype(np.int64)
    scopes = scopes_in_force(board)
    if not scopes or not has.any():
        return out
    if len(scopes) >= 1 << _KEY_BITS:
        raise ValueError(f"at most {(1 << _KEY_BITS) - 1} replacement effects can apply to one board")
    # Scopes x objects, scopes x kinds, and each scope's step in the key: one product sums the
    # steps of every scope covering a cell (exact in int64: fewer than 2**_KEY_BITS scopes).
    rows = np.array([scope.objects(board, controller) for scope, controller in scopes], dtype=np.int64)
    cols = np.array([_kind_mask(scope.kinds, board.kinds) for scope, _ in scopes], dtype=np.int64)
    steps = np.array([1 << (_KEY_BITS * _OPS.index(scope.op)) for scope, _ in scopes], dtype=np.int64)
    key = np.where(has, (rows.T * steps) @ cols, 0)
    cells = np.flatnonzero(key)
    if cells.size == 0:
        return out
    flat_key = key.ravel()[cells]
    flat_more = _wants_more(board, cells)
    # One int64 per cell (the key, and whether more is wanted in the bit above it), so cells group in 1-D.
    more_bit = 1 << (_KEY_BITS * len(_OPS))
    packed, inverse = _distinct(np.where(flat_more, flat_key | more_bit, flat_key))
    mask = (1 << _KEY_BITS) - 1
    uses = [([(k >> (_KEY_BITS * i)) & mask for i in range(len(_OPS))], bool(k & more_bit)) for k in packed]
    n = len(_ORDERED)
    top = tuple(max(u[i] for u, _ in uses) for i in range(n))
    tables = {more: _table(top, more) for more in {m for _, m in uses}}
    values = [0 if u[n] else tables[m][tuple(u[:n])] for u, m in uses]
    if max(values) >= _TOO_MANY:
        raise ValueError(f"replacement effects put {max(values)} counters in one proliferate; int64 holds < 2**62")
    counts = np.array(values, dtype=np.int64)
    flat = out.ravel()
    flat[cells] = counts[inverse]
    return flat.reshape(out.shape)


def _distinct(values: IntArray) -> tuple[list[int], IntArray]:
    """The distinct values, and for each value the index of its distinct value.

    A dict in Python on few cells (``np.unique`` costs more than the whole grouping on a
    small board), a sort on many.
    """
    if len(values) > _FEW_CELLS:
        keys, inverse = np.unique(values, return_inverse=True)
        return keys.tolist(), inverse.reshape(-1)
    index: dict[int, int] = {}
    positions = [index.setdefault(v, len(index)) for v in values.tolist()]
    return list(index), np.array(positions, dtype=np.int64)


@lru_cache(maxsize=1024)
def _kind_mask(kinds_in_scope: Callable[[str], bool], kinds: tuple[str, ...]) -> tuple[bool, ...]:
    """Which of ``kinds`` a scope's kind test takes: a game's boards share a handful of kinds tuples."""
    return tuple(map(kinds_in_scope, kinds))


@lru_cache(maxsize=1024)
def _wanted(kinds: tuple[str, ...]) -> BoolArray:
    """Whether more of each kind is good for whoever has it, by the catalogue's default valence (read-only)."""
    out = np.array([valence(kind) >= 0 for kind in kinds], dtype=bool)
    out.flags.writeable = False
    return out


def _wants_more(board: Board, cells: IntArray) -> BoolArray:
    """Whether the affected party wants more of the kind on the object, per (flat) cell (for 616.1 ordering).

    The affected party is the object's controller (a player for themselves); for a battle
    protected by an opponent of its controller, the controller wants fewer defense counters.
    """
    n_kinds = len(board.kinds)
    kind_of = cells % n_kinds
    more: BoolArray = _wanted(board.kinds)[kind_of]
    col = board.kind_column("defense")
    if col >= 0:
        rows = cells // n_kinds
        protector = board.protector[rows]
        hostile = (protector >= 0) & (board.team[protector] != board.team[board.controller[rows]])
        more &= ~((kind_of == col) & hostile)
    return more
