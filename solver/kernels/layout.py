"""The one layout the kernels read: a batch of boards as plain arrays, a board being a batch of one.

Rows are objects, each board's players first, boards one after another (``obj_off[b]`` is
board ``b``'s first row); a board's thresholds follow its rows' order (as a :class:`~solver.board.Board` builds
them, object by object).  Counters are one dense ``rows x kinds`` int64 table over the kinds of
the whole batch.  Values are integer milli-points (1/1000 point), read once from the policy:
exact sums, the same whatever the batch or its order.  The variant is data (:data:`VARIANTS`):
the kernels never ask which variant a board is, only what its table says.

Every board holds its own policy-free part from the moment it is built
(:attr:`solver.board.Board.layout`), so a batch is a join: :func:`join` concatenates the
boards' stack records (:func:`record`: a board's packed buffer, kinds, counters and gains as one
array, kept with the board) and unpacks them in one compiled pass, which also puts each board's
counters in the batch's columns, and :func:`with_policy` applies the policy's tables (weights,
worths, game scores) over the whole batch at once.  :func:`stack` is both.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from .. import effects
from ..board import (
    F_BATTLE,
    F_CREATURE,
    F_DESTRUCTIBLE,
    F_PHASED_OUT,
    F_PLANESWALKER,
    F_PLAYER,
    F_PRESENT,
    F_SAGA,
    N_OBJECTS,
    N_OPPONENTS,
    N_PLAYERS,
    N_POISON_LOSES,
    N_PROLIFERATOR,
    N_ROUNDS,
    N_SHARED,
    N_TEAMS,
    N_THRESHOLDS,
    N_VALUES,
    NUMBER_FIELDS,
    R_CHAPTERS,
    R_DAMAGE,
    R_FLAGS,
    R_LIFE,
    R_PT_SUM,
    R_SEAT,
    R_SHARED_HEAD,
    R_SIDE,
    R_TEAM,
    R_TOUGHNESS,
    R_WORTH,
    ROW_FIELDS,
    STACK,
    TEAM_FIELDS,
    THR_LOSE,
    THR_POINTS,
    THR_WIN,
    THRESHOLD_FIELDS,
    WORTH_CREATURE,
    WORTH_SAGA,
    WORTH_VALUE,
    Board,
    FloatArray,
    IntArray,
    pt_table,
)
from ..catalogue import default_spec
from ..policy import Policy
from ..terms import VARIANTS, VariantRules

__all__ = [
    "F_BATTLE",
    "F_CREATURE",
    "F_DESTRUCTIBLE",
    "F_PHASED_OUT",
    "F_PLANESWALKER",
    "F_PLAYER",
    "F_PRESENT",
    "F_SAGA",
    "SPECIAL",
    "THR_LOSE",
    "THR_POINTS",
    "THR_WIN",
    "VARIANTS",
    "Joined",
    "Layout",
    "VariantRules",
    "join",
    "join_records",
    "record",
    "stack",
    "with_policy",
]

#: The kinds the rules name, in the order of :attr:`Layout.special` (-1 where the batch has none).
SPECIAL = ("+1/+1", "-1/-1", "loyalty", "defense", "lore", "poison")


@dataclass(frozen=True)
class Layout:
    """A batch of boards in the kernels' layout (see the module docstring); every array is plain."""

    # per board
    obj_off: IntArray
    thr_off: IntArray
    team_off: IntArray
    n_players: IntArray
    rounds: IntArray
    proliferator: IntArray  # local row
    shared: IntArray  # 1 where a team's poison is shared (810.10) and the board has poison
    poison_loses: IntArray  # 1 where a player's own poison counts (704.5c)
    n_opponents: IntArray
    elimination: np.ndarray
    gap: np.ndarray
    # per row
    counts: IntArray
    gain: IntArray
    weights: IntArray
    flags: IntArray
    toughness: IntArray
    damage: IntArray
    chapters: IntArray
    life: IntArray
    worth: IntArray
    side: IntArray
    seat: IntArray
    team: IntArray
    head_gain: IntArray  # a 2HG head's poison if it receives the team's counter (701.34b)
    # per threshold
    thr_row: IntArray
    thr_kind: IntArray
    thr_at: IntArray
    thr_code: IntArray
    thr_amount: IntArray
    thr_seat: IntArray
    # per team
    team_threshold: IntArray
    team_weight: IntArray  # milli-points per shared poison counter, signed for the proliferator
    # per kind and batch-wide
    kinds: tuple[str, ...]
    tough_delta: IntArray
    presence: IntArray
    special: IntArray
    policy_scores: np.ndarray  # win, draw, loss, game weight
    saga_chapter: int
    # the tables the per-board, per-row and per-threshold fields above are rows of (one argument each for
    # :func:`solver.kernels.exact.decide_arrays`: a compiled call's dispatch costs per argument)
    numbers: IntArray  # (len(NUMBER_FIELDS), n_boards): :data:`solver.board.NUMBER_FIELDS` per board
    ints: IntArray  # (len(ROW_FIELDS), n_rows): :data:`solver.board.ROW_FIELDS` per row
    thresholds: IntArray  # (len(THRESHOLD_FIELDS), n_thresholds)


def _milli(x: np.ndarray | float) -> np.ndarray:
    return np.rint(np.asarray(x, dtype=np.float64) * 1000.0).astype(np.int64)


@dataclass(frozen=True)
class Joined:
    """The policy-free part of a layout: the boards' :class:`~solver.board.BoardLayout` arrays joined.

    Rows of every board one after another, columns over the batch's kinds (in order of first
    appearance), each board's threshold rows and kinds moved to the batch's.  Arrays are
    fresh (writable) and contiguous, as the kernels read them.
    """

    obj_off: IntArray
    thr_off: IntArray
    team_off: IntArray
    #: ``(n_boards, len(NUMBER_FIELDS))``: :data:`solver.board.NUMBER_FIELDS` per board.
    numbers: IntArray
    #: ``(len(ROW_FIELDS), n_rows)``: :data:`solver.board.ROW_FIELDS` per row.
    ints: IntArray
    value: FloatArray
    counts: IntArray
    gain: IntArray  # 0 in a shared-poison head's poison column (its team's counter is head_gain)
    head_gain: IntArray
    #: Where each board's kinds are in the batch's: its rows, its kinds and their batch columns, one board after
    #: another (see :func:`_policy_rows`); None when every board has the batch's kinds.
    columns: tuple[IntArray, IntArray, IntArray] | None
    cv_cells: IntArray  # flat cells of the counter-value overrides
    cv_value: FloatArray
    #: ``(len(THRESHOLD_FIELDS), n_thresholds)``, rows and kinds the batch's, seats the board's.
    thresholds: IntArray
    #: ``(len(TEAM_FIELDS), n_teams)``.
    teams: IntArray
    kinds: tuple[str, ...]
    kind_numbers: IntArray  # each batch column's kind number in :data:`_KINDS`
    special: IntArray  # the columns of :data:`SPECIAL`, -1 where the batch has none
    poison: int  # the batch's poison column, -1 if none


_NONE = np.zeros(0, dtype=np.int64)
_NONE_READ_ONLY = np.zeros(0, dtype=np.int64)
_NONE_READ_ONLY.flags.writeable = False  # the type of a board's own counters, raveled (read-only)
#: A board's stack record is kept with it (in its instance dict) up to this many counter cells; a larger board's
#: is built for each join and let go (its per-board Python is nothing beside its size, and it would double the
#: board's memory).
RECORD_KEPT_CELLS = 4_096


def record(board: Board) -> tuple[IntArray, ...]:
    """Everything :func:`join` reads of ``board``, as 1-d arrays to be concatenated: its packed buffer
    (:class:`~solver.board.BoardLayout`), then its number of kinds, its kinds' numbers (:data:`_KINDS`), its
    counters and its gains (``rows x kinds``, raveled).

    A batch joins by one concatenation of its boards' records and two compiled passes (:func:`_join_plan`,
    :func:`_join_fill`).
    A board of at most :data:`RECORD_KEPT_CELLS` counter cells keeps its record (the parts after its packed
    buffer as one array) in its instance dict (key :data:`solver.board.STACK`, dropped by every derived board),
    so stacking it again costs one lookup and a concatenation of two arrays; a larger board's record is views of
    its own arrays, copied once by the concatenation.
    """
    state = board.__dict__
    out: tuple[IntArray, ...] | None = state.get(STACK)
    if out is not None:
        return out
    numbers = _kind_numbers(board.kinds)
    counts = board.counts
    parts = (np.array([len(numbers)], dtype=np.int64), numbers, counts.reshape(-1), effects.gain(board).reshape(-1))
    if counts.size > RECORD_KEPT_CELLS:  # views of its own arrays: the counters are joined apart when alone
        for view in parts[2:]:
            view.flags.writeable = False  # one type for the compiled join, whatever the board's arrays
        return (board.layout.packed, *parts)
    tail = np.concatenate(parts)
    tail.flags.writeable = False
    out = state[STACK] = (board.layout.packed, tail)
    return out


@njit(cache=True)
def _join_plan(
    buf: IntArray, apart: bool, n_boards: int, n_known: int, special_numbers: IntArray
) -> tuple[IntArray, ...]:
    """The first pass of a join over ``n_boards`` stack records (:func:`record`) concatenated in ``buf``: each
    board's numbers, where its record starts, its rows', thresholds', teams', counter values' and kinds'
    offsets in the batch, the batch's kinds (each kind's number below ``n_known``, in order of first
    appearance), each board's kind columns in the batch's, the columns of :data:`SPECIAL`, and the number of
    kinds, the poison column and whether every board has the batch's kinds in order.  With ``apart`` a
    record stops after its kinds (:func:`_join_fill`).
    """
    nf, rf, tf, mf = len(NUMBER_FIELDS), len(ROW_FIELDS), len(THRESHOLD_FIELDS), len(TEAM_FIELDS)
    numbers = np.empty((n_boards, nf), dtype=np.int64)
    obj_off = np.zeros(n_boards + 1, dtype=np.int64)
    thr_off = np.zeros(n_boards + 1, dtype=np.int64)
    team_off = np.zeros(n_boards + 1, dtype=np.int64)
    cv_off = np.zeros(n_boards + 1, dtype=np.int64)
    starts = np.empty(n_boards, dtype=np.int64)
    widths = np.empty(n_boards, dtype=np.int64)
    kind_off = np.zeros(n_boards + 1, dtype=np.int64)
    column_of = np.full(n_known, -1, dtype=np.int64)
    union = np.empty(n_known, dtype=np.int64)
    n_kinds = 0
    at = 0
    for b in range(n_boards):
        starts[b] = at
        for k in range(nf):
            numbers[b, k] = buf[at + k]
        n, n_thr, n_teams, n_cv = (
            numbers[b, N_OBJECTS],
            numbers[b, N_THRESHOLDS],
            numbers[b, N_TEAMS],
            numbers[b, N_VALUES],
        )
        obj_off[b + 1] = obj_off[b] + n
        thr_off[b + 1] = thr_off[b] + n_thr
        team_off[b + 1] = team_off[b] + n_teams
        cv_off[b + 1] = cv_off[b] + n_cv
        at += nf + (rf + 1) * n + tf * n_thr + mf * n_teams + 3 * n_cv
        w = buf[at]
        widths[b] = w
        kind_off[b + 1] = kind_off[b] + w
        for j in range(w):
            number = buf[at + 1 + j]
            if column_of[number] < 0:
                column_of[number] = n_kinds
                union[n_kinds] = number
                n_kinds += 1
        at += 1 + w + (0 if apart else 2 * n * w)
    colmap = np.empty(kind_off[n_boards], dtype=np.int64)
    same = True  # every board has the batch's kinds, in the batch's order
    for b in range(n_boards):
        k_at = starts[b] + nf + (rf + 1) * numbers[b, N_OBJECTS] + tf * numbers[b, N_THRESHOLDS]
        k_at += mf * numbers[b, N_TEAMS] + 3 * numbers[b, N_VALUES] + 1
        same = same and widths[b] == n_kinds
        for j in range(widths[b]):
            col = column_of[buf[k_at + j]]
            colmap[kind_off[b] + j] = col
            same = same and col == j
    special = np.full(len(special_numbers), -1, dtype=np.int64)  # SPECIAL's columns
    for k in range(len(special_numbers)):
        if 0 <= special_numbers[k] < n_known:
            special[k] = column_of[special_numbers[k]]
    poison = special[len(special) - 1]
    flags = np.array([n_kinds, poison, 1 if same else 0], dtype=np.int64)
    return (
        numbers, obj_off, thr_off, team_off, cv_off, starts, widths, kind_off, union[:n_kinds].copy(), colmap,
        special, flags,
    )  # fmt: skip


@njit(cache=True)
def _join_fill(
    buf: IntArray,
    counts_apart: IntArray,
    gain_apart: IntArray,
    numbers: IntArray,
    obj_off: IntArray,
    thr_off: IntArray,
    team_off: IntArray,
    cv_off: IntArray,
    starts: IntArray,
    widths: IntArray,
    kind_off: IntArray,
    colmap: IntArray,
    poison: int,
    ints: IntArray,
    value: IntArray,
    thresholds: IntArray,
    teams: IntArray,
    cv_cells: IntArray,
    cv_value: IntArray,
    counts: IntArray,
    gain: IntArray,
    head_gain: IntArray,
) -> None:
    """The second pass of a join (:func:`_join_plan` the first), into the arrays given (allocated by the caller,
    so that numpy's large-array pages serve the big ones): rows, threshold rows and kinds, and counter-value
    cells moved to the batch's (seats stay local), each board's counters and gains in the batch's columns
    (copied whole where its columns are the batch's).  701.34b: a shared-poison head's poison gain is what it
    receives as its team's recipient (``head_gain``), not its own.  A single large board's counters and gains
    may be given apart (``counts_apart``, ``gain_apart``: raveled, its record in ``buf`` then stops after its
    kinds), so that they are not copied into ``buf`` first.
    """
    apart = len(counts_apart) > 0
    nf, rf, tf, mf = len(NUMBER_FIELDS), len(ROW_FIELDS), len(THRESHOLD_FIELDS), len(TEAM_FIELDS)
    n_boards = len(starts)
    n_rows, n_kinds = counts.shape
    flat_counts, flat_gain = counts.reshape(-1), gain.reshape(-1)
    for b in range(n_boards):
        n, lo = numbers[b, N_OBJECTS], obj_off[b]
        at = starts[b] + nf
        for r in range(rf):
            for i in range(n):
                ints[r, lo + i] = buf[at + i]
            at += n
        for i in range(n):
            value[lo + i] = buf[at + i]
        at += n
        n_thr, t_lo = numbers[b, N_THRESHOLDS], thr_off[b]
        for r in range(tf):
            for i in range(n_thr):
                thresholds[r, t_lo + i] = buf[at + i]
            at += n_thr
        for i in range(t_lo, t_lo + n_thr):
            thresholds[0, i] += lo
            thresholds[1, i] = colmap[kind_off[b] + thresholds[1, i]]
        n_teams, m_lo = numbers[b, N_TEAMS], team_off[b]
        for r in range(mf):
            for i in range(n_teams):
                teams[r, m_lo + i] = buf[at + i]
            at += n_teams
        n_cv, c_lo = numbers[b, N_VALUES], cv_off[b]
        for i in range(n_cv):
            cv_cells[c_lo + i] = (lo + buf[at + i]) * n_kinds + colmap[kind_off[b] + buf[at + n_cv + i]]
            cv_value[c_lo + i] = buf[at + 2 * n_cv + i]
        at += 3 * n_cv
        w = widths[b]
        at += 1 + w
        own = w == n_kinds  # the board's columns are the batch's, in order: its tables are copied whole
        for j in range(w):
            own = own and colmap[kind_off[b] + j] == j
        if not own:
            for i in range(lo * n_kinds, (lo + n) * n_kinds):
                flat_counts[i] = 0
                flat_gain[i] = 0
        if apart:
            if own:
                for i in range(n * w):
                    flat_counts[lo * n_kinds + i] = counts_apart[i]
                    flat_gain[lo * n_kinds + i] = gain_apart[i]
            else:
                for i in range(n):
                    for j in range(w):
                        col = colmap[kind_off[b] + j]
                        counts[lo + i, col] = counts_apart[i * w + j]
                        gain[lo + i, col] = gain_apart[i * w + j]
        else:
            g_at = at + n * w
            if own:
                for i in range(n * w):
                    flat_counts[lo * n_kinds + i] = buf[at + i]
                    flat_gain[lo * n_kinds + i] = buf[g_at + i]
            else:
                for i in range(n):
                    for j in range(w):
                        col = colmap[kind_off[b] + j]
                        counts[lo + i, col] = buf[at + i * w + j]
                        gain[lo + i, col] = buf[g_at + i * w + j]
    for i in range(n_rows):
        head_gain[i] = 0
    if poison >= 0:
        for i in range(n_rows):
            if ints[R_SHARED_HEAD, i] != 0:
                head_gain[i] = gain[i, poison]
                gain[i, poison] = 0


@njit(cache=True)
def _join_records(buf: IntArray, n_boards: int, n_known: int, special_numbers: IntArray) -> tuple[IntArray, ...]:
    """A join in one compiled call (:func:`_join_plan`, the arrays, :func:`_join_fill`): a batch's records all in
    ``buf``, its tables allocated here (a chunk's are far below the size huge pages serve)."""
    (numbers, obj_off, thr_off, team_off, cv_off, starts, widths, kind_off, union, colmap, special,
     flags) = _join_plan(buf, False, n_boards, n_known, special_numbers)  # fmt: skip
    n_rows, n_kinds = obj_off[n_boards], flags[0]
    ints = np.empty((len(ROW_FIELDS), n_rows), dtype=np.int64)
    value = np.empty(n_rows, dtype=np.int64)
    thresholds = np.empty((len(THRESHOLD_FIELDS), thr_off[n_boards]), dtype=np.int64)
    teams = np.empty((len(TEAM_FIELDS), team_off[n_boards]), dtype=np.int64)
    cv_cells = np.empty(cv_off[n_boards], dtype=np.int64)
    cv_value = np.empty(cv_off[n_boards], dtype=np.int64)
    counts = np.empty((n_rows, n_kinds), dtype=np.int64)
    gain = np.empty((n_rows, n_kinds), dtype=np.int64)
    head_gain = np.empty(n_rows, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    _join_fill(
        buf, none, none, numbers, obj_off, thr_off, team_off, cv_off, starts, widths, kind_off, colmap, flags[1],
        ints, value, thresholds, teams, cv_cells, cv_value, counts, gain, head_gain,
    )  # fmt: skip
    return (
        numbers, obj_off, thr_off, team_off, ints, value, thresholds, teams, cv_cells, cv_value, counts, gain,
        head_gain, union, colmap, widths, flags, special,
    )  # fmt: skip


@njit(cache=True)
def _policy_rows(
    kind_weights: IntArray,
    same: bool,
    sizes: IntArray,
    widths: IntArray,
    colmap: IntArray,
    cv_cells: IntArray,
    cv_value: FloatArray,
    shared_head: IntArray,
    poison: int,
    code: IntArray,
    value: FloatArray,
    pt_sum: IntArray,
    creature_base: float,
    saga_value: float,
) -> tuple[IntArray, IntArray]:
    """The policy's per-row tables, in milli-points: the weights of counters and each row's worth.

    Weights are rows x the batch's kinds: each row's own board's kinds at the policy's weight
    (``kind_weights`` per batch column; every column if ``same``, else board ``b``'s column ``j`` is
    ``colmap[sum(widths[:b]) + j]``), a row's own override where it has one (``cv_cells``, flat, and
    ``cv_value`` in points), none on a shared-poison head's poison (701.34b: the team's counter is its
    recipient's), 0 elsewhere.  A row's worth is its own value, else a creature's (the policy's base +
    (power + toughness) / 2) or a Saga's by the policy, else nothing (:data:`solver.board.WORTH_NONE`...).
    """
    n = len(code)
    n_kinds = len(kind_weights)
    weights = np.zeros((n, n_kinds), dtype=np.int64)
    if same:
        for i in range(n):
            for j in range(n_kinds):
                weights[i, j] = kind_weights[j]
    else:
        row = 0
        kind_at = 0
        for b in range(len(sizes)):
            w = widths[b]
            for _ in range(sizes[b]):
                for j in range(w):
                    col = colmap[kind_at + j]
                    weights[row, col] = kind_weights[col]
                row += 1
            kind_at += w
    for c in range(len(cv_cells)):
        weights[cv_cells[c] // n_kinds, cv_cells[c] % n_kinds] = np.rint(cv_value[c] * 1000.0)
    if poison >= 0:
        for i in range(n):
            if shared_head[i]:
                weights[i, poison] = 0
    worth = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if code[i] == WORTH_VALUE:
            worth[i] = np.rint(value[i] * 1000.0)
        elif code[i] == WORTH_CREATURE:
            worth[i] = np.rint((creature_base + pt_sum[i] / 2) * 1000.0)
        elif code[i] == WORTH_SAGA:
            worth[i] = np.rint(saga_value * 1000.0)
    return weights, worth


#: The kind numbers of :data:`SPECIAL` (-1 for a kind not numbered yet), once every one of them is numbered.
_SPECIAL_NUMBERS: list[IntArray] = []


def _special_numbers(n_known: int) -> IntArray:
    """The numbers in :data:`_KINDS` of the kinds of :data:`SPECIAL`, -1 for those not numbered (of ``n_known``)."""
    if _SPECIAL_NUMBERS:
        return _SPECIAL_NUMBERS[0]
    numbers = [_KINDS.number.get(kind, -1) for kind in SPECIAL]
    out = np.array([k if k < n_known else -1 for k in numbers], dtype=np.int64)
    if min(numbers) >= 0 and max(numbers) < n_known:
        _SPECIAL_NUMBERS.append(out)
    return out


def join(boards: Sequence[Board]) -> Joined:
    """The boards' arrays in one layout, with no per-board Python beyond the join.

    The boards' stack records (:func:`record`: each board's packed buffer, kinds, counters and
    gains) join by one concatenation and two compiled passes (:func:`_join_plan`, :func:`_join_fill`), which put
    every board's counters in the batch's columns (the kinds of all, in order of first appearance).
    """
    return join_records([record(board) for board in boards])


def join_records(records: Sequence[tuple[IntArray, ...]]) -> Joined:
    """:func:`join` of the boards whose stack records (:func:`record`) are ``records``."""
    n_boards = len(records)
    names = _KINDS.names
    counts_apart = gain_apart = _NONE_READ_ONLY
    if n_boards == 1 and len(records[0]) == 5:  # a large board alone: its counters are read where they are
        packed, width, numbers_, counts_apart, gain_apart = records[0]
        buf = np.concatenate((packed, width, numbers_))
    else:
        buf = np.concatenate([part for parts in records for part in parts]) if records else _NONE
    if len(counts_apart) == 0:  # a batch: one compiled call
        (numbers, obj_off, thr_off, team_off, ints, value, thresholds, teams, cv_cells, cv_value, counts, gain,
         head_gain, union, colmap, widths, flags, special) = _join_records(
            buf, n_boards, len(names), _special_numbers(len(names))
        )  # fmt: skip
    else:  # a large board alone: its tables are numpy's, on huge pages (not faulted in 4 KiB at a time)
        (numbers, obj_off, thr_off, team_off, cv_off, starts, widths, kind_off, union, colmap, special,
         flags) = _join_plan(buf, True, n_boards, len(names), _special_numbers(len(names)))  # fmt: skip
        n_rows, n_kinds = int(obj_off[-1]), int(flags[0])
        ints = np.empty((len(ROW_FIELDS), n_rows), dtype=np.int64)
        value = np.empty(n_rows, dtype=np.int64)
        thresholds = np.empty((len(THRESHOLD_FIELDS), int(thr_off[-1])), dtype=np.int64)
        teams = np.empty((len(TEAM_FIELDS), int(team_off[-1])), dtype=np.int64)
        cv_cells = np.empty(int(cv_off[-1]), dtype=np.int64)
        cv_value = np.empty(int(cv_off[-1]), dtype=np.int64)
        counts = np.empty((n_rows, n_kinds), dtype=np.int64)
        gain = np.empty((n_rows, n_kinds), dtype=np.int64)
        head_gain = np.empty(n_rows, dtype=np.int64)
        _join_fill(
            buf, counts_apart, gain_apart, numbers, obj_off, thr_off, team_off, cv_off, starts, widths, kind_off,
            colmap, int(flags[1]), ints, value, thresholds, teams, cv_cells, cv_value, counts, gain, head_gain,
        )  # fmt: skip
    poison = int(flags[1])
    kinds = tuple([names[k] for k in union.tolist()])
    same = bool(flags[2])
    joined = object.__new__(Joined)  # like Layout (see with_policy): no generated __init__ per field
    joined.__dict__.update(
        obj_off=obj_off,
        thr_off=thr_off,
        team_off=team_off,
        numbers=numbers,
        ints=ints,
        value=value.view(np.float64),
        counts=counts,
        gain=gain,
        head_gain=head_gain,
        columns=None if same else (np.ascontiguousarray(numbers[:, N_OBJECTS]), widths, colmap),
        cv_cells=cv_cells,
        cv_value=cv_value.view(np.float64),
        thresholds=thresholds,
        teams=teams,
        kinds=kinds,
        kind_numbers=union,
        special=special,
        poison=poison,
    )
    return joined


def _per_opponents(policy: Policy, values: IntArray) -> tuple[FloatArray, FloatArray]:
    """The policy's elimination score and score gap (:meth:`Policy.elimination_score`, :meth:`Policy.score_gap`)
    for each number of opponents of ``values``, read from tables the policy keeps (0 to the most asked for)."""
    most = int(values.max()) if len(values) else 0
    tables: tuple[FloatArray, FloatArray] | None = policy.__dict__.get("_per_opponents")
    if tables is None or len(tables[0]) <= most:
        size = max(most + 1, 8)
        tables = (
            np.fromiter(map(policy.elimination_score, range(size)), dtype=np.float64, count=size),
            np.fromiter(map(policy.score_gap, range(size)), dtype=np.float64, count=size),
        )
        policy.__dict__["_per_opponents"] = tables  # the policy is immutable: kept with it, like its kind weights
    return tables[0][values], tables[1][values]


def _kind_row(kind: str) -> tuple[int, int]:
    """One kind's entries of :data:`_KINDS`' tables: toughness per counter (122.1a, :func:`solver.board.pt_table`)
    and presence-only (the catalogue)."""
    return int(pt_table((kind,))[0, 1]), int(default_spec(kind).presence_only)


class _Kinds:
    """Every kind this process has laid out, numbered in order of first sight, with its per-kind entries as
    arrays by number (toughness per counter, presence-only), so that a batch's entries are one index of them by
    its kinds' numbers (:attr:`Joined.kind_numbers`, from the boards' :func:`_kind_numbers`): a fresh board's
    kinds tuple is often new."""

    def __init__(self) -> None:
        self.number: dict[str, int] = {}
        self.names: list[str] = []
        self.tough = np.zeros(64, dtype=np.int64)
        self.presence = np.zeros(64, dtype=np.int64)
        self.lock = threading.Lock()

    def of(self, kind: str) -> int:
        number = self.number.get(kind)
        if number is not None:
            return number
        tough, presence = _kind_row(kind)
        with self.lock:
            number = self.number.get(kind)
            if number is None:
                number = len(self.names)
                if number == len(self.tough):  # grown by copies: a reader keeps a whole older table
                    self.tough = np.concatenate([self.tough, np.zeros_like(self.tough)])
                    self.presence = np.concatenate([self.presence, np.zeros_like(self.presence)])
                self.tough[number], self.presence[number] = tough, presence
                self.names.append(kind)
                self.number[kind] = number
        return number


_KINDS = _Kinds()


@lru_cache(maxsize=1024)
def _kind_numbers(kinds: tuple[str, ...]) -> IntArray:
    """The numbers of a kinds tuple's kinds in :data:`_KINDS` (read-only)."""
    out = np.fromiter(map(_KINDS.of, kinds), dtype=np.int64, count=len(kinds))
    out.flags.writeable = False
    return out


def _kind_milli(policy: Policy, numbers: IntArray) -> IntArray:
    """The policy's weight (:meth:`Policy.weight`) in milli-points of each kind of ``numbers`` (:data:`_KINDS`),
    from a table by kind number the policy keeps, extended to the kinds it has not seen."""
    table: IntArray | None = policy.__dict__.get("_milli_by_kind")
    if table is None or len(table) < len(_KINDS.names):
        names = list(_KINDS.names)
        old = np.zeros(0, dtype=np.int64) if table is None else table
        new = _milli(np.fromiter(map(policy.weight, names[len(old) :]), dtype=np.float64, count=len(names) - len(old)))
        table = np.concatenate([old, new])
        policy.__dict__["_milli_by_kind"] = table  # the policy is immutable: kept with it
    out: IntArray = table[numbers]
    return out


def _policy_numbers(policy: Policy) -> tuple[float, float, float, float, int, int]:
    """The policy's game scores (win, draw, loss, game weight), its poison weight and its Saga chapter's worth in
    milli-points, kept with the (immutable) policy."""
    found: tuple[float, float, float, float, int, int] | None = policy.__dict__.get("_layout_numbers")
    if found is None:
        found = (
            policy.win, policy.draw, policy.loss, policy.game_weight,
            round(1000.0 * policy.weight("poison")), round(1000.0 * policy.saga_chapter),
        )  # fmt: skip
        policy.__dict__["_layout_numbers"] = found
    return found


def with_policy(joined: Joined, policy: Policy) -> Layout:
    """The layout of joined boards under ``policy``: its tables applied over the whole batch at once."""
    J = joined
    kinds = J.kinds
    ints = J.ints
    numbers = J.kind_numbers
    sizes, widths, colmap = J.columns or (_NONE, _NONE, _NONE)
    win, draw, loss, game_weight, poison_milli, saga_chapter = _policy_numbers(policy)
    weights, worth = _policy_rows(
        _kind_milli(policy, numbers), J.columns is None, sizes, widths, colmap, J.cv_cells, J.cv_value,
        ints[R_SHARED_HEAD], J.poison, ints[R_WORTH], J.value, ints[R_PT_SUM], policy.creature_base,
        policy.saga_value,
    )  # fmt: skip
    per_board = np.ascontiguousarray(J.numbers.T)  # each number of every board, contiguous
    n_opponents = per_board[N_OPPONENTS]
    teams = J.teams
    thr = J.thresholds
    elimination, gap = _per_opponents(policy, n_opponents)
    # Filled like :class:`solver.board.Board` rather than through the generated ``__init__`` (39 frozen fields).
    layout = object.__new__(Layout)
    layout.__dict__.update(
        obj_off=J.obj_off,
        thr_off=J.thr_off,
        team_off=J.team_off,
        n_players=per_board[N_PLAYERS],
        rounds=per_board[N_ROUNDS],
        proliferator=per_board[N_PROLIFERATOR],
        shared=per_board[N_SHARED],
        poison_loses=per_board[N_POISON_LOSES],
        n_opponents=n_opponents,
        elimination=elimination,
        gap=gap,
        counts=J.counts,
        gain=J.gain,
        weights=weights,
        flags=ints[R_FLAGS],
        toughness=ints[R_TOUGHNESS],
        damage=ints[R_DAMAGE],
        chapters=ints[R_CHAPTERS],
        life=ints[R_LIFE],
        worth=worth,
        side=ints[R_SIDE],
        seat=ints[R_SEAT],
        team=ints[R_TEAM],
        head_gain=J.head_gain,
        thr_row=thr[0],
        thr_kind=thr[1],
        thr_at=thr[2],
        thr_code=thr[3],
        thr_amount=thr[4],
        thr_seat=thr[5],
        team_threshold=teams[0],
        team_weight=teams[1] * poison_milli,  # milli-points, signed for the proliferator
        kinds=kinds,
        tough_delta=_KINDS.tough[numbers],
        presence=_KINDS.presence[numbers],
        special=J.special,
        policy_scores=np.array([win, draw, loss, game_weight], dtype=np.float64),
        saga_chapter=saga_chapter,
        numbers=per_board,
        ints=ints,
        thresholds=thr,
    )
    return layout


def stack(boards: Sequence[Board], policy: Policy) -> Layout:
    """The boards in one layout under ``policy``: :func:`join`, then :func:`with_policy`."""
    return with_policy(join(boards), policy)
