"""Regret per decision, and the per-player and per-game aggregates, streamed over many cores.

Each record is scored with the solver's own objective (:class:`solver.objective.Objective`),
built once per board and queried for the chosen value, the optimum and the worst choice --
the same numbers ``solver.solve``, ``solver.score`` and ``solver.worst_value`` give,
without building the objective three times (tests pin the equality).

Large inputs stream: the reader hands chunks of lines to a process pool and at most a few
chunks per worker are in flight, so memory is bounded by the chunk window, not the input;
results come back in input order whatever the number of workers, so ``--workers 2``
prints exactly what ``--workers 1`` prints.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..board import Board
from ..decision import choice_to_json
from ..errors import Problem
from ..fast import solve_fast
from ..objective import MILLI, Objective
from ..policy import Policy
from ..rules import Choice, Outcome, apply_matrix, choice_matrix, eligible, event_mask
from ..solve import to_choice, to_matrix
from .grading import (
    Grade,
    Thresholds,
    comment,
    decision_accuracy,
    grade,
    normalised_regret,
)
from .records import LineProblem, Record, RecordError, parse_line, parse_record, resolve
from .winprob import chances_after

__all__ = [
    "DecisionResult",
    "Item",
    "Summary",
    "Tally",
    "analyse_items",
    "analyse_record",
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
    board: Mapping[str, Any] | None = None
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
def analyse_record(
    record: Record,
    policy: Policy | None = None,
    thresholds: Thresholds | None = None,
    *,
    index: int = 0,
    location: str = "",
) -> DecisionResult:
    """Score one record; raises :class:`RecordError` if its board or choice is invalid."""
    thresholds = thresholds or Thresholds()
    board, choice = resolve(record)
    try:
        objective = Objective(board, policy)
        best_fast = solve_fast(objective)
        worst_milli = solve_fast(objective, sense=-1).value
    except ValueError as exc:  # boards the exact path cannot take (e.g. > 20 seats decided at once)
        raise RecordError([Problem("board", f"cannot analyse: {exc}")]) from None
    chosen_m, chosen_r = choice_matrix(board, choice)
    best_m, best_r = to_matrix(objective, best_fast.single_times, best_fast.team_options)
    value_milli = objective.score_matrix(chosen_m, chosen_r)
    best_milli = objective.score_matrix(best_m, best_r)
    best_choice = to_choice(board, best_m, best_r)
    chosen_out = apply_matrix(board, chosen_m, chosen_r)
    best_out = apply_matrix(board, best_m, best_r)
    mask_chosen = event_mask(board, chosen_out.settled)
    mask_best = event_mask(board, best_out.settled)
    result_chosen = objective.game_result(mask_chosen)
    result_best = objective.game_result(mask_best)
    game_blunder = objective.game_score(mask_chosen) < objective.game_score(mask_best)
    regret = (best_milli - value_milli) / MILLI
    value_best, value_worst = best_milli / MILLI, worst_milli / MILLI
    spread = value_best - value_worst if game_blunder else material_spread(objective)
    norm = normalised_regret(regret, spread)
    chances = (
        chances_after(objective, best_out.settled, result_best),
        chances_after(objective, chosen_out.settled, result_chosen),
    )
    drop = max(0.0, chances[0] - chances[1])
    graded = grade(regret, drop, thresholds, game_blunder)
    same = bool(np.array_equal(chosen_m.sum(axis=0), best_m.sum(axis=0))) and np.array_equal(chosen_r, best_r)
    text = comment(
        graded,
        regret,
        chances,
        _game_reason(result_chosen, result_best) if game_blunder else None,
        differences(board, choice, chosen_out, best_choice, best_out),
        same,
    )
    return DecisionResult(
        index=index,
        location=location,
        game=record.game,
        turn=record.turn,
        phase=record.phase,
        decider=record.decider,
        players=tuple(p.id for p in board.players),
        candidates=eligible(board),
        chosen=choice_to_json(choice),
        best=choice_to_json(best_choice),
        value_chosen=value_milli / MILLI,
        value_best=value_best,
        value_worst=value_worst,
        regret=regret,
        regret_norm=norm,
        accuracy=decision_accuracy(regret, drop),
        grade=graded,
        result_chosen=result_chosen,
        result_best=result_best,
        comment=text,
        win_chances_best=chances[0],
        win_chances_chosen=chances[1],
        board=record.board,
        meta=record.meta,
    )


def material_spread(objective: Objective) -> float:
    """Best minus worst value with game results left out, in points.

    Material adds over units (:class:`solver.objective.Units`), so the most and the least
    material any choice can reach differ by the sum of each unit's own range.
    """
    units = objective.units
    milli = (
        int((units.single_material.max(axis=1) - units.single_material.min(axis=1)).sum())
        if units.single_material.size
        else 0
    )
    for team in units.teams:
        materials = [o.material for o in team.options]
        milli += max(materials) - min(materials)
    return milli / MILLI


def _game_reason(chosen: str, best: str) -> str:
    if chosen in ("loss", "draw") and best not in ("loss", "draw"):
        return f"self-inflicted {chosen}"
    if best == "win":
        return "missed lethal"
    return "missed an elimination"


def differences(board: Board, chosen: Choice, chosen_out: Outcome, best: Choice, best_out: Outcome) -> list[str]:
    """What the best choice does differently, in words: ``also proliferate bob (poison 9 -> 10)``."""
    times_chosen = _times(chosen)
    times_best = _times(best)
    also, drop, rounds = [], [], []
    for obj_id in board.ids:
        c, b = times_chosen.get(obj_id, 0), times_best.get(obj_id, 0)
        if b and not c:
            also.append(f"also proliferate {obj_id} ({_counter_text(board, best_out, obj_id)})")
        elif c and not b:
            drop.append(f"don't proliferate {obj_id} ({_counter_text(board, chosen_out, obj_id)})")
        elif b != c:
            rounds.append(f"proliferate {obj_id} in {b} rounds, not {c}")
    recipients = []
    for r, (rc, rb) in enumerate(zip(chosen.rounds, best.rounds, strict=True)):
        for team, head in rb.poison_recipients.items():
            other = rc.poison_recipients.get(team)
            if other is not None and other != head:
                where = f" in round {r + 1}" if len(best.rounds) > 1 else ""
                recipients.append(f"give team {team}'s poison to {head}, not {other}{where}")
    return also + drop + rounds + recipients


def _times(choice: Choice) -> dict[str, int]:
    out: dict[str, int] = {}
    for rnd in choice.rounds:
        for obj_id in rnd.chosen:
            out[obj_id] = out.get(obj_id, 0) + 1
    return out


def _counter_text(board: Board, outcome: Outcome, obj_id: str) -> str:
    added = outcome.added.get(obj_id, {})
    if not added:
        return "no counters added"
    row = board.index[obj_id]
    parts = []
    for kind, n in added.items():
        before = int(board.counts[row, board.kind_column(kind)])
        parts.append(f"{kind} {before} -> {before + n}")
    return ", ".join(parts)


# ---------------------------------------------------------------------------- streams of decisions
@dataclass(frozen=True)
class _Job:
    items: list[Item]
    policy_path: str | None
    thresholds: Thresholds


def _analyse_chunk(job: _Job) -> list[DecisionResult | LineProblem]:
    """Analyse one chunk; runs in a worker process (or inline for one worker)."""
    policy = Policy.from_toml(job.policy_path) if job.policy_path else None
    out: list[DecisionResult | LineProblem] = []
    for source, line, payload in job.items:
        location = f"{source}:{line}"
        try:
            record = parse_line(payload) if isinstance(payload, str) else parse_record(payload)
            out.append(analyse_record(record, policy, job.thresholds, location=location))
        except RecordError as exc:
            out.extend(LineProblem(source, line, p.path, p.message) for p in exc.problems)
    return out


def analyse_items(
    items: Iterable[Item | LineProblem],
    *,
    workers: int = 1,
    policy_path: str | None = None,
    thresholds: Thresholds | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> Iterator[DecisionResult | LineProblem]:
    """Results (and problems) in input order; ``workers`` > 1 runs chunks in a process pool.

    Problems already found by the reader pass through in place; ``index`` numbers the
    decisions from 0 in input order.
    """
    jobs = _jobs(items, chunk_size, policy_path, thresholds or Thresholds())
    ordered = _inline(jobs) if workers <= 1 else _pooled(jobs, workers)
    index = 0
    for result in ordered:
        if isinstance(result, DecisionResult):
            yield result if result.index == index else DecisionResult(**{**result.__dict__, "index": index})
            index += 1
        else:
            yield result


def _inline(jobs: Iterable[_Job | LineProblem]) -> Iterator[DecisionResult | LineProblem]:
    for job in jobs:
        if isinstance(job, LineProblem):
            yield job
        else:
            yield from _analyse_chunk(job)


def _pooled(jobs: Iterable[_Job | LineProblem], workers: int) -> Iterator[DecisionResult | LineProblem]:
    """Chunks in a process pool, at most ``workers * WINDOW_PER_WORKER`` in flight, drained oldest first."""
    window = workers * WINDOW_PER_WORKER
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[list[DecisionResult | LineProblem]] | LineProblem] = deque()
        in_flight = 0
        for job in jobs:
            if isinstance(job, LineProblem):
                pending.append(job)
            else:
                pending.append(pool.submit(_analyse_chunk, job))
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
    items: Iterable[Item | LineProblem], chunk_size: int, policy_path: str | None, thresholds: Thresholds
) -> Iterator[_Job | LineProblem]:
    chunk: list[Item] = []
    for item in items:
        if isinstance(item, LineProblem):
            if chunk:
                yield _Job(chunk, policy_path, thresholds)
                chunk = []
            yield item
            continue
        chunk.append(item)
        if len(chunk) >= chunk_size:
            yield _Job(chunk, policy_path, thresholds)
            chunk = []
    if chunk:
        yield _Job(chunk, policy_path, thresholds)


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
    """Per-player and per-game aggregates, and the count of skipped input; O(players + games) memory."""

    players: dict[str, Tally] = field(default_factory=dict)
    games: dict[str, GameTally] = field(default_factory=dict)
    game_labels: dict[str, str | int] = field(default_factory=dict)
    decisions: int = 0
    problems: int = 0

    def add(self, result: DecisionResult) -> None:
        self.decisions += 1
        key = game_key(result.game)
        game = self.games.get(key)
        if game is None:
            game = self.games[key] = GameTally()
            self.game_labels[key] = result.game
        for pid in result.players:
            self.players.setdefault(pid, Tally())
            game.players.setdefault(pid, Tally())
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
