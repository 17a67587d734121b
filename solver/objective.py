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
  that it dominates: the weight is raised above the whole material range of the board.

The same objective also tabulates itself per *unit* (:class:`Units`): an object that is
not a 2HG head is one unit whose value depends only on how many rounds it is chosen in;
a 2HG team is one unit whose options are per-round patterns of heads and poison
recipients.  Material adds over units and game results depend only on which seats lose,
which is what makes the exact fast path (:mod:`solver.fast`) and the compact CP-SAT model
(:mod:`solver.cpsat`) possible.  Both are scored back through :meth:`Objective.score`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .board import Board, BoolArray, CardType, FloatArray, IntArray, Variant
from .policy import Policy
from .rules import (
    Choice,
    Settled,
    choice_matrix,
    combine_events,
    counters_after,
    eligible_mask,
    lost_seats,
    row_events,
    seats,
    settle,
    team_poison,
    team_poison_events,
)

__all__ = ["Objective", "TeamOption", "TeamUnit", "Units"]

MILLI = 1000


@dataclass(frozen=True)
class TeamOption:
    """One way to choose among a 2HG team's heads over all rounds: per round, (heads, recipient)."""

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
    lose whatever is chosen (including those of units whose events never vary).
    """

    single_rows: IntArray
    single_material: IntArray
    single_events: IntArray
    teams: tuple[TeamUnit, ...]
    base_material: int
    base_events: int


class Objective:
    """The objective for one board and policy; cheap to query once built."""

    def __init__(self, board: Board, policy: Policy | None = None) -> None:
        self.board = board
        self.policy = policy or Policy()
        if board.n_players > 62:
            raise ValueError("at most 62 players are supported")
        kinds = board.kinds
        weight = np.array([self.policy.weight(k) for k in kinds], dtype=np.float64)
        #: Points per counter, per object and kind (policy weights, ``counter_values`` overrides).
        self.weights: FloatArray = np.broadcast_to(weight, board.counts.shape).copy()
        if len(board.cv_object):
            self.weights[board.cv_object, board.cv_kind] = board.cv_value
        self._shared_poison = board.variant is Variant.TWO_HEADED_GIANT and board.kind_column("poison") >= 0
        if self._shared_poison:
            self.weights[: board.n_players, board.kind_column("poison")] = 0.0
        self.presence_only = np.array([self.policy.presence_only(k) for k in kinds], dtype=bool)
        self._side = np.where(board.is_ally, 1.0, -1.0)
        creature = board.has_type(CardType.CREATURE)
        default = np.where(
            creature,
            self.policy.creature_base + (board.power + board.toughness) / 2,
            np.where(board.chapters > 0, self.policy.saga_value, 0.0),
        )
        self.worth = np.where(np.isnan(board.value), default, board.value)
        self.worth[: board.n_players] = 0.0
        for table in (self.weights, self.presence_only, self.worth):
            table.flags.writeable = False
        numeric = [j for j, e in enumerate(board.thr_effect) if not isinstance(e, str)]
        self._thr_numeric = np.array(numeric, dtype=np.int64)
        self._thr_amount = np.array([float(board.thr_effect[j]) for j in numeric], dtype=np.float64)
        seat = seats(board)
        self._our_seat = int(seat[board.proliferator])
        our_team = board.team[board.proliferator]
        self._opponent_seats = np.unique(seat[board.team != our_team])
        team_side = np.where(np.arange(board.n_teams) == our_team, 1.0, -1.0)
        self._team_poison_weight = team_side * self.policy.weight("poison")
        self._game_cache: dict[int, int] = {}

    # ------------------------------------------------------------------ material
    def material_rows(self, settled: Settled) -> IntArray:
        """Material of every object after the state-based actions, in milli-points."""
        board = self.board
        counts = np.where(self.presence_only, np.minimum(settled.counts, 1), settled.counts)
        counters = (counts * self.weights).sum(axis=1)
        alive = ~(settled.dies | settled.sacrificed)
        value = np.where(alive, self.worth + counters, 0.0)
        value = value + self.policy.saga_chapter * (settled.chapters_after - settled.chapters_before)
        if len(self._thr_numeric):
            paid = np.where(settled.thr_crossed[self._thr_numeric], self._thr_amount, 0.0)
            np.add.at(value, board.thr_object[self._thr_numeric], paid)
        out: IntArray = np.rint(MILLI * self._side * value).astype(np.int64)
        return out

    def team_material(self, poison: IntArray) -> IntArray:
        """Material of each 2HG team's shared poison (counted once per team, not per head)."""
        if not self._shared_poison:
            return np.zeros(len(poison), dtype=np.int64)
        out: IntArray = np.rint(MILLI * self._team_poison_weight * poison).astype(np.int64)
        return out

    # ------------------------------------------------------------------ game result
    @cached_property
    def _elimination(self) -> float:
        n_opp = len(self._opponent_seats)
        if n_opp <= 1:
            return self.policy.elimination
        return min(self.policy.elimination, 0.5 * self.policy.win / (n_opp - 1))

    def game_score(self, events: int) -> float:
        """The policy's score of the game events of a resolution, from the proliferator's side."""
        mask = lost_seats(self.board, events)
        lost_opponents = sum(1 for s in self._opponent_seats if (mask >> int(s)) & 1)
        all_lost = lost_opponents == len(self._opponent_seats) and lost_opponents > 0
        if (mask >> self._our_seat) & 1:
            return self.policy.draw if all_lost else self.policy.loss
        if all_lost:
            return self.policy.win
        return self._elimination * lost_opponents

    def game_milli(self, events: int) -> int:
        """The game score in milli-points (the weight is only worked out when a game result is at stake).

        Memoised per events mask: explanations ask once per object, and a board has few masks.
        """
        cached = self._game_cache.get(events)
        if cached is None:
            score = self.game_score(events)
            cached = self._game_cache[events] = round(MILLI * self.game_weight * score) if score else 0
        return cached

    def game_result(self, events: int) -> str:
        """``win``, ``draw``, ``loss``, ``eliminations`` or ``none``, in words for explanations."""
        score = self.game_score(events)
        if score == self.policy.win:
            return "win"
        if score == self.policy.draw and (lost_seats(self.board, events) >> self._our_seat) & 1:
            return "draw"
        if score == self.policy.loss:
            return "loss"
        return "eliminations" if score > 0 else "none"

    @cached_property
    def game_weight(self) -> float:
        """Points per unit of game score: the policy's, raised so no material range can outweigh it."""
        units = self.units
        span = int((units.single_material.max(axis=1) - units.single_material.min(axis=1)).sum())
        for team in units.teams:
            materials = [o.material for o in team.options]
            span += max(materials) - min(materials)
        scores = sorted(
            {self.policy.win, self.policy.draw, self.policy.loss, 0.0}
            | {self._elimination * k for k in range(1, len(self._opponent_seats))}
        )
        gap = min(b - a for a, b in itertools.pairwise(scores))
        return max(self.policy.game_weight, (span / MILLI + 1.0) / gap)

    # ------------------------------------------------------------------ scoring choices
    def state_value(self, settled: Settled) -> int:
        """Value of a settled board, in milli-points (not yet relative to choosing nothing)."""
        poison = team_poison(self.board, settled.counts)
        return self._total(self.material_rows(settled), row_events(self.board, settled), poison)

    def _total(self, material: IntArray, events: IntArray, poison: IntArray) -> int:
        value = int(material.sum()) + int(self.team_material(poison).sum())
        return value + self.game_milli(combine_events(self.board, events, poison))

    @cached_property
    def baseline(self) -> int:
        """Value of choosing nothing (the board settles all the same).

        Read from the per-unit tables when a solver has built them; scoring a single choice
        (the environment's reward) only needs the board settled once.
        """
        if "row_tables" in self.__dict__:
            material, events = self.row_tables
            return self._total(material[0], events[0], team_poison(self.board, self.board.counts))
        return self.state_value(self.settled_nothing)

    @cached_property
    def settled_nothing(self) -> Settled:
        """The board settled with nothing chosen."""
        return settle(self.board, self.board.counts)

    def value_of(self, settled: Settled) -> int:
        """Value of a settled resolution relative to choosing nothing, in milli-points."""
        return self.state_value(settled) - self.baseline

    def score_matrix(self, chosen: np.ndarray, recipients: IntArray) -> int:
        """Value of a checked choice matrix relative to choosing nothing, in milli-points."""
        return self.value_of(settle(self.board, counters_after(self.board, chosen, recipients)))

    def score(self, choice: Choice) -> float:
        """Value of a choice in points (raises IllegalChoice for an illegal one)."""
        chosen, recipients = choice_matrix(self.board, choice)
        return self.score_matrix(chosen, recipients) / MILLI

    # ------------------------------------------------------------------ per-unit tables
    @cached_property
    def settled_by_rounds(self) -> tuple[Settled, ...]:
        """Every object settled as if chosen in c = 0..rounds rounds (2HG team poison apart)."""
        board = self.board
        gain = board.gain.copy()
        if self._shared_poison:
            gain[: board.n_players, board.kind_column("poison")] = 0
        return (self.settled_nothing, *(settle(board, board.counts + c * gain) for c in range(1, board.rounds + 1)))

    @cached_property
    def row_tables(self) -> tuple[IntArray, IntArray]:
        """Material and loss events of every row when chosen in c = 0..rounds rounds."""
        material = np.stack([self.material_rows(s) for s in self.settled_by_rounds])
        events = np.stack([row_events(self.board, s) for s in self.settled_by_rounds])
        return material, events

    @cached_property
    def units(self) -> Units:
        board = self.board
        material, events = self.row_tables
        choosable = eligible_mask(board)
        head = np.zeros(board.n_objects, dtype=bool)
        if self._shared_poison:
            head[: board.n_players] = True
        singles = np.flatnonzero(choosable & ~head)
        fixed = ~choosable & ~head
        base_material = int(material[0, fixed].sum())
        base_events = int(np.bitwise_or.reduce(events[0, fixed], initial=np.int64(0)))
        teams: list[TeamUnit] = []
        if self._shared_poison:
            p0 = team_poison(board, board.counts)
            for team in range(board.n_teams):
                unit = self._team_unit(team, int(p0[team]), choosable)
                if unit is None:
                    rows = np.flatnonzero(board.team == team)
                    base_material += int(material[0, rows].sum()) + int(self._team_milli(team, int(p0[team])))
                    base_events |= int(np.bitwise_or.reduce(events[0, rows], initial=np.int64(0)))
                    base_events |= self._team_events(team, int(p0[team]))
                else:
                    teams.append(unit)
        constant = ~(events[:, singles] != events[:1, singles]).any(axis=0)
        base_events |= int(np.bitwise_or.reduce(events[0, singles[constant]], initial=np.int64(0)))
        return Units(
            single_rows=singles,
            single_material=material[:, singles].T.copy(),
            single_events=events[:, singles].T.copy(),
            teams=tuple(teams),
            base_material=base_material,
            base_events=base_events,
        )

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
            poison = sum(int(board.gain[h, col]) for h in recipients[:, team.team] if h >= 0)
            options.append(next(j for j, o in enumerate(team.options) if o.times == key and o.poison == poison))
        return times, tuple(options)

    @cached_property
    def unit_order(self) -> tuple[tuple[str, int], ...]:
        """Units in board order (a team at its first head): the order of the input-order tie-break."""
        units = self.units
        order = [(int(r), "single", u) for u, r in enumerate(units.single_rows)]
        order += [(t.heads[0], "team", i) for i, t in enumerate(units.teams)]
        return tuple((kind, u) for _, kind, u in sorted(order))

    def tie_bits(self, times: IntArray, team_options: tuple[int, ...]) -> tuple[bool, ...]:
        """The last tie-break, as a vector to maximise lexicographically: earlier objects chosen first.

        Per unit in board order: a single unit's rounds (chosen in round 1, round 2 ...), a
        team unit's options one-hot in their canonical order.
        """
        bits: list[bool] = []
        rounds = self.board.rounds
        for kind, u in self.unit_order:
            if kind == "single":
                bits += [r < times[u] for r in range(rounds)]
            else:
                bits += [j == team_options[u] for j in range(len(self.units.teams[u].options))]
        return tuple(bits)

    def _team_milli(self, team: int, poison: int) -> int:
        vec = np.zeros(self.board.n_teams, dtype=np.int64)
        vec[team] = poison
        return int(self.team_material(vec)[team])

    def _team_events(self, team: int, poison: int) -> int:
        vec = np.zeros(self.board.n_teams, dtype=np.int64)
        vec[team] = poison
        return team_poison_events(self.board, vec) & (1 << team)

    def _team_unit(self, team: int, p0: int, choosable: np.ndarray) -> TeamUnit | None:
        board = self.board
        rows = tuple(int(r) for r in np.flatnonzero(board.team == team))
        heads = tuple(r for r in rows if choosable[r])
        if not heads:
            return None
        material, events = self.row_tables
        col = board.kind_column("poison")
        per_round: list[tuple[tuple[int, ...], int]] = []
        for size in range(len(heads), -1, -1):
            for subset in itertools.combinations(heads, size):
                if p0 > 0 and subset:
                    per_round.extend((subset, r) for r in subset)
                else:
                    per_round.append((subset, -1))
        # Round by round, keeping the first pattern (in round-major order) per outcome: what a
        # pattern is worth depends only on how often each head is chosen and the poison given.
        prefixes: dict[tuple[tuple[int, ...], int], tuple[tuple[tuple[int, ...], int], ...]] = {
            ((0,) * len(rows), 0): ()
        }
        for _ in range(board.rounds):
            grown: dict[tuple[tuple[int, ...], int], tuple[tuple[tuple[int, ...], int], ...]] = {}
            for (times, poison), pattern in prefixes.items():
                for picked, recipient in per_round:
                    outcome = (
                        tuple(t + (h in picked) for h, t in zip(rows, times, strict=True)),
                        poison + (int(board.gain[recipient, col]) if recipient >= 0 else 0),
                    )
                    grown.setdefault(outcome, (*pattern, (picked, recipient)))
            prefixes = grown
        found: list[TeamOption] = []
        for (times, poison), pattern in prefixes.items():
            mat = sum(int(material[t, h]) for h, t in zip(rows, times, strict=True))
            mat += self._team_milli(team, p0 + poison)
            ev = 0
            for h, t in zip(rows, times, strict=True):
                ev |= int(events[t, h])
            ev |= self._team_events(team, p0 + poison)
            found.append(TeamOption(pattern, times, poison, sum(len(s) for s, _ in pattern), mat, ev))
        options = sorted(found, key=lambda o: -o.picks)
        return TeamUnit(team=team, heads=rows, options=tuple(options))
