"""The one layout the kernels read: a batch of boards as plain arrays, a board being a batch of one.

Rows are objects, each board's players first, boards one after another (``obj_off[b]`` is
board ``b``'s first row).  Counters are one dense ``rows x kinds`` int64 table over the kinds of
the whole batch.  Values are integer milli-points (1/1000 point), read once from the policy:
exact sums, the same whatever the batch or its order.  The variant is data (:data:`VARIANTS`):
the kernels never ask which variant a board is, only what its table says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import effects
from ..board import Board, CardType, IntArray
from ..catalogue import default_spec
from ..policy import Policy
from ..terms import Variant

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
    "VARIANTS",
    "Layout",
    "VariantRules",
    "stack",
]

#: Per-row flag bits.
F_PLAYER = 1
F_PRESENT = 2  # a permanent that is phased in
F_CREATURE = 4
F_DESTRUCTIBLE = 8  # a creature without indestructible
F_PLANESWALKER = 16
F_BATTLE = 32
F_SAGA = 64
F_PHASED_OUT = 128

#: The kinds the rules name, in the order of :attr:`Layout.special` (-1 where the batch has none).
SPECIAL = ("+1/+1", "-1/-1", "loyalty", "defense", "lore", "poison")

#: Threshold effects as codes: a number of points, a win or a loss for the controller.
THR_POINTS, THR_WIN, THR_LOSE = 0, 1, 2


@dataclass(frozen=True)
class VariantRules:
    """What a variant changes in the rules, as data (810 for Two-Headed Giant).

    ``seats_are_teams``: a team wins or loses together (810.8a), else each player is a seat;
    ``shared_poison``: poison counters are the team's (810.10, 704.6b), else each player's
    (704.5c); ``poison_threshold`` and ``extra_head_poison``: poison at which a seat loses, and
    how much more per head beyond two (810.11); ``starting_life`` (103.4, 810.3).
    """

    seats_are_teams: bool
    shared_poison: bool
    poison_threshold: int
    extra_head_poison: int
    starting_life: int


VARIANTS: dict[Variant, VariantRules] = {
    Variant.DUEL: VariantRules(False, False, 10, 0, 20),
    Variant.FREE_FOR_ALL: VariantRules(False, False, 10, 0, 20),
    Variant.TWO_HEADED_GIANT: VariantRules(True, True, 15, 5, 30),
}


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


def stack(boards: Sequence[Board], policy: Policy) -> Layout:
    """The boards in one layout (the kinds of all, in order of first appearance).

    Per board only its column map and a few Python numbers are worked out; every per-row
    array is built by one numpy call over the concatenated boards.
    """
    from ..board import SbaMasks, pt_table

    kinds: dict[str, int] = {}
    maps = [np.array([kinds.setdefault(k, len(kinds)) for k in board.kinds], dtype=np.int64) for board in boards]
    n_kinds = len(kinds)
    sizes = np.array([b.n_objects for b in boards], dtype=np.int64)
    obj_off = np.zeros(len(boards) + 1, dtype=np.int64)
    np.cumsum(sizes, out=obj_off[1:])
    n = int(obj_off[-1])

    def cat(name: str, dtype: type) -> np.ndarray:
        return np.concatenate([getattr(b, name) for b in boards]) if boards else np.zeros(0, dtype=dtype)

    cells: list[IntArray] = []
    count_parts: list[IntArray] = []
    gain_parts: list[IntArray] = []
    weight_parts: list[np.ndarray] = []
    over_cells: list[IntArray] = []
    over_values: list[np.ndarray] = []
    head_rows: list[int] = []
    head_gains: list[int] = []
    zero_cells: list[int] = []
    seat = np.full(n, -1, dtype=np.int64)
    team = np.full(n, -1, dtype=np.int64)
    life = np.ones(n, dtype=np.int64)
    side_parts: list[np.ndarray] = []
    is_player = np.zeros(n, dtype=bool)
    per_board: list[tuple[int, ...]] = []
    elimination, gap = [], []
    thr_parts: list[tuple[IntArray, ...]] = []
    thr_off = [0]
    team_off = [0]
    team_threshold: list[int] = []
    team_weight: list[int] = []
    poison_w = policy.weight("poison")
    for b, board in enumerate(boards):
        lo = int(obj_off[b])
        cols = maps[b]
        rules = VARIANTS[board.variant]
        players = board.n_players
        poison = board.kind_column("poison")
        shared = rules.shared_poison and poison >= 0
        idx = ((np.arange(lo, lo + board.n_objects, dtype=np.int64) * n_kinds)[:, None] + cols).ravel()
        cells.append(idx)
        count_parts.append(board.counts.ravel())
        gain_parts.append(effects.gain(board).ravel())
        weight_parts.append(np.tile(policy.kind_weights(board.kinds), board.n_objects))
        if len(board.cv_object):
            over_cells.append((board.cv_object + lo) * n_kinds + cols[board.cv_kind])
            over_values.append(board.cv_value)
        if shared:
            pcol = int(cols[poison])
            for i in range(players):
                head_rows.append(lo + i)
                head_gains.append(int(effects.gain(board)[i, poison]))
                zero_cells.append((lo + i) * n_kinds + pcol)
        player_team = board.team
        seats = player_team if rules.seats_are_teams else np.arange(players, dtype=np.int64)
        seat[lo : lo + players] = seats
        team[lo : lo + players] = player_team
        life[lo : lo + players] = board.life
        is_player[lo : lo + players] = True
        side_parts.append(board.is_ally)
        seat_list, team_list = seats.tolist(), player_team.tolist()
        ours = team_list[board.proliferator]
        n_opp = len({s for s, t in zip(seat_list, team_list, strict=True) if t != ours})
        elimination.append(policy.elimination_score(n_opp))
        gap.append(policy.score_gap(n_opp))
        per_board.append((players, board.rounds, board.proliferator, int(shared), int(not rules.shared_poison), n_opp))
        sizes_of_team = [team_list.count(t) for t in range(board.n_teams)]
        extra = rules.extra_head_poison if rules.shared_poison else 0
        team_threshold.extend(rules.poison_threshold + extra * max(k - 2, 0) for k in sizes_of_team)
        team_weight.extend(round(1000.0 * ((1.0 if t == ours else -1.0) * poison_w)) for t in range(board.n_teams))
        team_off.append(team_off[-1] + board.n_teams)
        nt = len(board.thr_object)
        thr_off.append(thr_off[-1] + nt)
        if nt:
            code = np.array(
                [THR_WIN if e == "win" else THR_LOSE if e == "lose" else THR_POINTS for e in board.thr_effect],
                dtype=np.int64,
            )
            amount = np.array([0.0 if isinstance(e, str) else float(e) for e in board.thr_effect])
            owner = board.controller[board.thr_object]
            thr_parts.append(
                (board.thr_object + lo, cols[board.thr_kind], board.thr_at, code, _milli(amount), seats[owner])
            )
    flat = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
    counts = np.zeros(n * n_kinds, dtype=np.int64)
    gain = np.zeros(n * n_kinds, dtype=np.int64)
    wf = np.zeros(n * n_kinds, dtype=np.float64)
    if boards:
        counts[flat] = np.concatenate(count_parts)
        gain[flat] = np.concatenate(gain_parts)
        wf[flat] = np.concatenate(weight_parts)
    if over_cells:
        wf[np.concatenate(over_cells)] = np.concatenate(over_values)
    if zero_cells:
        wf[zero_cells] = 0.0
        gain[zero_cells] = 0
    head_gain = np.zeros(n, dtype=np.int64)
    head_gain[head_rows] = head_gains
    types, chapters = cat("types", np.int64), cat("chapters", np.int64)
    power, toughness = cat("power", np.int64), cat("toughness", np.int64)
    phased = cat("phased_out", np.bool_)
    masks = SbaMasks.build(is_player, phased, types, cat("indestructible", np.bool_), chapters)
    flags = np.where(is_player, F_PLAYER, 0) | np.where(masks.present, F_PRESENT, 0)
    flags |= np.where(masks.creature, F_CREATURE, 0) | np.where(masks.destructible, F_DESTRUCTIBLE, 0)
    flags |= np.where(masks.planeswalker, F_PLANESWALKER, 0) | np.where(masks.battle, F_BATTLE, 0)
    flags |= np.where(masks.saga, F_SAGA, 0) | np.where(phased, F_PHASED_OUT, 0)
    value = cat("value", np.float64)
    default = np.where(
        (types & int(CardType.CREATURE)) != 0,
        policy.creature_base + (power + toughness) / 2,
        np.where(chapters > 0, policy.saga_value, 0.0),
    )
    worth = np.where(is_player, 0.0, np.where(np.isnan(value), default, value))
    side = np.where(np.concatenate(side_parts), 1, -1) if boards else np.zeros(0, dtype=np.int64)
    table = pt_table(tuple(kinds))
    presence = np.array([default_spec(k).presence_only for k in kinds], dtype=np.int64)
    pb = np.array(per_board, dtype=np.int64).reshape(len(boards), 6)
    thr = [np.concatenate([p[j] for p in thr_parts]) if thr_parts else np.zeros(0, np.int64) for j in range(6)]
    return Layout(
        obj_off=obj_off,
        thr_off=np.array(thr_off, dtype=np.int64),
        team_off=np.array(team_off, dtype=np.int64),
        n_players=np.ascontiguousarray(pb[:, 0]),
        rounds=np.ascontiguousarray(pb[:, 1]),
        proliferator=np.ascontiguousarray(pb[:, 2]),
        shared=np.ascontiguousarray(pb[:, 3]),
        poison_loses=np.ascontiguousarray(pb[:, 4]),
        n_opponents=np.ascontiguousarray(pb[:, 5]),
        elimination=np.array(elimination, dtype=np.float64),
        gap=np.array(gap, dtype=np.float64),
        counts=counts.reshape(n, n_kinds),
        gain=gain.reshape(n, n_kinds),
        weights=_milli(wf).reshape(n, n_kinds),
        flags=flags.astype(np.int64),
        toughness=toughness,
        damage=cat("damage", np.int64),
        chapters=chapters,
        life=life,
        worth=_milli(worth),
        side=side.astype(np.int64),
        seat=seat,
        team=team,
        head_gain=head_gain,
        thr_row=thr[0].astype(np.int64),
        thr_kind=thr[1].astype(np.int64),
        thr_at=thr[2].astype(np.int64),
        thr_code=thr[3].astype(np.int64),
        thr_amount=thr[4].astype(np.int64),
        thr_seat=thr[5].astype(np.int64),
        team_threshold=np.array(team_threshold, dtype=np.int64),
        team_weight=np.array(team_weight, dtype=np.int64),
        kinds=tuple(kinds),
        tough_delta=np.ascontiguousarray(table[:, 1]),
        presence=presence,
        special=np.array([kinds.get(k, -1) for k in SPECIAL], dtype=np.int64),
        policy_scores=np.array([policy.win, policy.draw, policy.loss, policy.game_weight], dtype=np.float64),
        saga_chapter=int(_milli(policy.saga_chapter)),
    )
