"""Many decisions in one pass: :func:`decide_many` (arrays) and :func:`solve_many` (Decisions).

:func:`decide_many` hands the boards, in chunks of :data:`CHUNK`, to the compiled core
(:mod:`solver.kernels`): one layout, one compiled call deciding every board, the same value,
choice, tie-break and status as :func:`solver.solve` with its default method.  Scoring given
choices on many boards (:func:`score_choices`, :func:`score_many`) and settling many boards'
counts (:func:`settle_many`) still stack the boards into one disjoint union
(:class:`solver.stack.Stack`) and run the numpy rules over it.  Within a :func:`stacked`
block, every batched call on the same boards shares one stack and the boards' material ranges.
"""

from __future__ import annotations

import operator
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import chain

import numpy as np

from . import kernels
from .board import Board, BoolArray, FloatArray, IntArray
from .decision import Alternative, Decision
from .errors import BoardError, Problem
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
    team_poison_milli,
)
from .policy import Policy
from .rules import (
    ChoiceMatrix,
    EventLayout,
    SeatRules,
    Settled,
    events_of,
    losers,
    lost_seats_of,
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

    def of(self) -> Stack:
        if self.stack is None:
            self.stack = Stack.of(self.boards)
        return self.stack

    def kernels_for(self, policy: Policy) -> _Kernels:
        """The stack's kernels for ``policy`` (:func:`_kernels`), built once for every call."""
        if self.kernels is None or self.kernels_policy is not policy:
            self.kernels, self.kernels_policy = _kernels(self.of(), policy), policy
        return self.kernels

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

    The compiled core on the board as a batch of one (:meth:`solver.objective.Objective.best`).
    """
    objective = Objective(board, policy)
    best = objective.best(sense)
    return Optimum(objective, best.chosen, best.recipients, best.value, best.events)


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
    [4000, 1000000]
    """
    if sense not in (1, -1):
        raise ValueError("sense must be 1 (best) or -1 (worst)")
    policy = as_policy(policy)
    items = as_boards(boards)
    shared = _shared(items)
    if shared is not None:  # the boards of a stacked() block: keep their material ranges for score_choices
        decided, spans = _decide(items, policy, sense)
        shared.keep_spans(policy, spans)
        return decided
    parts = [_decide(items[i : i + CHUNK], policy, sense)[0] for i in range(0, len(items), CHUNK)]
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return BatchDecisions(
            empty, empty, np.zeros(1, np.int64), np.zeros((0, 0), bool), np.zeros(1, np.int64),
            np.zeros((0, 0), np.int64), empty, (), sense,
        )  # fmt: skip
    return parts[0] if len(parts) == 1 else _concat(parts)


def _decide(boards: Sequence[Board], policy: Policy, sense: int) -> tuple[BatchDecisions, IntArray]:
    """The boards decided by the compiled core in one call, and each board's material range."""
    layout = kernels.stack(boards, policy)
    decided = kernels.decide_layout(layout, sense)
    return BatchDecisions(
        values=decided.values,
        rounds=layout.rounds,
        offsets=layout.obj_off,
        chosen=decided.chosen,
        team_offsets=layout.team_off,
        recipients=decided.recipients,
        events=decided.events,
        results=decided.results,
        sense=sense,
    ), decided.spans


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


# ---------------------------------------------------------------------------- scoring choices on a stack


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


@dataclass(frozen=True)
class _PatternTable:
    """:func:`solver.objective.team_patterns` as arrays: per option its heads' times, poison, picks and pattern."""

    times: IntArray  # options x heads
    poison: IntArray
    picks: IntArray
    chosen: BoolArray  # options x rounds x heads
    recipient: IntArray  # options x rounds: head position, or -1


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
    [4.0, 1000.0]
    >>> solve_many(["solver/examples/classic.json", {"variant": "duel"}])
    Traceback (most recent call last):
    ...
    solver.errors.BoardError: boards[1].proliferator: required
    boards[1].players: required
    boards[1].players: a duel has exactly 2 players, not 0
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
            known = _decide(shared.boards, policy, 1)[1]
            shared.keep_spans(policy, known)
        return known.copy()
    out = np.zeros(len(boards), dtype=np.int64)
    for i in range(0, len(boards), CHUNK):
        out[i : i + CHUNK] = _decide(boards[i : i + CHUNK], policy, 1)[1]
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
