"""What one proliferate adds to each object once replacement effects apply (614, 616.1).

The cards and their scopes live in :mod:`solver.cards`.  When several effects apply to
one event, the affected object's controller, or the affected player, picks the order
(616.1): :func:`best_count` finds the best order for them, judged by the kind's default
valence in the catalogue.  Once an event would put no counters, later effects no longer
apply to it ("if one or more counters would be put").

The result is :func:`gains`: a matrix, objects x kinds, of how many counters of each kind
each object gets from one proliferate by the board's proliferator if it is chosen.  The
scopes in force become arrays (objects and kinds each covers, its operation) and the
compiled rule :func:`solver.kernels.gains.board_gains_616_1` works out every cell in one call
(:func:`~solver.kernels.gains.gains_616_1`, as it does for the environments' games).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .board import GAIN, board_table
from .cards import SUPPORTED_CARDS, Op, canonical_card, scopes_in_force
from .catalogue import valence
from .kernels.gains import BAN, N_OPS, TOO_MANY, apply_op_614, board_gains_616_1, gains_616_1

if TYPE_CHECKING:
    from .board import Board, BoolArray, IntArray

__all__ = ["SUPPORTED_CARDS", "apply_op", "best_count", "canonical_card", "gain", "gain_bound", "gains"]

#: Operations in :class:`Op` order: their index is the code :mod:`solver.kernels.gains` reads.
_OPS = tuple(Op)
assert _OPS[-1] is Op.BAN and len(_OPS) == N_OPS and _OPS.index(Op.BAN) == BAN
_OP_CODE = {op: code for code, op in enumerate(_OPS)}


def apply_op(op: Op, count: int) -> int:
    """One effect applied to an event that would put ``count`` counters (``count`` >= 1; 614.1)."""
    return int(apply_op_614(_OPS.index(op), count))


def best_count(uses: Sequence[int], want_more: bool) -> int:
    """Counters one proliferate puts when effects apply ``uses[i]`` times op ``i`` (in :class:`Op` order).

    The order is the best for the affected party (616.1): most counters if ``want_more``, else
    fewest; :func:`solver.kernels.gains.best_orders_616_1` has the dynamic programme.  A ban
    makes the count 0 in any order.
    """
    if len(uses) != len(_OPS):
        raise ValueError(f"uses has {len(uses)} entries; one per operation of Op ({len(_OPS)}) is needed")
    # one object (a player, row 0, controlling itself), one kind, every effect's scope covering it
    ops = np.array([i for i, n in enumerate(uses) for _ in range(n)], dtype=np.int64)
    rows = np.ones((len(ops), 1), dtype=np.bool_)
    has, wanted = np.ones((1, 1), dtype=np.bool_), np.array([want_more], dtype=np.bool_)
    protector, seat = np.full(1, -1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    out = np.zeros((1, 1), dtype=np.int64)
    for column in (wanted, protector, seat):  # read-only like the board's arrays board_gains_616_1 passes it
        column.flags.writeable = False
    if gains_616_1(rows, rows, ops, has, wanted, protector, seat, seat, -1, 1, out):
        raise ValueError(f"replacement effects put {TOO_MANY} or more counters in one proliferate (int64)")
    return int(out[0, 0])


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
    scopes = scopes_in_force(board)
    n = board.n_objects
    rows = np.empty((len(scopes), n), dtype=np.bool_)
    cols = np.empty((len(scopes), len(board.kinds)), dtype=np.bool_)
    ops = np.empty(len(scopes), dtype=np.int64)
    for i, (scope, controller) in enumerate(scopes):
        rows[i] = scope.objects(board, controller)
        cols[i] = _kind_mask(scope.kinds, board.kinds)
        ops[i] = _OP_CODE[scope.op]
    table = board_table(board)  # its controllers, protectors and no-counters flags, without making those fields
    if table.flags.writeable:  # a derived board's, stacked afresh: read-only like a loaded board's (one signature)
        table = table.view()
        table.flags.writeable = False
    kinds = board.kinds
    out, overflow = board_gains_616_1(
        board.counts, table, rows, cols, ops, _wanted(kinds), board.team,
        kinds.index("defense") if "defense" in kinds else -1, board.n_players,
    )  # fmt: skip
    if overflow:
        raise ValueError(f"replacement effects put {TOO_MANY} or more counters in one proliferate (int64)")
    return out


@lru_cache(maxsize=1024)
def _kind_mask(kinds_in_scope: Callable[[str], bool], kinds: tuple[str, ...]) -> BoolArray:
    """Which of ``kinds`` a scope's kind test takes (read-only): a game's boards share a handful of kinds tuples."""
    out = np.fromiter(map(kinds_in_scope, kinds), dtype=bool, count=len(kinds))
    out.flags.writeable = False
    return out


@lru_cache(maxsize=1024)
def _wanted(kinds: tuple[str, ...]) -> BoolArray:
    """Whether more of each kind is good for whoever has it, by the catalogue's default valence (read-only).

    :func:`solver.kernels.gains.wants_more_616_1` reads it for the 616.1 ordering.
    """
    out = np.fromiter(map(_wants_more, kinds), dtype=bool, count=len(kinds))
    out.flags.writeable = False
    return out


@lru_cache(maxsize=4096)
def _wants_more(kind: str) -> bool:
    """One kind's entry of :func:`_wanted` (each kind once per process: a fresh board's kinds tuple is often new)."""
    return valence(kind) >= 0
