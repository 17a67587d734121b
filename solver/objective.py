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
options), and so is every other number here: material (:meth:`Objective.material`), the
seats that lose, the game score, result and weight of an events mask
(:func:`solver.kernels.game_of`, :func:`solver.kernels.game_weight`) and the value of a
given choice (:meth:`Objective.score_matrix`); this module is the core's view of one board,
with no rule of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import NamedTuple

import numpy as np

from . import effects
from .board import Board, BoolArray, FloatArray, IntArray, Variant
from .kernels import (
    Game,
    Layout,
    Scored,
    SettledLayout,
    counters_after,
    decide_board,
    game_of,
    game_weight,
    layout_of,
    material_settled,
    score_layout,
    tabulate,
    value_settled,
)
from .kernels.exact import split_units, team_option_values, team_options
from .policy import DEFAULT_POLICY, Policy
from .rules import Choice, Settled, choice_matrix, eligible_mask, settle, team_poison

__all__ = [
    "MILLI",
    "Assignment",
    "Best",
    "Objective",
    "TeamOption",
    "TeamUnit",
    "UnitKind",
    "UnitRef",
    "Units",
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
    nothing and ``events`` every game event of the resolution (bitmasks, :mod:`solver.kernels.value`).
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
        self._core: Layout | None = None

    # ------------------------------------------------------------------ the core's tables, in points
    @property
    def weights(self) -> FloatArray:
        """Points per counter, per object and kind (policy weights, ``counter_values`` overrides; 0 for 2HG
        shared poison, counted per team): the compiled core's table (:attr:`core`), read in points."""
        out: FloatArray = self.core.weights / MILLI
        return out

    @property
    def presence_only(self) -> BoolArray:
        """Per kind, whether one counter is as good as many (the catalogue's ``presence_only``)."""
        out: BoolArray = self.core.presence != 0
        return out

    @property
    def worth(self) -> FloatArray:
        """Points per object (board ``value``, else its creature or Saga default): the core's table, in points."""
        out: FloatArray = self.core.worth / MILLI
        return out

    # ------------------------------------------------------------------ material
    def material(self, settled: Settled) -> int:
        """Material of a settled resolution, in milli-points (2HG team poison once per team): the value
        kernel's (:func:`solver.kernels.material_settled`)."""
        return material_settled(self.core, _one_settled(settled))

    # ------------------------------------------------------------------ game result
    def _game(self, events: int | IntArray, weight: float = 0.0) -> Game:
        return game_of(self.core, np.asarray(events, dtype=np.int64), weight)

    def lost_seats(self, events: int) -> int:
        """The seats that lose, as a bitmask, given every game event (104.2a, 810.8a): the compiled core's."""
        if not events:  # no loss, no threshold: nobody loses
            return 0
        return int(self._game(events).lost[0])

    def game_score(self, events: int) -> float:
        """The policy's score of the game events of a resolution, from the proliferator's side."""
        return float(self._game(events).scores[0])

    def game_milli(self, events: int) -> int:
        """The game score in milli-points (the weight is only worked out when a game result is at stake).

        Memoised per events mask: explanations ask once per object, and a board has few masks.
        """
        cached = self._game_cache.get(events)
        if cached is None:
            score = self.game_score(events)
            cached = self._game_cache[events] = int(self._game(events, self.game_weight).milli[0]) if score else 0
        return cached

    def game_millis(self, events: IntArray) -> IntArray:
        """:meth:`game_milli` of many event masks at once."""
        if not events.any():
            return np.zeros(len(events), dtype=np.int64)
        game = self._game(events)
        if not game.scores.any():
            return np.zeros(len(events), dtype=np.int64)
        out = self._game(events, self.game_weight).milli
        if len(out) <= _REMEMBERED_MASKS:  # the same numbers as game_milli's: the baseline's mask is often among them
            self._game_cache.update(zip(events.tolist(), out.tolist(), strict=True))
        return out

    def game_result(self, events: int) -> str:
        """``win``, ``draw``, ``loss``, ``eliminations`` or ``none``, in words for explanations."""
        return self._game(events).results[0]

    @cached_property
    def game_weight(self) -> float:
        """Points per unit of game score: the policy's, raised so no material range can outweigh it."""
        return game_weight(self.core, self.units.span)

    # ------------------------------------------------------------------ scoring choices
    def state_value(self, settled: Settled) -> int:
        """Value of a settled board, in milli-points (not yet relative to choosing nothing): the value kernel's."""
        value, baseline = value_settled(self.core, _one_settled(settled))
        return int(value[0] + baseline[0])

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
        """Whether these game events end the game for the proliferator (win, loss or draw; 104.3, 104.4a)."""
        if not events:
            return False
        over = self._over_cache.get(events)
        if over is None:
            over = self._over_cache[events] = bool(self._game(events).over[0])
        return over

    def games_over(self, events: IntArray) -> BoolArray:
        """:meth:`game_over` of many event masks at once."""
        if not events.any():
            return np.zeros(len(events), dtype=bool)
        return self._game(events).over

    @cached_property
    def _nothing(self) -> Scored:
        """Choosing nothing, valued by the value kernel (:func:`solver.kernels.score_layout`, one alternative)."""
        board = self.board
        known = np.array([self.units.span], dtype=np.int64) if "units" in self.__dict__ else None
        rounds, teams = max(board.rounds, 1), max(board.n_teams, 1)
        return score_layout(
            self.core,
            np.zeros((1, board.n_objects), dtype=np.int64),
            np.full((1, rounds, teams), -1, dtype=np.int64),
            known,
        )

    @cached_property
    def nothing_material(self) -> int:
        """The material of the board with nothing chosen (2HG team poison included), in milli-points."""
        return int(self._nothing.material[0, 0])

    @cached_property
    def baseline(self) -> int:
        """Value of choosing nothing (the board settles all the same): the value kernel's."""
        return int(self._nothing.baseline[0])

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
    @property
    def core(self) -> Layout:
        """The board in the compiled core's layout (:mod:`solver.kernels.layout`), a batch of one.

        A batch of one keeps the board's kinds in its column order, so the core's tables
        index objects and kinds as the board does; an outcome settled later reuses it.
        Kept on first use (not a ``cached_property``, whose lock costs a loaded board's
        ``solve()`` about a microsecond; :func:`~solver.kernels.layout_of` keeps one layout per board anyway).
        """
        core = self._core
        if core is None:
            core = self._core = layout_of(self.board, self.policy)
        return core

    def best(self, sense: int = 1) -> Best:
        """The optimum (``sense=1``) or the worst choice (``sense=-1``) by the compiled core's exact path.

        :func:`solver.kernels.decide_board` on :attr:`core`; raises ValueError (its words) when
        the choice couples more than :data:`solver.kernels.exact.MAX_FREE_SEATS` seats.
        """
        found = self._best.get(sense)
        if found is None:
            # A batch of one: its matrices have the board's rounds.
            chosen, recipients, value, events = decide_board(self.core, sense)
            # Filled like :class:`~solver.kernels.layout.Layout` rather than through the generated frozen
            # ``__init__`` (a solve() of a loaded board takes microseconds, and this is one of them).
            found = object.__new__(Best)
            found.__dict__.update(chosen=chosen, recipients=recipients, value=value, events=events)
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

    def counters_chosen(self, times: int) -> IntArray:
        """The counters with every object chosen in ``times`` rounds and no 2HG team poison given (701.34a):
        the compiled core's :func:`solver.kernels.counters_after`, no head named to receive (701.34b)."""
        board = self.board
        every = np.full(board.n_objects, times, dtype=np.int64)
        return counters_after(self.core, every, np.full((board.rounds, board.n_teams), -1, dtype=np.int64))

    def settled_chosen(self, times: int) -> Settled:
        """The board settled with every object chosen in ``times`` rounds (2HG team poison apart).

        What an explanation describes for an object chosen that often; one settle per number of rounds asked.
        """
        found = self._settled_chosen.get(times)
        if found is None:
            found = settle(self.board, self.counters_chosen(times), consume=True)
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
        start = team_poison(board, board.counts).tolist()
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
