"""The rules of proliferate and what follows from it (701.34, 704, 714, 810.10).

Everything here works on whole arrays: a choice becomes a ``rounds x objects`` boolean
matrix, the counters it adds are one matrix product with :func:`solver.effects.gain`, and the
state-based actions of all objects and the board's game events are one call of the compiled
core (:func:`settle`, over :func:`solver.kernels.settle_layout`, the board a batch of one;
many boards at once: :func:`solver.batch.settle_many`, the same kernel).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import repeat
from types import MappingProxyType

import numpy as np

from . import effects
from .board import Board, BoolArray, IntArray, Variant, shared_poison_threshold
from .choices import Choice, Round
from .errors import IllegalChoice
from .kernels import layout_of, settle_layout

__all__ = [
    "Choice",
    "ChoiceMatrix",
    "Outcome",
    "Round",
    "Settled",
    "ThresholdHit",
    "accumulate_at_rows",
    "apply_matrix",
    "apply_proliferate",
    "choice_matrix",
    "combine_events",
    "counters_after",
    "eligible",
    "eligible_mask",
    "event_mask",
    "losers",
    "lost_seats",
    "row_events",
    "seat_numbers",
    "seat_rules_of",
    "seats",
    "segment_reduce",
    "settle",
    "shared_poison_threshold",
    "team_poison",
    "team_poison_events",
    "team_poison_lost",
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
    events (see :func:`row_events`: state-based losses 704.5a, 704.5c, 704.6b, and ``win`` /
    ``lose`` thresholds reached), and ``lost``, per player whether it loses (104.2a, 810.8a).
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
        for r, rnd in enumerate(choice.rounds):
            for obj_id in rnd.chosen:
                row = board.index.get(obj_id)
                if row is None or not ok[row]:
                    raise IllegalChoice(f"round {r + 1}: {why_ineligible(board, obj_id)}")
                chosen[r, row] = True
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
        board = self.board
        ids, team_names = board.ids, board.team_names
        rounds = []
        for r in range(self.chosen.shape[0]):
            named = {team_names[t]: ids[h] for t, h in enumerate(self.recipients[r].tolist()) if h >= 0}
            rounds.append(Round(tuple(map(ids.__getitem__, self.chosen[r].nonzero()[0].tolist())), named))
        return Choice(tuple(rounds))


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
    """Counts after all rounds, before state-based actions (none happen between rounds, 704.4)."""
    times = chosen.sum(axis=0)
    added = times[:, None] * effects.gain(board)
    col = board.kind_column("poison")
    if board.variant is Variant.TWO_HEADED_GIANT and col >= 0:
        heads = recipients[recipients >= 0]
        team_gain = np.zeros(board.n_teams, dtype=np.int64)
        np.add.at(team_gain, board.team[heads], effects.gain(board)[heads, col])
        added[: board.n_players, col] = team_gain[board.team]
    out: IntArray = board.counts + added
    return out


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


def seats(board: Board) -> IntArray:
    """The unit that wins or loses, per player: the team in Two-Headed Giant (810.8a), else the player."""
    return seat_numbers(board.variant, board.team)


def seat_numbers(variant: Variant, team: IntArray) -> IntArray:
    """:func:`seats` from the players' teams (numbered from 0 in order of first appearance)."""
    if variant is Variant.TWO_HEADED_GIANT:
        return team
    return np.arange(len(team), dtype=np.int64)


#: At most this many seats: events use three bits per seat in an int64 (see :func:`row_events`).
MAX_SEATS = 20


def n_seats(board: Board) -> int:
    return board.n_teams if board.variant is Variant.TWO_HEADED_GIANT else board.n_players


@dataclass(frozen=True)
class EventLayout:
    """Where the game events of :func:`row_events` come from, for one board.

    ``player_rows`` are the players' rows, ``player_bit`` each one's seat bit, ``life_lost``
    whether its life is 0 or less (704.5a/704.6a), ``poison_loses`` whether ten poison
    counters make it lose (704.5c; not in 2HG, 704.6b) and ``poison_column`` the poison column
    (-1 if none, or if no player can lose by it: nothing to look at).  The thresholds that set
    an event once reached (``win`` and ``lose``; numeric ones set none) are ``thr_index``, on
    rows ``thr_rows``, setting bits ``thr_bits``.
    """

    player_rows: IntArray
    player_bit: IntArray
    life_lost: BoolArray
    poison_loses: BoolArray
    poison_column: int
    thr_index: IntArray
    thr_rows: IntArray
    thr_bits: IntArray

    @classmethod
    def of(cls, board: Board) -> EventLayout:
        """One board's layout; all but the players' lives depend only on its seating and thresholds, shared."""
        if len(board.thr_object) > _SHARED_THRESHOLDS:  # a larger key is not worth keeping
            return _layout_of(
                board.variant,
                board.team,
                n_seats(board),
                board.life,
                board.kind_column("poison"),
                board.thr_object,
                board.controller[board.thr_object],
                board.thr_effect,
            )
        seated = _seated_layout(
            board.variant,
            tuple(board.team.tolist()),
            n_seats(board),
            tuple(board.thr_object.tolist()),
            tuple(board.controller[board.thr_object].tolist()),
            board.thr_effect,
        )
        return cls(
            player_rows=seated.player_rows,
            player_bit=seated.player_bit,
            life_lost=board.life <= 0,
            poison_loses=seated.poison_loses,
            poison_column=board.kind_column("poison") if seated.poison_loses.any() else -1,
            thr_index=seated.thr_index,
            thr_rows=seated.thr_rows,
            thr_bits=seated.thr_bits,
        )

    @classmethod
    def build(
        cls,
        *,
        player_rows: IntArray,
        seat: IntArray,
        seats_per_player: IntArray,
        life: IntArray,
        two_headed: BoolArray,
        poison_column: int,
        thr_object: IntArray,
        thr_owner: IntArray,
        thr_effect: tuple[str | float, ...],
    ) -> EventLayout:
        """The layout from per-player arrays (``thr_owner`` indexes them) for one board or a stack."""
        if len(seats_per_player) and int(seats_per_player.max()) > MAX_SEATS:
            raise ValueError(f"at most {MAX_SEATS} players (or 2HG teams) are supported")
        bit = np.left_shift(np.int64(1), seat)
        shift = np.fromiter(map(_THRESHOLD_SHIFT.get, thr_effect, repeat(-1)), np.int64, len(thr_effect))
        index = np.flatnonzero(shift >= 0)
        owner = thr_owner[index]
        poison_loses = ~two_headed  # 704.5c, but not in 2HG (704.6b): the one place this is decided
        return cls(
            player_rows=player_rows,
            player_bit=bit,
            life_lost=life <= 0,
            poison_loses=poison_loses,
            poison_column=poison_column if poison_loses.any() else -1,
            thr_index=index,
            thr_rows=thr_object[index],
            thr_bits=np.left_shift(bit[owner], shift[index] * seats_per_player[owner]).astype(np.int64),
        )


#: Boards with more thresholds than this have their layout worked out afresh, not kept.
_SHARED_THRESHOLDS = 64


@lru_cache(maxsize=256)
def _seated_layout(
    variant: Variant,
    team: tuple[int, ...],
    seat_count: int,
    thr_object: tuple[int, ...],
    thr_owner: tuple[int, ...],
    thr_effect: tuple[str | float, ...],
) -> EventLayout:
    """:meth:`EventLayout.of` but the players' lives (all alive) and the poison column (none), read-only.

    Seats and thresholds stay the same over a game's decisions, so this is worked out once per
    seating and set of thresholds rather than once per decision.
    """
    layout = _layout_of(
        variant,
        np.array(team, dtype=np.int64),
        seat_count,
        np.ones(len(team), dtype=np.int64),
        -1,
        np.array(thr_object, dtype=np.int64),
        np.array(thr_owner, dtype=np.int64),
        thr_effect,
    )
    for value in vars(layout).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return layout


def _layout_of(
    variant: Variant,
    team: IntArray,
    seat_count: int,
    life: IntArray,
    poison_column: int,
    thr_object: IntArray,
    thr_owner: IntArray,
    thr_effect: tuple[str | float, ...],
) -> EventLayout:
    """:meth:`EventLayout.build` for one board whose players have these teams and lives."""
    n_players = len(team)
    return EventLayout.build(
        player_rows=np.arange(n_players, dtype=np.int64),
        seat=seat_numbers(variant, team),
        seats_per_player=np.full(n_players, seat_count, dtype=np.int64),
        life=life,
        two_headed=np.full(n_players, variant is Variant.TWO_HEADED_GIANT),
        poison_column=poison_column,
        thr_object=thr_object,
        thr_owner=thr_owner,
        thr_effect=thr_effect,
    )


#: Which multiple of the seat count a threshold's bit is shifted by (see :func:`row_events`).
_THRESHOLD_SHIFT: dict[str | float, int] = {"win": 1, "lose": 2}


def events_of(layout: EventLayout, settled: Settled) -> IntArray:
    """:func:`row_events` from a layout: one board's rows, with any leading axes."""
    counts = settled.counts
    events: IntArray = np.zeros(counts.shape[:-1], dtype=np.int64)
    lost = layout.life_lost
    if layout.poison_column >= 0:
        lost = lost | (layout.poison_loses & (counts[..., layout.player_rows, layout.poison_column] >= 10))
    events[..., layout.player_rows] = np.where(lost, layout.player_bit, 0)
    if len(layout.thr_index):
        bits = np.where(settled.thr_reached[..., layout.thr_index], layout.thr_bits, 0)
        accumulate_at_rows(np.bitwise_or, events, layout.thr_rows, bits)
    return events


def accumulate_at_rows(ufunc: np.ufunc, out: np.ndarray, rows: IntArray, values: np.ndarray) -> None:
    """``ufunc.at(out, (..., rows), values)``: ``values[..., j]`` into ``out[..., rows[j]]``, any leading axes.

    Rows may repeat (several thresholds on one object).
    """
    ufunc.at(out, (..., rows), values)  # type: ignore[arg-type]  # numpy's stubs omit tuple indices


def row_events(board: Board, settled: Settled) -> IntArray:
    """Per object, a bitmask of the game events it causes; :func:`lost_seats` turns events into losers.

    With S seats (see :func:`seats`), bit ``s`` is a state-based loss of seat ``s``: life
    (704.5a/704.6a) or, outside 2HG, ten poison (704.5c); bit ``S + s`` is a ``win``
    threshold of seat ``s`` that has triggered, bit ``2S + s`` a ``lose`` threshold.  The
    thresholds are triggered abilities, so they are kept apart from state-based losses:
    they resolve only after those (704.3, 603.3) and only for a player still in the game.
    2HG poison is a team matter: :func:`team_poison_events`.
    """
    return events_of(EventLayout.of(board), settled)


@dataclass(frozen=True)
class SeatRules:
    """Per board, what :func:`lost_seats_of` needs: the number of seats and each seat's rivals.

    ``rivals[b, s]`` is the bitmask of the seats on another team than seat ``s`` (those that
    lose when ``s`` wins, 104.2a); unused seats have no rivals.
    """

    n_seats: IntArray
    rivals: IntArray

    @classmethod
    def of(cls, board: Board) -> SeatRules:
        """One board's rules: they depend only on its variant and its players' teams, so they are shared."""
        return seat_rules_of(board.variant, tuple(board.team.tolist()))

    @classmethod
    def build(cls, *, n_seats: IntArray, player_board: IntArray, seat: IntArray, team: IntArray) -> SeatRules:
        """The rules of many boards from per-player arrays: board, seat and (any unique) team of each."""
        n_boards = len(n_seats)
        rivals = np.zeros((n_boards, int(n_seats.max(initial=0))), dtype=np.int64)
        # Players of a board are contiguous: lay them out as boards x players, padded.
        per_board = np.bincount(player_board, minlength=n_boards)
        first = np.cumsum(per_board) - per_board
        width = int(per_board.max(initial=0))
        at = first[:, None] + np.arange(width)[None, :]
        present = np.arange(width)[None, :] < per_board[:, None]
        at = np.where(present, at, 0)
        their_team = np.where(present, team[at], -1)
        bit = np.where(present, np.left_shift(np.int64(1), seat[at]), 0)
        rival = (their_team[:, :, None] != their_team[:, None, :]) & present[:, None, :]
        beaten = np.bitwise_or.reduce(np.where(rival, bit[:, None, :], 0), axis=2)
        np.bitwise_or.at(rivals, (np.nonzero(present)[0], seat[at[present]]), beaten[present])
        return cls(n_seats=n_seats, rivals=rivals)


@lru_cache(maxsize=256)
def seat_rules_of(variant: Variant, team: tuple[int, ...]) -> SeatRules:
    """:meth:`SeatRules.of` for a board of this variant whose players have these teams (read-only arrays).

    Every state-based check of a game asks who lost, and a game's seats never change, so the
    rules are worked out once per seating rather than once per check.
    """
    teams = np.array(team, dtype=np.int64)
    seat = seat_numbers(variant, teams)
    rules = SeatRules.build(
        n_seats=np.array([int(seat.max(initial=-1)) + 1], dtype=np.int64),
        player_board=np.zeros(len(team), dtype=np.int64),
        seat=seat,
        team=teams,
    )
    rules.n_seats.flags.writeable = rules.rivals.flags.writeable = False
    return rules


def segment_reduce(ufunc: np.ufunc, out: IntArray, segment: IntArray, values: IntArray) -> None:
    """``ufunc.at(out, segment, values)``; one segment (one board) is one plain reduce, quicker (integer ufuncs)."""
    if len(out) == 1:  # one board: every value goes to the one segment
        out[0] = ufunc.reduce(values, initial=out[0])
        return
    ufunc.at(out, segment, values)


def lost_seats_of(rules: SeatRules, events: IntArray) -> IntArray:
    """:func:`lost_seats` for many boards (axis 0, as in ``rules``) and any event masks each (axis 1)."""
    total = rules.n_seats[:, None]
    full = (np.int64(1) << total) - 1
    sba = events & full
    above = events >> total  # win bits, then lose bits above them
    wins = above & full & ~sba
    loses = (above >> total) & full & ~wins
    lost = sba | loses
    if wins.any():  # every winning seat's rivals lose: one OR over the seats, not a loop over them
        seat = np.arange(rules.rivals.shape[1], dtype=np.int64)
        won = ((wins[..., None] >> seat) & 1) == 1
        lost |= np.bitwise_or.reduce(np.where(won, rules.rivals[:, None, :], 0), axis=-1)
    out: IntArray = lost
    return out


def lost_seats(board: Board, events: int) -> int:
    """The seats that lose, as a bitmask, given every game event (see :func:`row_events`).

    State-based losses happen first.  A seat still in the game whose ``win`` threshold
    triggered wins, so every seat on another team loses (104.2a); a seat's own ``lose``
    threshold costs it the game unless it wins first (it orders its own triggers, 603.3b).
    """
    if not events:  # no loss, no threshold: nobody loses (most checks of a game)
        return 0
    return int(lost_seats_of(SeatRules.of(board), np.array([[events]], dtype=np.int64))[0, 0])


def team_poison_lost(board: Board, team_poison: IntArray, team: IntArray | None = None) -> BoolArray:
    """Whether 2HG teams' shared poison is at their threshold or more (704.6b, 810.11).

    ``team_poison`` is every team's (last axis), or that of the teams ``team`` elementwise.
    """
    threshold = board.poison_threshold()
    out: BoolArray = team_poison >= (threshold if team is None else threshold[team])
    return out


def team_poison_events(board: Board, team_poison: IntArray) -> int:
    """Bitmask of the 2HG teams whose shared poison is at their threshold or more (704.6b, 810.11)."""
    lost = np.flatnonzero(team_poison_lost(board, team_poison))
    return int(np.bitwise_or.reduce(np.left_shift(np.int64(1), lost), initial=np.int64(0)))


def team_poison(board: Board, counts: IntArray) -> IntArray:
    """Each team's shared poison in 2HG (stored on every head, 810.10)."""
    out = np.zeros(board.n_teams, dtype=np.int64)
    col = board.kind_column("poison")
    if col >= 0:
        np.maximum.at(out, board.team, counts[: board.n_players, col])
    return out


def event_mask(board: Board, settled: Settled) -> int:
    """Every game event of a settled resolution, as a bitmask (see :func:`row_events`): the settle's own."""
    return int(settled.events)


def combine_events(board: Board, rows: IntArray, poison: IntArray) -> int:
    """The events of every object plus, in 2HG, those of each team's shared poison."""
    mask = int(np.bitwise_or.reduce(rows, initial=np.int64(0)))
    if board.variant is Variant.TWO_HEADED_GIANT:
        mask |= team_poison_events(board, poison)
    return mask


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
