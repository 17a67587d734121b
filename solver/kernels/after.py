"""The counters after given choices on every board of a layout, in one compiled call (701.34a/b, 704.4).

:func:`counters_after_layout` is :func:`solver.kernels.counters_after` (one board of a layout)
for every board and any number of alternatives at once: the same rule
(:func:`solver.kernels.resolve.counters_after_701_34`) board after board inside one compiled
loop, so that the analysis' explanations (the counters each choice puts on each object) cost
one call per chunk instead of one layout and one call per board.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from .layout import Layout
from .resolve import counters_after_701_34

__all__ = ["counters_after_boards", "counters_after_layout"]

IntArray = npt.NDArray[np.int64]


@njit(cache=True)
def counters_after_boards(
    obj_off: np.ndarray,
    team_off: np.ndarray,
    n_players: np.ndarray,
    shared: np.ndarray,
    counts: np.ndarray,
    gain: np.ndarray,
    head_gain: np.ndarray,
    team: np.ndarray,
    special: np.ndarray,
    times: np.ndarray,
    recipients: np.ndarray,
    now: np.ndarray,
) -> None:
    """``now[a]``: the counters after alternative ``a`` on every board (``times[a, row]`` the rounds a layout row
    is chosen in, ``recipients[a, r, team_off[b] + t]`` the board row of the head getting 2HG team ``t``'s poison
    in round ``r``, else -1), before the state-based actions: :func:`counters_after_701_34` per board."""
    rounds = recipients.shape[1]
    for a in range(times.shape[0]):
        for b in range(len(n_players)):
            tb = team_off[b]
            counters_after_701_34(
                obj_off[b], obj_off[b + 1], tb, team_off[b + 1] - tb, n_players[b], rounds, shared[b], counts, gain,
                head_gain, team, special, times[a], recipients[a], now[a],
            )  # fmt: skip


def counters_after_layout(layout: Layout, times: IntArray, recipients: IntArray) -> IntArray:
    """The counters after each alternative on every board of ``layout`` (alternatives x rows x kinds, the layout's
    columns), before the state-based actions.

    ``times[a, row]``: the rounds layout row ``row`` is chosen in (701.34a); ``recipients[a, r, team_off[b] + t]``:
    the board row of the head getting 2HG team ``t``'s poison counter in round ``r`` (701.34b), else -1 (any
    number of rounds), as :func:`solver.kernels.score_layout` takes them.
    """
    L = layout
    times = np.ascontiguousarray(times, dtype=np.int64)
    recipients = np.ascontiguousarray(recipients, dtype=np.int64)
    now = np.empty((times.shape[0], *L.counts.shape), dtype=np.int64)
    counters_after_boards(
        L.obj_off, L.team_off, L.n_players, L.shared, L.counts, L.gain, L.head_gain, L.team, L.special, times,
        recipients, now,
    )  # fmt: skip
    return now
