"""The compiled core: the rules, the value of a resolution and the exact optimum, written once (issue 26).

Every function here is a numba ``@njit(cache=True)`` loop over plain arrays in one layout
(:mod:`solver.kernels.layout`): a batch of boards, a board being a batch of one.

* :mod:`solver.kernels.sba`: the state-based actions of one object (704.5, 714.4, 122.2);
* :mod:`solver.kernels.value`: material in integer milli-points, lost seats (104.2a), game scores;
* :mod:`solver.kernels.exact`: per-row tables, units, 2HG team options (701.34b, 810.10), the
  dynamic programme over coupled units and the canonical tie-break, for a whole batch in one call.

:func:`decide` is the Python entry: boards in, the decided arrays out; :func:`tabulate` gives one
board's per-row tables (what CP-SAT, explanations and brute force read through
:class:`solver.objective.Objective`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..board import Board, BoolArray, IntArray
from ..policy import Policy
from .exact import MAX_FREE_SEATS, RESULT_CODES, TOO_MANY_SEATS, decide_batch, tabulate_rows
from .layout import Layout, stack

__all__ = ["Decided", "Layout", "decide", "decide_layout", "stack", "tabulate"]


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
    L = layout
    n_boards = len(L.rounds)
    width = int(L.rounds.max()) if n_boards else 0
    # One block for the per-board outputs (each row a contiguous array): a board alone is decided
    # in microseconds, and every allocation counts there.
    values, events, results, status, spans = np.zeros((5, n_boards), dtype=np.int64)
    chosen = np.zeros((width, len(L.flags)), dtype=np.bool_)
    recipients = np.empty((width, int(L.team_off[-1])), dtype=np.int64)
    recipients.fill(-1)
    decide_batch(
        L.obj_off, L.thr_off, L.team_off, L.n_players, L.rounds, L.proliferator, L.shared, L.poison_loses,
        L.n_opponents, L.elimination, L.gap, L.counts, L.gain, L.weights, L.flags, L.toughness, L.damage,
        L.chapters, L.life, L.worth, L.side, L.seat, L.team, L.head_gain, L.thr_row, L.thr_kind, L.thr_at,
        L.thr_code, L.thr_amount, L.thr_seat, L.team_threshold, L.team_weight, L.tough_delta, L.presence,
        L.special, L.policy_scores, L.saga_chapter, sense, values, events, results, status, spans, chosen, recipients,
    )  # fmt: skip
    if status.any() and (status == TOO_MANY_SEATS).any():  # the fast path's own words: callers match on them
        raise ValueError(f"more than {MAX_FREE_SEATS} seats can be eliminated by one choice; use method='cpsat'")
    return Decided(values, chosen, recipients, events, tuple(RESULT_CODES[c] for c in results.tolist()), spans)


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
