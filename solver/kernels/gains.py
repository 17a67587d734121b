"""The counters one proliferate puts on each object under replacement effects (701.34a, 614, 616.1).

One compiled rule, called by :func:`solver.effects.gains` (a board's scopes in force) and by the
v1 environments' games (:func:`env.kernels.gains.game_gains`, through :mod:`solver.core`).  The
inputs are plain arrays: each scope in force is a row of objects it covers, a row of kinds it
covers and an operation (a code of :class:`solver.cards.Op`, in its order); ``has`` says which
cells (object, kind) get a counter at all (701.34a: kinds already there, on an object that can
have counters put on it), and :func:`wants_more_616_1` whether the affected party wants more of
the kind there (616.1), from the kinds' default valence and the objects' battle protectors.

When several effects apply to one event, the affected object's controller, or the affected
player, picks the order (616.1).  Every operation is a non-decreasing function of the count, and
so is "stop once the count is 0" ("if one or more counters would be put", 614), so the best
result over all orders of a multiset of operations is the best of one more operation applied to
the best result of the multiset without it: :func:`best_orders_616_1`, a dynamic programme over
how many of each operation have been applied.  A ban makes the count 0 in any order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..board import T_CONTROLLER, T_NO_COUNTERS, T_PROTECTOR
from .jit import inner

__all__ = [
    "BAN",
    "N_OPS",
    "N_ORDERED",
    "TOO_MANY",
    "apply_op_614",
    "best_orders_616_1",
    "board_gains_616_1",
    "count_uses",
    "gains_616_1",
    "wants_more_616_1",
]

#: Operation codes, in :class:`solver.cards.Op` order: +1, x2, -1, /2, =1, then the ban.
N_OPS = 6
#: The operations an order is chosen among (every code below :data:`BAN`).
N_ORDERED = 5
#: The code of a ban ("can't have counters put on it", 614): 0 counters in any order.
BAN = 5
#: Counters one proliferate may put on one object: a count that would reach it saturates there, and
#: a result that depends on a saturated count is reported (:func:`gains_616_1`).
TOO_MANY = 2**62


@inner
def apply_op_614(op: int, count: int) -> int:
    """614.1: one effect applied to an event that would put ``count`` >= 1 counters (saturating at TOO_MANY)."""
    if op == 0:
        out = count + 1
    elif op == 1:
        out = count * 2 if count <= TOO_MANY // 2 else TOO_MANY
    elif op == 2:
        out = max(count - 1, 0)
    elif op == 3:
        out = count // 2
    elif op == 4:
        out = min(count, 1)
    else:
        out = 0
    return min(out, TOO_MANY)


@njit(cache=True)
def best_orders_616_1(top: np.ndarray, want_more: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """616.1: the best count, over every order, for every multiset of at most ``top[i]`` of ordered op ``i``.

    The multiset ``u`` is at flat index ``sum(u[i] * strides[i])``; its predecessors (one op
    fewer) have smaller indexes, so one pass in index order fills the table.  The best is the
    most counters if ``want_more``, else the fewest.  Returns ``(value, tainted, strides)``:
    ``tainted`` marks an entry whose computation met a count of :data:`TOO_MANY` (not exact).
    """
    size = 1
    for i in range(N_ORDERED):
        size *= top[i] + 1
    ints = np.empty(N_ORDERED + size, dtype=np.int64)  # the strides and the values, one allocation
    strides, value = ints[:N_ORDERED], ints[N_ORDERED:]
    strides[N_ORDERED - 1] = 1
    for i in range(N_ORDERED - 2, -1, -1):
        strides[i] = strides[i + 1] * (top[i + 1] + 1)
    tainted = np.zeros(size, dtype=np.bool_)
    value[0] = 1
    for idx in range(1, size):
        best = -1
        bad = False
        for i in range(N_ORDERED):
            if (idx // strides[i]) % (top[i] + 1) == 0:
                continue
            before = value[idx - strides[i]]
            option = apply_op_614(i, before) if before else 0
            bad = bad or tainted[idx - strides[i]] or option >= TOO_MANY
            if best < 0 or (option > best if want_more else option < best):
                best = option
        value[idx] = best
        tainted[idx] = bad
    return value, tainted, strides


@njit(cache=True)
def count_uses(
    rows: np.ndarray, cols: np.ndarray, ops: np.ndarray, has: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells with a counter, as (objects, kinds), and how many scopes of each operation apply to each
    (cells x :data:`N_OPS`): only those cells, so the work follows the counters, not objects x kinds."""
    n_obj, n_kinds = has.shape
    n_cells = 0
    for s in range(n_obj):
        for k in range(n_kinds):
            if has[s, k]:
                n_cells += 1
    ints = np.empty(n_cells * (2 + N_OPS), dtype=np.int64)  # the three outputs, pieces of one block
    objects, kinds = ints[:n_cells], ints[n_cells : 2 * n_cells]
    uses = ints[2 * n_cells :].reshape((n_cells, N_OPS))
    uses[:, :] = 0
    c = 0
    for s in range(n_obj):
        for k in range(n_kinds):
            if not has[s, k]:
                continue
            objects[c], kinds[c] = s, k
            for j in range(len(ops)):
                if rows[j, s] and cols[j, k]:
                    uses[c, ops[j]] += 1
            c += 1
    return objects, kinds, uses


@inner
def wants_more_616_1(
    wanted: np.ndarray, protector: np.ndarray, controller: np.ndarray, team: np.ndarray, defense: int, first: int,
    more: np.ndarray,
) -> None:  # fmt: skip
    """616.1: whether the affected party wants more of each kind on each object, into ``more`` (objects x kinds).

    The affected party is the object's controller (a player for themselves), who wants more of a
    kind of non-negative default valence (``wanted``); but the controller of a battle protected
    by an opponent wants fewer defense counters (column ``defense``, -1 if none).  Rows from
    ``first`` on are permanents; ``protector`` is a seat or -1, ``team`` maps seats to teams.
    """
    n_obj, n_kinds = more.shape
    for s in range(n_obj):
        hostile = s >= first and protector[s] >= 0 and team[protector[s]] != team[controller[s]]
        for k in range(n_kinds):
            more[s, k] = wanted[k] and not (k == defense and hostile)


@njit(cache=True)
def gains_616_1(
    rows: np.ndarray,
    cols: np.ndarray,
    ops: np.ndarray,
    has: np.ndarray,
    wanted: np.ndarray,
    protector: np.ndarray,
    controller: np.ndarray,
    team: np.ndarray,
    defense: int,
    first: int,
    out: np.ndarray,
) -> bool:
    """Counters each cell gets from one proliferate into ``out`` (objects x kinds); whether any overflowed.

    701.34a: one counter on each cell of ``has``, none elsewhere; then each cell's scopes in the
    best order for its affected party (616.1: :func:`wants_more_616_1` says which sense, from
    ``wanted`` to ``first``; :func:`best_orders_616_1` the best, one table per sense answering
    every cell).  ``rows`` is scopes x objects, ``cols`` scopes x kinds, ``ops`` the scopes'
    operation codes.  True when a cell's count is :data:`TOO_MANY` or depends on one.
    """
    n_obj, n_kinds = has.shape
    for s in range(n_obj):
        for k in range(n_kinds):
            out[s, k] = 1 if has[s, k] else 0
    if len(ops) == 0:
        return False
    objects, kinds, uses = count_uses(rows, cols, ops, has)
    bools = np.empty(n_obj * n_kinds + 2, dtype=np.bool_)  # each cell's sense and the senses met, one block
    more = bools[: n_obj * n_kinds].reshape((n_obj, n_kinds))
    senses = bools[n_obj * n_kinds :]
    senses[:] = False
    wants_more_616_1(wanted, protector, controller, team, defense, first, more)
    top = np.zeros(N_ORDERED, dtype=np.int64)
    for c in range(len(objects)):
        if uses[c, BAN] > 0:
            continue
        for i in range(N_ORDERED):
            if uses[c, i] > 0:
                top[i] = max(top[i], uses[c, i])
                senses[1 if more[objects[c], kinds[c]] else 0] = True
    overflow = False
    for sense in range(2):
        if not senses[sense]:
            continue
        value, tainted, strides = best_orders_616_1(top, sense == 1)
        for c in range(len(objects)):
            if uses[c, BAN] > 0 or more[objects[c], kinds[c]] != (sense == 1):
                continue
            idx = 0
            for i in range(N_ORDERED):
                idx += uses[c, i] * strides[i]
            if idx == 0:
                continue
            out[objects[c], kinds[c]] = value[idx]
            overflow = overflow or tainted[idx] or value[idx] >= TOO_MANY
    for c in range(len(objects)):
        if uses[c, BAN] > 0:
            out[objects[c], kinds[c]] = 0
    return overflow


@njit(cache=True)
def board_gains_616_1(
    counts: np.ndarray,
    table: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    ops: np.ndarray,
    wanted: np.ndarray,
    team: np.ndarray,
    defense: int,
    first: int,
) -> tuple[np.ndarray, bool]:
    """:func:`gains_616_1` of one board (objects x kinds, fresh), and whether any count overflowed.

    ``table`` is the board's rows of :data:`solver.board.TABLE_FIELDS` (its objects' controllers,
    battle protectors and whether they can have counters put on them are read there). 701.34a: a
    cell gets a counter where the object has one of the kind already and can have counters put on
    it; the scopes in force (``rows``, ``cols``, ``ops``, none for a board without replacement
    effects) then apply in the best order (616.1).
    """
    n_obj, n_kinds = counts.shape
    no_counters = table[T_NO_COUNTERS]
    has = np.empty((n_obj, n_kinds), dtype=np.bool_)
    for s in range(n_obj):
        for k in range(n_kinds):
            has[s, k] = counts[s, k] > 0 and no_counters[s] == 0
    out = np.empty((n_obj, n_kinds), dtype=np.int64)
    overflow = gains_616_1(
        rows, cols, ops, has, wanted, table[T_PROTECTOR], table[T_CONTROLLER], team, defense, first, out
    )
    return out, overflow
