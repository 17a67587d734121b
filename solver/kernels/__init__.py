"""The compiled core: the rules, the value of a resolution and the exact optimum, written once (issue 26).

Every function here is a numba ``@njit(cache=True)`` loop over plain arrays in one layout
(:mod:`solver.kernels.layout`): a batch of boards, a board being a batch of one.  The inner rules
and steps, which allocate nothing, are :func:`solver.kernels.jit.inner`: inlined into their
caller and borrowing its arrays without reference counts (docs/architecture.md).

* :mod:`solver.kernels.sba`: the state-based actions of one object (704.5, 714.4, 122.2);
* :mod:`solver.kernels.value`: material in integer milli-points, lost seats (104.2a), game scores;
* :mod:`solver.kernels.settle`: the state-based actions of whole boards and their game events
  (704.5a, 704.5c, 704.6b, thresholds), for a batch in one call;
* :mod:`solver.kernels.exact`: per-row tables, units, 2HG team options (701.34b, 810.10), the
  dynamic programme over coupled units and the canonical tie-break, for a whole batch in one call;
* :mod:`solver.kernels.resolve`: the value of given choices (701.34a/b, then the state-based
  actions, material and game score), for a batch and any number of alternatives in one call.

The Python entries: :func:`decide` (boards in, the decided arrays out), :func:`decide_board` (the
layout of one board decided, what ``solve()`` calls), :func:`tabulate` (one
board's per-row tables, what CP-SAT, explanations and brute force read through
:class:`solver.objective.Objective`), :func:`settle_layout` (given counters settled),
:func:`score_layout` (given choices valued), :func:`value_settled` (resolutions already
settled, valued), and for one board of a layout: :func:`counters_after` (701.34a/b),
:func:`material_settled` (a settled resolution's material), :func:`game_of` (what game-events
masks mean: lost seats, game over, score, result) and :func:`game_weight`.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..board import Board, BoolArray, IntArray
from ..policy import DEFAULT_POLICY, Policy
from .exact import (
    D_EVENTS,
    D_RESULT,
    D_SPAN,
    D_VALUE,
    MAX_FREE_SEATS,
    RESULT_CODES,
    decide_arrays,
    game_of_events,
    tabulate_rows,
)
from .layout import Layout, stack
from .resolve import board_material, counters_after_701_34, score_batch, value_settled_batch
from .settle import settle_batch
from .value import game_weight_of

__all__ = [
    "Decided",
    "Game",
    "Layout",
    "Scored",
    "SettledLayout",
    "counters_after",
    "decide",
    "decide_board",
    "decide_layout",
    "game_of",
    "game_weight",
    "layout_of",
    "material_settled",
    "score_layout",
    "settle_layout",
    "stack",
    "tabulate",
    "value_settled",
]


@dataclass(frozen=True)
class Decided:
    """What :func:`decide` finds for each board ``b`` of a layout.

    ``values[b]`` in milli-points relative to choosing nothing; ``chosen[r, obj_off[b] + i]``
    whether row ``i`` of board ``b`` is chosen in proliferate ``r``; ``recipients[r,
    team_off[b] + t]`` the board row of the head getting 2HG team ``t``'s poison, else -1;
    ``events[b]`` the game events of the resolution; ``results[b]`` its game result in words;
    ``spans[b]`` the most minus the least material any choice can reach (the range the game
    weight is raised above, game results left out).
    """

    values: IntArray
    chosen: BoolArray
    recipients: IntArray
    events: IntArray
    results: tuple[str, ...]
    spans: IntArray


def decide_layout(layout: Layout, sense: int = 1) -> Decided:
    """The optimum (``sense=1``) or the worst choice (``sense=-1``) of every board of ``layout``."""
    out, chosen, recipients = _decide_arrays(layout, sense)
    # Filled like :class:`Layout` rather than through the generated frozen ``__init__`` (microseconds count here).
    decided = object.__new__(Decided)
    decided.__dict__.update(
        values=out[D_VALUE],
        chosen=chosen,
        recipients=recipients,
        events=out[D_EVENTS],
        results=tuple(map(RESULT_CODES.__getitem__, out[D_RESULT].tolist())),
        spans=out[D_SPAN],
    )
    return decided


def decide_board(layout: Layout, sense: int = 1) -> tuple[BoolArray, IntArray, int, int]:
    """:func:`decide_layout` of a layout of one board, as (chosen, recipients, value, events): the single-board
    path's form, without the per-board arrays and words of :class:`Decided` (a loaded board's ``solve()`` takes
    microseconds, and those are some of them)."""
    out, chosen, recipients = _decide_arrays(layout, sense)
    return chosen, recipients, int(out[D_VALUE, 0]), int(out[D_EVENTS, 0])


def _decide_arrays(layout: Layout, sense: int) -> tuple[IntArray, BoolArray, IntArray]:
    """The compiled exact path on every board of ``layout``: :func:`~solver.kernels.exact.decide_arrays`."""
    L = layout
    out, chosen, recipients, too_many = decide_arrays(
        L.obj_off, L.thr_off, L.team_off, L.numbers, L.elimination, L.gap, L.counts, L.gain, L.weights, L.ints,
        L.worth, L.head_gain, L.thresholds, L.team_threshold, L.team_weight, L.tough_delta, L.presence, L.special,
        L.policy_scores, L.saga_chapter, sense,
    )  # fmt: skip
    if too_many:  # the fast path's own words: callers match on them
        raise ValueError(f"more than {MAX_FREE_SEATS} seats can be eliminated by one choice; use method='cpsat'")
    return out, chosen, recipients


#: Each board's own layout (a batch of one) by the board's id, with the policy it was built for, while the
#: board lives (a board compares by value, so it is no dictionary key; a weak reference drops the entry).
_LAYOUTS: dict[int, tuple[weakref.ref[Board], Policy, Layout]] = {}


def layout_of(board: Board, policy: Policy | None = None) -> Layout:
    """``stack([board], policy)``, kept while the board lives: a board's own layout, its columns the board's.

    With no policy, any layout of the board will do (the state-based actions read none of the
    policy's tables); one is built with :data:`~solver.policy.DEFAULT_POLICY` if there is none.
    """
    key = id(board)
    kept = _LAYOUTS.get(key)
    if kept is not None and kept[0]() is board and (policy is None or kept[1] is policy):
        return kept[2]
    chosen = DEFAULT_POLICY if policy is None else policy
    layout = stack([board], chosen)
    _LAYOUTS[key] = (weakref.ref(board, partial(_forget, key)), chosen, layout)
    return layout


def _forget(key: int, gone: weakref.ref[Board]) -> None:
    """Drop a board's layout when the board goes (unless another board of the same id has taken its place)."""
    kept = _LAYOUTS.get(key)
    if kept is not None and kept[0] is gone:
        del _LAYOUTS[key]


def decide(boards: Sequence[Board], policy: Policy, sense: int = 1) -> tuple[Layout, Decided]:
    """The boards stacked in one layout and decided in one compiled call."""
    layout = stack(boards, policy)
    return layout, decide_layout(layout, sense)


def tabulate(layout: Layout, b: int = 0) -> tuple[IntArray, IntArray]:
    """Board ``b``'s material (milli-points, signed for the proliferator) and loss events of every row
    chosen in c = 0..rounds rounds (axis 0), 2HG team poison apart: :func:`~solver.kernels.exact.tabulate_rows`.
    """
    L = layout
    lo, hi = int(L.obj_off[b]), int(L.obj_off[b + 1])
    players = int(L.n_players[b])
    n_seats = int(L.seat[lo : lo + players].max(initial=-1)) + 1
    material, events = tabulate_rows(
        lo, hi, int(L.thr_off[b]), int(L.thr_off[b + 1]), int(L.rounds[b]), n_seats, bool(L.poison_loses[b]),
        L.team_threshold, int(L.team_off[b]), L.counts, L.gain, L.weights, L.flags, L.toughness, L.damage,
        L.chapters, L.life, L.worth, L.side, L.seat, L.team, L.thr_row, L.thr_kind, L.thr_at, L.thr_code,
        L.thr_amount, L.thr_seat, L.tough_delta, L.presence, L.special, L.saga_chapter,
    )  # fmt: skip
    return material, events


@dataclass(frozen=True)
class SettledLayout:
    """What :func:`settle_layout` finds for each copy ``c`` of a layout's counters.

    Per row: ``counts[c]`` after the state-based actions, ``annihilated[c]`` (pairs of +1/+1 and
    -1/-1 counters removed, 704.5q), ``dies[c]``, ``chapters_before[c]`` / ``chapters_after[c]``
    (714.2b), ``sacrificed[c]`` (714.4); per threshold ``thr_reached[c]`` / ``thr_crossed[c]``;
    per board ``events[c]`` (its game events, :mod:`solver.kernels.settle`) and ``lost[c]`` (the
    bitmask of its seats that lose, 104.2a, 810.8a).
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
    lost: IntArray


def settle_layout(layout: Layout, counts: IntArray) -> SettledLayout:
    """The state-based actions of every board of ``layout`` for each copy ``counts[c]`` (copies x rows x kinds).

    ``counts`` is in the layout's columns and is settled in place (pass a copy to keep it);
    the counters before the resolution are the layout's own.
    """
    L = layout
    m, n = counts.shape[0], counts.shape[1]
    n_thr, n_boards = len(L.thr_row), len(L.n_players)
    out = SettledLayout(
        counts=counts,
        annihilated=np.zeros((m, n), dtype=np.int64),
        dies=np.zeros((m, n), dtype=np.bool_),
        chapters_before=np.zeros((m, n), dtype=np.int64),
        chapters_after=np.zeros((m, n), dtype=np.int64),
        sacrificed=np.zeros((m, n), dtype=np.bool_),
        thr_reached=np.zeros((m, n_thr), dtype=np.bool_),
        thr_crossed=np.zeros((m, n_thr), dtype=np.bool_),
        events=np.zeros((m, n_boards), dtype=np.int64),
        lost=np.zeros((m, n_boards), dtype=np.int64),
    )
    settle_batch(
        L.obj_off, L.thr_off, L.team_off, L.n_players, L.shared, L.poison_loses, L.counts, L.flags, L.toughness,
        L.damage, L.chapters, L.life, L.seat, L.team, L.thr_row, L.thr_kind, L.thr_at, L.thr_code, L.thr_seat,
        L.team_threshold, L.tough_delta, L.special, counts, out.annihilated, out.dies, out.chapters_before,
        out.chapters_after, out.sacrificed, out.thr_reached, out.thr_crossed, out.events, out.lost,
    )  # fmt: skip
    return out


@dataclass(frozen=True)
class Scored:
    """What :func:`score_layout` finds per alternative ``a`` and board ``b`` of a layout.

    ``values[a, b]`` in milli-points relative to choosing nothing; ``material[a, b]`` the
    material after it (game results left out); ``events[a, b]`` its game events;
    ``scores[a, b]`` the policy's game score; ``results[a][b]`` the game result in words.
    Per board: ``baseline[b]``, the value of choosing nothing (not relative), and ``spans[b]``
    the material span the game weight was raised above (-1 where no game result scored).
    """

    values: IntArray
    material: IntArray
    events: IntArray
    scores: np.ndarray
    results: tuple[tuple[str, ...], ...]
    baseline: IntArray
    spans: IntArray


def _spans(layout: Layout, spans: IntArray | None) -> IntArray:
    n_boards = len(layout.n_players)
    if spans is None:
        return np.full(n_boards, -1, dtype=np.int64)
    if len(spans) != n_boards:
        raise ValueError(f"{len(spans)} spans for {n_boards} boards")
    return np.array(spans, dtype=np.int64)


def score_layout(layout: Layout, times: IntArray, recipients: IntArray, spans: IntArray | None = None) -> Scored:
    """Every alternative ``a`` scored on every board of ``layout``, in one compiled call.

    ``times[a, row]``: the rounds layout row ``row`` is chosen in (701.34a); ``recipients[a, r,
    team_off[b] + t]``: the board row of the head getting 2HG team ``t``'s poison counter in
    round ``r`` (701.34b), else -1.  ``spans``: each board's material span if known (as
    :attr:`Decided.spans`); else it is worked out where a game result scores.
    """
    L = layout
    n_alt, n_boards = times.shape[0], len(L.n_players)
    values = np.zeros((n_alt, n_boards), dtype=np.int64)
    material = np.zeros((n_alt, n_boards), dtype=np.int64)
    events = np.zeros((n_alt, n_boards), dtype=np.int64)
    scores = np.zeros((n_alt, n_boards), dtype=np.float64)
    results = np.zeros((n_alt, n_boards), dtype=np.int64)
    baseline = np.zeros(n_boards, dtype=np.int64)
    known = _spans(L, spans)
    score_batch(
        L.obj_off, L.thr_off, L.team_off, L.n_players, L.rounds, L.proliferator, L.shared, L.poison_loses,
        L.n_opponents, L.elimination, L.gap, L.counts, L.gain, L.weights, L.flags, L.toughness, L.damage,
        L.chapters, L.life, L.worth, L.side, L.seat, L.team, L.head_gain, L.thr_row, L.thr_kind, L.thr_at,
        L.thr_code, L.thr_amount, L.thr_seat, L.team_threshold, L.team_weight, L.tough_delta, L.presence,
        L.special, L.policy_scores, L.saga_chapter, times, recipients, known, values, material, events, scores,
        results, baseline,
    )  # fmt: skip
    words = tuple(tuple(RESULT_CODES[c] for c in row) for row in results.tolist())
    return Scored(values, material, events, scores, words, baseline, known)


def value_settled(layout: Layout, settled: SettledLayout, spans: IntArray | None = None) -> tuple[IntArray, IntArray]:
    """The value of resolutions already settled (``settled``'s first copy, one per board of ``layout``).

    Returns each board's value relative to choosing nothing and the value of choosing nothing
    (not relative), in milli-points, as :func:`score_layout` scores them.
    """
    L = layout
    n_boards = len(L.n_players)
    values = np.zeros(n_boards, dtype=np.int64)
    baseline = np.zeros(n_boards, dtype=np.int64)
    value_settled_batch(
        L.obj_off, L.thr_off, L.team_off, L.n_players, L.rounds, L.proliferator, L.shared, L.poison_loses,
        L.n_opponents, L.elimination, L.gap, L.counts, L.gain, L.weights, L.flags, L.toughness, L.damage,
        L.chapters, L.life, L.worth, L.side, L.seat, L.team, L.head_gain, L.thr_row, L.thr_kind, L.thr_at,
        L.thr_code, L.thr_amount, L.thr_seat, L.team_threshold, L.team_weight, L.tough_delta, L.presence,
        L.special, L.policy_scores, L.saga_chapter, settled.counts[0], settled.dies[0], settled.sacrificed[0],
        settled.chapters_before[0], settled.chapters_after[0], settled.thr_crossed[0], settled.events[0],
        _spans(L, spans), values, baseline,
    )  # fmt: skip
    return values, baseline


def counters_after(layout: Layout, times: IntArray, recipients: IntArray, b: int = 0) -> IntArray:
    """Board ``b``'s counters after a choice, before the state-based actions (701.34a/b, 704.4), in the layout's
    columns: :func:`~solver.kernels.resolve.counters_after_701_34`.

    ``times[i]``: the rounds board row ``i`` is chosen in; ``recipients[r, t]``: the board row of
    the head getting 2HG team ``t``'s poison counter in round ``r``, else -1 (any number of rounds).
    """
    L = layout
    lo, hi, tb = int(L.obj_off[b]), int(L.obj_off[b + 1]), int(L.team_off[b])
    n_teams = int(L.team_off[b + 1]) - tb
    rounds = max(int(L.rounds[b]), recipients.shape[0])
    named = np.full((rounds, int(L.team_off[-1])), -1, dtype=np.int64)
    named[: recipients.shape[0], tb : tb + recipients.shape[1]] = recipients
    every = np.zeros(len(L.flags), dtype=np.int64)
    every[lo:hi] = times
    now = np.empty_like(L.counts)
    counters_after_701_34(
        lo, hi, tb, n_teams, int(L.n_players[b]), rounds, bool(L.shared[b]), L.counts, L.gain, L.head_gain, L.team,
        L.special, every, named, now,
    )  # fmt: skip
    return now[lo:hi]


def material_settled(layout: Layout, settled: SettledLayout) -> int:
    """The material of a board (``layout`` a batch of one) after a settled resolution (``settled``'s first copy),
    in milli-points from its proliferator's side, 2HG team poison once per team:
    :func:`~solver.kernels.resolve.board_material`."""
    L = layout
    n, n_teams = int(L.obj_off[1]), int(L.team_off[1])
    raw = np.zeros(n, dtype=np.int64)
    total = board_material(
        0, n, 0, int(L.thr_off[1]), 0, n_teams, int(L.n_players[0]), bool(L.shared[0]), settled.counts[0],
        settled.dies[0], settled.sacrificed[0], settled.chapters_before[0], settled.chapters_after[0],
        settled.thr_crossed[0], L.weights, L.presence, L.worth, L.side, L.team, L.thr_row, L.thr_code, L.thr_amount,
        L.team_weight, L.special, L.saga_chapter, raw,
    )  # fmt: skip
    return int(total)


@dataclass(frozen=True)
class Game:
    """What :func:`game_of` finds for each game-events mask ``j`` of a board (events: :mod:`solver.kernels.value`).

    ``lost[j]`` the bitmask of the seats that lose (104.2a, 810.8a); ``over[j]`` whether that
    ends the game for the proliferator (a win, a loss or a draw, 104.3, 104.4a); ``scores[j]``
    the policy's game score; ``milli[j]`` that score in milli-points at the weight asked for;
    ``results[j]`` the game result in words.
    """

    lost: IntArray
    over: BoolArray
    scores: np.ndarray
    milli: IntArray
    results: tuple[str, ...]


def game_of(layout: Layout, events: IntArray, weight: float = 0.0, b: int = 0) -> Game:
    """What the game-events masks ``events`` mean on board ``b`` of ``layout``, its scores at game ``weight``
    (:func:`game_weight`; 0 when only the losers, the end of the game or the results are wanted):
    :func:`~solver.kernels.exact.game_of_events`."""
    L = layout
    masks = np.ascontiguousarray(events, dtype=np.int64).reshape(-1)
    m = len(masks)
    lost, milli, codes = np.zeros((3, m), dtype=np.int64)
    over = np.zeros(m, dtype=np.bool_)
    scores = np.zeros(m, dtype=np.float64)
    game_of_events(
        int(L.obj_off[b]), int(L.n_players[b]), int(L.proliferator[b]), L.seat, L.team, int(L.n_opponents[b]),
        L.policy_scores, float(L.elimination[b]), weight, masks, lost, over, scores, milli, codes,
    )  # fmt: skip
    return Game(lost, over, scores, milli, tuple(RESULT_CODES[c] for c in codes.tolist()))


def game_weight(layout: Layout, span: int, b: int = 0) -> float:
    """Points per unit of game score on board ``b``: the policy's, raised above the material ``span``
    (milli-points): :func:`~solver.kernels.value.game_weight_of`."""
    return float(game_weight_of(float(layout.policy_scores[3]), int(span), float(layout.gap[b])))
