"""Many decisions in one pass: :func:`decide_many` (arrays) and :func:`solve_many` (Decisions).

:func:`decide_many` hands the boards, in chunks (:func:`chunk_bounds`), to the compiled core
(:mod:`solver.kernels`): one layout, one compiled call deciding every board, the same value,
choice, tie-break and status as :func:`solver.solve` with its default method.  Scoring given
choices on many boards (:func:`score_choices`, :func:`score_many`: :func:`solver.kernels.score_layout`)
and settling many boards' counts (:func:`settle_many`: :func:`solver.kernels.settle_layout`) are
one compiled call per chunk too, the rules the single-board calls run.  Within a :func:`stacked`
block, every batched call on the same boards shares one layout and the boards' material ranges.
"""

from __future__ import annotations

import operator
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from . import kernels
from .board import Board, BoolArray, FloatArray, IntArray
from .decision import Decision
from .errors import BoardError, Problem
from .inputs import BoardLike, PolicyLike, as_board, as_policy
from .kernels import Layout
from .kernels.layout import join_records, record, with_policy
from .objective import Objective
from .policy import DEFAULT_POLICY, Policy
from .rules import Settled, choice_of_matrix
from .solve import best_alternative, decision_of
from .status import Method, Status

__all__ = [
    "BatchDecisions",
    "Optimum",
    "ScoredChoices",
    "chunk_bounds",
    "decide_many",
    "decide_one",
    "material_spans",
    "score_choices",
    "score_many",
    "settle_many",
    "solve_many",
    "stacked",
]

#: Boards stacked at once at most: bounds memory (a few hundred bytes per object and kind) on huge batches.
CHUNK = 256
#: Rows (players and permanents) stacked at once at most (a larger board is a chunk alone).  A chunk's tables are
#: rows x the kinds of all its boards; kept to a few hundred kilobytes each, glibc serves them from the heap the
#: chunk before freed rather than from fresh pages (benchmarks/README.md, "The compiled core": a chunk of 256
#: boards of 200 objects decided 1.7x slower per board than chunks of this many rows).
CHUNK_ROWS = 2_560


@dataclass
class _Shared:
    """Boards laid out once for every batched call on exactly them (see :func:`stacked`).

    The layout is built on first use for a policy (a board the layout cannot take raises
    where a call on the boards would); ``spans`` keeps each board's material range once worked
    out (for ``policy``), since deciding the boards finds it on the way.
    """

    boards: tuple[Board, ...]
    layouts: dict[int, tuple[Policy, Layout]] = field(default_factory=dict)
    policy: Policy | None = None
    spans: IntArray | None = None

    def layout(self, policy: Policy) -> Layout:
        kept = self.layouts.get(id(policy))
        if kept is None or kept[0] is not policy:
            kept = self.layouts[id(policy)] = (policy, kernels.stack(self.boards, policy))
        return kept[1]

    def keep_spans(self, policy: Policy, spans: IntArray) -> None:
        self.policy, self.spans = policy, spans

    def spans_for(self, policy: Policy) -> IntArray | None:
        return self.spans if self.policy is policy else None


_SHARED: ContextVar[_Shared | None] = ContextVar("solver.batch.shared", default=None)


@contextmanager
def stacked(boards: Sequence[Board]) -> Iterator[None]:
    """Within the block, batched calls on exactly ``boards`` (the same objects, in order) share one layout.

    A review decides the same boards twice (best and worst) and then scores choices on them:
    laying them out once instead of four times, and taking the material ranges from the
    decision instead of working them out again, is most of what the batched calls cost
    beyond the kernels.  Calls on other boards lay out their own as always; more than
    :data:`CHUNK` boards are never shared (memory stays bounded by the chunk).
    """
    items = tuple(boards)
    token = _SHARED.set(_Shared(items) if 0 < len(items) <= CHUNK else None)
    try:
        yield
    finally:
        _SHARED.reset(token)


def _shared(boards: Sequence[Board]) -> _Shared | None:
    """The shared layout if ``boards`` are exactly the boards of the enclosing :func:`stacked` block."""
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
      :mod:`solver.kernels.value`); ``results[b]``: the game result in words (``win``,
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
    :func:`solver.worst_value`'s choice for ``sense=-1``: the same compiled call; no :class:`~solver.decision.Decision`
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
            :data:`solver.kernels.exact.MAX_FREE_SEATS` seats.

    >>> decide_many(["solver/examples/classic.json", "solver/examples/vorinclex_lethal.json"]).values.tolist()
    [4000, 1000000]
    """
    if sense not in (1, -1):
        raise ValueError("sense must be 1 (best) or -1 (worst)")
    policy = as_policy(policy)
    items = as_boards(boards)
    shared = _shared(items)
    if shared is not None:  # the boards of a stacked() block: keep their material ranges for score_choices
        decided, spans = _decide(items, policy, sense, shared.layout(policy))
        shared.keep_spans(policy, spans)
        return decided
    parts = [_decide(items[i:j], policy, sense, layout)[0] for i, j, layout in _chunk_layouts(items, policy)]
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return BatchDecisions(
            empty, empty, np.zeros(1, np.int64), np.zeros((0, 0), bool), np.zeros(1, np.int64),
            np.zeros((0, 0), np.int64), empty, (), sense,
        )  # fmt: skip
    return parts[0] if len(parts) == 1 else _concat(parts)


def chunk_bounds(boards: Sequence[Board]) -> Iterator[tuple[int, int]]:
    """The chunks the batched calls stack ``boards`` in, as ``(start, stop)`` indices, in order: consecutive boards,
    at most :data:`CHUNK` of them and :data:`CHUNK_ROWS` rows (a board with more is a chunk alone)."""
    for start, stop, _ in _chunk_records(boards):
        yield start, stop


def _chunk_records(boards: Sequence[Board]) -> Iterator[tuple[int, int, list[tuple[IntArray, ...]]]]:
    """:func:`chunk_bounds` with each chunk's stack records (:func:`solver.kernels.layout.record`), each board read
    once."""
    n = len(boards)
    start = 0
    while start < n:
        board = boards[start]
        records = [record(board)]
        rows = len(board.counts)
        stop = start + 1
        while stop < n and stop - start < CHUNK:
            board = boards[stop]
            rows += len(board.counts)
            if rows > CHUNK_ROWS:
                break
            records.append(record(board))
            stop += 1
        yield start, stop, records
        start = stop


def _chunk_layouts(boards: Sequence[Board], policy: Policy) -> Iterator[tuple[int, int, Layout]]:
    """Each chunk of boards (:func:`chunk_bounds`, its start and stop) in the kernels' layout, chunk after chunk.

    A chunk's layout is let go only once the next one is built (this generator's ``layout`` still holds it):
    its tables are then a free block below the next chunk's, which the chunk after reuses, where letting
    them go first leaves a free top of the heap that glibc gives back to the system (above its trim
    threshold) and the next chunk faults its megabytes in again (benchmarks/README.md, "The compiled core").
    """
    for start, stop, records in _chunk_records(boards):
        layout = with_policy(join_records(records), policy)
        yield start, stop, layout


def _decide(
    boards: Sequence[Board], policy: Policy, sense: int, layout: Layout | None = None
) -> tuple[BatchDecisions, IntArray]:
    """The boards decided by the compiled core in one call (on their ``layout`` if given), and their material ranges."""
    layout = kernels.stack(boards, policy) if layout is None else layout
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
    choice = choice_of_matrix(board, chosen, recipients)
    value = int(batch.values[b])
    return decision_of(
        Objective(board, policy), choice, value, Status.OPTIMAL, value, Method.FAST, (best_alternative(choice, value),),
        elapsed, chosen, recipients,
    )  # fmt: skip


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

    Exactly ``Objective(board, policy).score_matrix(chosen, recipients)`` per board: the same
    kernel (:func:`solver.kernels.score_layout`) over the boards laid out together.
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
    """Several checked choices per board (``alternatives[j][b]``), scored in one compiled call per chunk.

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
        known = spans if spans is not None else shared.spans_for(policy)
        return _score(shared.layout(policy), alternatives, known)
    parts = [
        _score(layout, [alt[i:j] for alt in alternatives], None if spans is None else spans[i:j])
        for i, j, layout in _chunk_layouts(boards, policy)
    ]
    if not parts:
        empty = np.zeros((n_alt, 0), dtype=np.int64)
        return ScoredChoices(empty, empty, empty, np.zeros((n_alt, 0)), ((),) * n_alt)
    if len(parts) == 1:
        return parts[0]
    return ScoredChoices(
        values=np.concatenate([p.values for p in parts], axis=1),
        material=np.concatenate([p.material for p in parts], axis=1),
        events=np.concatenate([p.events for p in parts], axis=1),
        scores=np.concatenate([p.scores for p in parts], axis=1),
        results=tuple(tuple(r for p in parts for r in p.results[j]) for j in range(n_alt)),
    )


def _score(
    layout: Layout, alternatives: Sequence[Sequence[tuple[BoolArray, IntArray]]], spans: IntArray | None
) -> ScoredChoices:
    """The alternatives scored on the boards of ``layout`` (:func:`solver.kernels.score_layout`)."""
    n_alt = len(alternatives)
    n_rows = int(layout.obj_off[-1])
    width = max(int(layout.rounds.max(initial=0)), 1)
    times = np.zeros((n_alt, n_rows), dtype=np.int64)
    recipients = np.full((n_alt, width, max(int(layout.team_off[-1]), 1)), -1, dtype=np.int64)
    shared_boards = np.flatnonzero(layout.shared).tolist()
    for j, alt in enumerate(alternatives):
        if alt:
            times[j] = np.concatenate([chosen[0] if len(chosen) == 1 else chosen.sum(axis=0) for chosen, _ in alt])
        for b in shared_boards:  # 2HG: the heads named to receive each team's poison (701.34b)
            named = alt[b][1]
            lo = int(layout.team_off[b])
            recipients[j, : named.shape[0], lo : lo + named.shape[1]] = named
    scored = kernels.score_layout(layout, times, recipients, spans)
    return ScoredChoices(scored.values, scored.material, scored.events, scored.scores, scored.results)


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
            known = _decide(shared.boards, policy, 1, shared.layout(policy))[1]
            shared.keep_spans(policy, known)
        return known.copy()
    out = np.zeros(len(boards), dtype=np.int64)
    for i, j, layout in _chunk_layouts(boards, policy):
        out[i:j] = _decide(boards[i:j], policy, 1, layout)[1]
    return out


# ---------------------------------------------------------------------------- state-based actions of many boards
def settle_many(boards: Sequence[Board], counts: Sequence[IntArray]) -> list[tuple[Settled, BoolArray]]:
    """``settle(board, counts)`` and who loses (:func:`solver.rules.losers`) for every board, in one pass.

    ``counts[b]`` are board ``b``'s counts (its own columns): the board's own, to run the
    state-based actions after something else changed it, or :func:`solver.rules.counters_after`
    a choice.  The boards are laid out and settled together by the compiled core
    (:func:`solver.kernels.settle_layout`, the rules :func:`solver.rules.settle` runs on one
    board); each board's :class:`~solver.rules.Settled` (in its own columns) and losers are
    sliced out.
    """
    if len(boards) != len(counts):
        raise ValueError(f"{len(boards)} boards but {len(counts)} counts")
    out: list[tuple[Settled, BoolArray]] = []
    for i, j, layout in _chunk_layouts(boards, DEFAULT_POLICY):  # the state-based actions read no policy table
        out.extend(_settle(layout, boards[i:j], counts[i:j]))
    return out


def _settle(layout: Layout, boards: Sequence[Board], counts: Sequence[IntArray]) -> list[tuple[Settled, BoolArray]]:
    columns = {kind: k for k, kind in enumerate(layout.kinds)}
    maps: dict[tuple[str, ...], list[int] | None] = {}
    offsets, thr_offsets = layout.obj_off.tolist(), layout.thr_off.tolist()
    given = np.zeros((1, *layout.counts.shape), dtype=np.int64)
    into = given[0]
    for b, (board, own) in enumerate(zip(boards, counts, strict=True)):
        kinds = board.kinds
        if kinds not in maps:
            maps[kinds] = None if kinds == layout.kinds else [columns[k] for k in kinds]
        cols = maps[kinds]
        if cols is None:
            into[offsets[b] : offsets[b + 1]] = own
        else:
            into[offsets[b] : offsets[b + 1]][:, cols] = own
    s = kernels.settle_layout(layout, given)
    counts_after, annihilated, dies = s.counts[0], s.annihilated[0], s.dies[0]
    before, after, sacrificed = s.chapters_before[0], s.chapters_after[0], s.sacrificed[0]
    reached, crossed, events = s.thr_reached[0], s.thr_crossed[0], s.events[0]
    # Whether each row's seat lost (810.8a: a 2HG team's heads together); read for the players' rows.
    row_board = np.repeat(np.arange(len(boards)), np.diff(layout.obj_off))
    seat_lost = ((s.lost[0][row_board] >> np.maximum(layout.seat, 0)) & 1).astype(bool)
    out: list[tuple[Settled, BoolArray]] = []
    for b, board in enumerate(boards):
        lo, hi, t_lo, t_hi = offsets[b], offsets[b + 1], thr_offsets[b], thr_offsets[b + 1]
        cols = maps[board.kinds]
        own = counts_after[lo:hi]
        lost = seat_lost[lo : lo + board.n_players]
        one = Settled(
            counts=own if cols is None else own[:, cols],
            annihilated=annihilated[lo:hi],
            dies=dies[lo:hi],
            chapters_before=before[lo:hi],
            chapters_after=after[lo:hi],
            sacrificed=sacrificed[lo:hi],
            thr_reached=reached[t_lo:t_hi],
            thr_crossed=crossed[t_lo:t_hi],
            events=events[b],
            lost=lost,
        )
        out.append((one, lost))
    return out
