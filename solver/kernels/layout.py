"""The one layout the kernels read: a batch of boards as plain arrays, a board being a batch of one.

Rows are objects, each board's players first, boards one after another (``obj_off[b]`` is
board ``b``'s first row).  Counters are one dense ``rows x kinds`` int64 table over the kinds of
the whole batch.  Values are integer milli-points (1/1000 point), read once from the policy:
exact sums, the same whatever the batch or its order.  The variant is data (:data:`VARIANTS`):
the kernels never ask which variant a board is, only what its table says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

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
    N_KINDS,
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
    #: The flat cells (row x kinds + column) of each row's own board's kinds; None when every board has every kind.
    cells: IntArray | None
    cv_cells: IntArray  # flat cells of the counter-value overrides
    cv_value: FloatArray
    #: ``(len(THRESHOLD_FIELDS), n_thresholds)``, rows and kinds the batch's, seats the board's.
    thresholds: IntArray
    #: ``(len(TEAM_FIELDS), n_teams)``.
    teams: IntArray
    kinds: tuple[str, ...]
    poison: int  # the batch's poison column, -1 if none


def _cat(parts: list[np.ndarray], axis: int, empty: tuple[int, ...], dtype: type) -> np.ndarray:
    out: np.ndarray = np.concatenate(parts, axis=axis) if parts else np.zeros(empty, dtype=dtype)
    return out


def join(boards: Sequence[Board]) -> Joined:
    """The boards' arrays in one layout, with no per-board Python beyond the join.

    Boards with the same kinds tuple join by plain concatenation; otherwise every counter cell
    is moved to its batch column by one vectorised remap over the whole batch.
    """
    parts = [board.layout for board in boards]
    n_boards = len(parts)
    numbers = _cat([p.numbers for p in parts], 0, (0,), np.int64).reshape(n_boards, len(NUMBER_FIELDS))
    sizes = numbers[:, N_OBJECTS]
    obj_off = np.zeros(n_boards + 1, dtype=np.int64)
    np.cumsum(sizes, out=obj_off[1:])
    thr_off = np.zeros(n_boards + 1, dtype=np.int64)
    np.cumsum(numbers[:, N_THRESHOLDS], out=thr_off[1:])
    team_off = np.zeros(n_boards + 1, dtype=np.int64)
    np.cumsum(numbers[:, N_TEAMS], out=team_off[1:])
    n = int(obj_off[-1])
    ints = _cat([p.ints for p in parts], 1, (len(ROW_FIELDS), 0), np.int64)
    value = _cat([board.value for board in boards], 0, (0,), np.float64)
    counts_parts = [board.counts for board in boards]
    gain_parts = [effects.gain(board) for board in boards]

    first = boards[0].kinds if boards else ()
    same = all(board.kinds == first for board in boards)
    if same:
        kinds = first
        n_kinds = len(kinds)
        counts = _cat(counts_parts, 0, (0, n_kinds), np.int64)
        gain = _cat(gain_parts, 0, (0, n_kinds), np.int64)
        cells = None
    else:
        index: dict[str, int] = {}
        colmap = np.array(
            [index.setdefault(k, len(index)) for k in chain.from_iterable(b.kinds for b in boards)], dtype=np.int64
        )
        kinds = tuple(index)
        n_kinds = len(kinds)
        widths = numbers[:, N_KINDS]
        kind_off = np.zeros(n_boards + 1, dtype=np.int64)
        np.cumsum(widths, out=kind_off[1:])
        # Every cell of every board: its board, its local row and column, and so its batch cell.
        row_width = np.repeat(widths, sizes)
        row_of_cell = np.repeat(np.arange(n, dtype=np.int64), row_width)
        cell_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(row_width, out=cell_off[1:])
        local_col = np.arange(len(row_of_cell), dtype=np.int64) - cell_off[row_of_cell]
        board_of_row = np.repeat(np.arange(n_boards, dtype=np.int64), sizes)
        cells = row_of_cell * n_kinds + colmap[kind_off[board_of_row][row_of_cell] + local_col]
        counts = np.zeros(n * n_kinds, dtype=np.int64)
        gain = np.zeros(n * n_kinds, dtype=np.int64)
        if n_boards:
            counts[cells] = np.concatenate([c.reshape(-1) for c in counts_parts])
            gain[cells] = np.concatenate([g.reshape(-1) for g in gain_parts])
        counts = counts.reshape(n, n_kinds)
        gain = gain.reshape(n, n_kinds)

    def batch_column(owner: IntArray, local: IntArray) -> IntArray:
        """The batch's column of local kind column ``local`` of board ``owner``."""
        return local if same else colmap[kind_off[owner] + local]

    with_values = np.flatnonzero(numbers[:, N_VALUES])
    if len(with_values):
        n_cv = numbers[with_values, N_VALUES]
        owner = np.repeat(with_values, n_cv)
        cv_object = np.concatenate([boards[b].cv_object for b in with_values.tolist()])
        cv_kind = np.concatenate([boards[b].cv_kind for b in with_values.tolist()])
        cv_value = np.concatenate([boards[b].cv_value for b in with_values.tolist()])
        cv_cells = (cv_object + obj_off[owner]) * n_kinds + batch_column(owner, cv_kind)
    else:
        cv_cells = np.zeros(0, dtype=np.int64)
        cv_value = np.zeros(0, dtype=np.float64)

    thresholds = _cat([p.thresholds for p in parts], 1, (len(THRESHOLD_FIELDS), 0), np.int64)
    if thresholds.shape[1]:
        owner = np.repeat(np.arange(n_boards, dtype=np.int64), numbers[:, N_THRESHOLDS])
        thresholds[0] += obj_off[owner]
        thresholds[1] = batch_column(owner, thresholds[1])
    teams = _cat([p.teams for p in parts], 1, (len(TEAM_FIELDS), 0), np.int64)

    poison = kinds.index("poison") if "poison" in kinds else -1
    head_gain = np.zeros(n, dtype=np.int64)
    if poison >= 0:
        heads = ints[R_SHARED_HEAD] != 0
        if heads.any():  # 701.34b: a head's poison is what it receives as its team's recipient
            head_gain[heads] = gain[heads, poison]
            gain[heads, poison] = 0
    return Joined(
        obj_off=obj_off,
        thr_off=thr_off,
        team_off=team_off,
        numbers=numbers,
        ints=ints,
        value=value,
        counts=counts,
        gain=gain,
        head_gain=head_gain,
        cells=cells,
        cv_cells=cv_cells,
        cv_value=cv_value,
        thresholds=thresholds,
        teams=teams,
        kinds=kinds,
        poison=poison,
    )


def _per_count(values: IntArray, score: Callable[[int], float]) -> FloatArray:
    """``score(k)`` for each ``k`` of ``values``, called once per distinct value."""
    distinct = np.unique(values)
    table = np.array([score(k) for k in distinct.tolist()], dtype=np.float64)
    out: FloatArray = table[np.searchsorted(distinct, values)] if len(values) else np.zeros(0, dtype=np.float64)
    return out


def with_policy(joined: Joined, policy: Policy) -> Layout:
    """The layout of joined boards under ``policy``: its tables applied over the whole batch at once."""
    J = joined
    kinds = J.kinds
    n, n_kinds = J.counts.shape
    ints = J.ints
    numbers = J.numbers
    # milli-points per counter: the policy's per kind, a row's own override, none on a shared head's poison
    wf = np.zeros(n * n_kinds, dtype=np.float64)
    kind_w = policy.kind_weights(kinds)
    if J.cells is None:
        wf.reshape(n, n_kinds)[:] = kind_w
    else:
        wf[J.cells] = kind_w[J.cells % n_kinds] if n_kinds else 0.0
    if len(J.cv_cells):
        wf[J.cv_cells] = J.cv_value
    wf = wf.reshape(n, n_kinds)
    if J.poison >= 0:
        wf[ints[R_SHARED_HEAD] != 0, J.poison] = 0.0
    # a row's worth: its own value, else a creature's or a Saga's by the policy
    code = ints[R_WORTH]
    worth = np.where(code == WORTH_VALUE, J.value, 0.0)
    worth = np.where(code == WORTH_CREATURE, policy.creature_base + ints[R_PT_SUM] / 2, worth)
    worth = np.where(code == WORTH_SAGA, policy.saga_value, worth)
    n_opponents = numbers[:, N_OPPONENTS]
    teams = J.teams
    thr = J.thresholds
    table = pt_table(kinds)
    index = {k: i for i, k in enumerate(kinds)}
    return Layout(
        obj_off=J.obj_off,
        thr_off=J.thr_off,
        team_off=J.team_off,
        n_players=np.ascontiguousarray(numbers[:, N_PLAYERS]),
        rounds=np.ascontiguousarray(numbers[:, N_ROUNDS]),
        proliferator=np.ascontiguousarray(numbers[:, N_PROLIFERATOR]),
        shared=np.ascontiguousarray(numbers[:, N_SHARED]),
        poison_loses=np.ascontiguousarray(numbers[:, N_POISON_LOSES]),
        n_opponents=np.ascontiguousarray(n_opponents),
        elimination=_per_count(n_opponents, policy.elimination_score),
        gap=_per_count(n_opponents, policy.score_gap),
        counts=J.counts,
        gain=J.gain,
        weights=_milli(wf),
        flags=ints[R_FLAGS],
        toughness=ints[R_TOUGHNESS],
        damage=ints[R_DAMAGE],
        chapters=ints[R_CHAPTERS],
        life=ints[R_LIFE],
        worth=_milli(worth),
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
        team_weight=np.rint(1000.0 * (teams[1] * policy.weight("poison"))).astype(np.int64),
        kinds=kinds,
        tough_delta=np.ascontiguousarray(table[:, 1]),
        presence=np.array([default_spec(k).presence_only for k in kinds], dtype=np.int64),
        special=np.array([index.get(k, -1) for k in SPECIAL], dtype=np.int64),
        policy_scores=np.array([policy.win, policy.draw, policy.loss, policy.game_weight], dtype=np.float64),
        saga_chapter=int(_milli(policy.saga_chapter)),
    )


def stack(boards: Sequence[Board], policy: Policy) -> Layout:
    """The boards in one layout under ``policy``: :func:`join`, then :func:`with_policy`."""
    return with_policy(join(boards), policy)
