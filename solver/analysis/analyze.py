"""Regret per decision, and the per-player and per-game aggregates, streamed over many cores.

Each record is scored with the solver's own objective, a chunk of records at a time: the
optimum and the worst choice of every board come from the batched decision core
(:func:`decide`, two :func:`solver.batch.decide_many` calls), and the chosen and best
choices are settled and scored together over the stacked boards (:func:`judge`,
:func:`solver.batch.score_choices`) -- the same numbers ``solver.solve``, ``solver.score``
and ``solver.worst_value`` give (tests pin the equality).  A chunk's boards are stacked
once for all of it (:func:`solver.batch.stacked`).

Large inputs stream: the reader hands chunks of lines to a runner (inline, a process pool,
or Ray tasks: :mod:`solver.analysis.distributed`) and at most a few chunks per worker are
in flight, so memory is bounded by the chunk window, not the input; results come back in
input order whatever the runner, so ``--workers 2`` and ``--ray`` print exactly what
``--workers 1`` prints.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, Protocol

import numpy as np

from .. import kernels, threads
from ..allocator import steady_mmap_threshold
from ..batch import decide_many, material_spans, score_choices, stacked
from ..board import Board, BoolArray, IntArray
from ..boardjson import gc_paused
from ..decision import choice_to_json
from ..errors import Problem
from ..formats import BoardStruct
from ..kernels.after import counters_after_layout
from ..objective import MILLI
from ..policy import DEFAULT_POLICY, Policy
from ..rules import Choice, ChoiceMatrix, choice_matrix, eligible
from .grading import (
    Grade,
    Thresholds,
    comment,
    decision_accuracy,
    grade,
    normalised_regret,
)
from .pool import LocalPool
from .records import LineProblem, Record, RecordError, parse_line, parse_record, resolve_matrices
from .winprob import chances

__all__ = [
    "Case",
    "ChunkRunner",
    "DecisionResult",
    "Item",
    "Job",
    "Judgement",
    "Pending",
    "Summary",
    "Tally",
    "analyze_chunk",
    "analyze_items",
    "analyze_record",
    "decide",
]

#: One unit of input: where it came from (file, line) and a JSON line or an already-parsed record dict.
Item = tuple[str, int, "str | Mapping[str, Any]"]

CHUNK_SIZE = 128
#: Chunks in flight per worker: enough to keep every core busy, few enough to bound memory.
WINDOW_PER_WORKER = 4


@dataclass(frozen=True)
class DecisionResult:
    """Everything the reports show for one decision (plain data, so it crosses process boundaries)."""

    index: int
    location: str
    game: str | int
    turn: int
    phase: str | None
    decider: str
    players: tuple[str, ...]
    candidates: tuple[str, ...]
    chosen: dict[str, Any]
    best: dict[str, Any]
    value_chosen: float
    value_best: float
    value_worst: float
    regret: float
    regret_norm: float
    accuracy: float
    grade: Grade
    result_chosen: str
    result_best: str
    comment: str
    win_chances_best: float = 50.0
    win_chances_chosen: float = 50.0
    #: The record's board JSON and meta, for the report's drawing (not in :meth:`to_json`).
    board: BoardStruct | Mapping[str, Any] | None = None
    meta: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "location": self.location,
            "game": self.game,
            "turn": self.turn,
            "phase": self.phase,
            "decider": self.decider,
            "candidates": list(self.candidates),
            "chosen": self.chosen,
            "best": self.best,
            "value_chosen": self.value_chosen,
            "value_best": self.value_best,
            "value_worst": self.value_worst,
            "regret": self.regret,
            "regret_norm": self.regret_norm,
            "accuracy": self.accuracy,
            "grade": self.grade.value,
            "glyph": self.grade.glyph,
            "result_chosen": self.result_chosen,
            "result_best": self.result_best,
            "comment": self.comment,
            "win_chances_best": self.win_chances_best,
            "win_chances_chosen": self.win_chances_chosen,
        }


# ---------------------------------------------------------------------------- one decision
@dataclass(frozen=True)
class Judgement:
    """What the decision core says about one board: its best choice (as matrices) and its worst value."""

    chosen: BoolArray
    recipients: IntArray
    worst_milli: int


@dataclass(frozen=True)
class Case:
    """A record whose board is loaded, choice checked and board decided: ready to be judged.

    ``matrices`` is the choice as checked matrices, when the check that loaded it kept them.
    """

    record: Record
    board: Board
    choice: Choice
    judgement: Judgement
    location: str = ""
    index: int = 0
    matrices: tuple[BoolArray, IntArray] | None = None


def decide(boards: Sequence[Board], policy: Policy | None = None) -> list[Judgement | RecordError]:
    """The optimum and the worst value of every board of a chunk, from two batched calls.

    Every decision the analysis needs goes through here (:func:`solver.batch.decide_many`,
    best and worst).  A board the exact path cannot take (e.g. more than 20 seats decided at
    once) makes the batch raise; only then are the chunk's boards decided one by one, so that
    board is a :class:`RecordError` in its place and the others still go.
    """
    try:
        return list(_decided(boards, policy))
    except ValueError:
        return [_decided_alone(board, policy) for board in boards]


def _decided(boards: Sequence[Board], policy: Policy | None) -> list[Judgement]:
    best = decide_many(boards, policy)
    worst = decide_many(boards, policy, sense=-1)
    return [Judgement(*best.matrices(b), int(worst.values[b])) for b in range(len(boards))]


def _decided_alone(board: Board, policy: Policy | None) -> Judgement | RecordError:
    """One board decided alone: its judgement, or why the exact path cannot take it."""
    try:
        return _decided([board], policy)[0]
    except ValueError as exc:
        return RecordError([Problem("board", f"cannot analyse: {exc}")])


def analyze_record(
    record: Record,
    policy: Policy | None = None,
    thresholds: Thresholds | None = None,
    *,
    index: int = 0,
    location: str = "",
) -> DecisionResult:
    """Score one record; raises :class:`RecordError` if its board or choice is invalid."""
    board, choice, matrices = resolve_matrices(record)
    judgement = decide([board], policy)[0]
    if isinstance(judgement, RecordError):
        raise judgement
    case = Case(record, board, choice, judgement, location, index, matrices)
    return judge([case], policy, thresholds or Thresholds())[0]


def judge(cases: Sequence[Case], policy: Policy | None, thresholds: Thresholds) -> list[DecisionResult]:
    """The results of decided records, scored together.

    The chosen and the best choice of every record are settled and scored in one pass over
    the stacked boards (:func:`solver.batch.score_choices`, the objective's own kernels), with
    each board's material range (:func:`solver.batch.material_spans`) weighting game results
    as the objective does; the words of the records whose grade needs them are worked out
    together too (:func:`explain_changes`); what is left per record is grading and words.
    """
    boards = [case.board for case in cases]
    chosen = [choice_matrix(case.board, case.choice) if case.matrices is None else case.matrices for case in cases]
    best = [(case.judgement.chosen, case.judgement.recipients) for case in cases]
    spans = material_spans(boards, policy)
    scored = score_choices(boards, [chosen, best], policy, spans=spans)
    values, material, scores = scored.values.tolist(), scored.material.tolist(), scored.scores.tolist()
    drafts = [
        _graded(
            case,
            (values[0][i], values[1][i]),
            (material[0][i], material[1][i]),
            (scored.results[0][i], scored.results[1][i]),
            scores[0][i] < scores[1][i],
            int(spans[i]),
            thresholds,
        )
        for i, case in enumerate(cases)
    ]
    wordy = [i for i, draft in enumerate(drafts) if draft.grade is not Grade.BEST]  # the comment names no change then
    changes: list[list[str]] = [[] for _ in cases]
    explained = explain_changes(
        [
            Change(cases[i].board, cases[i].choice, chosen[i], drafts[i].best_choice, best[i], drafts[i].game_over)
            for i in wordy
        ]
    )
    for i, words in zip(wordy, explained, strict=True):
        changes[i] = words
    # Whether each record's choice is the engine's: the same rounds per object (one board after another) and the
    # same recipients (each board's own shape, so a plain comparison says what np.array_equal would).
    times = [np.concatenate([_times(matrix) for matrix, _ in side]) for side in (chosen, best)] if cases else []
    starts = np.cumsum([0] + [board.n_objects for board in boards[:-1]])
    moved = np.logical_or.reduceat(times[0] != times[1], starts).tolist() if cases else []
    return [
        _judged(case, draft, changes[i], not moved[i] and bool((chosen[i][1] == case.judgement.recipients).all()))
        for i, (case, draft) in enumerate(zip(cases, drafts, strict=True))
    ]


@dataclass(frozen=True)
class _Draft:
    """One record's numbers and grade, before the words."""

    best_choice: Choice
    value_milli: int
    value_best: float
    value_worst: float
    regret: float
    norm: float
    odds: tuple[float, float]
    drop: float
    grade: Grade
    result_chosen: str
    result_best: str
    game_blunder: bool
    game_over: bool


def _graded(
    case: Case,
    values: tuple[int, int],
    material: tuple[int, int],
    results: tuple[str, str],
    game_blunder: bool,
    span: int,
    thresholds: Thresholds,
) -> _Draft:
    """One record's numbers from its scored choices (``values``, ``material``, ``results``: chosen, then best)."""
    board, judgement = case.board, case.judgement
    value_milli, best_milli = values
    result_chosen, result_best = results
    best_choice = ChoiceMatrix(board, judgement.chosen, judgement.recipients).to_choice()
    regret = (best_milli - value_milli) / MILLI
    value_best, value_worst = best_milli / MILLI, judgement.worst_milli / MILLI
    spread = value_best - value_worst if game_blunder else span / MILLI
    odds = (chances(result_best, material[1] / MILLI), chances(result_chosen, material[0] / MILLI))
    drop = max(0.0, odds[0] - odds[1])
    return _Draft(
        best_choice=best_choice,
        value_milli=value_milli,
        value_best=value_best,
        value_worst=value_worst,
        regret=regret,
        norm=normalised_regret(regret, spread),
        odds=odds,
        drop=drop,
        grade=grade(regret, drop, thresholds, game_blunder),
        result_chosen=result_chosen,
        result_best=result_best,
        game_blunder=game_blunder,
        game_over=result_best in _GAME_OVER,
    )


def _judged(case: Case, draft: _Draft, changes: list[str], same: bool) -> DecisionResult:
    """One record's result from its draft, the words of what the best choice does differently, and whether the
    choice made is the engine's (``same``)."""
    board, record = case.board, case.record
    reason = _game_reason(draft.result_chosen, draft.result_best) if draft.game_blunder else None
    text = comment(draft.grade, draft.regret, draft.odds, reason, changes, same)
    return DecisionResult(
        index=case.index,
        location=case.location,
        game=record.game,
        turn=record.turn,
        phase=record.phase,
        decider=record.decider,
        players=board.ids[: board.n_players],
        candidates=eligible(board),
        chosen=choice_to_json(case.choice),
        best=choice_to_json(draft.best_choice),
        value_chosen=draft.value_milli / MILLI,
        value_best=draft.value_best,
        value_worst=draft.value_worst,
        regret=draft.regret,
        regret_norm=draft.norm,
        accuracy=decision_accuracy(draft.regret, draft.drop),
        grade=draft.grade,
        result_chosen=draft.result_chosen,
        result_best=draft.result_best,
        comment=text,
        win_chances_best=draft.odds[0],
        win_chances_chosen=draft.odds[1],
        board=record.board,
        meta=record.meta,
    )


def _game_reason(chosen: str, best: str) -> str:
    if chosen in ("loss", "draw") and best not in ("loss", "draw"):
        return f"self-inflicted {chosen}"
    if best == "win":
        return "missed lethal"
    return "missed an elimination"


#: Game results that end the game for the decider: the counters of such a resolution are worth nothing.
_GAME_OVER = frozenset({"win", "loss", "draw"})


@dataclass(frozen=True)
class Change:
    """A chosen and a best choice on one board (as choices and as checked matrices), to be told apart in words.

    ``game_over``: the best choice ends the game (a win, a loss or a draw).
    """

    board: Board
    chosen: Choice
    chosen_matrices: tuple[BoolArray, IntArray]
    best: Choice
    best_matrices: tuple[BoolArray, IntArray]
    game_over: bool = False


def explain_changes(changes: Sequence[Change]) -> list[list[str]]:
    """What each best choice does differently, in words: ``also proliferate bob (poison 9 -> 10)``.

    When the best choice ends the game (``game_over``: a win, a loss or a draw), the counters
    added are worth nothing (docs/objective.md), so an object chosen that the best leaves out is
    named only if adding it to the best would change who loses.  Every board's counters after
    both choices come from one compiled call over the boards laid out together
    (:func:`solver.kernels.after.counters_after_layout`), and the losers of the best choice with
    each such object added from one settle of all of them (:func:`solver.kernels.settle_layout`).
    """
    if not changes:
        return []
    layout = kernels.stack([c.board for c in changes], DEFAULT_POLICY)  # counters and losers read no policy table
    offsets = layout.obj_off.tolist()
    width = max(int(layout.rounds.max(initial=0)), 1)
    team_off = layout.team_off.tolist()
    times = np.stack(
        [
            np.concatenate([_times(getattr(c, side)[0]) for c in changes])
            for side in ("chosen_matrices", "best_matrices")
        ]
    ).astype(np.int64)
    recipients = np.full((2, width, max(team_off[-1], 1)), -1, dtype=np.int64)
    for b in np.flatnonzero(layout.shared).tolist():  # 2HG: the heads named to receive each team's poison (701.34b)
        for a, (_, named) in enumerate((changes[b].chosen_matrices, changes[b].best_matrices)):
            recipients[a, : named.shape[0], team_off[b] : team_off[b] + named.shape[1]] = named
    raw = counters_after_layout(layout, times, recipients)
    differ = (times[0] != times[1]).tolist()
    chosen_times, best_times = times.tolist()
    # The rows each board's chosen choice picks and its best leaves out: the candidates of a game-over board.
    dropped = [
        [
            row - offsets[b]
            for row in range(offsets[b], offsets[b + 1])
            if differ[row] and chosen_times[row] and not best_times[row]
        ]
        if change.game_over
        else []
        for b, change in enumerate(changes)
    ]
    changes_losers = _losers_changed(changes, times, dropped)
    columns = {kind: k for k, kind in enumerate(layout.kinds)}
    identity = list(range(len(layout.kinds)))
    out = []
    for b, change in enumerate(changes):
        board, lo = change.board, offsets[b]
        kinds = board.kinds
        cols = identity if kinds == layout.kinds else [columns[kind] for kind in kinds]
        also, drop, rounds = [], [], []
        for at in compress(range(lo, offsets[b + 1]), differ[lo : offsets[b + 1]]):
            row = at - lo
            obj_id, c, n = board.ids[row], chosen_times[at], best_times[at]
            if n and not c:
                also.append(f"also proliferate {obj_id} ({_counter_text(board, row, raw[1, at].tolist(), cols)})")
            elif c and not n:
                if change.game_over and not changes_losers[b][row]:
                    continue
                drop.append(f"don't proliferate {obj_id} ({_counter_text(board, row, raw[0, at].tolist(), cols)})")
            else:
                rounds.append(f"proliferate {obj_id} in {n} rounds, not {c}")
        recipients_text = []
        best_rounds = change.best.rounds
        for r, (rc, rb) in enumerate(zip(change.chosen.rounds, best_rounds, strict=True)):
            for team, head in rb.poison_recipients.items():
                other = rc.poison_recipients.get(team)
                if other is not None and other != head:
                    where = f" in round {r + 1}" if len(best_rounds) > 1 else ""
                    recipients_text.append(f"give team {team}'s poison to {head}, not {other}{where}")
        out.append(also + drop + rounds + recipients_text)
    return out


def _times(chosen: BoolArray) -> IntArray:
    """The rounds each row of a ``rounds x objects`` choice matrix is chosen in."""
    out: IntArray = chosen[0] if len(chosen) == 1 else chosen.sum(axis=0)
    return out


def _losers_changed(
    changes: Sequence[Change], times: IntArray, dropped: Sequence[Sequence[int]]
) -> list[dict[int, bool]]:
    """Per board, for each of its ``dropped`` rows: whether also choosing it (as often as the chosen choice does) on
    top of the best choice (``times[1]``, one board after another, and the best's recipients) changes who loses
    (104.2a, 810.8a).

    The boards with such rows are laid out together: copy 0 is the best choice on every one of them, copy ``k``
    the best with each board's ``k``-th dropped row added; all are settled in one call.
    """
    out: list[dict[int, bool]] = [{} for _ in dropped]
    which = [b for b, rows in enumerate(dropped) if rows]
    if not which:
        return out
    layout = kernels.stack([changes[b].board for b in which], DEFAULT_POLICY)  # the rules read no policy table
    copies = max(len(dropped[b]) for b in which)
    starts = np.cumsum([0] + [c.board.n_objects for c in changes]).tolist()
    extra = np.repeat(np.concatenate([times[1, starts[b] : starts[b + 1]] for b in which])[None], copies + 1, axis=0)
    named = np.full((copies + 1, max(int(layout.rounds.max()), 1), max(int(layout.team_off[-1]), 1)), -1, np.int64)
    offsets, team_off = layout.obj_off.tolist(), layout.team_off.tolist()
    for i, b in enumerate(which):
        for k, row in enumerate(dropped[b], start=1):
            extra[k, offsets[i] + row] = times[0, starts[b] + row]
        if layout.shared[i]:  # 2HG: the best's heads named to receive each team's poison (701.34b)
            best = changes[b].best_matrices[1]
            named[:, : best.shape[0], team_off[i] : team_off[i] + best.shape[1]] = best
    lost = kernels.settle_layout(layout, counters_after_layout(layout, extra, named)).lost.tolist()
    for i, b in enumerate(which):
        out[b] = {row: lost[k][i] != lost[0][i] for k, row in enumerate(dropped[b], start=1)}
    return out


def _counter_text(board: Board, row: int, after: list[int], cols: Sequence[int]) -> str:
    """The counters put on one object (as :attr:`Outcome.added` lists them): its counts before, and ``after`` (a
    row of a layout's counters; ``cols``: the layout's column of each of the board's kinds)."""
    before = board.counts[row].tolist()
    parts = [f"{kind} {b} -> {after[c]}" for kind, b, c in zip(board.kinds, before, cols, strict=True) if after[c] != b]
    return ", ".join(parts) if parts else "no counters added"


# ---------------------------------------------------------------------------- streams of decisions
@dataclass(frozen=True)
class Job:
    """One chunk of input and how to judge it: plain data, so it crosses process and machine boundaries."""

    items: list[Item]
    policy: Policy | None
    thresholds: Thresholds


def analyze_chunk(job: Job) -> list[DecisionResult | LineProblem]:
    """Analyze one chunk; runs in a worker process, a Ray task, or inline.

    Every record is parsed and its board loaded first, then the whole chunk is decided in
    one :func:`decide` call and judged in one :func:`judge` call, over one stack of its boards
    (:func:`solver.batch.stacked`); a bad record becomes its problems, in its place.
    """
    # A chunk allocates many small objects that live until it ends (parsed JSON, boards, outcomes,
    # words) and few cycles, so the collections it would trigger find little to free: the one
    # collection after it costs less (about 1% of a decision).  Memory stays bounded by the chunk.
    with gc_paused():
        return _analyzed(job)


def _analyzed(job: Job) -> list[DecisionResult | LineProblem]:
    slots: list[list[DecisionResult | LineProblem]] = []
    ready: list[tuple[int, Item, Record, Board, Choice, tuple[BoolArray, IntArray]]] = []
    for item in job.items:
        payload = item[2]
        try:
            record = parse_line(payload) if isinstance(payload, str) else parse_record(payload)
            board, choice, matrices = resolve_matrices(record)
        except RecordError as exc:
            slots.append(_problems(item, exc))
            continue
        ready.append((len(slots), item, record, board, choice, matrices))
        slots.append([])
    boards = [entry[3] for entry in ready]
    with stacked(boards):
        judgements = decide(boards, job.policy)
        cases: list[tuple[int, Case]] = []
        for (slot, item, record, board, choice, matrices), judgement in zip(ready, judgements, strict=True):
            if isinstance(judgement, RecordError):
                slots[slot] = _problems(item, judgement)
            else:
                cases.append((slot, Case(record, board, choice, judgement, f"{item[0]}:{item[1]}", 0, matrices)))
        judged = judge([case for _, case in cases], job.policy, job.thresholds)
    for (slot, _), result in zip(cases, judged, strict=True):
        slots[slot] = [result]
    return [result for slot in slots for result in slot]


def _problems(item: Item, error: RecordError) -> list[DecisionResult | LineProblem]:
    return [LineProblem(item[0], item[1], p.path, p.message) for p in error.problems]


class Pending(Protocol):
    """A chunk handed to a runner; ``result`` waits for it (a :class:`concurrent.futures.Future` is one)."""

    def result(self) -> list[DecisionResult | LineProblem]: ...


class ChunkRunner(Protocol):
    """Where chunks run: a process pool here, Ray tasks in :mod:`solver.analysis.distributed`."""

    workers: int

    def submit(self, job: Job) -> Pending: ...


def analyze_items(
    items: Iterable[Item | LineProblem],
    *,
    workers: int = 1,
    policy: Policy | None = None,
    thresholds: Thresholds | None = None,
    chunk_size: int = CHUNK_SIZE,
    runner: ChunkRunner | None = None,
) -> Generator[DecisionResult | LineProblem, None, None]:
    """Results (and problems) in input order; ``workers`` > 1 runs chunks in a process pool, ``runner`` elsewhere.

    Problems already found by the reader pass through in place; ``index`` numbers the
    decisions from 0 in input order.
    """
    jobs = _jobs(items, chunk_size, policy, thresholds or Thresholds())
    if runner is not None:
        ordered = windowed(jobs, runner)
    elif workers <= 1:
        ordered = _inline(jobs)
    else:
        ordered = _pooled(jobs, workers)
    index = 0
    try:
        for result in ordered:
            if isinstance(result, DecisionResult):
                yield result if result.index == index else DecisionResult(**{**result.__dict__, "index": index})
                index += 1
            else:
                yield result
    finally:
        ordered.close()  # closed with this generator, not when the collector finds it: a pool is stopped now


def _inline(jobs: Iterable[Job | LineProblem]) -> Generator[DecisionResult | LineProblem, None, None]:
    for job in jobs:
        if isinstance(job, LineProblem):
            yield job
        else:
            yield from analyze_chunk(job)


def _pooled(jobs: Iterable[Job | LineProblem], workers: int) -> Generator[DecisionResult | LineProblem, None, None]:
    """Chunks on a local process pool whose workers die with this process (:class:`~.pool.LocalPool`).

    An interruption (Ctrl-C, SIGTERM raised as an exception by the command line) or a consumer
    that stops early ends the workers at once rather than waiting for the chunks in flight; the pool
    runs no thread in this process, so nothing is left for the interpreter's exit to wait on.
    """
    pool: LocalPool[Job, list[DecisionResult | LineProblem]] = LocalPool(analyze_chunk, workers, worker_started)
    try:
        yield from windowed(jobs, pool)
    except BaseException:
        pool.stop()
        raise
    pool.close()


#: How often a worker checks that the process that started it is still there, in seconds.
PARENT_POLL_SECONDS = 1.0
_PR_SET_PDEATHSIG = 1


def worker_started(parent: int) -> None:
    """Initialise a pool worker: it dies with ``parent``, and leaves Ctrl-C to it.

    On Linux the kernel sends the worker SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``);
    everywhere, a watchdog thread ends the worker once its parent is no longer ``parent``
    (the fallback, and the check for a parent that died before the prctl).  SIGINT is ignored:
    a Ctrl-C reaches the whole process group, and the parent stops the pool itself; SIGTERM
    ends the worker at once (the parent's handler, inherited through fork, is for the parent).
    Its allocator is set up as the command's (:func:`solver.allocator.steady_mmap_threshold`), also
    when the pool does not fork.
    """
    steady_mmap_threshold()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the command's handler, inherited through fork: just end
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threads.start(threading.Thread(target=watch, name="parent-watchdog", daemon=True))


def windowed(
    jobs: Iterable[Job | LineProblem], runner: ChunkRunner
) -> Generator[DecisionResult | LineProblem, None, None]:
    """Chunks on ``runner``, at most ``runner.workers * WINDOW_PER_WORKER`` in flight, drained oldest first."""
    window = max(1, runner.workers) * WINDOW_PER_WORKER
    pending: deque[Pending | LineProblem] = deque()
    in_flight = 0
    for job in jobs:
        if isinstance(job, LineProblem):
            pending.append(job)
        else:
            pending.append(runner.submit(job))
            in_flight += 1
        while in_flight > window or (pending and isinstance(pending[0], LineProblem)):
            head = pending.popleft()
            if isinstance(head, LineProblem):
                yield head
            else:
                in_flight -= 1
                yield from head.result()
    while pending:
        head = pending.popleft()
        yield from [head] if isinstance(head, LineProblem) else head.result()


def _jobs(
    items: Iterable[Item | LineProblem], chunk_size: int, policy: Policy | None, thresholds: Thresholds
) -> Iterator[Job | LineProblem]:
    chunk: list[Item] = []
    for item in items:
        if isinstance(item, LineProblem):
            if chunk:
                yield Job(chunk, policy, thresholds)
                chunk = []
            yield item
            continue
        chunk.append(item)
        if len(chunk) >= chunk_size:
            yield Job(chunk, policy, thresholds)
            chunk = []
    if chunk:
        yield Job(chunk, policy, thresholds)


# ---------------------------------------------------------------------------- aggregates
@dataclass
class Tally:
    """Running totals for one player (or one player in one game); accuracy is None until a decision is seen."""

    decisions: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {g.value: 0 for g in Grade})
    total_regret: float = 0.0
    accuracy_sum: float = 0.0

    def add(self, result: DecisionResult) -> None:
        self.decisions += 1
        self.counts[result.grade.value] += 1
        self.total_regret += result.regret
        self.accuracy_sum += result.accuracy

    @property
    def accuracy(self) -> float | None:
        return self.accuracy_sum / self.decisions if self.decisions else None

    @property
    def mean_regret(self) -> float | None:
        return self.total_regret / self.decisions if self.decisions else None

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "accuracy": self.accuracy,
            "counts": dict(self.counts),
            "total_regret": round(self.total_regret, 3),
            "mean_regret": None if self.mean_regret is None else round(self.mean_regret, 3),
        }


@dataclass
class GameTally:
    players: dict[str, Tally] = field(default_factory=dict)
    total: Tally = field(default_factory=Tally)


@dataclass
class Summary:
    """Per-player and per-game aggregates, and the counts of input; O(players + games) memory.

    ``lines`` (set by the reader: non-blank record lines, and decisions found in Arena logs)
    always equals ``decisions + skipped_lines``; ``problems`` counts every reason given, so a
    line with three problems is one skipped line and three problems.  Problems of a whole file
    (line 0: unreadable, cut short) skip no line.  No count is capped.
    """

    players: dict[str, Tally] = field(default_factory=dict)
    games: dict[str, GameTally] = field(default_factory=dict)
    game_labels: dict[str, str | int] = field(default_factory=dict)
    decisions: int = 0
    problems: int = 0
    skipped_lines: int = 0
    lines: int = 0
    _last_skipped: tuple[str, int] | None = None

    def skip(self, problem: LineProblem) -> None:
        """Count one problem; the problems of one line arrive together, so a new place is a new skipped line."""
        self.problems += 1
        place = (problem.source, problem.line)
        if problem.line > 0 and place != self._last_skipped:
            self.skipped_lines += 1
        self._last_skipped = place

    def counts_json(self) -> dict[str, int]:
        return {
            "lines": self.lines,
            "decisions": self.decisions,
            "skipped_lines": self.skipped_lines,
            "problems": self.problems,
        }

    def add(self, result: DecisionResult) -> None:
        self.decisions += 1
        self._last_skipped = None
        key = game_key(result.game)
        game = self.games.get(key)
        if game is None:
            game = self.games[key] = GameTally()
            self.game_labels[key] = result.game
        for pid in result.players:  # a new Tally only when first seen (building one per decision adds up)
            if pid not in self.players:
                self.players[pid] = Tally()
            if pid not in game.players:
                game.players[pid] = Tally()
        self.players[result.decider].add(result)
        game.players[result.decider].add(result)
        game.total.add(result)

    def players_json(self) -> list[dict[str, Any]]:
        return [{"player": pid, **tally.to_json()} for pid, tally in self.players.items()]

    def games_json(self) -> list[dict[str, Any]]:
        return [
            {
                "game": self.game_labels[key],
                **game.total.to_json(),
                "players": [{"player": pid, **t.to_json()} for pid, t in game.players.items()],
            }
            for key, game in self.games.items()
        ]


def game_key(game: str | int) -> str:
    """Games are told apart by value and type, so game 1 and game "1" stay separate."""
    return json.dumps(game)
