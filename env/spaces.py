"""Slots, observation arrays and masks: how a solver board is shown to a policy.

A policy needs fixed shapes, so objects go into ``slots`` rows: player slots first (one
per seat of the variant, relative to the acting seat: self, teammate, then opponents in
turn order), then permanents grouped by their controller in that same order and, within
a controller, by board row (the order they entered, which never changes while they stay).
The order is relative so that "slot 0 is me" holds for every seat, which lets one policy
play any seat.  Counter kinds go into a fixed vocabulary plus an "other" bucket; the raw
board stays available through the env for anyone who needs every kind.

Everything here is per board state and is computed once per decision (:class:`View`);
every call that returns data copies it, because Gymnasium 1.x requires new arrays on
every ``reset``/``step``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from solver.core import Board, CardType, Variant, eligible_mask

__all__ = [
    "KIND_VOCABULARY",
    "N_GLOBALS",
    "N_KINDS",
    "N_RELATIONS",
    "N_STATS",
    "N_TYPES",
    "RELATION_NAMES",
    "TYPE_NAMES",
    "VARIANTS",
    "View",
    "maskable",
    "observation_space",
    "relation_codes",
    "seat_order",
]

#: Counter kinds with their own column, in column order; everything else adds to "other".
KIND_VOCABULARY: tuple[str, ...] = (
    "+1/+1",
    "-1/-1",
    "poison",
    "loyalty",
    "energy",
    "experience",
    "charge",
    "shield",
    "stun",
    "oil",
    "lore",
    "defense",
    "time",
)
N_KINDS = len(KIND_VOCABULARY) + 1
TYPE_NAMES: tuple[str, ...] = (
    "empty",
    "player",
    "creature",
    "planeswalker",
    "battle",
    "saga",
    "artifact",
    "enchantment",
    "land",
    "other",
)
N_TYPES = len(TYPE_NAMES)
RELATION_NAMES: tuple[str, ...] = ("none", "self", "teammate", "opponent")
N_RELATIONS = len(RELATION_NAMES)
#: Per-slot stats: printed power, printed toughness, marked damage, final chapter of a Saga.
N_STATS = 4
MAX_SEATS = 4
#: Globals: round / rounds, rounds / 4, decisions / max, variant one-hot (3), then per seat slot: alive, life, poison.
N_GLOBALS = 6 + 3 * MAX_SEATS
MAX_ROUNDS = 8

#: The variants in the order of the variant one-hot in ``globals``.
VARIANTS = (Variant.DUEL, Variant.TWO_HEADED_GIANT, Variant.FREE_FOR_ALL)
# Precedence when a permanent has several types: the one that decides how its counters matter.
_TYPE_ORDER = (
    (CardType.CREATURE, 2),
    (CardType.PLANESWALKER, 3),
    (CardType.BATTLE, 4),
    (CardType.ARTIFACT, 6),
    (CardType.ENCHANTMENT, 7),
    (CardType.LAND, 8),
)

Int8 = npt.NDArray[np.int8]
Int16 = npt.NDArray[np.int16]
Int64 = npt.NDArray[np.int64]
Float32 = npt.NDArray[np.float32]
Bool = npt.NDArray[np.bool_]


def observation_space(slots: int, n_actions: int, c_max: int) -> spaces.Dict:
    """The single-level Dict every id uses (SB3's MultiInputPolicy does not take nested spaces)."""
    return spaces.Dict(
        {
            "counters": spaces.Box(0, c_max, (slots, N_KINDS), np.int16),
            "kind": spaces.MultiDiscrete(np.full(slots, N_TYPES, dtype=np.int64)),
            "relation": spaces.MultiDiscrete(np.full(slots, N_RELATIONS, dtype=np.int64)),
            "stats": spaces.Box(-c_max, c_max, (slots, N_STATS), np.int16),
            "present": spaces.MultiBinary(slots),
            "eligible": spaces.MultiBinary(slots),
            "times": spaces.Box(0, MAX_ROUNDS, (slots,), np.int8),
            "picked": spaces.MultiBinary(slots),
            "action_mask": spaces.MultiBinary(n_actions),
            "globals": spaces.Box(0.0, 1.0, (N_GLOBALS,), np.float32),
        }
    )


def seat_order(board: Board, seats: tuple[str, ...], actor: str) -> tuple[str, ...]:
    """Seat ids relative to ``actor``: self, teammates, then opponents, each group in turn order."""
    me = seats.index(actor)
    my_team = _team_of(board, actor)

    def key(seat: str) -> tuple[int, int]:
        rotated = (seats.index(seat) - me) % len(seats)
        if seat == actor:
            return (0, rotated)
        return (1 if _team_of(board, seat) == my_team else 2, rotated)

    return tuple(sorted(seats, key=key))


def _team_of(board: Board, seat: str) -> str | None:
    row = board.index.get(seat)
    return None if row is None else board.team_names[int(board.team[row])]


def relation_codes(board: Board, actor_row: int) -> Int64:
    """Relation of every board row to the actor: 1 self, 2 teammate, 3 opponent (by controller)."""
    team = board.team[board.controller]
    out: Int64 = np.where(team == board.team[actor_row], 2, 3).astype(np.int64)
    out[board.controller == actor_row] = 1
    return out


def _type_code_table() -> Int64:
    """The type code of every ``Board.types`` bitmask (index), by :data:`_TYPE_ORDER` precedence."""
    masks = np.arange(2 ** len(CardType), dtype=np.int64)
    codes = np.full(len(masks), TYPE_NAMES.index("other"), dtype=np.int64)
    for card_type, code in reversed(_TYPE_ORDER):
        codes = np.where(masks & int(card_type) != 0, code, codes)
    codes.flags.writeable = False
    return codes


_TYPE_CODES = _type_code_table()


def _type_codes(board: Board) -> Int64:
    codes: Int64 = np.where(board.chapters > 0, TYPE_NAMES.index("saga"), _TYPE_CODES[board.types])
    codes[: board.n_players] = TYPE_NAMES.index("player")
    return codes


def _layout(board: Board, order: tuple[str, ...], n_seats: int, slots: int) -> tuple[Int64, Int64]:
    """``row_of_slot`` and ``slot_of_row``: players by seat rank, then permanents by controller rank and row.

    Plain Python over the few objects of a board, then one array each.
    """
    n_players = board.n_players
    index = board.index
    seat_rank = [n_seats] * n_players
    for rank, seat in enumerate(order):
        row = index.get(seat)
        if row is not None:
            seat_rank[row] = rank
    rank_of = [seat_rank[c] for c in board.controller.tolist()]
    # sorted is stable and the rows come ascending, so ranking by controller alone keeps row order within a rank.
    perm_order = sorted(range(n_players, board.n_objects), key=rank_of.__getitem__)
    if n_seats + len(perm_order) > slots:
        raise ValueError(
            f"the board has {len(perm_order)} permanents and {n_seats} seats, more than the {slots} slots; "
            "pass a larger slots= (objects are never truncated)"
        )
    placed = [-1] * slots
    for player, rank in enumerate(seat_rank):
        placed[rank] = player
    placed[n_seats : n_seats + len(perm_order)] = perm_order
    slot_of = [0] * board.n_objects
    for slot, row in enumerate(placed[: n_seats + len(perm_order)]):  # the slots after these are empty
        if row >= 0:
            slot_of[row] = slot
    return np.array(placed, dtype=np.int64), np.array(slot_of, dtype=np.int64)


def _clip(values: npt.NDArray[Any], low: int, high: int) -> npt.NDArray[Any]:
    """``np.clip`` as two ufunc calls (the same values, without ``np.clip``'s dispatch cost on small arrays)."""
    out: npt.NDArray[Any] = np.minimum(np.maximum(values, low), high)
    return out


def _seat_globals(board: Board, order: tuple[str, ...], start_life: int) -> Float32:
    """Per seat rank: alive, life relative to twice the starting life, poison relative to the losing threshold."""
    out = [0.0] * (3 * MAX_SEATS)  # Python floats, made float32 once at the end, as item assignment would
    thresholds = board.poison_threshold().tolist()
    poison_col = board.kind_column("poison")
    life, team = board.life.tolist(), board.team.tolist()
    poison = board.counts[: board.n_players, poison_col].tolist() if poison_col >= 0 else [0] * board.n_players
    for rank, seat in enumerate(order):
        row = board.index.get(seat)
        if row is None:  # a free-for-all player who has left the game (800.4a)
            continue
        out[3 * rank] = 1.0
        out[3 * rank + 1] = min(max(life[row] / (2.0 * start_life), 0.0), 1.0)
        out[3 * rank + 2] = min(poison[row] / thresholds[team[row]], 1.0)
    return np.array(out, dtype=np.float32)


#: Columns of :func:`_laid_out`: counters, stats, then type code, relation and eligibility.
_KIND_AT = N_KINDS + N_STATS


def _laid_out(
    board: Board, mapping: npt.NDArray[np.float64], actor_row: int, ok: Bool, filled: Bool, rows: Int64
) -> Int64:
    """Every per-object column of a view in one table, laid out in slots with one fancy index (zero rows empty).

    The columns are unclipped: counters in the vocabulary (``counts @ mapping``, exact for
    counts), printed power and toughness, damage, chapters, type code, relation, eligibility.
    """
    table = np.empty((board.n_objects, _KIND_AT + 3), dtype=np.int64)
    table[:, :N_KINDS] = board.counts @ mapping
    table[:, N_KINDS] = board.power
    table[:, N_KINDS + 1] = board.toughness
    table[:, N_KINDS + 2] = board.damage
    table[:, N_KINDS + 3] = board.chapters
    table[:, _KIND_AT] = _type_codes(board)
    table[:, _KIND_AT + 1] = relation_codes(board, actor_row)
    table[:, _KIND_AT + 2] = ok
    laid = np.zeros((len(filled), _KIND_AT + 3), dtype=np.int64)
    laid[filled] = table[rows]
    return laid


@dataclass(frozen=True)
class View:
    """One board state laid out in slots from one seat's point of view (built once per decision).

    ``row_of_slot[s]`` is the board row in slot ``s`` (-1 for an empty slot) and
    ``slot_of_row[r]`` the inverse.  ``recipient_bits`` lists, for the 2HG subset mode, the
    board rows of the two heads each extra action bit chooses between (first head = bit 0).
    """

    board: Board
    row_of_slot: Int64
    slot_of_row: Int64
    counters: Int16
    kind: Int64
    relation: Int64
    stats: Int16
    present: Int8
    eligible: Int8
    recipient_heads: tuple[tuple[int, int], ...]
    recipient_open: Int8
    seat_globals: Float32

    @classmethod
    def build(
        cls,
        board: Board,
        seats: tuple[str, ...],
        actor: str,
        slots: int,
        c_max: int,
        kind_map: dict[tuple[str, ...], npt.NDArray[np.float64]],
        start_life: int,
        orders: dict[tuple[object, ...], tuple[str, ...]] | None = None,
    ) -> View:
        """Lay ``board`` out for ``actor``; ``kind_map`` and ``orders`` are caches the caller keeps."""
        actor_row = board.index[actor]
        key = (actor, seats, board.ids[: board.n_players], tuple(board.team[: board.n_players].tolist()))
        order = orders.get(key) if orders is not None else None
        if order is None:
            order = seat_order(board, seats, actor)
            if orders is not None:
                orders[key] = order
        n_seats = len(seats)
        row_of_slot, slot_of_row = _layout(board, order, n_seats, slots)
        filled = row_of_slot >= 0
        rows = row_of_slot[filled]

        mapping = kind_map.get(board.kinds)
        if mapping is None:
            mapping = np.zeros((len(board.kinds), N_KINDS), dtype=np.float64)
            for k, name in enumerate(board.kinds):
                col = KIND_VOCABULARY.index(name) if name in KIND_VOCABULARY else N_KINDS - 1
                mapping[k, col] = 1.0
            kind_map[board.kinds] = mapping
        ok = eligible_mask(board)
        laid = _laid_out(board, mapping, actor_row, ok, filled, rows)
        stats_at = slice(N_KINDS, N_KINDS + N_STATS)
        counters = _clip(laid[:, :N_KINDS], 0, c_max).astype(np.int16)
        stats = _clip(laid[:, stats_at], -c_max, c_max).astype(np.int16)
        kind = laid[:, _KIND_AT].copy()
        relation = laid[:, _KIND_AT + 1].copy()
        eligible = laid[:, _KIND_AT + 2].astype(np.int8)
        present = filled.astype(np.int8)

        heads: list[tuple[int, int]] = []
        open_bits: list[int] = []
        if board.variant is Variant.TWO_HEADED_GIANT:
            col = board.kind_column("poison")
            for team_seats in (order[:2], order[2:4]):
                pair = (board.index[team_seats[0]], board.index[team_seats[1]])
                heads.append(pair)
                both = bool(ok[pair[0]] and ok[pair[1]])
                open_bits.append(int(both and col >= 0 and board.counts[pair[0], col] > 0))

        return cls(
            board=board,
            row_of_slot=row_of_slot,
            slot_of_row=slot_of_row,
            counters=counters,
            kind=kind,
            relation=relation,
            stats=stats,
            present=present,
            eligible=eligible,
            recipient_heads=tuple(heads),
            recipient_open=np.array(open_bits, dtype=np.int8),
            seat_globals=_seat_globals(board, order, start_life),
        )

    def observation(
        self,
        action_mask: Int8,
        times: Int8,
        picked: Int8,
        round_index: int,
        rounds: int,
        progress: float,
    ) -> dict[str, Any]:
        """A fresh observation dict (no array shared with any earlier call)."""
        globals_ = np.zeros(N_GLOBALS, dtype=np.float32)
        globals_[0] = round_index / rounds
        globals_[1] = min(rounds / 4.0, 1.0)
        globals_[2] = min(max(progress, 0.0), 1.0)
        globals_[3 + VARIANTS.index(self.board.variant)] = 1.0
        globals_[6:] = self.seat_globals
        return {
            "counters": self.counters.copy(),
            "kind": self.kind.copy(),
            "relation": self.relation.copy(),
            "stats": self.stats.copy(),
            "present": self.present.copy(),
            "eligible": self.eligible.copy(),
            "times": times.copy(),
            "picked": picked.copy(),
            "action_mask": action_mask.copy(),
            "globals": globals_,
        }


def maskable(mask: Int8, mode: str) -> Bool:
    """The mask in MaskablePPO's layout: MultiBinary(n) takes 2n bools, ``[allow_0, allow_1]`` per bit.

    "Don't choose" is always allowed, so no bit is ever fully masked (the all-False case
    that makes the masked distribution NaN).  A Discrete mask is the plain mask.
    """
    if mode == "subset":
        out: Bool = np.stack([np.ones(len(mask), dtype=bool), mask.astype(bool)], axis=1).reshape(-1)
        return out
    plain: Bool = mask.astype(bool)
    return plain
