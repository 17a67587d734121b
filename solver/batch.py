"""Many decisions in one pass: :func:`decide_many` (arrays) and :func:`solve_many` (Decisions).

The boards are stacked into one disjoint union (:class:`solver.stack.Stack`), so the
counters each object would get, the state-based actions (:func:`solver.rules.settle`), the
material (:func:`solver.objective.material_of`), the loss events
(:func:`solver.rules.events_of`) and the per-unit argmax run once over every object of every
board.  What is truly per board -- base material and events, the game weight, the game score
-- is a segment reduction with the board index; 2HG team options come from the same cached
enumeration as one board's (:func:`solver.objective.team_patterns`), one gather per kind of
team; and the dynamic programme over coupled units (:func:`solver.fast.best_options_over`) runs
once per group of boards of the same shape.  Decisions are those of :func:`solver.solve`
with its default method: same value, choice, tie-break and status.  Within a
:func:`stacked` block, every batched call on the same boards shares one stack.
"""

from __future__ import annotations

import operator
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import Any

import numpy as np

from .board import Board, BoolArray, FloatArray, IntArray
from .decision import Alternative, Decision
from .errors import BoardError, Problem
from .fast import MAX_FREE_SEATS, NO_OPTION, best_options_over, solve_fast
from .inputs import BoardLike, PolicyLike, as_board, as_policy
from .objective import (
    MILLI,
    GameRules,
    MaterialTables,
    Objective,
    game_milli_of,
    game_over_of,
    game_scores,
    game_weight_of,
    material_of,
    split_units,
    team_patterns,
    team_poison_milli,
)
from .policy import Policy
from .rules import (
    ChoiceMatrix,
    EventLayout,
    SeatRules,
    Settled,
    eligible_mask,
    events_of,
    losers,
    lost_seats_of,
    segment_reduce,
    settle,
    shared_poison_threshold,
)
from .solve import Derived
from .stack import Stack
from .status import Method, Status

__all__ = [
    "BatchDecisions",
    "Optimum",
    "ScoredChoices",
    "decide_many",
    "decide_one",
    "material_spans",
    "score_choices",
    "score_many",
    "settle_many",
    "solve_many",
    "stacked",
]

#: Boards stacked at once: bounds memory (a few hundred bytes per object and kind) on huge batches.
CHUNK = 512


@dataclass
class _Shared:
    """Boards stacked once for every batched call on exactly them (see :func:`stacked`).

    The stack is built on first use, so a board the stack cannot take raises where a call
    on the boards would; ``spans`` keeps each board's material range once worked out (for
    ``policy``), since deciding the boards finds it on the way.
    """

    boards: tuple[Board, ...]
    stack: Stack | None = None
    policy: Policy | None = None
    spans: IntArray | None = None
    kernels: _Kernels | None = None
    kernels_policy: Policy | None = None
    rows: _Rows | None = None

    def of(self) -> Stack:
        if self.stack is None:
            self.stack = Stack.of(self.boards)
        return self.stack

    def kernels_for(self, policy: Policy) -> _Kernels:
        """The stack's kernels for ``policy`` (:func:`_kernels`), built once for every call."""
        if self.kernels is None or self.kernels_policy is not policy:
            self.kernels, self.kernels_policy, self.rows = _kernels(self.of(), policy), policy, None
        return self.kernels

    def rows_for(self, policy: Policy) -> _Rows:
        """The stack's rows tabulated for ``policy`` (:func:`_rows`), once for both senses."""
        kernels = self.kernels_for(policy)
        if self.rows is None:
            self.rows = _rows(self.of(), kernels)
        return self.rows

    def keep_spans(self, policy: Policy, spans: IntArray) -> None:
        self.policy, self.spans = policy, spans

    def spans_for(self, policy: Policy) -> IntArray | None:
        return self.spans if self.policy is policy else None


_SHARED: ContextVar[_Shared | None] = ContextVar("solver.batch.shared", default=None)


@contextmanager
def stacked(boards: Sequence[Board]) -> Iterator[None]:
    """Within the block, batched calls on exactly ``boards`` (the same objects, in order) share one stack.

    A review decides the same boards twice (best and worst) and then scores choices on them:
    stacking them once instead of four times, and taking the material ranges from the
    decision instead of settling the boards again, is most of what the batched calls cost
    beyond the kernels.  Calls on other boards stack their own as always; more than
    :data:`CHUNK` boards are never shared (memory stays bounded by the chunk).
    """
    items = tuple(boards)
    token = _SHARED.set(_Shared(items) if 0 < len(items) <= CHUNK else None)
    try:
        yield
    finally:
        _SHARED.reset(token)


def _shared(boards: Sequence[Board]) -> _Shared | None:
    """The shared stack if ``boards`` are exactly the boards of the enclosing :func:`stacked` block."""
    shared = _SHARED.get()
    if shared is None or len(boards) != len(shared.boards) or not all(map(operator.is_, boards, shared.boards)):
        return None
    return shared


@dataclass(frozen=True)
class BatchDecisions:
    """The decisions for a sequence of boards, as arrays (no explanation, no Python per object).

    For board ``b`` (in input order):

    * ``values[b]``: the value of the choice in milli-points (1/1000 of a point), relative
      to choosing nothing: ``solve(board).value * 1000`` for ``sense=1``; for ``sense=-1``
      the value of the worst legal choice (for normalised regret);
    * ``rounds[b]``: how many proliferates the resolution performs (``Board.rounds``);
    * ``chosen[r, offsets[b] + i]``: whether row ``i`` of the board (its ``ids[i]``) is chosen
      in proliferate ``r`` (rows ``r >= rounds[b]`` are all False);
    * ``recipients[r, team_offsets[b] + t]``: in 2HG, the board row of the head that gets team
      ``t``'s poison counter in proliferate ``r`` (701.34b), else -1;
    * ``events[b]``: every game event of the chosen resolution, as a bitmask (see
      :func:`solver.rules.row_events`); ``results[b]``: the game result in words (``win``,
      ``draw``, ``loss``, ``eliminations`` or ``none``).

    :meth:`matrices` gives one board's ``rounds x objects`` and ``rounds x teams`` matrices, the
    form :func:`solver.rules.apply_matrix` and :meth:`solver.objective.Objective.score_matrix`
    take; :meth:`choice` the :class:`~solver.rules.Choice`.
    """

    values: IntArray
    rounds: IntArray
    offsets: IntArray
    chosen: BoolArray
    team_offsets: IntArray
    recipients: IntArray
    events: IntArray
    results: tuple[str, ...]
    sense: int

    def __len__(self) -> int:
        return len(self.values)

    def matrices(self, b: int) -> tuple[BoolArray, IntArray]:
        """Board ``b``'s choice as ``rounds x objects`` and ``rounds x teams`` matrices."""
        r = int(self.rounds[b])
        return (
            self.chosen[:r, self.offsets[b] : self.offsets[b + 1]],
            self.recipients[:r, self.team_offsets[b] : self.team_offsets[b + 1]],
        )


@dataclass(frozen=True, eq=False)
class Optimum:
    """One board's decision by the fast path, in the form :func:`solver.solve` builds a Decision from.

    ``chosen`` / ``recipients`` are the choice matrices (see :class:`solver.rules.ChoiceMatrix`),
    ``value`` the value in milli-points and ``events`` the game events of the resolution, so
    neither the value nor the game result needs the board settled again.
    """

    objective: Objective
    chosen: BoolArray
    recipients: IntArray
    value: int
    events: int

    def game_result(self) -> str:
        return self.objective.game_result(self.events)


def decide_one(board: Board, policy: Policy | None = None, *, sense: int = 1) -> Optimum:
    """The best (or, with ``sense=-1``, worst) choice for one board: the fast path, nothing more.

    For one board the per-board path is cheaper than a stack of one; both are checked equal.
    """
    objective = Objective(board, policy)
    fast = solve_fast(objective, sense=sense)
    chosen, recipients = objective.matrix_of(fast.single_times, fast.team_options)
    return Optimum(objective, chosen, recipients, fast.value, fast.events)


def as_boards(boards: Iterable[BoardLike]) -> list[Board]:
    """Boards in any form :func:`solver.inputs.as_board` accepts (loaded and checked as one board is).

    A BoardError lists the problems of every bad board, each path under ``boards[i]`` (as
    ``boards[3].players[0].life``), so a batch is fixed in one pass as one board is.
    """
    if isinstance(boards, Board | Mapping | str | bytes | os.PathLike):
        raise TypeError("boards must be a sequence of boards (Board, mapping, JSON text or path), not one board")
    out: list[Board] = []
    problems: list[Problem] = []
    for i, item in enumerate(boards):
        if isinstance(item, Board):
            out.append(item)
            continue
        try:
            out.append(as_board(item))
        except BoardError as exc:
            where = f"boards[{i}]"
            problems.extend(Problem(f"{where}.{p.path}" if p.path else where, p.message) for p in exc.problems)
        except TypeError as exc:
            raise TypeError(f"boards[{i}]: {exc}") from None
    if problems:
        raise BoardError(problems)
    return out


def decide_many(boards: Iterable[BoardLike], policy: PolicyLike = None, *, sense: int = 1) -> BatchDecisions:
    """The optimal (``sense=1``) or worst (``sense=-1``) choice for every board, as arrays.

    Exactly the choices of :func:`solver.solve` with the default method (fast path) and of
    :func:`solver.fast.solve_fast` with the same ``sense``; no :class:`~solver.decision.Decision`
    objects, for callers that make many decisions (:func:`solve_many` builds them from this).

    Args:
        boards: as for :func:`solve_many`.
        policy: as for :func:`solve_many`.
        sense: 1 for the best choice, -1 for the worst (the regret scale's other end).

    Returns:
        A :class:`BatchDecisions`: values in milli-points, and each board's chosen rows and
        poison recipients (``matrices(b)``).

    Raises:
        BoardError, PolicyError, TypeError: as :func:`solve_many` raises them.
        ValueError: ``sense`` is not 1 or -1, or a board's decision couples more than
            :data:`solver.fast.MAX_FREE_SEATS` seats.

    >>> decide_many(["solver/examples/classic.json", "solver/examples/vorinclex_lethal.json"]).values.tolist()
    [4000, 1004000]
    """
    if sense not in (1, -1):
        raise ValueError("sense must be 1 (best) or -1 (worst)")
    policy = as_policy(policy)
    items = as_boards(boards)
    shared = _shared(items)
    if shared is not None:  # one stack, in input order, for every call on these boards
        decided, spans = _decide(shared.of(), policy, sense, shared.rows_for(policy))
        shared.keep_spans(policy, spans)
        return decided
    # Boards with as many proliferates go together: a stack tabulates up to its most rounds.
    order = np.argsort(np.array([b.rounds for b in items], dtype=np.int64), kind="stable")
    ranked = list(map(items.__getitem__, order.tolist()))
    stacks = (Stack.of(ranked[i : i + CHUNK]) for i in range(0, len(ranked), CHUNK))
    parts = [_decide(st, policy, sense, _rows(st, _kernels(st, policy)))[0] for st in stacks]
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return BatchDecisions(
            empty, empty, np.zeros(1, np.int64), np.zeros((0, 0), bool), np.zeros(1, np.int64),
            np.zeros((0, 0), np.int64), empty, (), sense,
        )  # fmt: skip
    whole = parts[0] if len(parts) == 1 else _concat(parts)
    return _in_order(whole, np.argsort(order))


def _in_order(batch: BatchDecisions, where: IntArray) -> BatchDecisions:
    """The decisions with board ``b`` taken from position ``where[b]`` (back to the input order)."""
    if np.array_equal(where, np.arange(len(where))):
        return batch

    def moved(offsets: IntArray) -> tuple[IntArray, IntArray]:
        sizes = np.diff(offsets)[where]
        new = np.zeros(len(where) + 1, dtype=np.int64)
        np.cumsum(sizes, out=new[1:])
        take = np.repeat(offsets[:-1][where] - new[:-1], sizes) + np.arange(int(new[-1]))
        return new, take

    offsets, objects = moved(batch.offsets)
    team_offsets, teams = moved(batch.team_offsets)
    return BatchDecisions(
        values=batch.values[where],
        rounds=batch.rounds[where],
        offsets=offsets,
        chosen=batch.chosen[:, objects],
        team_offsets=team_offsets,
        recipients=batch.recipients[:, teams],
        events=batch.events[where],
        results=tuple(map(batch.results.__getitem__, where.tolist())),
        sense=batch.sense,
    )


def _concat(parts: Sequence[BatchDecisions]) -> BatchDecisions:
    rounds = max(p.chosen.shape[0] for p in parts)

    def offsets(name: str) -> IntArray:
        start = np.cumsum([0] + [int(getattr(p, name)[-1]) for p in parts[:-1]])
        return np.concatenate([[0]] + [getattr(p, name)[1:] + s for p, s in zip(parts, start, strict=True)])

    def pad(a: np.ndarray, fill: int) -> np.ndarray:
        out = np.full((rounds, a.shape[1]), fill, dtype=a.dtype)
        out[: a.shape[0]] = a
        return out

    return BatchDecisions(
        values=np.concatenate([p.values for p in parts]),
        rounds=np.concatenate([p.rounds for p in parts]),
        offsets=offsets("offsets"),
        chosen=np.concatenate([pad(p.chosen, 0) for p in parts], axis=1),
        team_offsets=offsets("team_offsets"),
        recipients=np.concatenate([pad(p.recipients, -1) for p in parts], axis=1),
        events=np.concatenate([p.events for p in parts]),
        results=tuple(chain.from_iterable(p.results for p in parts)),
        sense=parts[0].sense,
    )


# ---------------------------------------------------------------------------- the pass
@dataclass
class _Units:
    """The coupled units of a stack, one row each, sorted by board then row (board order)."""

    board: IntArray
    row: IntArray
    events: IntArray
    material: IntArray
    picks: IntArray
    team: IntArray


@dataclass(frozen=True, eq=False)
class _Kernels:
    """What a stack's rows are valued and judged by under one policy, built once per shared stack.

    ``tables`` (:class:`solver.objective.MaterialTables`, 2HG heads' poison counted per team),
    the event ``layout`` and the ``game_rules``: a review decides the boards twice and then
    scores choices on them, all with the same three.
    """

    tables: MaterialTables
    layout: EventLayout
    player_pos: IntArray
    game_rules: GameRules


def _kernels(st: Stack, policy: Policy) -> _Kernels:
    heads = st.player_rows[(st.two_headed & st.has_poison)[st.player_board]]
    player_pos = _player_pos(st)
    return _Kernels(
        tables=MaterialTables.build(st, policy, st.player_rows, heads),
        layout=_event_layout(st, player_pos),
        player_pos=player_pos,
        game_rules=_game_rules(policy, st, player_pos),
    )


@dataclass(frozen=True, eq=False)
class _Rows:
    """Every row of a stack settled as if chosen in c = 0..rounds rounds, valued and its events found.

    What a decision reads whichever its sense (axis 0: rounds chosen; 2HG team poison
    apart), so a review deciding the same boards best and worst settles them once.
    """

    material: IntArray
    events: IntArray
    kernels: _Kernels


def _rows(st: Stack, kernels: _Kernels) -> _Rows:
    rounds = st.rounds
    rounds_of = rounds[st.board_of]
    most = int(rounds.max())
    pcol = st.kind_column("poison")
    heads = st.player_rows[(st.two_headed & st.has_poison)[st.player_board]]
    gain = st.gain
    if len(heads):
        gain = gain.copy()
        gain[heads, pcol] = 0
    counts = np.empty((most + 1, *st.counts.shape), dtype=np.int64)
    counts[0] = st.counts
    for c in range(1, most + 1):  # chosen in c rounds: once more than c - 1, up to the board's rounds
        np.add(counts[c - 1], gain if c <= int(rounds.min()) else gain * (rounds_of >= c)[:, None], out=counts[c])
    settled = settle(st, counts, consume=True)
    return _Rows(
        material=material_of(kernels.tables, settled),
        events=events_of(kernels.layout, settled),
        kernels=kernels,
    )


def _decide(st: Stack, policy: Policy, sense: int, tabulated: _Rows) -> tuple[BatchDecisions, IntArray]:
    """The decisions of a stack, and each board's material range (:func:`material_spans`, found on the way)."""
    n_boards = st.n_boards
    board_of, rounds = st.board_of, st.rounds
    rounds_of = rounds[board_of]
    most = int(rounds.max())
    pcol = st.kind_column("poison")
    shared = st.two_headed & st.has_poison
    head = st.is_player & shared[board_of]
    times_axis = np.arange(most + 1, dtype=np.int64)[:, None]
    material, events = tabulated.material, tabulated.events
    player_pos, game_rules = tabulated.kernels.player_pos, tabulated.kernels.game_rules

    # Units: what each object may do, split as Objective.units splits them.
    choosable = eligible_mask(st)
    valid = times_axis <= rounds_of
    split = split_units(material, events, choosable, head, valid=valid, board_of=board_of, n_boards=n_boards)
    single, span = split.single, split.span
    base_material, base_events = split.base_material, split.base_events
    coupled = single & split.varies
    sensed = np.where(valid, sense * material, NO_OPTION)
    times = np.where(single, np.argmax(sensed, axis=0), 0)

    # The board with nothing chosen, which every value is relative to.
    team_poison = np.zeros(int(st.team_offsets[-1]), dtype=np.int64)
    if pcol >= 0:
        np.maximum.at(team_poison, st.team, st.counts[st.player_rows, pcol])
    team_board = np.repeat(np.arange(n_boards), np.diff(st.team_offsets))
    threshold = shared_poison_threshold(np.bincount(st.team, minlength=len(team_poison)))
    our_team = st.team[player_pos[st.proliferator]]
    team_weight = np.where(np.arange(len(team_poison)) == our_team[team_board], 1.0, -1.0) * policy.weight("poison")
    local_team = np.arange(len(team_poison)) - st.team_offsets[:-1][team_board]

    def team_milli(team: IntArray, poison: IntArray) -> IntArray:
        return team_poison_milli(team_weight[team], poison)

    def team_events(team: IntArray, poison: IntArray) -> IntArray:
        out: IntArray = np.where(poison >= threshold[team], np.left_shift(np.int64(1), local_team[team]), 0)
        return out

    baseline_material = np.zeros(n_boards, dtype=np.int64)
    segment_reduce(np.add, baseline_material, board_of, material[0])
    baseline_events = np.zeros(n_boards, dtype=np.int64)
    segment_reduce(np.bitwise_or, baseline_events, board_of, events[0])
    shared_teams = np.flatnonzero(shared[team_board])
    segment_reduce(
        np.add, baseline_material, team_board[shared_teams], team_milli(shared_teams, team_poison[shared_teams])
    )
    segment_reduce(
        np.bitwise_or, baseline_events, team_board[shared_teams], team_events(shared_teams, team_poison[shared_teams])
    )

    # 2HG teams sharing poison: their options, from the enumeration one board uses.
    teams = _team_units(st, shared_teams, choosable, team_poison, material, events, team_milli, team_events)
    if teams.empty:  # teams no head of which can be chosen: fixed, their heads and poison as they stand
        empty = np.array(teams.empty, dtype=np.int64)
        is_empty = np.zeros(len(team_poison), dtype=bool)
        is_empty[empty] = True
        rows = st.player_rows[is_empty[st.team]]
        np.add.at(base_material, board_of[rows], material[0, rows])
        np.add.at(base_material, team_board[empty], team_milli(empty, team_poison[empty]))
        np.bitwise_or.at(base_events, board_of[rows], events[0, rows])
        np.bitwise_or.at(base_events, team_board[empty], team_events(empty, team_poison[empty]))
    for unit in teams.units:
        np.add.at(span, team_board[unit.team], unit.material.max(axis=1) - unit.material.min(axis=1))

    weight = game_weight_of(policy, span, game_rules.n_opponents)

    def game_milli(boards: IntArray, events_: IntArray) -> IntArray:
        """Game milli-points of event masks (axis 1) of some boards (axis 0)."""
        return game_milli_of(weight[boards], game_scores(policy, _rules_of(game_rules, boards), events_))

    def game_over(boards: IntArray, events_: IntArray) -> BoolArray:
        """Whether event masks (axis 1) of some boards (axis 0) end the game for the proliferator."""
        return game_over_of(_rules_of(game_rules, boards), events_)

    # The dynamic programme over coupled units, per group of boards of one shape.  The single
    # units decided alone count when it weighs ending the game (their material void) against not.
    units = _coupled_units(st, coupled, sense, sensed, material, events, teams.units)
    final_events = base_events.copy()
    team_choice = np.zeros(len(team_poison), dtype=np.int64)
    alone = np.flatnonzero(single & ~coupled)
    alone_board = board_of[alone]
    alone_sums = np.zeros((4, n_boards), dtype=np.int64)  # best material, its rounds, nothing's material, most rounds
    for i, part in enumerate((sensed[times[alone], alone], times[alone], sensed[0, alone], rounds_of[alone])):
        segment_reduce(np.add, alone_sums[i], alone_board, part)
    ended = game_over(np.arange(n_boards), base_events[:, None])[:, 0]
    if len(units.board):
        _run_dp(units, base_events, game_milli, game_over, sense, times, team_choice, final_events, alone_sums, ended)
    times[alone[ended[alone_board]]] = 0  # the game ends: what no seat's loss hangs on is worth nothing

    value = base_material + np.bincount(
        board_of[single], weights=material[times[single], np.flatnonzero(single)], minlength=n_boards
    ).astype(np.int64)
    for unit in teams.units:
        value += np.bincount(
            team_board[unit.team], weights=unit.material[np.arange(len(unit.team)), team_choice[unit.team]],
            minlength=n_boards,
        ).astype(np.int64)  # fmt: skip
    both = game_milli(np.arange(n_boards), np.stack([final_events, baseline_events], axis=1))
    baseline = baseline_material + both[:, 1]
    value = np.where(ended, baseline_material, value) + both[:, 0] - baseline  # Objective.total

    chosen = (np.arange(most)[:, None] < times[None, :]) & single
    recipients = np.full((most, len(team_poison)), -1, dtype=np.int64)
    for unit in teams.units:
        unit.place(team_choice, st, chosen, recipients)
    scores = game_scores(policy, game_rules, final_events[:, None])[:, 0]
    lost = _our_seat_lost(game_rules, final_events)
    return BatchDecisions(
        values=value,
        rounds=rounds,
        offsets=st.offsets,
        chosen=chosen,
        team_offsets=st.team_offsets,
        recipients=recipients,
        events=final_events,
        results=_results(policy, scores, lost),
        sense=sense,
    ), span


def _our_seat_lost(rules: GameRules, events: IntArray) -> BoolArray:
    lost = lost_seats_of(rules.seats, events[:, None])[:, 0]
    out: BoolArray = ((lost >> rules.our_seat) & 1) == 1
    return out


#: The game results in words, as :meth:`solver.objective.Objective.game_result` says them.
_RESULTS = ("none", "eliminations", "loss", "draw", "win")


def _results(policy: Policy, scores: FloatArray, ours_lost: BoolArray) -> tuple[str, ...]:
    """Each board's game result in words (the first rule that applies, as one board's)."""
    which = np.select(
        [scores == policy.win, (scores == policy.draw) & ours_lost, scores == policy.loss, scores > 0], [4, 3, 2, 1], 0
    )
    return tuple(map(_RESULTS.__getitem__, which.tolist()))


@dataclass
class _TeamGroup:
    """Team units sharing one option enumeration: ``team`` (stack team numbers) x options."""

    team: IntArray
    rows: IntArray
    material: IntArray
    events: IntArray
    picks: IntArray
    pattern_chosen: BoolArray
    pattern_recipient: IntArray

    def place(self, choice: IntArray, st: Stack, chosen: BoolArray, recipients: IntArray) -> None:
        """Write each team's chosen option into the choice matrices (board-local recipient rows)."""
        pick = choice[self.team]
        heads = self.pattern_chosen[pick]  # teams x rounds x heads
        rounds = heads.shape[1]
        for h in range(self.rows.shape[1]):
            chosen[:rounds, self.rows[:, h]] |= heads[:, :, h].T
        recipient = self.pattern_recipient[pick]  # teams x rounds (head position or -1)
        local = self.rows - st.offsets[st.board_of[self.rows[:, 0]]][:, None]
        given = np.take_along_axis(local, np.maximum(recipient, 0), axis=1)
        recipients[:rounds, self.team] = np.where(recipient >= 0, given, -1).T


@dataclass
class _Teams:
    units: list[_TeamGroup]
    empty: list[int]


def _team_units(
    st: Stack,
    shared_teams: IntArray,
    choosable: BoolArray,
    team_poison: IntArray,
    material: IntArray,
    events: IntArray,
    team_milli: Any,
    team_events: Any,
) -> _Teams:
    if not len(shared_teams):
        return _Teams(units=[], empty=[])
    pcol = st.kind_column("poison")
    groups: dict[tuple[int, tuple[bool, ...], bool, tuple[int, ...]], list[tuple[int, tuple[int, ...]]]] = {}
    order = np.argsort(st.team, kind="stable")
    player_rows = st.player_rows[order]
    bounds = np.searchsorted(st.team[order], shared_teams)
    ends = np.searchsorted(st.team[order], shared_teams, side="right")
    in_shared = np.zeros(len(team_poison), dtype=bool)
    in_shared[shared_teams] = True
    shared_rows = player_rows[in_shared[st.team[order]]]  # team by team, as ``shared_teams``
    # Per head, in the order of ``shared_teams``: its row, whether it may be chosen, its poison gain.
    rows_of, ok = shared_rows.tolist(), choosable[shared_rows].tolist()
    gain = st.gain[shared_rows, pcol].tolist() if pcol >= 0 else [0] * len(rows_of)
    rounds = st.rounds[st.player_board[order][bounds]].tolist()
    poisoned = (team_poison[shared_teams] > 0).tolist()
    empty: list[int] = []
    lo = 0
    for t, size, n_rounds, p in zip(shared_teams.tolist(), (ends - bounds).tolist(), rounds, poisoned, strict=True):
        hi = lo + size
        key = (n_rounds, tuple(ok[lo:hi]), p, tuple(gain[lo:hi]))
        groups.setdefault(key, []).append((t, tuple(rows_of[lo:hi])))
        lo = hi
    units: list[_TeamGroup] = []
    for key, members in groups.items():
        table = _pattern_table(*key)
        team = np.array([t for t, _ in members], dtype=np.int64)
        if table is None:
            empty.extend(team.tolist())
            continue
        rows = np.array([r for _, r in members], dtype=np.int64)
        mat = material[table.times[None, :, :], rows[:, None, :]].sum(axis=2)
        ev = np.bitwise_or.reduce(events[table.times[None, :, :], rows[:, None, :]], axis=2)
        given = team_poison[team][:, None] + table.poison[None, :]
        mat = mat + team_milli(team[:, None], given)
        ev = ev | team_events(team[:, None], given)
        units.append(
            _TeamGroup(
                team=team,
                rows=rows,
                material=mat,
                events=ev,
                picks=np.broadcast_to(table.picks, mat.shape),
                pattern_chosen=table.chosen,
                pattern_recipient=table.recipient,
            )
        )
    return _Teams(units=units, empty=empty)


@dataclass(frozen=True)
class _PatternTable:
    """:func:`solver.objective.team_patterns` as arrays: per option its heads' times, poison, picks and pattern."""

    times: IntArray  # options x heads
    poison: IntArray
    picks: IntArray
    chosen: BoolArray  # options x rounds x heads
    recipient: IntArray  # options x rounds: head position, or -1


@lru_cache(maxsize=4096)
def _pattern_table(
    rounds: int, choosable: tuple[bool, ...], poisoned: bool, gains: tuple[int, ...]
) -> _PatternTable | None:
    """The options of a team of this shape as arrays (None when no head can be chosen); built once per shape."""
    patterns = team_patterns(rounds, choosable, poisoned, gains)
    if not patterns:
        return None
    chosen = np.zeros((len(patterns), rounds, len(choosable)), dtype=bool)
    recipient = np.full((len(patterns), rounds), -1, dtype=np.int64)
    for o, (pattern, _, _, _) in enumerate(patterns):
        for r, (picked, head) in enumerate(pattern):
            chosen[o, r, list(picked)] = True
            recipient[o, r] = head
    table = _PatternTable(
        times=np.array([p[1] for p in patterns], dtype=np.int64),
        poison=np.array([p[2] for p in patterns], dtype=np.int64),
        picks=np.array([p[3] for p in patterns], dtype=np.int64),
        chosen=chosen,
        recipient=recipient,
    )
    for array in (table.times, table.poison, table.picks, table.chosen, table.recipient):
        array.flags.writeable = False
    return table


def _coupled_units(
    st: Stack,
    coupled: BoolArray,
    sense: int,
    sensed: IntArray,
    material: IntArray,
    events: IntArray,
    teams: list[_TeamGroup],
) -> _Units:
    """Coupled singles (options: chosen in rounds..0 rounds) and team units, in board order."""
    rows = np.flatnonzero(coupled)
    width = max([int(st.rounds.max()) + 1] + [t.material.shape[1] for t in teams])
    n_rounds = st.rounds[st.board_of[rows]]
    c = n_rounds[:, None] - np.arange(width)[None, :]  # option j is "chosen in rounds - j rounds"
    ok = c >= 0
    cc = np.maximum(c, 0)
    parts_board = [st.board_of[rows]]
    parts_row = [rows]
    parts_material = [np.where(ok, sensed[cc, rows[:, None]], NO_OPTION)]
    parts_events = [np.where(ok, events[cc, rows[:, None]], 0)]
    parts_picks = [np.where(ok, cc, -1)]
    parts_team = [np.full(len(rows), -1, dtype=np.int64)]
    for t in teams:
        shape, used = (len(t.team), width), t.material.shape[1]
        parts_board.append(st.board_of[t.rows[:, 0]])
        parts_row.append(t.rows.min(axis=1))
        for parts, table, fill in (
            (parts_material, sense * t.material, NO_OPTION),
            (parts_events, t.events, 0),
            (parts_picks, t.picks, -1),
        ):
            padded = np.full(shape, fill, dtype=np.int64)
            padded[:, :used] = table
            parts.append(padded)
        parts_team.append(t.team)
    board = np.concatenate(parts_board)
    row = np.concatenate(parts_row)
    order = np.lexsort((row, board))
    mat = np.concatenate(parts_material)[order]
    picks = np.concatenate(parts_picks)[order]
    return _Units(
        board=board[order],
        row=row[order],
        events=np.concatenate(parts_events)[order],
        material=mat,
        picks=picks,
        team=np.concatenate(parts_team)[order],
    )


def _run_dp(
    units: _Units,
    base_events: IntArray,
    game_milli: Any,
    game_over: Any,
    sense: int,
    times: IntArray,
    team_choice: IntArray,
    final_events: IntArray,
    alone: IntArray,
    ended: BoolArray,
) -> None:
    """Decide the coupled units of every board (see :func:`solver.fast.best_options_over`), in place.

    ``alone`` holds per board the sums over the single units decided alone: their best
    (sensed) material, its rounds, their material when chosen in no round, their rounds at
    most.  ``ended`` is set for the boards whose choice ends the game.
    """
    n_boards = len(base_events)
    per_board = np.bincount(units.board, minlength=n_boards)
    start = np.concatenate([[0], np.cumsum(per_board)[:-1]])
    free = np.zeros(n_boards, dtype=np.int64)
    segment_reduce(np.bitwise_or, free, units.board, np.bitwise_or.reduce(units.events, axis=1))
    free &= ~base_events
    n_free = np.bitwise_count(free).astype(np.int64)
    if int(n_free.max(initial=0)) > MAX_FREE_SEATS:
        raise ValueError(f"more than {MAX_FREE_SEATS} seats can be eliminated by one choice; use method='cpsat'")
    most = int(n_free.max(initial=0))
    # Position of each board's j-th free bit (63, never set, pads).
    position = np.full((n_boards, max(most, 1)), 63, dtype=np.int64)
    seen = np.zeros(n_boards, dtype=np.int64)
    for bit in range(int(np.bitwise_or.reduce(free, initial=np.int64(0))).bit_length()):
        has = (free >> bit) & 1 == 1
        position[has, seen[has]] = bit
        seen += has
    compact = np.zeros_like(units.events)
    unit_pos = position[units.board]
    for j in range(most):
        compact |= ((units.events >> unit_pos[:, j : j + 1]) & 1) << j
    max_picks = np.zeros(n_boards, dtype=np.int64)
    segment_reduce(np.add, max_picks, units.board, units.picks.max(axis=1))
    max_picks += alone[3] + 1
    scale = max_picks[units.board][:, None]
    keys = np.where(units.material == NO_OPTION, NO_OPTION, units.material * scale - units.picks)
    nothing = units.material[np.arange(len(units.board)), np.argmax(units.picks == 0, axis=1)]
    idle = np.where(units.material == NO_OPTION, NO_OPTION, nothing[:, None] * scale - units.picks)
    extra = np.stack([alone[0] * max_picks - alone[1], alone[2] * max_picks], axis=1)

    # Boards of one shape (coupled units, free seats) go through the DP together, in board order.
    active = np.flatnonzero(per_board)
    shape = per_board[active] * (MAX_FREE_SEATS + 1) + n_free[active]
    grouped = active[np.argsort(shape, kind="stable")]
    shape = np.sort(shape)
    cuts = np.flatnonzero(np.diff(shape)) + 1
    for boards, key in zip(np.split(grouped, cuts), shape[np.concatenate(([0], cuts))].tolist(), strict=True):
        n_units, n_bits = divmod(key, MAX_FREE_SEATS + 1)
        idx = start[boards][:, None] + np.arange(n_units)[None, :]
        states = np.arange(1 << n_bits, dtype=np.int64)
        expanded = np.broadcast_to(base_events[boards][:, None], (len(boards), len(states))).copy()
        for j in range(n_bits):
            expanded |= ((states >> j) & 1)[None, :] << position[boards, j][:, None]
        game = sense * game_milli(boards, expanded) * max_picks[boards][:, None]
        over = game_over(boards, expanded)
        chosen, state, ended[boards] = best_options_over(keys[idx], idle[idx], compact[idx], game, over, extra[boards])
        final_events[boards] = expanded[np.arange(len(boards)), state]
        flat_units, flat_choice = idx.ravel(), chosen.ravel()
        team = units.team[flat_units]
        is_team = team >= 0
        team_choice[team[is_team]] = flat_choice[is_team]
        single_rows = units.row[flat_units[~is_team]]
        times[single_rows] = units.picks[flat_units[~is_team], 0] - flat_choice[~is_team]


def _rules_of(rules: GameRules, boards: IntArray) -> GameRules:
    """The game rules of some of the boards."""
    return GameRules(
        seats=SeatRules(n_seats=rules.seats.n_seats[boards], rivals=rules.seats.rivals[boards]),
        our_seat=rules.our_seat[boards],
        opponents=rules.opponents[boards],
        n_opponents=rules.n_opponents[boards],
        elimination=rules.elimination[boards],
    )


def solve_many(boards: Iterable[BoardLike], policy: PolicyLike = None) -> list[Decision]:
    """The :class:`~solver.decision.Decision` of every board, as :func:`solver.solve` gives it, in order.

    Decided by :func:`decide_many` in one pass; each decision's outcome and explanation are
    worked out when first asked for.

    Args:
        boards: a sequence (or any iterable) of boards, each a :class:`~solver.board.Board`, a
            mapping (board JSON), JSON text or a path.
        policy: a :class:`~solver.policy.Policy`, a mapping, a TOML path, or None for the
            default weights; one policy for every board.

    Returns:
        One decision per board, in order: the value, choice, tie-break and status
        :func:`solver.solve` gives with the default method.

    Raises:
        BoardError: some boards are malformed; every problem of every one is listed, its path
            under ``boards[i]``.
        PolicyError: the policy is malformed.
        TypeError: ``boards`` is one board rather than a sequence, or an item is of a type not
            listed above (the message names it, as ``boards[i]``).
        ValueError: a board whose decision couples more seats than the fast path handles.

    >>> [d.value for d in solve_many(["solver/examples/classic.json", "solver/examples/vorinclex_lethal.json"])]
    [4.0, 1004.0]
    >>> solve_many(["solver/examples/classic.json", {"variant": "duel"}])
    Traceback (most recent call last):
    ...
    solver.errors.BoardError: boards[1].players: required
    boards[1].players: a duel has exactly 2 players, not 0
    boards[1].proliferator: required
    """
    start = time.perf_counter()
    items = as_boards(boards)
    policy = as_policy(policy)
    batch = decide_many(items, policy)
    elapsed = (time.perf_counter() - start) / max(len(items), 1)
    return [_decision(board, policy, batch, b, elapsed) for b, board in enumerate(items)]


def _decision(board: Board, policy: Policy, batch: BatchDecisions, b: int, elapsed: float) -> Decision:
    """Board ``b``'s Decision, as :func:`solver.solve` builds it for the fast path."""
    chosen, recipients = batch.matrices(b)
    chosen, recipients = chosen.copy(), recipients.copy()
    choice = ChoiceMatrix(board, chosen, recipients).to_choice()
    value = int(batch.values[b]) / MILLI
    return Decision(
        board=board,
        policy=policy,
        choice=choice,
        value=value,
        status=Status.OPTIMAL,
        bound=value,
        method=Method.FAST,
        alternatives=(Alternative(1, choice, value, 0.0),),
        elapsed=elapsed,
        derive=Derived(Objective(board, policy), chosen, recipients),
    )


# ---------------------------------------------------------------------------- given choices, scored
@dataclass(frozen=True)
class ScoredChoices:
    """Given choices scored over a stack: alternative ``j`` (axis 0) of board ``b`` (axis 1).

    ``values`` is what :meth:`solver.objective.Objective.score_matrix` gives (milli-points
    relative to choosing nothing); ``material`` the material balance after the choice
    (counters, permanents and 2HG team poison from the proliferator's side, game result left
    out, as :func:`solver.analysis.winprob.settled_material` reads it, in milli-points);
    ``events`` the game events (:func:`solver.rules.event_mask`); ``scores`` the policy's game
    score of those events and ``results`` the result in words
    (:meth:`~solver.objective.Objective.game_result`).
    """

    values: IntArray
    material: IntArray
    events: IntArray
    scores: FloatArray
    results: tuple[tuple[str, ...], ...]


def score_many(
    boards: Sequence[Board], choices: Sequence[tuple[BoolArray, IntArray]], policy: Policy | None = None
) -> IntArray:
    """The value of each board's checked choice matrices (rounds x objects, rounds x teams), in milli-points.

    Exactly ``Objective(board, policy).score_matrix(chosen, recipients)`` per board, computed
    over stacks of boards with the same kernels (:func:`score_choices`).
    """
    values: IntArray = score_choices(boards, [choices], policy).values[0]
    return values


def score_choices(
    boards: Sequence[Board],
    alternatives: Sequence[Sequence[tuple[BoolArray, IntArray]]],
    policy: Policy | None = None,
    *,
    spans: IntArray | None = None,
) -> ScoredChoices:
    """Several checked choices per board (``alternatives[j][b]``), scored in one pass per stack.

    The board settled with nothing chosen, which every value is relative to, is settled once
    for all alternatives.  A game result is weighted as :attr:`Objective.game_weight` weighs
    it, above the board's material range: give ``spans`` (:func:`material_spans`) if known,
    else it is worked out for the boards whose events score at all.
    """
    policy = as_policy(policy)
    n_alt = len(alternatives)
    if any(len(alt) != len(boards) for alt in alternatives):
        raise ValueError("every alternative needs one choice per board")
    shared = _shared(boards)
    if shared is not None:
        return _score(shared.of(), policy, alternatives, spans, shared.kernels_for(policy))
    parts = [
        _score(
            st,
            policy,
            [alt[i : i + CHUNK] for alt in alternatives],
            None if spans is None else spans[i : i + CHUNK],
            _kernels(st, policy),
        )
        for i in range(0, len(boards), CHUNK)
        for st in (Stack.of(boards[i : i + CHUNK]),)
    ]
    if not parts:
        empty = np.zeros((n_alt, 0), dtype=np.int64)
        return ScoredChoices(empty, empty, empty, np.zeros((n_alt, 0)), ((),) * n_alt)
    return ScoredChoices(
        values=np.concatenate([p.values for p in parts], axis=1),
        material=np.concatenate([p.material for p in parts], axis=1),
        events=np.concatenate([p.events for p in parts], axis=1),
        scores=np.concatenate([p.scores for p in parts], axis=1),
        results=tuple(tuple(r for p in parts for r in p.results[j]) for j in range(n_alt)),
    )


def _score(
    st: Stack,
    policy: Policy,
    alternatives: Sequence[Sequence[tuple[BoolArray, IntArray]]],
    spans: IntArray | None,
    kernels: _Kernels,
) -> ScoredChoices:
    n_boards = st.n_boards
    pcol = st.kind_column("poison")
    shared = st.two_headed & st.has_poison
    player_pos = kernels.player_pos
    heads = st.player_rows[shared[st.player_board]]
    head_team = st.team[player_pos[heads]]
    n_teams = int(st.team_offsets[-1])

    # Counts after every round (solver.rules.counters_after), nothing chosen first.
    counts = np.empty((len(alternatives) + 1, *st.counts.shape), dtype=np.int64)
    counts[0] = st.counts
    shared_boards = np.flatnonzero(shared).tolist()
    for j, alt in enumerate(alternatives, start=1):
        np.add(st.counts, _times_chosen(alt)[:, None] * st.gain, out=counts[j])
        if len(heads):  # 2HG: each team gets the poison of the heads named to receive it (701.34b)
            receivers = _receivers(st, [alt[b][1] for b in shared_boards], shared_boards)
            team_gain = np.zeros(n_teams, dtype=np.int64)
            np.add.at(team_gain, st.team[player_pos[receivers]], st.gain[receivers, pcol])
            counts[j, heads, pcol] = st.counts[heads, pcol] + team_gain[head_team]
    settled = settle(st, counts)
    alt_axis = np.arange(len(counts))[:, None]

    # Material per board, 2HG team poison counted once per team.
    starts = st.offsets[:-1]
    material = np.add.reduceat(material_of(kernels.tables, settled), starts, axis=1)
    team_poison = np.zeros((len(counts), n_teams), dtype=np.int64)
    if pcol >= 0:
        np.maximum.at(team_poison, (alt_axis, st.team[None, :]), settled.counts[:, st.player_rows, pcol])
    team_board = np.repeat(np.arange(n_boards), np.diff(st.team_offsets))
    shared_teams = np.flatnonzero(shared[team_board])
    events = np.bitwise_or.reduceat(events_of(kernels.layout, settled), starts, axis=1)
    if len(shared_teams):
        our_team = st.team[player_pos[st.proliferator]]
        side = np.where(shared_teams == our_team[team_board[shared_teams]], 1.0, -1.0)
        poison = team_poison[:, shared_teams]
        np.add.at(
            material,
            (alt_axis, team_board[shared_teams][None, :]),
            team_poison_milli(side * policy.weight("poison"), poison),
        )
        threshold = shared_poison_threshold(np.bincount(st.team, minlength=n_teams))[shared_teams]
        local = shared_teams - st.team_offsets[team_board[shared_teams]]
        bits = np.where(poison >= threshold, np.left_shift(np.int64(1), local), 0)
        np.bitwise_or.at(events, (alt_axis, team_board[shared_teams][None, :]), bits)

    # The game result, weighted above the board's material range where it scores at all.
    rules = kernels.game_rules
    scores = game_scores(policy, rules, events.T)  # boards x alternatives
    if spans is None:
        scoring = np.flatnonzero((scores != 0).any(axis=1))
        spans = np.zeros(n_boards, dtype=np.int64)
        spans[scoring] = material_spans([st.boards[b] for b in scoring.tolist()], policy)
    # A resolution that ends the game is worth its game score alone (Objective.total): material as choosing nothing.
    held = np.where(game_over_of(rules, events.T).T, material[:1], material)
    total = held + game_milli_of(game_weight_of(policy, spans, rules.n_opponents), scores).T
    lost = lost_seats_of(rules.seats, events.T)
    ours = ((lost >> rules.our_seat[:, None]) & 1) == 1
    results = tuple(_results(policy, scores[:, j], ours[:, j]) for j in range(1, len(counts)))
    return ScoredChoices(
        values=total[1:] - total[:1],
        material=material[1:],
        events=events[1:],
        scores=scores[:, 1:].T,
        results=results,
    )


def _times_chosen(alt: Sequence[tuple[BoolArray, IntArray]]) -> IntArray:
    """How many rounds each stack row is chosen in; a one-round choice is its only row (no sum per board)."""
    if not alt:
        return np.zeros(0, np.int64)
    out: IntArray = np.concatenate([chosen[0] if len(chosen) == 1 else chosen.sum(axis=0) for chosen, _ in alt])
    return out.astype(np.int64, copy=False)


def _receivers(st: Stack, recipients: Sequence[IntArray], boards: Sequence[int]) -> IntArray:
    """The stack rows of the heads named to receive a team's poison, every round, on some boards (one join)."""
    if not boards:
        return np.zeros(0, np.int64)
    named = [r.ravel() for r in recipients]
    flat = np.concatenate(named)
    at = np.repeat(st.offsets[list(boards)], [len(r) for r in named])
    keep = flat >= 0
    out: IntArray = flat[keep] + at[keep]
    return out


def material_spans(boards: Sequence[Board], policy: Policy | None = None) -> IntArray:
    """Per board, the most minus the least material any choice can reach, game results left out (milli-points).

    Material adds over units (:class:`solver.objective.Units`), so this is the sum of every
    unit's own range: the span :attr:`Objective.game_weight` is raised above, and the
    analysis' yardstick for a regret that changed no game result.
    """
    policy = as_policy(policy)
    shared = _shared(boards)
    if shared is not None:
        known = shared.spans_for(policy)
        if known is None:
            known = _spans(shared.of(), policy)
            shared.keep_spans(policy, known)
        return known.copy()
    out = np.zeros(len(boards), dtype=np.int64)
    for i in range(0, len(boards), CHUNK):
        out[i : i + CHUNK] = _spans(Stack.of(boards[i : i + CHUNK]), policy)
    return out


def _spans(st: Stack, policy: Policy) -> IntArray:
    rounds_of = st.rounds[st.board_of]
    pcol = st.kind_column("poison")
    shared = st.two_headed & st.has_poison
    head = st.is_player & shared[st.board_of]
    heads = np.flatnonzero(head)
    gain = st.gain
    if len(heads):  # a 2HG team's poison is its own unit
        gain = gain.copy()
        gain[heads, pcol] = 0
    # Every row chosen in c = 0..rounds rounds (past its board's rounds, as often as it has).
    times: IntArray = np.minimum(np.arange(int(st.rounds.max(initial=0)) + 1)[:, None], rounds_of[None, :])
    settled = settle(st, st.counts + times[:, :, None] * gain)
    material = material_of(MaterialTables.build(st, policy, st.player_rows, heads), settled)
    choosable = eligible_mask(st)
    single = choosable & ~head
    out = np.zeros(st.n_boards, dtype=np.int64)
    np.add.at(out, st.board_of[single], (material.max(axis=0) - material.min(axis=0))[single])
    player_pos = _player_pos(st)
    our_team = st.team[player_pos[st.proliferator]]
    weight = policy.weight("poison")
    for t in np.unique(st.team[player_pos[heads]]).tolist():  # 2HG teams sharing poison: their options' range
        rows = st.player_rows[st.team == t]
        b = int(st.board_of[rows[0]])
        p0 = int(st.counts[rows, pcol].max())
        patterns = team_patterns(
            int(st.rounds[b]),
            tuple(bool(choosable[r]) for r in rows),
            p0 > 0,
            tuple(int(st.gain[r, pcol]) for r in rows),
        )
        if not patterns:
            continue
        side = 1.0 if t == our_team[b] else -1.0
        given = np.array([p0 + p[2] for p in patterns], dtype=np.int64)
        options = material[np.array([p[1] for p in patterns]), rows[None, :]].sum(axis=1)
        options = options + team_poison_milli(np.full(len(given), side * weight), given)
        out[b] += int(options.max() - options.min())
    return out


# ---------------------------------------------------------------------------- state-based actions of many boards
#: Fewer boards than this are settled one by one by :func:`settle_many` (a stack has a fixed cost of ~0.2 ms).
SETTLE_STACK_FROM = 4


def settle_many(boards: Sequence[Board], counts: Sequence[IntArray]) -> list[tuple[Settled, BoolArray]]:
    """``settle(board, counts)`` and who loses (:func:`solver.rules.losers`) for every board, in one pass.

    ``counts[b]`` are board ``b``'s counts (its own columns): the board's own, to run the
    state-based actions after something else changed it, or :func:`solver.rules.counters_after`
    a choice.  The boards are stacked, settled and their game events found together; each
    board's :class:`~solver.rules.Settled` (in its own columns) and losers are sliced out.
    Below :data:`SETTLE_STACK_FROM` boards, stacking costs more than it saves, and each board
    is settled on its own by the same rules.
    """
    if len(boards) != len(counts):
        raise ValueError(f"{len(boards)} boards but {len(counts)} counts")
    if len(boards) < SETTLE_STACK_FROM:
        alone = [(board, settle(board, own)) for board, own in zip(boards, counts, strict=True)]
        return [(settled, losers(board, settled)) for board, settled in alone]
    st = Stack.of(boards, with_gain=False)
    settled = settle(st, _stacked_counts(st, counts))
    events = _board_events(st, settled, _team_poison(st, settled.counts))
    lost = lost_seats_of(_seat_rules(st), events[:, None])[:, 0]
    player_lost = ((lost[st.player_board] >> st.seat) & 1).astype(bool)
    n_players = np.bincount(st.player_board, minlength=st.n_boards)
    first_player = np.cumsum(n_players) - n_players
    n_thr = np.bincount(st.board_of[st.thr_object], minlength=st.n_boards)
    first_thr = np.cumsum(n_thr) - n_thr
    columns = {kind: k for k, kind in enumerate(st.kinds)}
    out: list[tuple[Settled, BoolArray]] = []
    for b, board in enumerate(boards):
        rows = slice(int(st.offsets[b]), int(st.offsets[b + 1]))
        thr = slice(int(first_thr[b]), int(first_thr[b] + n_thr[b]))
        own = settled.counts[rows]
        one = Settled(
            counts=own if board.kinds == st.kinds else own[:, [columns[k] for k in board.kinds]],
            annihilated=settled.annihilated[rows],
            dies=settled.dies[rows],
            chapters_before=settled.chapters_before[rows],
            chapters_after=settled.chapters_after[rows],
            sacrificed=settled.sacrificed[rows],
            thr_reached=settled.thr_reached[thr],
            thr_crossed=settled.thr_crossed[thr],
        )
        out.append((one, player_lost[first_player[b] : first_player[b] + n_players[b]]))
    return out


def _stacked_counts(st: Stack, counts: Sequence[IntArray]) -> IntArray:
    """The stack's counts with board ``b``'s rows set to ``counts[b]`` (given in the board's own columns)."""
    out = np.empty_like(st.counts)
    columns = {kind: k for k, kind in enumerate(st.kinds)}
    for b, (board, own) in enumerate(zip(st.boards, counts, strict=True)):
        rows = out[st.offsets[b] : st.offsets[b + 1]]
        if board.kinds == st.kinds:
            rows[...] = own
        else:
            rows[...] = 0
            rows[:, [columns[k] for k in board.kinds]] = own
    return out


def _player_pos(st: Stack) -> IntArray:
    """Each stack row's position among the players (-1 for permanents)."""
    out = np.full(st.n_objects, -1, dtype=np.int64)
    out[st.player_rows] = np.arange(len(st.player_rows))
    return out


def _event_layout(st: Stack, player_pos: IntArray) -> EventLayout:
    """Where each board's game events go in its bitmask (:func:`solver.rules.row_events` for many boards)."""
    return EventLayout.build(
        player_rows=st.player_rows,
        seat=st.seat,
        seats_per_player=st.n_seats[st.player_board],
        life=st.life,
        two_headed=st.two_headed[st.player_board],
        poison_column=st.kind_column("poison"),
        thr_object=st.thr_object,
        thr_owner=player_pos[st.controller[st.thr_object]],
        thr_effect=st.thr_effect,
    )


def _seat_rules(st: Stack) -> SeatRules:
    """Which seats each board has and who their rivals are."""
    return SeatRules.build(n_seats=st.n_seats, player_board=st.player_board, seat=st.seat, team=st.team)


def _game_rules(policy: Policy, st: Stack, player_pos: IntArray) -> GameRules:
    """How each board's game events score for its proliferator."""
    return GameRules.build(
        policy,
        _seat_rules(st),
        player_board=st.player_board,
        seat=st.seat,
        team=st.team,
        proliferator=player_pos[st.proliferator],
    )


def _team_poison(st: Stack, counts: IntArray) -> IntArray | None:
    """Each team's shared poison (any leading axes; None when no 2HG board has poison), as 810.10 stores it."""
    pcol = st.kind_column("poison")
    if pcol < 0 or not (st.two_headed & st.has_poison).any():
        return None
    lead = counts.shape[:-2]
    poison = np.zeros((*lead, int(st.team_offsets[-1])), dtype=np.int64).reshape(-1, int(st.team_offsets[-1]))
    heads = counts[..., st.player_rows, pcol].reshape(len(poison), -1)
    for now in range(len(poison)):
        np.maximum.at(poison[now], st.team, heads[now])
    out: IntArray = poison.reshape(*lead, -1)
    return out


def _board_events(st: Stack, settled: Settled, poison: IntArray | None) -> IntArray:
    """Every game event of each board (the last axis), as :func:`solver.rules.event_mask` gives one board's."""
    player_pos = _player_pos(st)
    layout = _event_layout(st, player_pos)
    rows = events_of(layout, settled)
    lead = rows.shape[:-1]
    flat = rows.reshape(-1, st.n_objects)
    events = np.zeros((len(flat), st.n_boards), dtype=np.int64)
    for now in range(len(flat)):
        np.bitwise_or.at(events[now], st.board_of, flat[now])
    if poison is not None:  # a 2HG team loses at its shared threshold (704.6b, 810.11)
        team_board = np.repeat(np.arange(st.n_boards), np.diff(st.team_offsets))
        teams = np.flatnonzero(st.two_headed[team_board])
        threshold = shared_poison_threshold(np.bincount(st.team, minlength=len(team_board)))[teams]
        local = (np.arange(len(team_board)) - st.team_offsets[:-1][team_board])[teams]
        flat_poison = poison.reshape(-1, len(team_board))[:, teams]
        bits = np.where(flat_poison >= threshold, np.left_shift(np.int64(1), local), 0)
        for now in range(len(flat)):
            np.bitwise_or.at(events[now], team_board[teams], bits[now])
    out: IntArray = events.reshape(*lead, st.n_boards)
    return out
