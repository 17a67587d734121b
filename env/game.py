"""The game between decisions: turns, events, opportunities, scripted seats and who has lost.

A :class:`Game` runs until a seat has a proliferate to decide.  :func:`advance_all` drives
many games at once: it has the scripted seats' decisions made (batched across the games)
and stops each game when a seat it does not script (an *external* seat: the Gymnasium
agent, or every PettingZoo agent) must decide, which :func:`resolve_all` then applies.
Every rule comes from the solver: a decision adds the counters of
:func:`solver.rules.counters_after`, and after it, as after each turn's events, the
state-based actions run and say who lost (704.5, 704.6, 810.8).

A game runs as a generator (:data:`Running`) that yields each board whose state-based
actions are due and gets back the board settled and its losers, so :func:`run_all` answers
the checks of all the games running together with one :func:`solver.batch.settle_many`
call, however far apart the games are.  All randomness comes from the generator passed in
(the env's ``np_random``); each game consumes its own in the order a game alone would.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TypeVar

import numpy as np

from solver.core import Board, BoolArray, IntArray, Objective, Policy, Settled, Variant, counters_after, settle_many

from .boardops import remove, retarget, with_counts
from .decide import Plan, decide_boards
from .events import EventParams, dies_triggers, turn_events
from .opportunities import PERMANENT_SOURCES, Opportunity, prepare, turn_opportunities
from .policies import BoardPolicy, decide_each
from .scenarios import rebuild

__all__ = [
    "Game",
    "GameConfig",
    "PendingDecision",
    "Resolved",
    "Running",
    "advance_all",
    "plan_all",
    "play_all",
    "resolve_all",
    "run_all",
]

#: A board whose state-based actions are due, with its counts (the board's own, or after a choice).
Check = tuple[Board, IntArray]
#: The answer: the counts settled (704.3) and which players lose.
Checked = tuple[Settled, BoolArray]
T = TypeVar("T")
#: A game running: it yields checks and gets their answers; its return value is the caller's.
Running = Generator[Check, Checked, T]


@dataclass(frozen=True)
class GameConfig:
    """How the game moves between decisions (see :mod:`env.events`, :mod:`env.opportunities`)."""

    events: EventParams | None = field(default_factory=EventParams)
    p_activate: float = 0.5
    p_spell: float = 0.35
    p_fizzle: float = 0.15
    max_turns: int = 200
    capacity: int = 30


class PendingDecision:
    """A proliferate being decided: the board it happens on, the rounds chosen so far, and its solver work.

    The :class:`solver.objective.Objective` is built lazily and cached, and the optimum
    (:attr:`plan`) is filled by :func:`plan_all` for many decisions at once, so the reward,
    the regret, the oracle and ``oracle_in_info`` share one build per decision.
    """

    def __init__(self, seat: str, board: Board, opportunity: Opportunity, policy: Policy) -> None:
        self.seat = seat
        self.board = board
        self.opportunity = opportunity
        self.policy = policy
        self.rows: list[list[int]] = []
        self.recipients: list[dict[int, int]] = []
        self.plan: Plan | None = None

    @property
    def rounds(self) -> int:
        return self.board.rounds

    @property
    def round(self) -> int:
        return len(self.rows)

    @cached_property
    def objective(self) -> Objective:
        return Objective(self.board, self.policy)

    @property
    def optimum(self) -> Plan:
        """The optimal plan (solved now if :func:`plan_all` has not solved it yet)."""
        if self.plan is None:
            plan_all([self])
        assert self.plan is not None
        return self.plan


def plan_all(decisions: Sequence[PendingDecision]) -> None:
    """Solve the optimum of every decision that has none yet: one :func:`env.decide.decide_boards` call per policy."""
    todo: dict[int, list[PendingDecision]] = {}
    for decision in decisions:
        if decision.plan is None:
            todo.setdefault(id(decision.policy), []).append(decision)
    for group in todo.values():
        for decision, plan in zip(group, decide_boards([d.board for d in group], group[0].policy), strict=True):
            decision.plan = plan


@dataclass(frozen=True, eq=False)
class Resolved:
    """A decision applied: the board it was made on, the board settled after it, and who lost."""

    before: Board
    settled: Settled
    lost: BoolArray

    @property
    def dies(self) -> tuple[str, ...]:
        """Permanents put into the graveyard by the state-based actions."""
        return _ids_of(self.before, self.settled.dies)

    @property
    def losers(self) -> tuple[str, ...]:
        """Players who lose (every head of a losing 2HG team)."""
        return _ids_of(self.before, self.lost)


def _ids_of(board: Board, rows: BoolArray) -> tuple[str, ...]:
    """The ids of the rows set in a 1-D mask (``nonzero``: no ``flatnonzero`` wrapper, plain int indices)."""
    ids = board.ids
    return tuple(ids[i] for i in rows.nonzero()[0].tolist())


def run_all(runs: Sequence[Running[T]]) -> list[T]:
    """Run every game generator to its end, answering the checks they yield together; their return values.

    Each round, every game still running has asked for one check; one
    :func:`solver.batch.settle_many` call answers them all.
    """
    results: dict[int, T] = {}
    live: list[int] = []
    asks: list[Check] = []
    for k, run in enumerate(runs):
        try:
            asks.append(next(run))
            live.append(k)
        except StopIteration as stop:
            results[k] = stop.value
    while live:
        answers = settle_many([board for board, _ in asks], [counts for _, counts in asks])
        still: list[int] = []
        asks = []
        for k, answer in zip(live, answers, strict=True):
            try:
                asks.append(runs[k].send(answer))
                still.append(k)
            except StopIteration as stop:
                results[k] = stop.value
        live = still
    return [results[k] for k in range(len(runs))]


def resolve_all(
    games: Sequence[Game], decisions: Sequence[PendingDecision], choices: Sequence[tuple[BoolArray, IntArray]]
) -> list[Resolved]:
    """Apply each game's decision (checked solver matrices), its state-based actions batched; no game goes on."""
    return run_all([g.resolving(d, *c) for g, d, c in zip(games, decisions, choices, strict=True)])


def advance_all(games: Sequence[Game]) -> None:
    """Run every game until one of its external seats must decide (``pending``) or it ends."""
    play_all(games, [game.advancing() for game in games])


def play_all(games: Sequence[Game], runs: Sequence[Running[T]]) -> list[T]:
    """Run ``runs`` (the games' next moves, :meth:`Game.playing` or :meth:`Game.advancing`), then on as
    :func:`advance_all` does; the runs' return values.

    The scripted seats' decisions of all the games are taken together, one
    :func:`env.policies.decide_each` call per board policy, and the games run on together
    (:func:`run_all`); each game still consumes its own generator in the order a game run
    alone would.
    """
    results = run_all(runs)
    candidates = list(games)
    while True:
        waiting: dict[int, list[Game]] = {}
        for game in candidates:
            decision = game.pending
            if decision is not None and decision.seat not in game.external:
                waiting.setdefault(id(game.policies[decision.seat]), []).append(game)
        if not waiting:
            return results
        after: list[Running[Resolved]] = []
        for group in waiting.values():
            decisions = [g.pending for g in group if g.pending is not None]
            policy = group[0].policies[decisions[0].seat]
            answers = decide_each(policy, [d.board for d in decisions], [g.rng for g in group])
            after.extend(g.playing(d, *a) for g, d, a in zip(group, decisions, answers, strict=True))
        run_all(after)
        moved = {id(g) for group in waiting.values() for g in group}
        candidates = [g for g in candidates if id(g) in moved]  # only a game that moved can be waiting again


class Game:
    """One game in progress.  ``external`` seats are decided from outside; the rest by ``policies``."""

    def __init__(
        self,
        board: Board,
        seats: tuple[str, ...],
        archetypes: dict[str, str],
        rng: np.random.Generator,
        *,
        external: frozenset[str],
        policies: dict[str, BoardPolicy],
        config: GameConfig,
        policy: Policy,
    ) -> None:
        self.board = board
        self.seats = seats
        self.archetypes = archetypes
        self.rng = rng
        self.external = external
        self.policies = policies
        self.config = config
        self.policy = policy
        self.queue: deque[tuple[str, Opportunity]] = deque()
        self.next_seat = 0
        self.turns = 0
        self.next_id = board.n_objects
        self.lost: set[str] = set()
        self.over = False
        self.truncated = False
        self.pending: PendingDecision | None = None
        self.log: list[str] = []

    # ------------------------------------------------------------------ results
    def alive(self) -> tuple[str, ...]:
        return tuple(s for s in self.seats if s not in self.lost)

    def result(self, seat: str) -> str | None:
        """win / loss / draw for ``seat`` once it is decided, else None (team result in 2HG, 810.8a)."""
        if seat in self.lost:
            return "draw" if self.over and not self.alive() else "loss"
        if self.over and not self.truncated:
            return "win"
        return None

    # ------------------------------------------------------------------ running
    def start(self, seat: str, opportunity: Opportunity) -> None:
        """Begin with ``opportunity`` for ``seat``, turns going on after ``seat``; :func:`advance_all` runs it."""
        self.queue.append((seat, opportunity))
        self.next_seat = (self.seats.index(seat) + 1) % len(self.seats)

    def advancing(self) -> Running[None]:
        """Run until a seat must decide (in ``pending``, external or scripted) or the game ends.

        Scripted seats' decisions are made by :func:`advance_all`, which batches them across games.
        """
        self.pending = None
        while not self.over:
            if self.queue:
                seat, opportunity = self.queue.popleft()
                if seat in self.lost:
                    continue
                prepared = prepare(self.board, opportunity)
                self.board = prepared.board
                if not prepared.happens:
                    self.log.append(f"{opportunity.source.card}: {prepared.reason}")
                    continue
                self.pending = PendingDecision(seat, prepared.board, opportunity, self.policy)
                return
            yield from self._turn()

    def resolving(self, decision: PendingDecision, chosen: BoolArray, recipients: IntArray) -> Running[Resolved]:
        """Apply a decision's checked solver matrices (701.34), then the state-based actions (704.3)."""
        board = decision.board
        settled, lost = yield board, counters_after(board, chosen, recipients)
        self._take(board, with_counts(board, settled.counts), settled.dies, settled.sacrificed, lost)
        return Resolved(board, settled, lost)

    def playing(
        self, decision: PendingDecision, chosen: BoolArray, recipients: IntArray, *, go_on: bool = True
    ) -> Running[Resolved]:
        """:meth:`resolving`, then (with ``go_on``, unless the game is over) :meth:`advancing`."""
        resolved = yield from self.resolving(decision, chosen, recipients)
        self.pending = None
        if go_on and not self.over:
            yield from self.advancing()
        return resolved

    def _turn(self) -> Running[None]:
        if self.turns >= self.config.max_turns:
            self.over = self.truncated = True
            return
        seat = self.seats[self.next_seat]
        self.next_seat = (self.next_seat + 1) % len(self.seats)
        if seat in self.lost:
            return
        self.turns += 1
        if self.config.events is not None:
            capacity = self.config.capacity
            events = turn_events(
                self.board,
                seat,
                self.archetypes.get(seat, "mixed"),
                self.rng,
                self.config.events,
                capacity,
                self.next_id,
            )
            self.next_id += 1
            self.board = events.board
            self.log.extend(events.log)
            self.queue.extend((owner, Opportunity(PERMANENT_SOURCES[card], owner)) for owner, card in events.triggers)
            if events.log:  # the state-based actions after the events (704.3)
                board = self.board
                settled, lost = yield board, board.counts
                self._take(board, with_counts(board, settled.counts), settled.dies, settled.sacrificed, lost)
            if self.over:
                return
        cfg = self.config
        self.queue.extend(
            (seat, o) for o in turn_opportunities(self.board, seat, self.rng, cfg.p_activate, cfg.p_spell, cfg.p_fizzle)
        )

    def _take(self, before: Board, settled: Board, dies: BoolArray, sacrificed: BoolArray, lost: BoolArray) -> None:
        """Dead permanents and finished Sagas (714.4) leave, dies triggers are queued, losers are out."""
        gone = dies | sacrificed
        board = settled
        if np.count_nonzero(gone):  # most checks remove nothing (count_nonzero: no ufunc reduce on a tiny mask)
            for owner, card in dies_triggers(before, dies.nonzero()[0].tolist()):
                self.queue.appendleft((owner, Opportunity(PERMANENT_SOURCES[card], owner)))
            board = remove(settled, gone)
        self.board = retarget(board, board.proliferator, 1)
        if np.count_nonzero(lost):
            self._lose(set(_ids_of(before, lost)))

    def _lose(self, losers: set[str]) -> None:
        """Seats that lost leave; in a duel or 2HG the game is over, in free-for-all it goes on (800.4a)."""
        if self.board.variant is Variant.TWO_HEADED_GIANT:
            teams = {self.board.team[self.board.index[s]] for s in losers}
            losers = {s for s in self.seats if s in self.board.index and self.board.team[self.board.index[s]] in teams}
        self.lost |= losers
        alive = self.alive()
        if self.board.variant is not Variant.FREE_FOR_ALL or len(alive) <= 1 or not (set(alive) & self.external):
            self.over = True
            return
        board = self.board
        keep_players = [p for p in board.players if p.id not in self.lost]
        keep_perms = [
            replace(p, protector=None if p.protector in self.lost else p.protector)
            for p in board.permanents
            if p.controller not in self.lost
        ]
        effects = [e for e in board.effects if e.controller not in self.lost]
        proliferator = board.proliferator_id if board.proliferator_id not in self.lost else keep_players[0].id
        self.board = rebuild(board.variant, proliferator, 1, keep_players, keep_perms, effects)
