"""The rules of proliferate and what follows from it (701.34, 704, 714, 810.10).

Everything here works on whole arrays: a choice becomes a ``rounds x objects`` boolean
matrix, the counters it adds (:func:`counters_after`, over :func:`solver.kernels.counters_after`)
and the state-based actions of all objects and the board's game events (:func:`settle`, over
:func:`solver.kernels.settle_layout`) are calls of the compiled core, the board a batch of one;
many boards at once: :func:`solver.batch.settle_many`, the same kernel.  Game events, lost
seats and game scores are the core's too (:func:`solver.kernels.game_of`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import numpy as np

from . import effects, kernels
from .board import Board, BoolArray, IntArray, Variant, shared_poison_threshold
from .choices import Choice, Round, choice_of, round_of
from .errors import IllegalChoice
from .kernels import layout_of, settle_layout

__all__ = [
    "Choice",
    "ChoiceMatrix",
    "Outcome",
    "Round",
    "Settled",
    "ThresholdHit",
    "apply_matrix",
    "apply_proliferate",
    "choice_matrix",
    "counters_after",
    "eligible",
    "eligible_mask",
    "event_mask",
    "losers",
    "segment_reduce",
    "settle",
    "shared_poison_threshold",
    "team_poison",
    "why_ineligible",
]


@dataclass(frozen=True)
class ThresholdHit:
    """A threshold reached by the resolution (state triggers, 122.7)."""

    object: str
    kind: str
    at: int
    effect: str | float
    label: str


@dataclass(frozen=True)
class Settled:
    """Per-object state after the state-based actions (704.3), as arrays over the board's rows.

    Per threshold: ``thr_reached`` and ``thr_crossed``; for the board: ``events``, its game
    events (bitmasks, :mod:`solver.kernels.value`: state-based losses 704.5a, 704.5c, 704.6b, and
    ``win`` / ``lose`` thresholds reached), and ``lost``, per player whether it loses (104.2a, 810.8a).
    """

    counts: IntArray
    annihilated: IntArray
    dies: BoolArray
    chapters_before: IntArray
    chapters_after: IntArray
    sacrificed: BoolArray
    thr_reached: BoolArray
    thr_crossed: BoolArray
    events: IntArray
    lost: BoolArray


@dataclass(frozen=True, eq=False)
class Outcome:
    """What a proliferate resolution did: counters added, state-based actions, and the board after.

    Built from the checked choice matrices; the counters, the state-based actions and the
    per-id views (``added``, ``dies`` ...) are worked out on first use, so callers that only
    need a decision's value (solvers, the environment, batches) never pay for them.
    """

    before: Board
    chosen: BoolArray = field(repr=False)
    recipients: IntArray = field(repr=False)

    @cached_property
    def raw(self) -> IntArray:
        """Counts after every round, before the state-based actions."""
        return counters_after(self.before, self.chosen, self.recipients)

    @cached_property
    def settled(self) -> Settled:
        return settle(self.before, self.raw)

    @cached_property
    def lost(self) -> BoolArray:
        return losers(self.before, self.settled)

    @cached_property
    def board(self) -> Board:
        """The board after the state-based actions, with dead permanents gone (122.2)."""
        before = self.before
        if before.head_poison is not None:  # a per-head 2HG board: each head keeps its own count
            after = before.with_head_poison(self.settled.counts, self._head_poison_added)
        else:
            after = before.with_counts(self.settled.counts)
        return after.without(self.settled.dies)

    @cached_property
    def _head_poison_added(self) -> IntArray:
        """Poison each player row received as the team's recipient (701.34b), over all rounds."""
        board = self.before
        out = np.zeros(board.n_players, dtype=np.int64)
        col = board.kind_column("poison")
        if col >= 0:
            heads = self.recipients[self.recipients >= 0]
            np.add.at(out, heads, effects.gain(board)[heads, col])
        return out

    @cached_property
    def added(self) -> Mapping[str, Mapping[str, int]]:
        """Counters put on each object, per kind, before the state-based actions.

        A 2HG team's one poison counter (701.34b) shows as the board wrote its poison: on
        every head (the team's total on each head, ``shared``) or on the recipient head alone
        (``per_head``), so that an engine storing poison per head applies it once.
        """
        board = self.before
        diff = self.raw - board.counts
        if board.head_poison is not None and board.kind_column("poison") >= 0:
            diff[: board.n_players, board.kind_column("poison")] = self._head_poison_added
        return MappingProxyType(
            {
                board.ids[i]: MappingProxyType({board.kinds[k]: int(diff[i, k]) for k in np.flatnonzero(diff[i])})
                for i in np.flatnonzero(diff.any(axis=1))
            }
        )

    @cached_property
    def losers(self) -> tuple[str, ...]:
        """Players who lose (every head of a losing 2HG team)."""
        return self._ids(self.lost)

    @cached_property
    def dies(self) -> tuple[str, ...]:
        """Permanents put into the graveyard by the state-based actions."""
        return self._ids(self.settled.dies)

    @cached_property
    def annihilated(self) -> Mapping[str, int]:
        """Pairs of +1/+1 and -1/-1 counters removed (704.5q), per object."""
        nz = np.flatnonzero(self.settled.annihilated)
        return MappingProxyType({self.before.ids[i]: int(self.settled.annihilated[i]) for i in nz})

    @cached_property
    def chapters(self) -> Mapping[str, tuple[int, ...]]:
        """Saga chapters that trigger (714.2b), per Saga."""
        s = self.settled
        return MappingProxyType(
            {
                self.before.ids[i]: tuple(range(int(s.chapters_before[i]) + 1, int(s.chapters_after[i]) + 1))
                for i in np.flatnonzero(s.chapters_after > s.chapters_before)
            }
        )

    @cached_property
    def sacrificed(self) -> tuple[str, ...]:
        """Sagas to be sacrificed once their final chapter leaves the stack (714.4)."""
        return self._ids(self.settled.sacrificed)

    @cached_property
    def thresholds(self) -> tuple[ThresholdHit, ...]:
        """Thresholds crossed, and win/lose thresholds standing (state triggers fire on either)."""
        board = self.before
        terminal = np.array([e in ("win", "lose") for e in board.thr_effect], dtype=bool)
        hit = self.settled.thr_reached & (self.settled.thr_crossed | terminal)
        return tuple(
            ThresholdHit(
                object=board.ids[int(board.thr_object[j])],
                kind=board.kinds[int(board.thr_kind[j])],
                at=int(board.thr_at[j]),
                effect=board.thr_effect[j],
                label=board.thr_label[j],
            )
            for j in np.flatnonzero(hit)
        )

    def _ids(self, mask: BoolArray) -> tuple[str, ...]:
        return tuple(self.before.ids[i] for i in np.flatnonzero(mask))

    def to_json(self) -> dict[str, object]:
        return {
            "losers": list(self.losers),
            "dies": list(self.dies),
            "annihilated": dict(self.annihilated),
            "chapters": {k: list(v) for k, v in self.chapters.items()},
            "sacrificed": list(self.sacrificed),
            "thresholds": [
                {"object": t.object, "kind": t.kind, "at": t.at, "effect": t.effect, "label": t.label}
                for t in self.thresholds
            ],
            "added": {k: dict(v) for k, v in self.added.items()},
            "board": self.board.to_dict(),
        }


# ---------------------------------------------------------------------------- eligibility
def eligible_mask(board: Board) -> BoolArray:
    """Objects that may be chosen (701.34a): phased-in permanents and players with a counter.

    A 2HG head "has" the team's poison (810.10d); the board stores it on every head.
    """
    out: BoolArray = (board.counts > 0).any(axis=1) & ~board.phased_out
    return out


def why_ineligible(board: Board, obj_id: str) -> str | None:
    """Why ``obj_id`` may not be chosen on ``board`` (the reason, naming it), or None when it may (701.34a)."""
    row = board.index.get(obj_id)
    if row is None:
        return f"{obj_id!r} is not a player or permanent on this board"
    if board.phased_out[row]:
        return f"{obj_id!r} is phased out and treated as nonexistent (702.26b)"
    if not (board.counts[row] > 0).any():
        return f"{obj_id!r} has no counters (701.34a)"
    return None


def eligible(board: Board) -> tuple[str, ...]:
    """Ids that may be chosen, in board order (players first)."""
    return tuple(map(board.ids.__getitem__, eligible_mask(board).nonzero()[0].tolist()))  # 1-D: no flattening


# ---------------------------------------------------------------------------- choices
@dataclass(frozen=True, eq=False)
class ChoiceMatrix:
    """A choice as arrays over one board's rows: the form the rules and every solver work in.

    ``chosen[r, i]`` says whether row ``i`` is chosen in proliferate ``r``; ``recipients[r, t]``
    is the row of the head receiving 2HG team ``t``'s poison counter in that proliferate, or
    -1.  :meth:`from_choice` checks a :class:`Choice` and converts it; :meth:`to_choice` is the
    inverse.
    """

    board: Board
    chosen: BoolArray
    recipients: IntArray

    @classmethod
    def from_choice(cls, board: Board, choice: Choice) -> ChoiceMatrix:
        """The choice as matrices; raises :class:`IllegalChoice` for anything 701.34 does not allow.

        A recipient is implicit when only one head of a poisoned team is chosen (701.34b).
        """
        if len(choice.rounds) != board.rounds:
            raise IllegalChoice(
                f"this resolution proliferates {board.rounds} time(s); the choice has {len(choice.rounds)} round(s)"
            )
        ok = eligible_mask(board)
        chosen = np.zeros((board.rounds, board.n_objects), dtype=bool)
        recipients = np.full((board.rounds, board.n_teams), -1, dtype=np.int64)
        index = board.index
        # Only a 2HG board with poison shares a team's counter out (701.34b); elsewhere a round names no recipient
        # unless the choice does, and its row stays -1.
        shares = board.variant is Variant.TWO_HEADED_GIANT and board.kind_column("poison") >= 0
        for r, rnd in enumerate(choice.rounds):
            rows: list[int] = []
            for obj_id in rnd.chosen:
                row = index.get(obj_id)
                if row is None or not ok[row]:
                    raise IllegalChoice(f"round {r + 1}: {why_ineligible(board, obj_id)}")
                rows.append(row)
            chosen[r, rows] = True
            if shares or rnd.poison_recipients:
                recipients[r] = _recipients(board, chosen[r], rnd.poison_recipients, r)
        return cls(board, chosen, recipients)

    @classmethod
    def from_rows(
        cls,
        board: Board,
        rows: Sequence[Sequence[int]],
        recipients: Sequence[Mapping[int, int]] | None = None,
    ) -> ChoiceMatrix:
        """:meth:`from_choice` for board rows per round (and 2HG recipients as team -> head row): same checks.

        Simulations choose rows, not ids.  While no team's poison is shared out (no recipient
        named and no poisoned 2HG head chosen, 810.10d), a choice is legal exactly when every
        chosen row is eligible (701.34a), so the matrices are set from the rows; any other
        choice goes through :meth:`from_choice` by ids, which checks the recipients, fills in
        the implicit ones (701.34b) and words every error.
        """
        named = list(recipients) if recipients is not None else [{} for _ in rows]
        n = board.n_objects
        if any(not 0 <= row < n for picked in rows for row in picked):
            raise IllegalChoice(f"a chosen row is not a row of this board (0..{n - 1})")
        if not any(named) and len(rows) == board.rounds:
            chosen = np.zeros((board.rounds, n), dtype=bool)
            for r, picked in enumerate(rows):
                chosen[r, list(picked)] = True
            if not (chosen & ~eligible_mask(board)).any() and not _shares_poison(board, chosen):
                return cls(board, chosen, np.full((board.rounds, board.n_teams), -1, dtype=np.int64))
        ids, team_names = board.ids, board.team_names
        choice = Choice(
            tuple(
                Round(tuple(ids[i] for i in picked), {team_names[t]: ids[h] for t, h in per_team.items()})
                for picked, per_team in zip(rows, named, strict=True)
            )
        )
        return cls.from_choice(board, choice)

    def to_choice(self) -> Choice:
        """The :class:`Choice` these matrices stand for (ids in board order per round)."""
        return choice_of_matrix(self.board, self.chosen, self.recipients)


def choice_of_matrix(board: Board, chosen: BoolArray, recipients: IntArray) -> Choice:
    """The :class:`Choice` the matrices ``chosen`` (rounds x objects) and ``recipients`` (rounds x teams, -1 for
    none) stand for, ids in board order per round: :meth:`ChoiceMatrix.to_choice`, without building one."""
    ids, team_names = board.ids, board.team_names
    at, rows = chosen.nonzero()  # round by round, rows in board order
    picked = tuple(map(ids.__getitem__, rows.tolist()))
    named_rows = recipients.tolist()  # one list per round, also with no team
    n_rounds = chosen.shape[0]
    if n_rounds == 1:
        per_round: tuple[tuple[str, ...], ...] = (picked,)
    else:
        rounds_at = at.tolist()
        bounds = [bisect_left(rounds_at, r) for r in range(n_rounds + 1)]
        per_round = tuple(picked[bounds[r] : bounds[r + 1]] for r in range(n_rounds))
    made = []
    for r in range(n_rounds):  # a plain loop: a comprehension's frame and zip cost more on one round
        named = named_rows[r]
        made.append(round_of(per_round[r], {team_names[t]: ids[h] for t, h in enumerate(named) if h >= 0}))
    return choice_of(tuple(made))


def choice_matrix(board: Board, choice: Choice) -> tuple[BoolArray, IntArray]:
    """``ChoiceMatrix.from_choice(board, choice)`` as a pair of arrays (rounds x objects, rounds x teams)."""
    matrix = ChoiceMatrix.from_choice(board, choice)
    return matrix.chosen, matrix.recipients


def _shares_poison(board: Board, chosen: BoolArray) -> bool:
    """Whether a chosen 2HG head has the team's poison, so a recipient is due (701.34b)."""
    col = board.kind_column("poison")
    if board.variant is not Variant.TWO_HEADED_GIANT or col < 0:
        return False
    players = board.n_players
    return bool((chosen[:, :players] & (board.counts[:players, col] > 0)).any())


def _recipients(board: Board, chosen: BoolArray, named: Mapping[str, str], r: int) -> IntArray:
    out = np.full(board.n_teams, -1, dtype=np.int64)
    col = board.kind_column("poison")
    shared = board.variant is Variant.TWO_HEADED_GIANT and col >= 0
    for team, head in named.items():
        if team not in board.team_names:
            raise IllegalChoice(f"round {r + 1}: poison recipient for unknown team {team!r}")
        row = board.index.get(head, -1)
        if not 0 <= row < board.n_players or board.team_names[board.team[row]] != team:
            raise IllegalChoice(f"round {r + 1}: poison recipient {head!r} is not a player of team {team!r}")
        if not chosen[row]:
            raise IllegalChoice(f"round {r + 1}: poison recipient {head!r} was not chosen (701.34b)")
        out[board.team[row]] = row
    if not shared:
        return out
    poisoned_heads = np.flatnonzero(chosen[: board.n_players] & (board.counts[: board.n_players, col] > 0))
    for team in np.unique(board.team[poisoned_heads]):
        heads = poisoned_heads[board.team[poisoned_heads] == team]
        if out[team] < 0:
            if len(heads) > 1:
                raise IllegalChoice(
                    f"round {r + 1}: both heads of team {board.team_names[team]!r} are chosen; "
                    "name which one gets the team's poison counter (701.34b)"
                )
            out[team] = heads[0]
    return out


# ---------------------------------------------------------------------------- counters
def counters_after(board: Board, chosen: BoolArray, recipients: IntArray) -> IntArray:
    """Counts after all rounds, before state-based actions (none happen between rounds, 704.4).

    701.34a: each object gains its gain table once per round it is chosen in; 701.34b, 810.10: a
    2HG team's shared poison grows by what the head named to receive it gains, on every head.
    The compiled core's (:func:`solver.kernels.counters_after`, the board a batch of one).
    """
    times = np.asarray(chosen).sum(axis=0, dtype=np.int64)
    return kernels.counters_after(layout_of(board), times, np.asarray(recipients, dtype=np.int64))


# ---------------------------------------------------------------------------- state-based actions
def settle(board: Board, counts: IntArray, *, consume: bool = False) -> Settled:
    """The state-based actions for every object at once, run to a fixpoint (704.3), and their game events.

    ``counts`` may be one board's counts or any hypothetical counts of the same shape, with
    any leading axes: the objective settles "every object chosen c times" for every c in one
    call, shaped ``(c, objects, kinds)``, to tabulate each object's fate.  Every array of the
    result has the leading axes of ``counts`` (thresholds last instead of objects; ``events``
    the leading axes alone, ``lost`` players last).  The rules are the compiled core's
    (:func:`solver.kernels.settle_layout`, the board a batch of one).  ``consume=True`` lets
    the result take over ``counts`` (a temporary the caller never reads again) instead of
    copying it.
    """
    layout = layout_of(board)
    lead = counts.shape[:-2]
    n, k = board.n_objects, len(board.kinds)
    own = counts.dtype == np.int64 and counts.flags.c_contiguous and counts.flags.writeable
    m = int(np.prod(lead, dtype=np.int64))
    flat = (counts if consume and own else np.array(counts, dtype=np.int64, order="C")).reshape(m, n, k)
    out = settle_layout(layout, flat)
    lost = ((out.lost[:, :1] >> layout.seat[: board.n_players]) & 1).astype(bool)
    n_thr = len(board.thr_object)
    return Settled(
        counts=flat.reshape(*lead, n, k),
        annihilated=out.annihilated.reshape(*lead, n),
        dies=out.dies.reshape(*lead, n),
        chapters_before=out.chapters_before.reshape(*lead, n),
        chapters_after=out.chapters_after.reshape(*lead, n),
        sacrificed=out.sacrificed.reshape(*lead, n),
        thr_reached=out.thr_reached.reshape(*lead, n_thr),
        thr_crossed=out.thr_crossed.reshape(*lead, n_thr),
        events=out.events.reshape(lead),
        lost=lost.reshape(*lead, board.n_players),
    )


def segment_reduce(ufunc: np.ufunc, out: IntArray, segment: IntArray, values: IntArray) -> None:
    """``ufunc.at(out, segment, values)``; one segment (one board) is one plain reduce, quicker (integer ufuncs)."""
    if len(out) == 1:  # one board: every value goes to the one segment
        out[0] = ufunc.reduce(values, initial=out[0])
        return
    ufunc.at(out, segment, values)


def team_poison(board: Board, counts: IntArray) -> IntArray:
    """Each team's shared poison in 2HG (stored on every head, 810.10)."""
    out = np.zeros(board.n_teams, dtype=np.int64)
    col = board.kind_column("poison")
    if col >= 0:
        np.maximum.at(out, board.team, counts[: board.n_players, col])
    return out


def event_mask(board: Board, settled: Settled) -> int:
    """Every game event of a settled resolution, as a bitmask (:mod:`solver.kernels.value`): the settle's own."""
    return int(settled.events)


def losers(board: Board, settled: Settled) -> BoolArray:
    """Players who lose (104.2a); in Two-Headed Giant a player losing makes the team lose (810.8a): the settle's own."""
    return settled.lost


# ---------------------------------------------------------------------------- the whole resolution
def apply_proliferate(board: Board, choice: Choice) -> Outcome:
    """Apply a legal choice (701.34), then the state-based actions, and report what happened."""
    chosen, recipients = choice_matrix(board, choice)
    return apply_matrix(board, chosen, recipients)


def apply_matrix(board: Board, chosen: BoolArray, recipients: IntArray) -> Outcome:
    """:func:`apply_proliferate` for a choice already checked by :func:`choice_matrix`."""
    return Outcome(before=board, chosen=chosen, recipients=recipients)
