"""The board: an immutable snapshot of everything a proliferate decision depends on.

The state lives in numpy arrays (one row per object: players first, then permanents,
in input order; one column per counter kind on the board) because the rules and the
objective run over all objects at once, on boards of up to 100,000 objects.  The typed
views :class:`Player` and :class:`Permanent` are built on demand for people and Python
callers; the loader fills the arrays from what it checked (:func:`assemble_objects`), and nothing
inside the engine loops over them.  A board also holds, from the moment it is built, its
policy-free arrays in the kernels' layout (:attr:`Board.layout`, a :class:`BoardLayout`: one
packed buffer written by one compiled pass), so a batch of boards is their join
(:func:`solver.kernels.layout.join`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from numba import njit

from .cards import CARDS
from .kinds import pt_delta
from .terms import CARD_TYPE_NAMES, VARIANTS, CardType, TeamPoison, Variant

__all__ = [
    "CARD_TYPE_NAMES",
    "Board",
    "BoardLayout",
    "CardType",
    "Effect",
    "Permanent",
    "Player",
    "TeamPoison",
    "Threshold",
    "Variant",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

#: The instance-dict key under which :func:`solver.effects.gain` keeps a board's gains (what one
#: proliferate adds per object and kind, by the card rules), next to the board's cached values: a
#: board is data and does not work out its gains itself; :meth:`Board.with_counts` and the other
#: derived boards keep or drop the entry like the cached values.
GAIN = "_gain"
#: The key of a board's stack record in its instance dict (:func:`solver.kernels.layout.record`: its packed
#: buffer, and its kinds, counters and gains as one array, what a batch's join reads), dropped by every derived
#: board.
STACK = "_stack"
#: The board JSON format version :meth:`Board.to_dict` writes (``docs/board-format.md``).
FORMAT_VERSION = 1


_TYPE_BITS: dict[str, int] = {name: int(flag) for name, flag in CARD_TYPE_NAMES.items()}


@dataclass(frozen=True)
class SbaMasks:
    """Per-object masks the state-based actions use, derived once per board (see ``Board.sba_masks``)."""

    present: BoolArray
    creature: BoolArray
    destructible: BoolArray
    planeswalker: BoolArray
    battle: BoolArray
    saga: BoolArray
    #: Whether any row is a planeswalker, a battle or a Saga: most boards have none of some, and
    #: every settle would otherwise ask the masks again.
    any_planeswalker: bool
    any_battle: bool
    any_saga: bool

    @classmethod
    def build(
        cls, is_player: BoolArray, phased_out: BoolArray, types: IntArray, indestructible: BoolArray, chapters: IntArray
    ) -> SbaMasks:
        """The masks of any rows (one board's or a stack's): permanents that are phased in, by type."""
        present = ~phased_out & ~is_player
        creature = present & ((types & int(CardType.CREATURE)) != 0)
        planeswalker = present & ((types & int(CardType.PLANESWALKER)) != 0)
        battle = present & ((types & int(CardType.BATTLE)) != 0)
        saga = present & (chapters > 0)
        masks = cls(
            present=present,
            creature=creature,
            destructible=creature & ~indestructible,
            planeswalker=planeswalker,
            battle=battle,
            saga=saga,
            any_planeswalker=bool(planeswalker.any()),
            any_battle=bool(battle.any()),
            any_saga=bool(saga.any()),
        )
        for mask in vars(masks).values():
            if isinstance(mask, np.ndarray):
                mask.flags.writeable = False
        return masks


# ---------------------------------------------------------------------- the kernels' layout of one board
#: Per-row flag bits of the kernels' layout (:mod:`solver.kernels.layout`).
F_PLAYER = 1
F_PRESENT = 2  # a permanent that is phased in
F_CREATURE = 4
F_DESTRUCTIBLE = 8  # a creature without indestructible
F_PLANESWALKER = 16
F_BATTLE = 32
F_SAGA = 64
F_PHASED_OUT = 128

#: Threshold effects as codes: a number of points, a win or a loss for the controller.
THR_POINTS, THR_WIN, THR_LOSE = 0, 1, 2

#: How a row's worth is found once a policy is given: none (players and most permanents), a
#: creature's (the policy's base + (power + toughness) / 2), a Saga's, or the row's own ``value``.
WORTH_NONE, WORTH_CREATURE, WORTH_SAGA, WORTH_VALUE = 0, 1, 2, 3

#: The rows of :attr:`BoardLayout.ints`, one int64 per object each.
ROW_FIELDS = (
    "flags",  # F_* bits
    "seat",  # a player's seat (its team's in Two-Headed Giant, 810.8a), -1 for a permanent
    "team",  # a player's team, -1 for a permanent
    "life",  # a player's life, 1 for a permanent
    "side",  # +1 if the object's counters count for the proliferator's team, else -1
    "toughness",
    "damage",
    "chapters",
    "worth_code",  # WORTH_*
    "pt_sum",  # power + toughness
    "shared_head",  # 1 on a player row whose team shares its poison (810.10) on a board with poison
)
R_FLAGS, R_SEAT, R_TEAM, R_LIFE, R_SIDE, R_TOUGHNESS, R_DAMAGE, R_CHAPTERS, R_WORTH, R_PT_SUM, R_SHARED_HEAD = range(
    len(ROW_FIELDS)
)
#: The rows of :attr:`BoardLayout.thresholds`, one int64 per threshold each.
THRESHOLD_FIELDS = ("row", "kind", "at", "code", "amount", "seat")  # amount in milli-points; the controller's seat
#: The rows of :attr:`BoardLayout.teams`, one int64 per team each.
TEAM_FIELDS = ("threshold", "sign")  # poison that makes the team lose; +1 for the proliferator's team, else -1
#: The entries of :attr:`BoardLayout.numbers`.
NUMBER_FIELDS = (
    "n_objects",
    "n_players",
    "rounds",
    "proliferator",
    "shared",  # 1 where a team's poison is shared (810.10) and the board has poison
    "poison_loses",  # 1 where a player's own poison counts (704.5c)
    "n_opponents",  # seats other than the proliferator's
    "n_thresholds",
    "n_teams",
    "n_kinds",
    "n_values",  # counter-value overrides
)
(N_OBJECTS, N_PLAYERS, N_ROUNDS, N_PROLIFERATOR, N_SHARED, N_POISON_LOSES, N_OPPONENTS, N_THRESHOLDS, N_TEAMS,
 N_KINDS, N_VALUES) = range(len(NUMBER_FIELDS))  # fmt: skip


@dataclass(frozen=True, eq=False)
class BoardLayout:
    """One board's policy-free arrays in the kernels' layout (:mod:`solver.kernels.layout`), read-only.

    A board is a batch of one: :func:`solver.kernels.layout.join` concatenates the ``packed``
    buffers of a batch's boards and unpacks them in one compiled pass, and the policy's tables
    (weights, worths, game scores) are applied over the joined batch.  Rows, columns and seats
    are the board's own (local); the counters and the gains are the board's ``counts`` and
    :func:`solver.effects.gain`.  Built once per board (vectorised, no per-object Python) and
    kept by the boards :meth:`Board.with_counts` derives.

    ``packed`` holds, one after another: :data:`NUMBER_FIELDS`; the rows of :data:`ROW_FIELDS`
    (each ``n_objects`` long); the objects' ``value`` (float64 bits); the rows of
    :data:`THRESHOLD_FIELDS` (each ``n_thresholds`` long); the rows of :data:`TEAM_FIELDS`; the
    counter-value overrides' rows, kind columns and values (float64 bits).  The other fields
    are views of it.
    """

    packed: IntArray
    n_objects: int
    n_thresholds: int
    n_teams: int

    @classmethod
    def of_packed(cls, packed: IntArray, sizes: tuple[int, int, int] | None = None) -> BoardLayout:
        """The layout of a packed buffer (made read-only).

        ``sizes``: its objects, thresholds and teams, if known (else read from the buffer).
        """
        packed.flags.writeable = False
        n_objects, n_thresholds, n_teams = sizes or (
            int(packed[N_OBJECTS]), int(packed[N_THRESHOLDS]), int(packed[N_TEAMS])
        )  # fmt: skip
        layout = object.__new__(cls)  # the fields set as the frozen dataclass's ``__init__`` would, without its calls
        layout.__dict__.update(packed=packed, n_objects=n_objects, n_thresholds=n_thresholds, n_teams=n_teams)
        return layout

    @cached_property
    def numbers(self) -> IntArray:
        """``(len(NUMBER_FIELDS),)``: the board's numbers (a view of ``packed``)."""
        return self.packed[: len(NUMBER_FIELDS)]

    @cached_property
    def ints(self) -> IntArray:
        """``(len(ROW_FIELDS), n_objects)``: one row per field of :data:`ROW_FIELDS` (a view of ``packed``)."""
        at, n = len(NUMBER_FIELDS), self.n_objects
        return self.packed[at : at + len(ROW_FIELDS) * n].reshape(len(ROW_FIELDS), n)

    @cached_property
    def thresholds(self) -> IntArray:
        """``(len(THRESHOLD_FIELDS), n_thresholds)`` (a view of ``packed``)."""
        at, n = len(NUMBER_FIELDS) + (len(ROW_FIELDS) + 1) * self.n_objects, self.n_thresholds
        return self.packed[at : at + len(THRESHOLD_FIELDS) * n].reshape(len(THRESHOLD_FIELDS), n)

    @cached_property
    def teams(self) -> IntArray:
        """``(len(TEAM_FIELDS), n_teams)`` (a view of ``packed``)."""
        at = len(NUMBER_FIELDS) + (len(ROW_FIELDS) + 1) * self.n_objects + len(THRESHOLD_FIELDS) * self.n_thresholds
        return self.packed[at : at + len(TEAM_FIELDS) * self.n_teams].reshape(len(TEAM_FIELDS), self.n_teams)

    def with_life(self, n_players: int, life: IntArray) -> BoardLayout:
        """The same layout with other player lives (a copy of the buffer, its life row changed)."""
        packed = self.packed.copy()
        start = len(NUMBER_FIELDS) + R_LIFE * self.n_objects
        packed[start : start + n_players] = life
        return BoardLayout.of_packed(packed, (self.n_objects, self.n_thresholds, self.n_teams))


_CREATURE, _PLANESWALKER, _BATTLE = int(CardType.CREATURE), int(CardType.PLANESWALKER), int(CardType.BATTLE)
_NO_INTS = np.zeros(0, dtype=np.int64)


#: The rows of a board's one table of per-object integers and booleans (built by :func:`assemble_objects`; the
#: board's ``controller`` ... ``no_counters`` are its rows), which :func:`_fill_layout` reads whole.
TABLE_FIELDS = (
    "controller", "types", "power", "toughness", "damage", "chapters", "protector", "indestructible", "phased_out",
    "no_counters",
)  # fmt: skip
(T_CONTROLLER, T_TYPES, T_POWER, T_TOUGHNESS, T_DAMAGE, T_CHAPTERS, T_PROTECTOR, T_INDESTRUCTIBLE, T_PHASED_OUT,
 T_NO_COUNTERS) = range(len(TABLE_FIELDS))  # fmt: skip
#: The per-object arrays a board makes on first use (from its table and its text columns), beside its fields.
LAZY_FIELDS = (*TABLE_FIELDS, "names", "type_names", "subtypes", "keywords")
_NO_THRESHOLDS = np.zeros((5, 0), dtype=np.int64)
_NO_CV = np.zeros((2, 0), dtype=np.int64)


@njit(cache=True)
def _fill_layout(
    packed: IntArray,
    n_players: int,
    table: IntArray,
    value: FloatArray,
    team: IntArray,
    life: IntArray,
    proliferator: int,
    n_teams: int,
    seats_are_teams: bool,
    shared_poison: bool,
    shared: bool,
    poison_threshold: int,
    extra_head_poison: int,
    thr: IntArray,
    cv: IntArray,
    cv_value: FloatArray,
    rounds: int,
    n_kinds: int,
) -> None:
    """Write a board's :class:`BoardLayout` into ``packed`` (its size already right), in one pass per part.

    ``table``: the board's rows of :data:`TABLE_FIELDS`; ``thr``: its thresholds' objects, kinds, counts, codes
    and amounts (milli-points), one row each; ``cv``: its counter-value overrides' objects and kinds.
    """
    n = table.shape[1]
    n_thr, n_cv = thr.shape[1], cv.shape[1]
    nf, rf = len(NUMBER_FIELDS), len(ROW_FIELDS)
    ours = team[proliferator]
    controller, protector, chapters = table[T_CONTROLLER], table[T_PROTECTOR], table[T_CHAPTERS]
    toughness = table[T_TOUGHNESS]
    for i in range(n):
        player = i < n_players
        t = table[T_TYPES, i]
        if player:
            flags = F_PLAYER
        elif table[T_PHASED_OUT, i]:
            flags = F_PHASED_OUT  # 702.26b: treated as though it doesn't exist
        else:
            flags = F_PRESENT
            if t & _CREATURE:
                flags |= F_CREATURE  # 704.5f
                if not table[T_INDESTRUCTIBLE, i]:
                    flags |= F_DESTRUCTIBLE  # 704.5g, 702.12b
            if t & _PLANESWALKER:
                flags |= F_PLANESWALKER  # 704.5i
            if t & _BATTLE:
                flags |= F_BATTLE  # 704.5v
            if chapters[i] > 0:
                flags |= F_SAGA  # 714.4
        if player:
            worth = WORTH_NONE
        elif not np.isnan(value[i]):
            worth = WORTH_VALUE
        elif t & _CREATURE:
            worth = WORTH_CREATURE
        elif chapters[i] > 0:
            worth = WORTH_SAGA
        else:
            worth = WORTH_NONE
        owner = protector[i] if protector[i] >= 0 else controller[i]  # a battle's defense counts for its protector
        row = (flags, -1, -1, 1, 1 if team[owner] == ours else -1, toughness[i], table[T_DAMAGE, i], chapters[i],
               worth, table[T_POWER, i] + toughness[i], 0)  # fmt: skip
        for r in range(rf):
            packed[nf + r * n + i] = row[r]
        if player:
            packed[nf + R_SEAT * n + i] = team[i] if seats_are_teams else i  # 810.8a
            packed[nf + R_TEAM * n + i] = team[i]
            packed[nf + R_LIFE * n + i] = life[i]
            packed[nf + R_SHARED_HEAD * n + i] = shared
    at = nf + rf * n
    packed[at : at + n] = value.view(np.int64)
    at += n
    for j in range(n_thr):
        owner = controller[thr[0, j]]
        seat = team[owner] if seats_are_teams else owner
        row6 = (thr[0, j], thr[1, j], thr[2, j], thr[3, j], thr[4, j], seat)
        for r in range(len(THRESHOLD_FIELDS)):
            packed[at + r * n_thr + j] = row6[r]
    at += len(THRESHOLD_FIELDS) * n_thr
    size = np.zeros(n_teams, dtype=np.int64)
    for i in range(n_players):
        size[team[i]] += 1
    for k in range(n_teams):  # 704.5c, 810.11
        packed[at + k] = poison_threshold + extra_head_poison * max(size[k] - 2, 0)
        packed[at + n_teams + k] = 1 if k == ours else -1
    at += len(TEAM_FIELDS) * n_teams
    packed[at : at + n_cv] = cv[0]
    packed[at + n_cv : at + 2 * n_cv] = cv[1]
    packed[at + 2 * n_cv : at + 3 * n_cv] = cv_value.view(np.int64)
    opponent = np.zeros(n_players, dtype=np.bool_)
    for i in range(n_players):
        if team[i] != ours:
            opponent[team[i] if seats_are_teams else i] = True
    numbers = (n, n_players, rounds, proliferator, 1 if shared else 0, 0 if shared_poison else 1, opponent.sum(),
               n_thr, n_teams, n_kinds, n_cv)  # fmt: skip
    for k in range(nf):
        packed[k] = numbers[k]


def _rounds(board: Board) -> int:
    """:attr:`Board.rounds`: ``proliferates`` times the factor of each card the proliferator controls."""
    factor = 1
    for effect in board.effects:
        if effect.controller == board.proliferator_id:
            factor *= CARDS[effect.card].proliferate_factor
    return board.proliferates * factor


def board_table(board: Board) -> IntArray:
    """A board's rows of :data:`TABLE_FIELDS`: the table it was assembled with, else stacked from its fields.

    Reading rows of the table rather than the board's per-row fields spares a freshly loaded board making
    those fields (about a microsecond each).
    """
    table: IntArray | None = board.__dict__.get("_table")
    if table is None:  # a board derived with other objects: its fields are arrays of their own
        table = np.stack([getattr(board, name) for name in TABLE_FIELDS]).astype(np.int64, copy=False)
    return table


def _layout_of(board: Board, table: IntArray | None = None) -> BoardLayout:
    """A board's :class:`BoardLayout` (see there), written straight into its packed buffer.

    ``table``: the board's rows of :data:`TABLE_FIELDS` if at hand (the loader's), else stacked from its fields.
    """
    n, players, n_teams = board.n_objects, board.n_players, board.n_teams
    n_thr, n_cv = len(board.thr_object), len(board.cv_object)
    rules = VARIANTS[board.variant]
    size = len(NUMBER_FIELDS) + (len(ROW_FIELDS) + 1) * n + len(THRESHOLD_FIELDS) * n_thr
    packed = np.empty(size + len(TEAM_FIELDS) * n_teams + 3 * n_cv, dtype=np.int64)
    shared = rules.shared_poison and "poison" in board.kinds  # not kind_column: no column map made for this
    if table is None:
        table = board_table(board)
    thr = _NO_THRESHOLDS
    if n_thr:
        effects = board.thr_effect
        codes = [THR_WIN if e == "win" else THR_LOSE if e == "lose" else THR_POINTS for e in effects]
        points = np.array([0.0 if isinstance(e, str) else float(e) for e in effects], dtype=np.float64)
        amounts = np.rint(points * 1000.0).astype(np.int64)  # milli-points
        thr = np.array([board.thr_object, board.thr_kind, board.thr_at, codes, amounts], dtype=np.int64)
    cv = np.array([board.cv_object, board.cv_kind], dtype=np.int64) if n_cv else _NO_CV
    _fill_layout(
        packed, players, table, board.value, board.team, board.life, board.proliferator, n_teams,
        rules.seats_are_teams, rules.shared_poison, shared, rules.poison_threshold,
        rules.extra_head_poison if rules.shared_poison else 0, thr, cv, board.cv_value, board.rounds, len(board.kinds),
    )  # fmt: skip
    return BoardLayout.of_packed(packed, (n, n_thr, n_teams))


def shared_poison_threshold(team_size: IntArray) -> IntArray:
    """Shared poison that makes a 2HG team lose: 15 for two heads, 5 more per extra head (704.6b, 810.11)."""
    out: IntArray = 15 + 5 * np.maximum(team_size - 2, 0)
    return out


@dataclass(frozen=True)
class Threshold:
    """A count that matters: reaching ``at`` counters of ``kind`` wins, loses, or is worth ``effect`` points.

    ``win`` and ``lose`` are for the permanent's controller; a numeric effect is paid once,
    when the count first reaches ``at`` (122.7 semantics: jumping past it counts).
    """

    kind: str
    at: int
    effect: str | float
    label: str = ""


@dataclass(frozen=True)
class Effect:
    """A card's effect in play, by the card's printed name (see :data:`solver.cards.CARDS`).

    ``level`` and ``poisoned_this_turn`` are card parameters (:class:`solver.cards.Parameter`), read
    only by the card declaring them.
    ``source`` is the id of the permanent whose ability it is, if given; a card whose text
    names itself ("another creature you control") requires it (:attr:`solver.cards.Card.needs_source`).
    """

    card: str
    controller: str
    level: int = 3
    source: str | None = None
    poisoned_this_turn: int = 0


def _frozen_counts(counts: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(counts))


@dataclass(frozen=True)
class Player:
    """A player: identity, team, life and the counters they have (122.1)."""

    id: str
    team: str
    life: int
    counters: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Permanent:
    """A permanent on the battlefield (only these can be proliferated, 403.3)."""

    id: str
    controller: str
    types: tuple[str, ...] = ()
    name: str = ""
    power: int | None = None
    toughness: int | None = None
    damage: int = 0
    counters: Mapping[str, int] = field(default_factory=dict)
    keywords: tuple[str, ...] = ()
    subtypes: tuple[str, ...] = ()
    chapters: int | None = None
    protector: str | None = None
    phased_out: bool = False
    #: It can't have counters put on it (Tatterkite, a creature enchanted by Blossombind): proliferate adds none.
    no_counters: bool = False
    value: float | None = None
    thresholds: tuple[Threshold, ...] = ()
    counter_values: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Board:
    """An immutable board.  Build one with :meth:`Board.build` or :func:`solver.load_board`.

    Row ``i`` of every per-object array describes object ``ids[i]``; rows ``0 .. n_players-1``
    are players.  ``counts[i, k]`` is how many counters of kind ``kinds[k]`` object ``i`` has.
    In Two-Headed Giant the team's shared poison (810.10) is stored on every head of the team;
    a board that wrote it per head (``team_poison`` is ``per_head``) keeps each head's own
    count in ``head_poison`` (per player row), which its typed views and JSON show.
    Arrays are read-only; derive a new board with :meth:`with_counts`.
    """

    variant: Variant
    proliferator: int
    proliferates: int
    ids: tuple[str, ...]
    n_players: int
    kinds: tuple[str, ...]
    counts: IntArray
    team: IntArray
    team_names: tuple[str, ...]
    life: IntArray
    value: FloatArray
    effects: tuple[Effect, ...]
    thr_object: IntArray
    thr_kind: IntArray
    thr_at: IntArray
    thr_effect: tuple[str | float, ...]
    thr_label: tuple[str, ...]
    cv_object: IntArray
    cv_kind: IntArray
    cv_value: FloatArray
    team_poison: TeamPoison = TeamPoison.SHARED
    head_poison: IntArray | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(
        cls,
        *,
        variant: Variant | str,
        proliferator: str,
        players: Sequence[Player],
        permanents: Sequence[Permanent] = (),
        effects: Sequence[Effect] = (),
        proliferates: int = 1,
        team_poison: TeamPoison | str = TeamPoison.SHARED,
    ) -> Board:
        """Build a board from typed objects (for Python callers; the loader gathers :class:`Objects`).

        ``team_poison`` says how the Two-Headed Giant players' poison counters are written
        (810.10): the team's total on each head (``shared``) or each head's own (``per_head``).
        Raises ``ValueError`` on inconsistent input; :func:`solver.load_board` reports every
        problem with its JSON path before it gets here.
        """
        ids = [p.id for p in players] + [p.id for p in permanents]
        if len(set(ids)) != len(ids):
            raise ValueError("ids must be unique across players and permanents")
        player_ids = {p.id for p in players}
        if proliferator not in player_ids:
            raise ValueError(f"proliferator {proliferator!r} is not a player")
        for perm in permanents:
            for pid in (perm.controller, perm.protector):
                if pid is not None and pid not in player_ids:
                    raise ValueError(f"{pid!r} is not a player")
        rows = [
            (
                p.id,
                p.controller,
                tuple(p.types),
                p.name,
                p.power,
                p.toughness,
                p.damage,
                p.counters,
                tuple(p.keywords),
                tuple(p.subtypes),
                p.chapters,
                p.protector,
                p.phased_out,
                p.no_counters,
                p.value,
                p.thresholds,
                p.counter_values,
            )
            for p in permanents
        ]
        return assemble(
            Variant(variant), proliferator, players, rows, tuple(effects), proliferates, TeamPoison(team_poison)
        )

    def __post_init__(self) -> None:
        for value in self.__dict__.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    # ------------------------------------------------------------------ derived boards
    def with_counts(self, counts: IntArray) -> Board:
        """The same board with other counter counts (same objects, same kinds).

        Cheap, because environments derive a board per step: everything derived from the
        objects carries over, and so do its gains (:func:`solver.effects.gain`) while the set of kinds each object
        has is unchanged (replacement effects depend on nothing else that counts change).
        """
        counts = np.array(counts, dtype=np.int64)
        if counts.shape != self.counts.shape:
            raise ValueError(f"counts must have shape {self.counts.shape}, not {counts.shape}")
        col = self.kind_column("poison")
        if (
            self.head_poison is not None
            and col >= 0
            and not np.array_equal(counts[: self.n_players, col], self.counts[: self.n_players, col])
        ):
            raise ValueError("a per-head poison board changes its poison with with_head_poison, which says which head")
        # Same shape, so equal bytes are equal masks (cheaper than ``np.array_equal`` on a small board).
        same_kinds = (counts > 0).tobytes() == (self.counts > 0).tobytes()
        return self._derived(_KEEP_WITH_KINDS if same_kinds else _KEEP_WITH_COUNTS, counts=counts)

    def with_head_poison(self, counts: IntArray, added: IntArray) -> Board:
        """:meth:`with_counts` for a board whose poison changed, ``added`` being the poison each player row received.

        On a per-head board (``team_poison`` ``per_head``) each head's own count grows by what
        it received (701.34b: the team's one counter goes to the chosen head); on any other
        board it is :meth:`with_counts`.
        """
        if self.head_poison is None:
            return self.with_counts(counts)
        head_poison = self.head_poison + np.asarray(added, dtype=np.int64)
        return self._derived(_KEEP_WITH_COUNTS, counts=np.array(counts, dtype=np.int64), head_poison=head_poison)

    def with_proliferator(self, proliferator: int, proliferates: int | None = None) -> Board:
        """The same board with another player (a row) proliferating, or another number of proliferates."""
        if not 0 <= proliferator < self.n_players:
            raise ValueError(f"proliferator must be a player row (0..{self.n_players - 1})")
        proliferates = self.proliferates if proliferates is None else proliferates
        keep = _OBJECT_CACHES | ({GAIN, "is_ally"} if proliferator == self.proliferator else set())
        return self._derived(frozenset(keep), proliferator=proliferator, proliferates=proliferates)

    def with_life(self, life: IntArray) -> Board:
        """The same board with other life totals."""
        life = np.array(life, dtype=np.int64)
        if life.shape != self.life.shape:
            raise ValueError(f"life must have shape {self.life.shape}, not {life.shape}")
        board = self._derived(_OBJECT_CACHES | {GAIN, "rounds", "is_ally"}, life=life)
        parent: BoardLayout | None = self.__dict__.get("layout")
        if parent is not None:  # the parent's arrays, its life row changed
            board.__dict__["layout"] = parent.with_life(self.n_players, life)
        return board

    def with_effects(self, effects: Sequence[Effect]) -> Board:
        """The same board with other replacement effects in play."""
        return self._derived(_OBJECT_CACHES | {"is_ally"}, effects=tuple(effects))

    def with_permanent(self, permanent: Permanent, effects: Sequence[Effect] = ()) -> Board:
        """The same board with ``permanent`` entering as its last row, and more effects in play.

        The new row is built by :meth:`build` (on a board of the players and ``permanent``
        alone, :func:`_entering`) and appended, so the objects already here are not rebuilt; a
        permanent with a counter kind the board has no column for rebuilds the board from its
        typed views instead.
        """
        single = _entering(self, permanent)
        all_effects = (*self.effects, *effects)
        columns = [self.kind_column(kind) for kind in single.kinds]
        if any(col < 0 for col in columns):
            return Board.build(
                variant=self.variant,
                proliferator=self.proliferator_id,
                players=self.players,
                permanents=[*self.permanents, permanent],
                effects=all_effects,
                proliferates=self.proliferates,
                team_poison=self.team_poison,
            )
        row = single.n_players
        counts = np.zeros((self.n_objects + 1, len(self.kinds)), dtype=np.int64)
        counts[:-1] = self.counts
        counts[-1, columns] = [permanent.counters.get(kind, 0) for kind in single.kinds]
        changes: dict[str, Any] = {
            name: np.concatenate([getattr(self, name), getattr(single, name)[row:]]) for name in _PER_OBJECT
        }
        changes.update(self._appended_values(single, self.n_objects - row, np.array(columns, dtype=np.int64)))
        return self._derived(
            _KEEP_NOTHING, ids=(*self.ids, permanent.id), counts=counts, effects=all_effects, **changes
        )

    def _appended_values(self, single: Board, shift: int, kind_map: IntArray) -> dict[str, Any]:
        """The thresholds and counter values with ``single``'s appended (rows shifted, kinds mapped).

        A permanent without any keeps this board's arrays (read-only, so they can be shared).
        """
        out: dict[str, Any] = {}
        if len(single.thr_object):
            out.update(
                thr_object=np.concatenate([self.thr_object, single.thr_object + shift]),
                thr_kind=np.concatenate([self.thr_kind, kind_map[single.thr_kind]]),
                thr_at=np.concatenate([self.thr_at, single.thr_at]),
                thr_effect=(*self.thr_effect, *single.thr_effect),
                thr_label=(*self.thr_label, *single.thr_label),
            )
        if len(single.cv_object):
            out.update(
                cv_object=np.concatenate([self.cv_object, single.cv_object + shift]),
                cv_kind=np.concatenate([self.cv_kind, kind_map[single.cv_kind]]),
                cv_value=np.concatenate([self.cv_value, single.cv_value]),
            )
        return out

    def _derived(self, keep: frozenset[str], **changes: Any) -> Board:
        """A copy with some fields changed, keeping the derived values named in ``keep``.

        The derived values (cached properties) live in the instance dict next to the fields;
        whatever is not kept is recomputed on first use, so a new cache is never stale.
        """
        state = self.__dict__
        new = object.__new__(Board)
        copied = new.__dict__
        copied.update(state)  # one C-level copy, then the derived values not kept go
        for name in _dropped(keep):
            if name in copied:
                del copied[name]
        for value in changes.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        if "names" in changes:  # the objects changed: their arrays are the ones given, not the columns built from
            copied.pop("_text", None)
            copied.pop("_table", None)
        copied.update(changes)
        return new

    def without(self, remove: BoolArray) -> Board:
        """The same board minus some permanents (players cannot be removed)."""
        if np.count_nonzero(remove[: self.n_players]):
            raise ValueError("players cannot be removed from a board")
        keep = ~remove
        if np.count_nonzero(keep) == len(keep):
            return self
        kept = keep.tolist()
        changes: dict[str, Any] = {name: getattr(self, name)[keep] for name in ("counts", *_PER_OBJECT)}
        changes["ids"] = tuple(i for i, k in zip(self.ids, kept, strict=True) if k)
        if len(self.thr_object) or len(self.cv_object):  # else the empty arrays are shared
            changes.update(self._kept_values(keep))
        return self._derived(_KEEP_NOTHING, **changes)

    def _kept_values(self, keep: BoolArray) -> dict[str, Any]:
        """The thresholds and counter values of the objects in ``keep``, on their new rows."""
        new_row = np.cumsum(keep) - 1
        thr_keep = keep[self.thr_object]
        thr_kept = thr_keep.tolist()
        cv_keep = keep[self.cv_object]
        return {
            "thr_object": new_row[self.thr_object[thr_keep]],
            "thr_kind": self.thr_kind[thr_keep],
            "thr_at": self.thr_at[thr_keep],
            "thr_effect": tuple(e for e, k in zip(self.thr_effect, thr_kept, strict=True) if k),
            "thr_label": tuple(e for e, k in zip(self.thr_label, thr_kept, strict=True) if k),
            "cv_object": new_row[self.cv_object[cv_keep]],
            "cv_kind": self.cv_kind[cv_keep],
            "cv_value": self.cv_value[cv_keep],
        }

    # ------------------------------------------------------------------ lookups
    @property
    def n_objects(self) -> int:
        return len(self.ids)

    @property
    def n_teams(self) -> int:
        return len(self.team_names)

    @property
    def proliferator_id(self) -> str:
        return self.ids[self.proliferator]

    @cached_property
    def rounds(self) -> int:
        """Proliferates performed: ``proliferates`` times the factor of each card the proliferator controls."""
        return _rounds(self)

    @cached_property
    def index(self) -> Mapping[str, int]:
        """Row of each id."""
        return MappingProxyType({obj_id: row for row, obj_id in enumerate(self.ids)})

    @cached_property
    def _columns(self) -> Mapping[str, int]:
        return MappingProxyType({kind: k for k, kind in enumerate(self.kinds)})

    def kind_column(self, kind: str) -> int:
        """Column of a canonical kind, or -1 if no object on this board has it."""
        return self._columns.get(kind, -1)

    @cached_property
    def layout(self) -> BoardLayout:
        """The board's policy-free arrays in the kernels' layout (:class:`BoardLayout`), built with the board."""
        return _layout_of(self)

    # The per-object integers and flags: rows of the one table the board was assembled with (``_table``, the
    # rows of :data:`TABLE_FIELDS`), each a read-only view made on first use.
    @cached_property
    def controller(self) -> IntArray:
        """Each object's controller, a player row (a player's own row)."""
        return self._table_row(T_CONTROLLER)

    @cached_property
    def types(self) -> IntArray:
        """Each object's card types, as :class:`CardType` bits (0 for players)."""
        return self._table_row(T_TYPES)

    @cached_property
    def power(self) -> IntArray:
        """Each object's power (0 where it has none)."""
        return self._table_row(T_POWER)

    @cached_property
    def toughness(self) -> IntArray:
        """Each object's toughness (0 where it has none)."""
        return self._table_row(T_TOUGHNESS)

    @cached_property
    def damage(self) -> IntArray:
        """Damage marked on each object (704.5g)."""
        return self._table_row(T_DAMAGE)

    @cached_property
    def chapters(self) -> IntArray:
        """Each Saga's final chapter number (714.2d), 0 for the rest."""
        return self._table_row(T_CHAPTERS)

    @cached_property
    def protector(self) -> IntArray:
        """Each battle's protector, a player row (310.9), -1 for the rest."""
        return self._table_row(T_PROTECTOR)

    @cached_property
    def indestructible(self) -> BoolArray:
        """Whether each object has indestructible (702.12b)."""
        return self._table_flag(T_INDESTRUCTIBLE)

    @cached_property
    def phased_out(self) -> BoolArray:
        """Whether each object is phased out (702.26b)."""
        return self._table_flag(T_PHASED_OUT)

    @cached_property
    def no_counters(self) -> BoolArray:
        """Whether each object can't have counters put on it (proliferate adds none)."""
        return self._table_flag(T_NO_COUNTERS)

    def _table_row(self, at: int) -> IntArray:
        out: IntArray = self.__dict__["_table"][at]  # a view of the read-only table: read-only too
        return out

    def _table_flag(self, at: int) -> BoolArray:
        out: BoolArray = self.__dict__["_table"][at].astype(bool)
        out.flags.writeable = False
        return out

    # The permanents' free text as object arrays (one entry per row, players' empty), built on first use from what
    # the board was assembled from (``_text``: the names and type names of every permanent, the subtypes and
    # keywords of those with any, by row; :class:`Objects`): most decisions never read them.
    @cached_property
    def names(self) -> ObjArray:
        """Each object's card name (``""`` for players and unnamed permanents)."""
        return self._text_column(0, "")

    @cached_property
    def type_names(self) -> ObjArray:
        """Each object's canonical card type names (a tuple; empty for players)."""
        return self._text_column(1, ())

    @cached_property
    def subtypes(self) -> ObjArray:
        """Each object's subtypes (a tuple; empty for players)."""
        return self._text_column(2, ())

    @cached_property
    def keywords(self) -> ObjArray:
        """Each object's keywords, lower case (a tuple; empty for players)."""
        return self._text_column(3, ())

    def _text_column(self, at: int, blank: object) -> ObjArray:
        column = self.__dict__["_text"][at]
        if at < 2:  # names, type names: every permanent's
            items = [blank] * self.n_players + column
        else:  # subtypes, keywords: (row, tuple) of the permanents with any
            items = [blank] * self.n_objects
            for row, value in column:
                items[row] = value
        out = _objects(items)
        out.flags.writeable = False
        return out

    @cached_property
    def sba_masks(self) -> SbaMasks:
        """Which objects each state-based action can concern; fixed for the board's objects."""
        is_player = np.arange(self.n_objects) < self.n_players
        return SbaMasks.build(is_player, self.phased_out, self.types, self.indestructible, self.chapters)

    @property
    def _pt_per_counter(self) -> IntArray:
        """Power (column 0) and toughness (column 1) one counter of each kind adds (122.1a)."""
        return pt_table(self.kinds)

    @property
    def power_per_counter(self) -> IntArray:
        """Power one counter of each kind adds: +1 for +1/+1, -1 for -1/-1, 0 for most."""
        return self._pt_per_counter[:, 0]

    @property
    def toughness_per_counter(self) -> IntArray:
        """Toughness one counter of each kind adds: +1 for +1/+1, -1 for -1/-1, 0 for most."""
        return self._pt_per_counter[:, 1]

    @cached_property
    def object_team(self) -> IntArray:
        """Team of every object: a player's own team, a permanent's controller's team."""
        out: IntArray = self.team[self.controller]
        out.flags.writeable = False
        return out

    @cached_property
    def owner_side(self) -> IntArray:
        """Player whose interests an object's counters serve: holder, protector of a battle, else controller."""
        out = np.where(self.protector >= 0, self.protector, self.controller)
        out.flags.writeable = False
        return out

    @cached_property
    def is_ally(self) -> BoolArray:
        """Objects whose counters count for the proliferator's team (rather than against it)."""
        out: BoolArray = self.team[self.owner_side] == self.team[self.proliferator]
        out.flags.writeable = False
        return out

    @cached_property
    def team_size(self) -> IntArray:
        out = np.bincount(self.team, minlength=self.n_teams).astype(np.int64)
        out.flags.writeable = False
        return out

    def poison_threshold(self) -> IntArray:
        """Poison that makes each team lose: 10 per player, or 15 (+5 per extra head) in 2HG (704.6b, 810.11)."""
        return self._poison_threshold

    @cached_property
    def _poison_threshold(self) -> IntArray:
        if self.variant is Variant.TWO_HEADED_GIANT:
            out = shared_poison_threshold(self.team_size)
        else:
            out = np.full(self.n_teams, 10, dtype=np.int64)
        out.flags.writeable = False
        return out

    def has_type(self, card_type: CardType) -> BoolArray:
        """Objects with any of the given card types (read-only; cached per single type)."""
        cached = self._type_masks.get(card_type)
        if cached is not None:
            return cached
        out: BoolArray = (self.types & int(card_type)) != 0
        return out

    @cached_property
    def _type_masks(self) -> Mapping[CardType, BoolArray]:
        masks = {t: (self.types & int(t)) != 0 for t in CardType}
        for mask in masks.values():
            mask.flags.writeable = False
        return MappingProxyType(masks)

    # ------------------------------------------------------------------ typed views
    @cached_property
    def players(self) -> tuple[Player, ...]:
        return tuple(
            Player(
                id=self.ids[i],
                team=self.team_names[int(self.team[i])],
                life=int(self.life[i]),
                counters=self._counters_of(i),
            )
            for i in range(self.n_players)
        )

    @cached_property
    def permanents(self) -> tuple[Permanent, ...]:
        return tuple(
            Permanent(
                **{
                    **fields,
                    "counters": MappingProxyType(fields["counters"]),
                    "counter_values": MappingProxyType(fields["counter_values"]),
                }
            )
            for fields in self.permanent_fields()
        )

    def permanent_fields(self) -> list[dict[str, Any]]:
        """Every permanent's :class:`Permanent` fields as plain Python values, in board order.

        The one place that turns the arrays back into per-permanent values: the typed views
        and the JSON dump both read it.  Column-wise ``tolist`` keeps it to one cheap Python
        pass, which matters when a 100,000-object board is dumped.
        """
        first = self.n_players
        kinds, ids = self.kinds, self.ids
        own = self.counts[first:]
        rows, cols = np.nonzero(own)
        counters: list[dict[str, int]] = [{} for _ in range(self.n_objects - first)]
        for r, c, v in zip(rows.tolist(), cols.tolist(), own[rows, cols].tolist(), strict=True):
            counters[r][kinds[c]] = v
        thresholds: dict[int, list[Threshold]] = {}
        for obj, kind, at, effect, label in zip(
            self.thr_object.tolist(),
            self.thr_kind.tolist(),
            self.thr_at.tolist(),
            self.thr_effect,
            self.thr_label,
            strict=True,
        ):
            thresholds.setdefault(obj - first, []).append(Threshold(kinds[kind], at, effect, label))
        values: dict[int, dict[str, float]] = {}
        for obj, kind, val in zip(self.cv_object.tolist(), self.cv_kind.tolist(), self.cv_value.tolist(), strict=True):
            values.setdefault(obj - first, {})[kinds[kind]] = val
        creature = self.has_type(CardType.CREATURE)[first:].tolist()
        power, toughness = self.power[first:].tolist(), self.toughness[first:].tolist()
        controller, protector = self.controller[first:].tolist(), self.protector[first:].tolist()
        damage, chapters = self.damage[first:].tolist(), self.chapters[first:].tolist()
        phased, value = self.phased_out[first:].tolist(), self.value[first:].tolist()
        no_counters = self.no_counters[first:].tolist()
        out = []
        for j in range(self.n_objects - first):
            has_pt = creature[j] or power[j] or toughness[j]
            out.append(
                {
                    "id": ids[first + j],
                    "controller": ids[controller[j]],
                    "types": tuple(self.type_names[first + j]),
                    "name": str(self.names[first + j]),
                    "power": power[j] if has_pt else None,
                    "toughness": toughness[j] if has_pt else None,
                    "damage": damage[j],
                    "counters": counters[j],
                    "keywords": tuple(self.keywords[first + j]),
                    "subtypes": tuple(self.subtypes[first + j]),
                    "chapters": chapters[j] or None,
                    "protector": ids[protector[j]] if protector[j] >= 0 else None,
                    "phased_out": phased[j],
                    "no_counters": no_counters[j],
                    "value": None if value[j] != value[j] else value[j],
                    "thresholds": tuple(thresholds.get(j, ())),
                    "counter_values": values.get(j, {}),
                }
            )
        return out

    def _counters_of(self, row: int) -> Mapping[str, int]:
        nz = np.flatnonzero(self.counts[row])
        held = {self.kinds[k]: int(self.counts[row, k]) for k in nz}
        if self.head_poison is not None and row < self.n_players and "poison" in held:
            own = int(self.head_poison[row])  # a per-head board shows each head's own count (810.10)
            if own:
                held["poison"] = own
            else:
                del held["poison"]
        return MappingProxyType(held)

    def counters(self, obj_id: str) -> Mapping[str, int]:
        """The counters of one object, by id."""
        return self._counters_of(self.index[obj_id])

    # ------------------------------------------------------------------ equality
    def to_dict(self) -> dict[str, Any]:
        """The board in JSON format version 1 (see :mod:`solver.boardjson`, which reads it back).

        Optional permanent fields at their defaults are left out so dumps stay readable and
        diffs show only what matters; keys come in a fixed order.
        """
        return {
            "format": FORMAT_VERSION,
            "variant": self.variant.value,
            "proliferator": self.proliferator_id,
            "proliferates": self.proliferates,
            **({"team_poison": self.team_poison.value} if self.team_poison is not TeamPoison.SHARED else {}),
            "players": [
                {"id": p.id, "team": p.team, "life": p.life, "counters": dict(p.counters)} for p in self.players
            ],
            "permanents": [_dump_permanent(p) for p in self.permanent_fields()],
            "effects": [_dump_effect(e) for e in self.effects],
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Board(variant={self.variant.value!r}, proliferator={self.proliferator_id!r}, "
            f"players={self.n_players}, permanents={self.n_objects - self.n_players}, kinds={len(self.kinds)})"
        )


_FIELD_NAMES = tuple(f.name for f in fields(Board))
#: Every derived value (cached property) a board may hold in its instance dict.
_CACHED = frozenset(name for name, value in vars(Board).items() if isinstance(value, cached_property)) | {GAIN, STACK}
#: Fields with one entry per object, besides ``ids`` and ``counts``.
_PER_OBJECT = (
    "controller",
    "types",
    "power",
    "toughness",
    "damage",
    "indestructible",
    "chapters",
    "protector",
    "phased_out",
    "no_counters",
    "value",
    "names",
    "type_names",
    "subtypes",
    "keywords",
)
#: Derived values that depend only on the objects (not on counts, life, effects or the proliferator).
_OBJECT_CACHES = frozenset(
    {"index", "_columns", "_type_masks", "sba_masks", "object_team", "owner_side", "team_size", "_poison_threshold"}
    | set(LAZY_FIELDS)
)
#: What :meth:`Board.with_counts` keeps: :func:`solver.effects.gain` too while each object keeps the same kinds.
_KEEP_WITH_COUNTS = _OBJECT_CACHES | {"rounds", "is_ally", "layout"}
#: What :meth:`Board.with_permanent` and :meth:`Board.without` keep: nothing, the objects change.
_KEEP_NOTHING: frozenset[str] = frozenset()
_KEEP_WITH_KINDS = _KEEP_WITH_COUNTS | {GAIN}


def _dump_permanent(p: dict[str, Any]) -> dict[str, Any]:
    """One permanent's JSON, from :meth:`Board.permanent_fields`, with defaults left out."""
    out: dict[str, Any] = {"id": p["id"]}
    if p["name"]:
        out["name"] = p["name"]
    out["controller"] = p["controller"]
    out["types"] = list(p["types"])
    if p["power"] is not None:
        out["power"] = p["power"]
    if p["toughness"] is not None:
        out["toughness"] = p["toughness"]
    if p["damage"]:
        out["damage"] = p["damage"]
    out["counters"] = p["counters"]
    if p["keywords"]:
        out["keywords"] = list(p["keywords"])
    if p["subtypes"]:
        out["subtypes"] = list(p["subtypes"])
    if p["chapters"] is not None:
        out["chapters"] = p["chapters"]
    if p["protector"] is not None:
        out["protector"] = p["protector"]
    if p["phased_out"]:
        out["phased_out"] = True
    if p["no_counters"]:
        out["no_counters"] = True
    if p["value"] is not None:
        out["value"] = p["value"]
    if p["thresholds"]:
        out["thresholds"] = [_dump_threshold(t) for t in p["thresholds"]]
    if p["counter_values"]:
        out["counter_values"] = p["counter_values"]
    return out


def _dump_threshold(t: Threshold) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": t.kind, "at": t.at, "effect": t.effect}
    if t.label:
        out["label"] = t.label
    return out


def _dump_effect(e: Effect) -> dict[str, Any]:
    out: dict[str, Any] = {"card": e.card, "controller": e.controller}
    if e.source is not None:
        out["source"] = e.source
    for param in CARDS[e.card].parameters:
        if getattr(e, param.name) != param.default:
            out[param.name] = getattr(e, param.name)
    return out


@lru_cache(maxsize=64)
def _dropped(keep: frozenset[str]) -> tuple[str, ...]:
    """The derived values :meth:`Board._derived` drops when it keeps ``keep`` (a handful of sets are ever used)."""
    return tuple(_CACHED - keep)


@dataclass(frozen=True)
class _Entering:
    """What the arrays of an entering permanent's row depend on; the permanent itself rides along, not compared."""

    variant: Variant
    players: tuple[tuple[str, str], ...]
    key: tuple[Any, ...]  # the permanent but its id and counts: see :func:`_permanent_key`
    permanent: Permanent = field(compare=False)


def _entering(board: Board, permanent: Permanent) -> Board:
    """``board``'s players (no counters) and ``permanent``, built by :meth:`Board.build`: the new row's arrays.

    Its arrays but ``counts`` depend neither on the permanent's id nor on how many counters
    it has (only on which kinds, in order), and games play the same cards again and again,
    so the board is memoised by the rest (building it is most of the cost of a permanent
    entering); :meth:`Board.with_permanent` takes the counts from the permanent itself.  A
    permanent whose fields are not hashable, or whose id is a player's (which
    :meth:`Board.build` refuses), is built every time.
    """
    players = tuple(zip(board.ids[: board.n_players], [board.team_names[t] for t in board.team.tolist()], strict=True))
    spec = _Entering(board.variant, players, _permanent_key(permanent), permanent)
    if permanent.id in board.ids[: board.n_players]:
        return _entering_board(spec)
    try:
        return _entering_memo(spec)
    except TypeError:  # an unhashable field (a TypeError of the build itself is raised again below)
        return _entering_board(spec)


def _entering_board(spec: _Entering) -> Board:
    return Board.build(  # whoever proliferates: only the new row is read
        variant=spec.variant,
        proliferator=spec.players[0][0],
        players=[Player(p, team, 0) for p, team in spec.players],
        permanents=[spec.permanent],
    )


_entering_memo = lru_cache(maxsize=4096)(_entering_board)


def _permanent_key(p: Permanent) -> tuple[Any, ...]:
    """Every field of ``p`` but its id and counter counts; mappings as tuples (their order sets the columns)."""
    return (
        p.controller,
        p.types,
        p.name,
        p.power,
        p.toughness,
        p.damage,
        tuple(p.counters),
        p.keywords,
        p.subtypes,
        p.chapters,
        p.protector,
        p.phased_out,
        p.no_counters,
        p.value,
        p.thresholds,
        tuple(p.counter_values.items()),
    )


def _objects(items: Sequence[Any]) -> ObjArray:
    """A 1-D object array holding ``items`` as they are (``np.array`` would turn tuples into a 2-D array)."""
    return np.fromiter(items, dtype=object, count=len(items))


@lru_cache(maxsize=1024)
def pt_table(kinds: tuple[str, ...]) -> IntArray:
    """Power (column 0) and toughness (column 1) one counter of each of ``kinds`` adds (122.1a), read-only.

    The one table the state-based actions and the board's P/T views read.  The boards of a
    game share a handful of kinds tuples (each kind is parsed once anyway, see
    :func:`solver.kinds.pt_delta`), so each tuple's table is built once.
    """
    out = np.array([pt_delta(k) or (0, 0) for k in kinds], dtype=np.int64).reshape(len(kinds), 2)
    out.flags.writeable = False
    return out


#: One permanent as :func:`assemble` reads it: the fields of :class:`Permanent`, in their order.
PermanentRow = tuple[
    str,
    str,
    tuple[str, ...],
    str,
    "int | None",
    "int | None",
    int,
    Mapping[str, int],
    tuple[str, ...],
    tuple[str, ...],
    "int | None",
    "str | None",
    bool,
    bool,
    "float | None",
    tuple[Threshold, ...],
    Mapping[str, float],
]


def _frozen_empty(dtype: type) -> np.ndarray:
    out: np.ndarray = np.zeros(0, dtype=dtype)
    out.flags.writeable = False
    return out


#: The threshold and counter-value arrays of a board that has none (most boards), shared read-only.
_NO_VALUES: Mapping[str, np.ndarray] = MappingProxyType(
    {name: _frozen_empty(np.int64) for name in ("thr_object", "thr_kind", "thr_at", "cv_object", "cv_kind")}
    | {"cv_value": _frozen_empty(np.float64)}
)
_NO_VALUE_ARRAYS = dict(_NO_VALUES)  # the same as a dict, which a call's ``**`` merges at C level


def _value_arrays(
    thr_rows: Sequence[tuple[int, int, int, str | float, str]], cv_rows: Sequence[tuple[int, int, float]]
) -> dict[str, np.ndarray]:
    """The arrays of the thresholds (row, kind column, at) and counter values (row, kind column, value).

    Most boards have neither: they share empty arrays instead of building six (about 5 us of the
    ~200 us a 20-object board takes to load).
    """
    if not (thr_rows or cv_rows):
        return _NO_VALUE_ARRAYS
    out: dict[str, np.ndarray] = dict(_NO_VALUES)
    if thr_rows:  # the three integer arrays are the rows of one (read-only, and so are they)
        thr = np.array([[t[0] for t in thr_rows], [t[1] for t in thr_rows], [t[2] for t in thr_rows]], dtype=np.int64)
        thr.flags.writeable = False
        out.update(thr_object=thr[0], thr_kind=thr[1], thr_at=thr[2])
    if cv_rows:
        cv = np.array([[c[0] for c in cv_rows], [c[1] for c in cv_rows]], dtype=np.int64)
        cv.flags.writeable = False
        cv_value = np.array([c[2] for c in cv_rows], dtype=np.float64)
        cv_value.flags.writeable = False
        out.update(cv_object=cv[0], cv_kind=cv[1], cv_value=cv_value)
    return out


class PlayerFields(Protocol):
    """What :func:`assemble` and :meth:`Objects.of_players` read of a player: a :class:`Player`, or the loader's
    checked row of one."""

    @property
    def id(self) -> str: ...
    @property
    def team(self) -> str: ...
    @property
    def life(self) -> int: ...
    @property
    def counters(self) -> Mapping[str, int]: ...


def assemble(
    variant: Variant,
    proliferator: str,
    players: Sequence[PlayerFields],
    rows: Sequence[PermanentRow],
    effects: tuple[Effect, ...],
    proliferates: int,
    team_poison: TeamPoison = TeamPoison.SHARED,
) -> Board:
    """The board of typed players and permanent rows (:meth:`Board.build`): :func:`assemble_objects` of them.

    The input must already be consistent (unique ids, controllers and protectors that are players, canonical
    kinds and type names); an absent optional number (power, toughness, chapters) is None or 0.
    """
    player_rows = {p.id: row for row, p in enumerate(players)}
    objects = Objects.of_players(players)
    kinds, cells, sparse = objects.kinds, objects.cells, objects.sparse
    base = len(players)
    for j, (pid, controller, types, name, power, toughness, damage, held, keywords, subtypes, chapters, protector,
            phased, no_counters, value, thresholds, counter_values) in enumerate(rows):  # fmt: skip
        row = base + j
        objects.ids.append(pid)
        objects.ints.extend((player_rows[controller], type_bits(types), power or 0, toughness or 0))
        for kind, count in held.items():
            col = kinds.get(kind)
            if col is None:
                col = kinds[kind] = len(kinds)
            cells.extend((row, col, count))
        indestructible = "indestructible" in keywords
        for at, number in ((T_DAMAGE, damage), (T_CHAPTERS, chapters or 0), (T_INDESTRUCTIBLE, indestructible),
                           (T_PHASED_OUT, phased), (T_NO_COUNTERS, no_counters)):  # fmt: skip
            if number:
                sparse.extend((at, row, int(number)))
        if protector is not None:
            sparse.extend((T_PROTECTOR, row, player_rows[protector]))
        if value is not None:
            objects.values.append((row, value))
        if thresholds or counter_values:
            objects.extras.append((row, tuple(thresholds), counter_values))
        objects.names.append(name)
        objects.type_names.append(types)
        if subtypes:
            objects.subtypes.append((row, subtypes))
        if keywords:
            objects.keywords.append((row, keywords))
    return assemble_objects(
        variant,
        proliferator,
        [p.id for p in players],
        [p.team for p in players],
        [p.life for p in players],
        objects,
        effects,
        proliferates,
        team_poison,
    )


@dataclass(slots=True)
class Objects:
    """A board's checked objects as :func:`assemble_objects` reads them, gathered in one pass over the permanents
    (the loader's checks, :meth:`Board.build`): nothing per field and object beyond that pass.

    Rows are the board's (players first).  ``ids``: the permanents' ids; ``ints``: four integers per permanent,
    the rows :data:`T_CONTROLLER` to :data:`T_TOUGHNESS` of the board's table (its controller's row, its
    :class:`CardType` bits, its power and its toughness, 0 where absent); ``sparse``: (table row, object row,
    value) triples of the table's other rows where they differ from the default (0; -1 for the protector);
    ``kinds``: each counter kind's column, in order of first appearance over the players' then the permanents'
    counters (canonical kinds); ``cells``: (object row, kind column, count) triples, one per counter held;
    ``names`` and ``type_names``: each permanent's name and canonical card type names; ``subtypes`` and
    ``keywords``: (object row, tuple) of the permanents with any (keywords lower case where loaded); ``values``:
    (object row, value) of the permanents with a ``value``; ``extras``: (object row, thresholds, counter values)
    of the permanents with either.
    """

    ids: list[str] = field(default_factory=list)
    ints: list[int] = field(default_factory=list)
    sparse: list[int] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    cells: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    type_names: list[tuple[str, ...]] = field(default_factory=list)
    subtypes: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    keywords: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    values: list[tuple[int, float]] = field(default_factory=list)
    extras: list[tuple[int, tuple[Threshold, ...], Mapping[str, float]]] = field(default_factory=list)

    @classmethod
    def of_players(cls, players: Sequence[PlayerFields]) -> Objects:
        """The objects gathered so far once the players' counters are (rows 0, 1, ...)."""
        kinds: dict[str, int] = {}
        cells: list[int] = []
        for row, player in enumerate(players):
            for kind, count in player.counters.items():
                col = kinds.get(kind)
                if col is None:
                    col = kinds[kind] = len(kinds)
                cells.extend((row, col, count))
        return cls(kinds=kinds, cells=cells)


def type_bits(names: tuple[str, ...]) -> int:
    """The :class:`CardType` bits of canonical card type names."""
    bits = 0
    for name in names:
        bits |= _TYPE_BITS[name]
    return bits


@njit(cache=True)
def _fill_table(
    table: IntArray, counts: IntArray, n_players: int, flat: IntArray, n_sparse: int, cells: IntArray
) -> None:
    """Write a board's table (the rows of :data:`TABLE_FIELDS`) and its counts from :class:`Objects`' integers.

    ``table`` and ``counts`` are the right shape (their contents are overwritten); ``flat`` is :class:`Objects`'
    ``ints`` then ``sparse`` (``n_sparse`` long, one array made, not two), ``cells`` its cells.
    """
    n = table.shape[1]
    m = n - n_players
    ints, sparse = flat[: 4 * m], flat[4 * m : 4 * m + n_sparse]
    table[:] = 0
    counts[:] = 0
    for i in range(n_players):
        table[T_CONTROLLER, i] = i
    for i in range(n):
        table[T_PROTECTOR, i] = -1
    for j in range(n - n_players):
        for r in range(4):  # T_CONTROLLER, T_TYPES, T_POWER, T_TOUGHNESS
            table[r, n_players + j] = ints[4 * j + r]
    for s in range(0, len(sparse), 3):
        table[sparse[s], sparse[s + 1]] = sparse[s + 2]
    for c in range(0, len(cells), 3):
        counts[cells[c], cells[c + 1]] = cells[c + 2]


def assemble_objects(
    variant: Variant,
    proliferator: str,
    player_ids: Sequence[str],
    player_teams: Sequence[str],
    player_life: Sequence[int],
    objects: Objects,
    effects: tuple[Effect, ...],
    proliferates: int,
    team_poison: TeamPoison = TeamPoison.SHARED,
) -> Board:
    """The board's arrays from checked players and :class:`Objects`: the one copy of the array building.

    The input must already be consistent (unique ids, controllers and protectors that are players, canonical
    kinds and type names).  ``objects`` is used up: the kinds of the thresholds and counter values are added to
    its ``kinds`` (after the counters' kinds) and its ``cells`` emptied once they are an array; the integers go
    into the board's one table and its counts in one compiled pass (:func:`_fill_table`), then its layout in
    another (:func:`_layout_of`).
    """
    n_players = len(player_ids)
    pids = objects.ids
    n = n_players + len(pids)
    team_names = tuple(dict.fromkeys(player_teams))
    team_index = {t: i for i, t in enumerate(team_names)}
    kinds = objects.kinds
    thr_rows: list[tuple[int, int, int, str | float, str]] = []
    cv_rows: list[tuple[int, int, float]] = []
    for row, thresholds, values in objects.extras:  # most boards have none
        for t in thresholds:
            thr_rows.append((row, kinds.setdefault(t.kind, len(kinds)), t.at, t.effect, t.label))
        for k, v in values.items():
            cv_rows.append((row, kinds.setdefault(k, len(kinds)), v))

    cells = np.array(objects.cells, dtype=np.int64)
    objects.cells.clear()  # a big board's cells are most of what it is built from: their list goes first
    flat = np.array(objects.ints + objects.sparse, dtype=np.int64)
    counts: IntArray = np.empty((n, len(kinds)), dtype=np.int64)
    table = np.empty((len(TABLE_FIELDS), n), dtype=np.int64)
    _fill_table(table, counts, n_players, flat, len(objects.sparse), cells)
    table.flags.writeable = False  # and so every row of it (the board's per-object fields, made on first use)
    teams = [team_index[t] for t in player_teams]
    per_head = variant is Variant.TWO_HEADED_GIANT and team_poison is TeamPoison.PER_HEAD
    head_poison = np.zeros(n_players, dtype=np.int64) if per_head else None
    if variant is Variant.TWO_HEADED_GIANT and "poison" in kinds:
        col = kinds["poison"]
        stated = counts[:n_players, col].tolist()
        shared = [0] * len(team_names)  # a few players: plain Python beats ``np.maximum.at``
        for team, count in zip(teams, stated, strict=True):  # the team's total: stated on each head, or summed
            shared[team] = shared[team] + count if per_head else max(shared[team], count)
        counts[:n_players, col] = [shared[team] for team in teams]
        if per_head:
            head_poison = np.array(stated, dtype=np.int64)
    value = np.empty(n)
    value.fill(np.nan)
    if objects.values:
        value_rows, numbers = zip(*objects.values, strict=True)
        value[list(value_rows)] = numbers
    # Filled like :meth:`Board._derived` rather than through the generated ``__init__``, whose
    # 33 frozen-field assignments are a tenth of the loading time of a small board.
    board = object.__new__(Board)
    board.__dict__.update(
        variant=variant,
        proliferator=player_ids.index(proliferator),
        proliferates=proliferates,
        ids=(*player_ids, *pids),
        n_players=n_players,
        kinds=tuple(kinds),
        counts=counts,
        team=np.array(teams, dtype=np.int64),
        team_names=team_names,
        life=np.array(player_life, dtype=np.int64),
        value=value,
        _table=table,
        effects=effects,
        _text=(objects.names, objects.type_names, objects.subtypes, objects.keywords),  # arrays made on first use
        thr_effect=tuple(t[3] for t in thr_rows) if thr_rows else (),
        thr_label=tuple(t[4] for t in thr_rows) if thr_rows else (),
        **_value_arrays(thr_rows, cv_rows),
        team_poison=TeamPoison.PER_HEAD if per_head else TeamPoison.SHARED,
        head_poison=head_poison,
    )
    state = board.__dict__
    for name in _BUILT:  # the fields not rows of the table
        array = state[name]
        if array is not None:
            array.flags.writeable = False
    state["rounds"] = _rounds(board)  # read by the layout and the loader's checks: filled here, without the
    # lock of functools.cached_property's first read (Python 3.11)
    state["layout"] = _layout_of(board, table)
    return board


#: The array fields :func:`assemble` builds on their own (the others are rows of two read-only tables).
#: The threshold and counter-value arrays are read-only already (:func:`_value_arrays`).
_BUILT = ("counts", "team", "life", "value", "head_poison")
