"""The heuristic objective, defined once: what a proliferate choice is worth to the proliferator.

The value of a choice is the value of the board after it (state-based actions applied)
minus the value after choosing nothing, from the proliferator's side, in integer
*milli-points* so that every solver path compares exactly the same numbers:

* every counter is worth its kind's weight (:class:`~solver.policy.Policy`, default
  :mod:`solver.catalogue`), or the permanent's ``counter_values`` override, positive on
  allies' objects and negative on opponents' (the owner of a battle's counters is its
  protector); presence-only kinds count once;
* a creature that dies loses its worth (board ``value``, else ``creature_base`` plus half
  its printed power and toughness) and its counters; a Saga that will be sacrificed loses
  its worth (``value``, else ``saga_value``); every Saga chapter triggered is worth
  ``saga_chapter``; a numeric threshold crossed pays its amount;
* the game result (win, draw, loss, eliminations) is scored by the policy and weighted so
  that it dominates: the weight is raised above the whole material range of the board;
* a resolution that ends the game for the proliferator (a win, a loss or a draw) is worth
  its game score alone: counters added to a finished game are worth nothing, so among
  winning choices the one with the fewest picks is chosen.

The same objective also tabulates itself per *unit* (:class:`Units`): an object that is
not a 2HG head is one unit whose value depends only on how many rounds it is chosen in;
a 2HG team is one unit whose options are per-round patterns of heads and poison
recipients.  Material adds over units and game results depend only on which seats lose,
which is what makes the compiled core's exact path (:mod:`solver.kernels.exact`,
:meth:`Objective.best`) and the compact CP-SAT model (:mod:`solver.cpsat`) possible.  The
tables themselves are the compiled core's (:attr:`Objective.row_tables`, the 2HG team
options), so every path reads one implementation of the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache
from typing import NamedTuple, Protocol

import numpy as np

from . import effects
from .board import Board, BoolArray, CardType, FloatArray, IntArray, Variant
from .catalogue import default_spec
from .kernels import Layout, SettledLayout, decide_layout, layout_of, score_layout, tabulate, value_settled
from .kernels.exact import split_units, team_option_values, team_options
from .policy import DEFAULT_POLICY, Policy
from .rules import (
    Choice,
    EventLayout,
    SeatRules,
    Settled,
    accumulate_at_rows,
    choice_matrix,
    combine_events,
    eligible_mask,
    lost_seats,
    lost_seats_of,
    seat_numbers,
    seat_rules_of,
    segment_reduce,
    settle,
    team_poison,
)

__all__ = [
    "Assignment",
    "Best",
    "GameRules",
    "MaterialTables",
    "Objective",
    "TeamOption",
    "TeamUnit",
    "UnitKind",
    "UnitRef",
    "Units",
    "game_milli_of",
    "game_over_of",
    "game_scores",
    "material_of",
    "team_poison_milli",
]

MILLI = 1000


class UnitKind(StrEnum):
    """What a unit of the objective is: one object, or a 2HG team's heads with its shared poison."""

    SINGLE = "single"
    TEAM = "team"


class UnitRef(NamedTuple):
    """A unit by kind and index (into ``Units.single_rows`` or ``Units.teams``)."""

    kind: UnitKind
    number: int


@dataclass(frozen=True)
class Assignment:
    """A choice in unit terms: rounds per single unit, option index per team unit.

    What every solver path finds; :meth:`Objective.matrix_of` turns it into choice matrices
    and :meth:`Objective.assignment_of` back.
    """

    single_times: IntArray
    team_options: tuple[int, ...]


@dataclass(frozen=True)
class Best:
    """The compiled core's answer for one board: its choice matrices, value and game events.

    ``chosen`` is ``rounds x objects``, ``recipients`` ``rounds x teams`` (the head getting a
    2HG team's poison in each round, else -1), ``value`` in milli-points relative to choosing
    nothing and ``events`` every game event of the resolution (:func:`solver.rules.row_events`).
    """

    chosen: BoolArray
    recipients: IntArray
    value: int
    events: int


class TeamOption(NamedTuple):
    """One way to choose among a 2HG team's heads over all rounds: per round, (heads, recipient).

    A named tuple, as a decision builds every option of every team afresh (a handful each) and
    a tuple is built several times faster than a frozen dataclass.
    """

    pattern: tuple[tuple[tuple[int, ...], int], ...]
    times: tuple[int, ...]
    poison: int
    picks: int
    material: int
    events: int


@dataclass(frozen=True)
class TeamUnit:
    team: int
    heads: tuple[int, ...]
    options: tuple[TeamOption, ...]


@dataclass(frozen=True)
class Units:
    """The objective tabulated per unit (see module docstring); material in milli-points.

    ``single_rows[u]`` is the board row of single unit ``u``; ``single_material[u, c]`` and
    ``single_events[u, c]`` are its material and seat-loss bitmask when chosen in ``c`` rounds.
    ``base_material`` holds the material no unit can change and ``base_events`` the seats that
    lose whatever is chosen (including those of units whose events never vary); ``coupled`` are
    the single units whose events do vary, which the fast path's programme decides.  ``span``
    is the most minus the least material the units can reach (the range the game weight is
    raised above).  Split as the compiled core splits (:func:`solver.kernels.exact.split_units`).
    """

    single_rows: IntArray
    single_material: IntArray
    single_events: IntArray
    coupled: IntArray
    teams: tuple[TeamUnit, ...]
    base_material: int
    base_events: int
    span: int


class MaterialSource(Protocol):
    """The per-object arrays material is read from: a :class:`Board` or a stack of boards."""

    @property
    def kinds(self) -> tuple[str, ...]: ...
    @property
    def counts(self) -> IntArray: ...
    @property
    def power(self) -> IntArray: ...
    @property
    def toughness(self) -> IntArray: ...
    @property
    def chapters(self) -> IntArray: ...
    @property
    def value(self) -> FloatArray: ...
    @property
    def is_ally(self) -> BoolArray: ...
    @property
    def cv_object(self) -> IntArray: ...
    @property
    def cv_kind(self) -> IntArray: ...
    @property
    def cv_value(self) -> FloatArray: ...
    @property
    def thr_object(self) -> IntArray: ...
    @property
    def thr_effect(self) -> tuple[str | float, ...]: ...
    def has_type(self, card_type: CardType) -> BoolArray: ...


@dataclass(frozen=True)
class MaterialTables:
    """What each row's counters and fate are worth, in points, for one board or a stack of boards.

    ``weights[i, k]`` is one counter of kind ``k`` on row ``i`` (policy weight or the
    permanent's ``counter_values``; 0 for 2HG poison, counted per team instead), ``worth[i]``
    the object itself, ``side[i]`` +1 for the proliferator's side and -1 for opponents' (in
    milli-points per point: +-:data:`MILLI`).  ``presence`` are the columns of the
    ``presence_only`` kinds.
    """

    weights: FloatArray
    presence_only: BoolArray
    presence: IntArray
    worth: FloatArray
    side: FloatArray
    saga_chapter: float
    thr_object: IntArray
    thr_index: IntArray
    thr_amount: FloatArray

    @classmethod
    def build(
        cls, objs: MaterialSource, policy: Policy, player_rows: IntArray, poison_heads: IntArray
    ) -> MaterialTables:
        """The tables of ``objs``, whose players are ``player_rows`` (2HG heads sharing poison: ``poison_heads``)."""
        kinds = objs.kinds
        weight = policy.kind_weights(kinds)
        weights = np.empty(objs.counts.shape, dtype=np.float64)
        weights[...] = weight
        if len(objs.cv_object):
            weights[objs.cv_object, objs.cv_kind] = objs.cv_value
        if len(poison_heads):
            weights[poison_heads, kinds.index("poison")] = 0.0
        default = np.where(
            objs.has_type(CardType.CREATURE),
            policy.creature_base + (objs.power + objs.toughness) / 2,
            np.where(objs.chapters > 0, policy.saga_value, 0.0),
        )
        worth = np.where(np.isnan(objs.value), default, objs.value)
        worth[player_rows] = 0.0
        effects = objs.thr_effect
        numeric = [j for j, effect in enumerate(effects) if not isinstance(effect, str)]
        presence_only, presence = _presence_of(kinds)
        tables = cls(
            weights=weights,
            presence_only=presence_only,
            presence=presence,
            worth=worth,
            side=np.where(objs.is_ally, float(MILLI), -float(MILLI)),
            saga_chapter=policy.saga_chapter,
            thr_object=objs.thr_object[numeric],
            thr_index=np.array(numeric, dtype=np.int64),
            thr_amount=np.array([float(effects[j]) for j in numeric], dtype=np.float64),
        )
        for table in (tables.weights, tables.worth, tables.side):
            table.flags.writeable = False
        return tables


@lru_cache(maxsize=1024)
def _presence_of(kinds: tuple[str, ...]) -> tuple[BoolArray, IntArray]:
    """Which of ``kinds`` count once however many counters there are: as a mask and as columns (read-only).

    Presence is the catalogue's, not a policy's, and a game's boards share a handful of kinds
    tuples, so each tuple's is worked out once.
    """
    mask = np.array([default_spec(k).presence_only for k in kinds], dtype=bool)
    columns = np.flatnonzero(mask)
    mask.flags.writeable = columns.flags.writeable = False
    return mask, columns


def material_of(tables: MaterialTables, settled: Settled) -> IntArray:
    """Material of every row after the state-based actions, in milli-points (any leading axes)."""
    counts = settled.counts
    counters = np.einsum("...k,...k->...", counts, tables.weights)
    presence = tables.presence
    if len(presence):  # one counter of a presence-only kind is as good as many: take back the extra ones
        held = counts[..., presence]
        # Only rows holding two or more of such a kind take anything back (elsewhere it is 0.0, a no-op).
        if held.max(initial=0) > 1:
            over = np.nonzero((held > 1).any(axis=-1))
            extra = held[over]
            taken = np.einsum("ik,ik->i", extra - np.minimum(extra, 1), tables.weights[over[-1]][:, presence])
            counters[over] -= taken
    value = np.where(settled.dies | settled.sacrificed, 0.0, tables.worth + counters)
    value += tables.saga_chapter * (settled.chapters_after - settled.chapters_before)
    if len(tables.thr_index):
        paid = np.where(settled.thr_crossed[..., tables.thr_index], tables.thr_amount, 0.0)
        accumulate_at_rows(np.add, value, tables.thr_object, paid)
    value *= tables.side
    out: IntArray = np.rint(value, out=value).astype(np.int64)
    return out


@dataclass(frozen=True)
class GameRules:
    """Per board (axis 0), what the policy's game score needs: seats, ours, our opponents'.

    ``opponents`` is the bitmask of the seats on other teams than the proliferator's and
    ``elimination`` the score of eliminating one of them (kept below half a win per extra
    opponent, so eliminating all but one never outranks a win).
    """

    seats: SeatRules
    our_seat: IntArray
    opponents: IntArray
    n_opponents: IntArray
    elimination: FloatArray

    @classmethod
    def of(cls, board: Board, policy: Policy) -> GameRules:
        """One board's rules: its seating's (shared, see :func:`_seating_of`) with the policy's elimination score."""
        team = tuple(board.team.tolist())
        n_opponents = _seating_of(board.variant, team, board.proliferator)[3]
        return _seated_rules(board.variant, team, board.proliferator, policy.elimination_score(int(n_opponents[0])))

    @classmethod
    def build(
        cls,
        policy: Policy,
        seat_rules: SeatRules,
        *,
        player_board: IntArray,
        seat: IntArray,
        team: IntArray,
        proliferator: IntArray,
    ) -> GameRules:
        """The rules of many boards from per-player arrays; ``proliferator[b]`` indexes them."""
        n_boards = len(proliferator)
        rival = team != team[proliferator][player_board]
        opponents = np.zeros(n_boards, dtype=np.int64)
        segment_reduce(np.bitwise_or, opponents, player_board, np.where(rival, np.left_shift(np.int64(1), seat), 0))
        n_opponents = np.bitwise_count(opponents).astype(np.int64)
        return cls._scored(policy, seat_rules, seat[proliferator], opponents, n_opponents)

    @classmethod
    def _scored(
        cls, policy: Policy, seat_rules: SeatRules, our_seat: IntArray, opponents: IntArray, n_opponents: IntArray
    ) -> GameRules:
        counts = n_opponents.tolist()  # Python ints: quicker to look up than numpy scalars
        eliminations = {n: policy.elimination_score(n) for n in set(counts)}
        return cls(
            seats=seat_rules,
            our_seat=our_seat,
            opponents=opponents,
            n_opponents=n_opponents,
            elimination=np.array([eliminations[n] for n in counts], dtype=np.float64),
        )


#: A seating's game rules without the policy: seat rules, our seat, opponents' seats, how many.
Seating = tuple[SeatRules, IntArray, IntArray, IntArray]


@lru_cache(maxsize=256)
def _seating_of(variant: Variant, team: tuple[int, ...], proliferator: int) -> Seating:
    """The policy-free part of :meth:`GameRules.of`: seat rules, our seat, opponents and their number (read-only).

    It depends only on the variant, the players' teams and who proliferates, which a game
    keeps for every decision, so it is worked out once per seating, by :meth:`GameRules.build`
    itself (one board of one seating), with a neutral policy whose scores are not kept.
    """
    teams = np.array(team, dtype=np.int64)
    board = GameRules.build(
        DEFAULT_POLICY,
        seat_rules_of(variant, team),
        player_board=np.zeros(len(team), dtype=np.int64),
        seat=seat_numbers(variant, teams),
        team=teams,
        proliferator=np.array([proliferator], dtype=np.int64),
    )
    for array in (board.our_seat, board.opponents, board.n_opponents):
        array.flags.writeable = False
    return board.seats, board.our_seat, board.opponents, board.n_opponents


@lru_cache(maxsize=256)
def _seated_rules(variant: Variant, team: tuple[int, ...], proliferator: int, elimination: float) -> GameRules:
    """:meth:`GameRules.of` for a seating and the policy's score of one elimination there, all it reads of the policy.

    A game asks for the same seating at every decision, so its rules are built once per seating and score.
    """
    seat_rules, our_seat, opponents, n_opponents = _seating_of(variant, team, proliferator)
    rules = GameRules(seat_rules, our_seat, opponents, n_opponents, np.array([elimination], dtype=np.float64))
    rules.elimination.flags.writeable = False
    return rules


def _losses(rules: GameRules, events: IntArray) -> tuple[BoolArray, BoolArray, IntArray]:
    """Per board (axis 0) and events mask (axis 1): we lose, every opponent loses, how many opponents lose."""
    lost = lost_seats_of(rules.seats, events)
    lost_opponents = np.bitwise_count(lost & rules.opponents[:, None])  # small counts: uint8 is exact
    all_lost = (lost_opponents == rules.n_opponents[:, None]) & (lost_opponents > 0)
    ours = ((lost >> rules.our_seat[:, None]) & 1) == 1
    return ours, all_lost, lost_opponents


def game_scores(policy: Policy, rules: GameRules, events: IntArray) -> FloatArray:
    """The policy's score of game events, per board (axis 0) and events mask (axis 1)."""
    ours, all_lost, lost_opponents = _losses(rules, events)
    out: FloatArray = np.where(
        ours,
        np.where(all_lost, policy.draw, policy.loss),
        np.where(all_lost, policy.win, rules.elimination[:, None] * lost_opponents),
    )
    return out


def game_over_of(rules: GameRules, events: IntArray) -> BoolArray:
    """Whether the game events end the game for the proliferator, per board (axis 0) and mask (axis 1).

    A win (every opponent loses and we don't, 104.2a), a loss (104.3, 704.5c, 704.6b, 810.8)
    or a draw (104.4a: we lose together with every opponent left) ends it; eliminations in a
    free-for-all don't.  A resolution that ends the game is worth its game score alone: the
    counters on a board nobody plays on any more are worth nothing (docs/objective.md).
    """
    ours, all_lost, _ = _losses(rules, events)
    out: BoolArray = ours | all_lost
    return out


def team_poison_milli(weight: FloatArray, poison: IntArray) -> IntArray:
    """Material of 2HG teams' shared poison, counted once per team: ``weight`` is +-the poison weight per team."""
    out: IntArray = np.rint(MILLI * weight * poison).astype(np.int64)
    return out


def game_milli_of(weight: FloatArray, scores: FloatArray) -> IntArray:
    """Game scores in milli-points, with each board's game weight (axis 0)."""
    out: IntArray = np.where(scores != 0, np.rint((MILLI * weight)[:, None] * scores), 0).astype(np.int64)
    return out


def game_weight_of(policy: Policy, span: IntArray, n_opponents: IntArray) -> FloatArray:
    """Points per unit of game score: the policy's, raised above each board's material ``span``."""
    counts = n_opponents.tolist()  # Python ints: quicker to look up than numpy scalars
    gaps = {n: policy.score_gap(n) for n in set(counts)}
    gap = np.array([gaps[n] for n in counts], dtype=np.float64)
    out: FloatArray = np.maximum(policy.game_weight, (span / MILLI + 1.0) / gap)
    return out


def _one_settled(settled: Settled) -> SettledLayout:
    """One board's settled resolution as the value kernel reads it (one copy, the board's own columns)."""
    return SettledLayout(
        counts=np.ascontiguousarray(settled.counts, dtype=np.int64)[None],
        annihilated=settled.annihilated[None],
        dies=np.ascontiguousarray(settled.dies)[None],
        chapters_before=np.ascontiguousarray(settled.chapters_before, dtype=np.int64)[None],
        chapters_after=np.ascontiguousarray(settled.chapters_after, dtype=np.int64)[None],
        sacrificed=np.ascontiguousarray(settled.sacrificed)[None],
        thr_reached=np.ascontiguousarray(settled.thr_reached)[None],
        thr_crossed=np.ascontiguousarray(settled.thr_crossed)[None],
        events=np.array([[settled.events]], dtype=np.int64),
        lost=np.zeros((1, 1), dtype=np.int64),
    )


#: At most this many event masks scored at once are kept for :meth:`Objective.game_milli`.
_REMEMBERED_MASKS = 64


class Objective:
    """The objective for one board and policy; cheap to query once built."""

    def __init__(self, board: Board, policy: Policy | None = None) -> None:
        self.board = board
        self.policy = policy or DEFAULT_POLICY
        if board.n_players > 62:
            raise ValueError("at most 62 players are supported")
        self._shared_poison = board.variant is Variant.TWO_HEADED_GIANT and board.kind_column("poison") >= 0
        self._game_cache: dict[int, int] = {0: 0}  # no game event, no game score
        self._over_cache: dict[int, bool] = {}
        self._best: dict[int, Best] = {}
        self._settled_chosen: dict[int, Settled] = {}

    # The tables below are built on first use: many decisions never score a game event.
    @cached_property
    def tables(self) -> MaterialTables:
        board = self.board
        players = np.arange(board.n_players, dtype=np.int64)
        return MaterialTables.build(board, self.policy, players, players if self._shared_poison else players[:0])

    @property
    def weights(self) -> FloatArray:
        """Points per counter, per object and kind (policy weights, ``counter_values`` overrides)."""
        return self.tables.weights

    @property
    def presence_only(self) -> BoolArray:
        return self.tables.presence_only

    @property
    def worth(self) -> FloatArray:
        return self.tables.worth

    @cached_property
    def rules(self) -> GameRules:
        return GameRules.of(self.board, self.policy)

    @cached_property
    def layout(self) -> EventLayout:
        return EventLayout.of(self.board)

    @cached_property
    def _team_poison_weight(self) -> FloatArray:
        board = self.board
        team_side = np.where(np.arange(board.n_teams) == board.team[board.proliferator], 1.0, -1.0)
        out: FloatArray = team_side * self.policy.weight("poison")
        return out

    # ------------------------------------------------------------------ material
    def material_rows(self, settled: Settled) -> IntArray:
        """Material of every object after the state-based actions, in milli-points."""
        return material_of(self.tables, settled)

    def team_material(self, poison: IntArray) -> IntArray:
        """Material of each 2HG team's shared poison (counted once per team, not per head)."""
        if not self._shared_poison:
            return np.zeros(len(poison), dtype=np.int64)
        return team_poison_milli(self._team_poison_weight, poison)

    # ------------------------------------------------------------------ game result
    def game_score(self, events: int) -> float:
        """The policy's score of the game events of a resolution, from the proliferator's side."""
        return float(game_scores(self.policy, self.rules, np.array([[events]], dtype=np.int64))[0, 0])

    def game_milli(self, events: int) -> int:
        """The game score in milli-points (the weight is only worked out when a game result is at stake).

        Memoised per events mask: explanations ask once per object, and a board has few masks.
        """
        cached = self._game_cache.get(events)
        if cached is None:
            score = self.game_score(events)
            cached = self._game_cache[events] = round(MILLI * self.game_weight * score) if score else 0
        return cached

    def game_millis(self, events: IntArray) -> IntArray:
        """:meth:`game_milli` of many event masks at once."""
        if not events.any():
            return np.zeros(len(events), dtype=np.int64)
        scores = game_scores(self.policy, self.rules, events.reshape(1, -1))
        if not scores.any():
            return np.zeros(len(events), dtype=np.int64)
        out: IntArray = game_milli_of(np.array([self.game_weight]), scores)[0]
        if len(out) <= _REMEMBERED_MASKS:  # the same numbers as game_milli's: the baseline's mask is often among them
            self._game_cache.update(zip(events.tolist(), out.tolist(), strict=True))
        return out

    def game_result(self, events: int) -> str:
        """``win``, ``draw``, ``loss``, ``eliminations`` or ``none``, in words for explanations."""
        score = self.game_score(events)
        if score == self.policy.win:
            return "win"
        if score == self.policy.draw and (lost_seats(self.board, events) >> int(self.rules.our_seat[0])) & 1:
            return "draw"
        if score == self.policy.loss:
            return "loss"
        return "eliminations" if score > 0 else "none"

    @cached_property
    def game_weight(self) -> float:
        """Points per unit of game score: the policy's, raised so no material range can outweigh it."""
        return float(game_weight_of(self.policy, np.array([self.units.span]), self.rules.n_opponents)[0])

    # ------------------------------------------------------------------ scoring choices
    def state_value(self, settled: Settled) -> int:
        """Value of a settled board, in milli-points (not yet relative to choosing nothing): the value kernel's."""
        value, baseline = value_settled(self.core, _one_settled(settled))
        return int(value[0] + baseline[0])

    def _team_poison(self, counts: IntArray) -> IntArray:
        """:func:`team_poison`, where it counts: without shared poison (810.10) every team's is 0 anyway.

        Outside 2HG nothing reads it (704.5c is per player), and a 2HG board without poison
        counters has none to share.
        """
        if self._shared_poison:
            return team_poison(self.board, counts)
        return np.zeros(self.board.n_teams, dtype=np.int64)

    @cached_property
    def _start_poison(self) -> IntArray:
        """:meth:`_team_poison` of the board as it stands, which the baseline and the team units both read."""
        return self._team_poison(self.board.counts)

    def _total(self, material: IntArray, events: IntArray, poison: IntArray) -> int:
        mask = combine_events(self.board, events, poison)
        if self.game_over(mask):  # the game is over for us: the counters are worth nothing
            return self.nothing_material + self.game_milli(mask)
        value = int(material.sum())
        if self._shared_poison:  # else no team holds any shared poison material
            value += int(self.team_material(poison).sum())
        return value + self.game_milli(mask)

    def total(self, material: int, events: int) -> int:
        """A resolution's value (not yet relative to choosing nothing) from its material and game events.

        The one place the two meet: material plus the game score, except that a resolution
        that ends the game for the proliferator (:meth:`game_over`) is worth its game score
        alone, on top of the material of choosing nothing, so that relative to choosing
        nothing the counters it adds are worth 0.
        """
        if self.game_over(events):
            return self.nothing_material + self.game_milli(events)
        return material + self.game_milli(events)

    def game_over(self, events: int) -> bool:
        """Whether these game events end the game for the proliferator (win, loss or draw; :func:`game_over_of`)."""
        if not events:
            return False
        over = self._over_cache.get(events)
        if over is None:
            over = self._over_cache[events] = bool(game_over_of(self.rules, np.array([[events]], dtype=np.int64))[0, 0])
        return over

    def games_over(self, events: IntArray) -> BoolArray:
        """:meth:`game_over` of many event masks at once."""
        if not events.any():
            return np.zeros(len(events), dtype=bool)
        out: BoolArray = game_over_of(self.rules, events.reshape(1, -1))[0]
        return out

    @cached_property
    def nothing_material(self) -> int:
        """The material of the board with nothing chosen (2HG team poison included), in milli-points."""
        tabulated = "row_tables" in self.__dict__
        material = self.row_tables[0][0] if tabulated else self.material_rows(self.settled_nothing)
        value = int(material.sum())
        if self._shared_poison:
            value += int(self.team_material(self._start_poison).sum())
        return value

    @cached_property
    def baseline(self) -> int:
        """Value of choosing nothing (the board settles all the same).

        Read from the row tables when a solver has built them (row 0 is every object chosen
        in no round), else from the value kernel (:func:`solver.kernels.score_layout`, the
        board a batch of one, no alternative): scoring a single choice (the environment's
        reward) needs no tables.
        """
        if "row_tables" in self.__dict__:
            material, events = self.row_tables
            return self._total(material[0], events[0], self._start_poison)
        n = self.board.n_objects
        nothing = score_layout(self.core, np.zeros((0, n), dtype=np.int64), np.zeros((0, 1, 1), dtype=np.int64))
        return int(nothing.baseline[0])

    @cached_property
    def settled_nothing(self) -> Settled:
        """The board settled with nothing chosen."""
        return settle(self.board, self.board.counts)

    def value_of(self, settled: Settled) -> int:
        """Value of a settled resolution relative to choosing nothing, in milli-points (the value kernel's)."""
        return int(value_settled(self.core, _one_settled(settled))[0][0])

    def score_matrix(self, chosen: np.ndarray, recipients: IntArray) -> int:
        """Value of a checked choice matrix relative to choosing nothing, in milli-points.

        One call of the value kernel (:func:`solver.kernels.score_layout`, the board a batch of one):
        the counters after the choice (701.34a/b), the state-based actions, material and game score.
        """
        board = self.board
        times = np.asarray(chosen).sum(axis=0, dtype=np.int64)[None, :]
        named = np.full((1, max(board.rounds, 1), max(board.n_teams, 1)), -1, dtype=np.int64)
        named[0, : recipients.shape[0], : recipients.shape[1]] = recipients
        return int(score_layout(self.core, times, named).values[0, 0])

    def score(self, choice: Choice) -> float:
        """Value of a choice in points (raises IllegalChoice for an illegal one)."""
        chosen, recipients = choice_matrix(self.board, choice)
        return self.score_matrix(chosen, recipients) / MILLI

    # ------------------------------------------------------------------ the compiled core
    @cached_property
    def core(self) -> Layout:
        """The board in the compiled core's layout (:mod:`solver.kernels.layout`), a batch of one.

        A batch of one keeps the board's kinds in its column order, so the core's tables
        index objects and kinds as the board does; an outcome settled later reuses it.
        """
        return layout_of(self.board, self.policy)

    def best(self, sense: int = 1) -> Best:
        """The optimum (``sense=1``) or the worst choice (``sense=-1``) by the compiled core's exact path.

        :func:`solver.kernels.decide_layout` on :attr:`core`; raises ValueError (its words) when
        the choice couples more than :data:`solver.kernels.exact.MAX_FREE_SEATS` seats.
        """
        found = self._best.get(sense)
        if found is None:
            decided = decide_layout(self.core, sense)
            rounds = self.board.rounds
            chosen, recipients = decided.chosen[:rounds], decided.recipients[:rounds]
            found = Best(chosen, recipients, int(decided.values[0]), int(decided.events[0]))
            self._best[sense] = found
        return found

    # ------------------------------------------------------------------ per-unit tables
    @cached_property
    def row_tables(self) -> tuple[IntArray, IntArray]:
        """Material and loss events of every row when chosen in c = 0..rounds rounds (axis 0).

        The compiled core's own tables (:func:`solver.kernels.exact.tabulate_rows`), 2HG team
        poison apart (the team units value it).
        """
        return tabulate(self.core)

    def settled_chosen(self, times: int) -> Settled:
        """The board settled with every object chosen in ``times`` rounds (2HG team poison apart).

        What an explanation describes for an object chosen that often; one settle per number of rounds asked.
        """
        found = self._settled_chosen.get(times)
        if found is None:
            board = self.board
            gain = effects.gain(board)
            if self._shared_poison:
                gain = gain.copy()
                gain[: board.n_players, board.kind_column("poison")] = 0
            found = settle(board, board.counts + times * gain, consume=True)
            self._settled_chosen[times] = found
        return found

    @cached_property
    def _choosable(self) -> BoolArray:
        """:func:`eligible_mask` of the board, which the single units and the 2HG team units both read."""
        return eligible_mask(self.board)

    @cached_property
    def units(self) -> Units:
        """The objective per unit, from the compiled core's row tables and team options."""
        material, events = self.row_tables
        heads = self.board.n_players if self._shared_poison else 0
        single, varies, base_material, base_events, span = split_units(material, events, self._choosable, heads)
        singles = np.flatnonzero(single)
        teams: list[TeamUnit] = []
        if self._shared_poison:
            teams, fixed_material, fixed_events = self._team_units(material, events)
            base_material += fixed_material
            base_events |= fixed_events
            for team in teams:
                materials = [o.material for o in team.options]
                span += max(materials) - min(materials)
        return Units(
            single_rows=singles,
            single_material=np.ascontiguousarray(material.T[singles]),  # one row per unit
            single_events=np.ascontiguousarray(events.T[singles]),
            coupled=np.flatnonzero(varies[singles]),
            teams=tuple(teams),
            base_material=int(base_material),
            base_events=int(base_events),
            span=int(span),
        )

    def _team_units(self, material: IntArray, events: IntArray) -> tuple[list[TeamUnit], int, int]:
        """The 2HG team units (810.10), and the material and events of the teams no head of which can be chosen.

        Each team's options and what each is worth are the compiled core's
        (:func:`solver.kernels.exact.team_options`: per round the heads chosen and the head
        receiving the team's poison, 701.34b; :func:`~solver.kernels.exact.team_option_values`:
        the team's poison and its heads' rows, 704.6b, 810.11).
        """
        board, core = self.board, self.core
        rounds = board.rounds
        members: list[list[int]] = [[] for _ in range(board.n_teams)]
        for row, team in enumerate(board.team.tolist()):
            members[team].append(row)
        start = self._start_poison.tolist()
        weight, threshold = core.team_weight.tolist(), core.team_threshold.tolist()
        ok = self._choosable
        units: list[TeamUnit] = []
        fixed_material = fixed_events = 0
        for team, rows in enumerate(members):
            heads = np.array(rows, dtype=np.int64)
            valued = (start[team], weight[team], threshold[team], team, heads, material, events)
            if not ok[heads].any():  # fixed: its heads and its poison as they stand
                nothing = np.zeros((1, len(rows)), dtype=np.int64)
                mat, ev = team_option_values(nothing, np.zeros(1, dtype=np.int64), *valued)
                fixed_material += int(mat[0])
                fixed_events |= int(ev[0])
                continue
            times, poison, picks, masks, recipients = team_options(
                rounds, ok[heads], start[team] > 0, core.head_gain[heads]
            )
            mats, evs = team_option_values(times, poison, *valued)
            found = [
                TeamOption(
                    tuple(
                        (tuple(r for p, r in enumerate(rows) if (m >> p) & 1), rows[h] if h >= 0 else -1)
                        for m, h in zip(mask[:rounds], recipient[:rounds], strict=True)
                    ),
                    tuple(t),
                    given,
                    n,
                    mat,
                    ev,
                )
                for t, given, n, mask, recipient, mat, ev in zip(
                    times.tolist(),
                    poison.tolist(),
                    picks.tolist(),
                    masks.tolist(),
                    recipients.tolist(),
                    mats.tolist(),
                    evs.tolist(),
                    strict=True,
                )
            ]
            units.append(TeamUnit(team=team, heads=tuple(rows), options=tuple(found)))
        return units, fixed_material, fixed_events

    # ------------------------------------------------------------------ unit assignments
    def matrix_of(
        self, times: IntArray, team_options: tuple[int, ...], layout: BoolArray | None = None
    ) -> tuple[BoolArray, IntArray]:
        """A unit assignment as ``rounds x objects`` and ``rounds x teams`` matrices.

        A single unit chosen in ``t`` rounds is chosen in the first ``t``: its value does not
        depend on which, and filling from the first makes every path print the same choice.
        Under a per-round pick limit the rounds do matter, and ``layout`` (rounds x single
        units) gives the solver's own placement instead.
        """
        board = self.board
        units = self.units
        chosen = np.zeros((board.rounds, board.n_objects), dtype=bool)
        recipients = np.full((board.rounds, board.n_teams), -1, dtype=np.int64)
        if layout is None:
            layout = np.arange(board.rounds)[:, None] < np.asarray(times)[None, :]
        chosen[:, units.single_rows] = layout
        for team, j in zip(units.teams, team_options, strict=True):
            for r, (heads, recipient) in enumerate(team.options[j].pattern):
                chosen[r, list(heads)] = True
                recipients[r, team.team] = recipient
        return chosen, recipients

    def assignment_of(self, chosen: BoolArray, recipients: IntArray) -> tuple[IntArray, tuple[int, ...]]:
        """The unit assignment of a choice: rounds per single unit, option index per team unit."""
        units = self.units
        board = self.board
        times: IntArray = chosen[:, units.single_rows].sum(axis=0).astype(np.int64)
        col = board.kind_column("poison")
        options = []
        for team in units.teams:
            key = tuple(int(chosen[:, h].sum()) for h in team.heads)
            poison = sum(int(effects.gain(board)[h, col]) for h in recipients[:, team.team] if h >= 0)
            options.append(next(j for j, o in enumerate(team.options) if o.times == key and o.poison == poison))
        return times, tuple(options)

    @cached_property
    def unit_order(self) -> tuple[UnitRef, ...]:
        """Units in board order (a team at its first head): the order of the input-order tie-break."""
        units = self.units
        order = [(int(r), UnitKind.SINGLE, u) for u, r in enumerate(units.single_rows)]
        order += [(t.heads[0], UnitKind.TEAM, i) for i, t in enumerate(units.teams)]
        return tuple(UnitRef(kind, u) for _, kind, u in sorted(order))

    def tie_bits(self, times: IntArray, team_options: tuple[int, ...]) -> tuple[bool, ...]:
        """The last tie-break, as a vector to maximise lexicographically: earlier objects chosen first.

        Per unit in board order: a single unit's rounds (chosen in round 1, round 2 ...), a
        team unit's options one-hot in their canonical order.
        """
        bits: list[bool] = []
        rounds = self.board.rounds
        for kind, u in self.unit_order:
            if kind is UnitKind.SINGLE:
                bits += [r < times[u] for r in range(rounds)]
            else:
                bits += [j == team_options[u] for j in range(len(self.units.teams[u].options))]
        return tuple(bits)
