"""The state-based actions of whole boards, for a batch of boards in one compiled call (704.3, 704.5, 704.6, 714.4).

:func:`settle_board` runs every state-based action of one board of a layout whose counters are
given (one object at a time by :func:`solver.kernels.sba.settle_object`), finds the thresholds
reached and crossed (the state triggers of 122.7 the board's thresholds stand for), and the
board's game events as the bitmask :mod:`solver.kernels.value` reads: with S seats, bit ``s``
a state-based loss of seat ``s`` (704.5a life, 704.5c a player's own poison, 704.6b a 2HG
team's shared poison), bit ``S + s`` a ``win`` threshold of seat ``s`` reached, bit ``2S + s``
a ``lose`` threshold.  :func:`settle_batch` does it for every board of a layout and any number
of copies of its counters; :func:`lost_players` says who loses (104.2a, 810.8a).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .jit import inner
from .layout import F_PHASED_OUT, THR_POINTS, THR_WIN
from .sba import player_loses_704_5a_704_5c, settle_object, shared_poison_810_10, team_poison_704_6b
from .value import lost_seats_104_2a, rivals_of

__all__ = [
    "board_seating",
    "board_seats",
    "lost_players",
    "player_event",
    "player_events",
    "settle_batch",
    "settle_board",
    "settle_rows",
    "team_poison_events",
    "threshold_event",
    "threshold_events",
]


@inner
def board_seats(lo: int, players: int, seat: np.ndarray) -> int:
    """How many seats a board has: its players, or its teams in 2HG (810.8a); seats are numbered from 0."""
    n_seats = 0
    for i in range(players):
        n_seats = max(n_seats, seat[lo + i] + 1)
    return n_seats


@inner
def board_seating(lo: int, players: int, proliferator: int, seat: np.ndarray, team: np.ndarray) -> tuple[int, int, int]:
    """A board's seats, the proliferator's seat, and the bitmask of its opponents' seats (those on another team)."""
    n_seats = board_seats(lo, players, seat)
    ours = team[lo + proliferator]
    opponents = 0
    for i in range(players):
        if team[lo + i] != ours:
            opponents |= 1 << seat[lo + i]
    return n_seats, seat[lo + proliferator], opponents


@inner
def settle_rows(
    lo: int,
    hi: int,
    base: int,
    now: np.ndarray,
    start: np.ndarray,
    flags: np.ndarray,
    toughness: np.ndarray,
    damage: np.ndarray,
    chapters: np.ndarray,
    tough_delta: np.ndarray,
    special: np.ndarray,
    annihilated: np.ndarray,
    dies: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    sacrificed: np.ndarray,
) -> None:
    """Every state-based action of layout rows ``lo:hi`` (:func:`~solver.kernels.sba.settle_object`).

    ``now`` and the outputs are indexed by ``row - base`` (``base`` 0: by layout row), ``start``
    (the counters before the resolution) by layout row.
    """
    for row in range(lo, hi):
        i = row - base
        n, d, s, b, a = settle_object(
            now, i, start, row, flags[row], toughness[row], damage[row], chapters[row], tough_delta, special
        )
        annihilated[i], dies[i], sacrificed[i], before[i], after[i] = n, d, s, b, a


@inner
def player_events(
    lo: int,
    players: int,
    base: int,
    tb: int,
    poison_loses: bool,
    now: np.ndarray,
    life: np.ndarray,
    seat: np.ndarray,
    team: np.ndarray,
    team_threshold: np.ndarray,
    special: np.ndarray,
    row_events: np.ndarray,
) -> int:
    """The players' state-based losses (704.5a life, 704.5c their own poison), each at its row of ``row_events``."""
    events = 0
    for i in range(players):
        row = lo + i
        e = player_event(row, base, tb, poison_loses, now, life, seat, team, team_threshold, special)
        row_events[row - base] = e
        events |= e
    return events


@inner
def player_event(
    row: int,
    base: int,
    tb: int,
    poison_loses: bool,
    now: np.ndarray,
    life: np.ndarray,
    seat: np.ndarray,
    team: np.ndarray,
    team_threshold: np.ndarray,
    special: np.ndarray,
) -> int:
    """The player at layout row ``row`` (counters ``now[row - base]``) loses (704.5a life, 704.5c its own poison):
    its seat's bit, else 0."""
    poison = special[5]
    held = now[row - base, poison] if poison >= 0 else 0
    if player_loses_704_5a_704_5c(life[row], held, poison_loses, team_threshold[tb + team[row]]):
        return int(1 << seat[row])
    return 0


@inner
def team_poison_events(
    lo: int,
    players: int,
    base: int,
    tb: int,
    n_teams: int,
    now: np.ndarray,
    team: np.ndarray,
    team_threshold: np.ndarray,
    special: np.ndarray,
) -> int:
    """The 2HG teams whose shared poison (stored on every head, 810.10) makes them lose (704.6b), as seat bits."""
    poison = special[5]
    events = 0
    for t in range(n_teams):
        most = shared_poison_810_10(now, lo, base, players, team, t, poison)
        if team_poison_704_6b(most, team_threshold[tb + t]):
            events |= 1 << t
    return events


@inner
def threshold_events(
    t_lo: int,
    t_hi: int,
    base: int,
    thr_base: int,
    n_seats: int,
    now: np.ndarray,
    start: np.ndarray,
    dies: np.ndarray,
    flags: np.ndarray,
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_seat: np.ndarray,
    reached: np.ndarray,
    crossed: np.ndarray,
    row_events: np.ndarray,
) -> int:
    """Thresholds ``t_lo:t_hi`` reached and crossed (``reached`` / ``crossed``, indexed by ``j - thr_base``).

    A threshold is reached by an object still there (not dead, not phased out, 702.26b) holding
    ``at`` or more counters of its kind, crossed when it held fewer before the resolution (jumping
    past counts, 122.7); a ``win`` or ``lose`` threshold reached sets its controller's seat's bit,
    at the threshold object's row of ``row_events`` too.
    """
    events = 0
    for j in range(t_lo, t_hi):
        bit = threshold_event(
            j, base, thr_base, n_seats, now, start, dies, flags, thr_row, thr_kind, thr_at, thr_code, thr_seat,
            reached, crossed,
        )  # fmt: skip
        row_events[thr_row[j] - base] |= bit
        events |= bit
    return events


@inner
def threshold_event(
    j: int,
    base: int,
    thr_base: int,
    n_seats: int,
    now: np.ndarray,
    start: np.ndarray,
    dies: np.ndarray,
    flags: np.ndarray,
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_seat: np.ndarray,
    reached: np.ndarray,
    crossed: np.ndarray,
) -> int:
    """Threshold ``j`` reached and crossed (:func:`threshold_events`): writes ``reached`` / ``crossed`` at
    ``j - thr_base``, returns its ``win`` or ``lose`` bit if it is reached, else 0."""
    row = thr_row[j]
    alive = not dies[row - base] and not flags[row] & F_PHASED_OUT
    hit = alive and now[row - base, thr_kind[j]] >= thr_at[j]
    reached[j - thr_base] = hit
    crossed[j - thr_base] = hit and start[row, thr_kind[j]] < thr_at[j]
    if hit and thr_code[j] != THR_POINTS:
        shift = 1 if thr_code[j] == THR_WIN else 2
        return int(1 << (thr_seat[j] + shift * n_seats))
    return 0


@inner
def settle_board(
    lo: int,
    hi: int,
    t_lo: int,
    t_hi: int,
    tb: int,
    n_teams: int,
    players: int,
    n_seats: int,
    shared: bool,
    poison_loses: bool,
    base: int,
    thr_base: int,
    now: np.ndarray,
    start: np.ndarray,
    flags: np.ndarray,
    toughness: np.ndarray,
    damage: np.ndarray,
    chapters: np.ndarray,
    life: np.ndarray,
    seat: np.ndarray,
    team: np.ndarray,
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_seat: np.ndarray,
    team_threshold: np.ndarray,
    tough_delta: np.ndarray,
    special: np.ndarray,
    annihilated: np.ndarray,
    dies: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    sacrificed: np.ndarray,
    reached: np.ndarray,
    crossed: np.ndarray,
    row_events: np.ndarray,
) -> int:
    """Every state-based action of the board on layout rows ``lo:hi`` whose counters are ``now`` (settled in place).

    ``now`` and the per-row outputs are indexed by ``row - base``, ``reached`` / ``crossed`` by
    ``threshold - thr_base`` (bases 0: by layout row and threshold); ``start`` is the counters
    before the resolution, by layout row.  ``row_events`` gets each row's own game events (a
    player's losses, a threshold object's win or loss); the board's, those and, where the
    board's 2HG teams share poison (``shared``), the teams' 704.6b losses, are returned.
    """
    settle_rows(
        lo, hi, base, now, start, flags, toughness, damage, chapters, tough_delta, special,
        annihilated, dies, before, after, sacrificed,
    )  # fmt: skip
    for row in range(lo + players, hi):
        row_events[row - base] = 0
    events = player_events(
        lo, players, base, tb, poison_loses, now, life, seat, team, team_threshold, special, row_events
    )
    if shared:
        events |= team_poison_events(lo, players, base, tb, n_teams, now, team, team_threshold, special)
    return events | threshold_events(
        t_lo, t_hi, base, thr_base, n_seats, now, start, dies, flags, thr_row, thr_kind, thr_at, thr_code, thr_seat,
        reached, crossed, row_events,
    )  # fmt: skip


@njit(cache=True)
def lost_players(lo: int, players: int, n_seats: int, seat: np.ndarray, team: np.ndarray, events: int) -> int:
    """The seats that lose given a board's events (104.2a: a win makes every rival lose), as a bitmask."""
    rivals = rivals_of(seat[lo : lo + players], team[lo : lo + players], n_seats)
    return lost_seats_104_2a(events, n_seats, rivals)


@njit(cache=True)
def settle_batch(
    obj_off: np.ndarray,
    thr_off: np.ndarray,
    team_off: np.ndarray,
    n_players: np.ndarray,
    shared: np.ndarray,
    poison_loses: np.ndarray,
    start: np.ndarray,
    flags: np.ndarray,
    toughness: np.ndarray,
    damage: np.ndarray,
    chapters: np.ndarray,
    life: np.ndarray,
    seat: np.ndarray,
    team: np.ndarray,
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_seat: np.ndarray,
    team_threshold: np.ndarray,
    tough_delta: np.ndarray,
    special: np.ndarray,
    counts: np.ndarray,
    annihilated: np.ndarray,
    dies: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    sacrificed: np.ndarray,
    reached: np.ndarray,
    crossed: np.ndarray,
    events: np.ndarray,
    lost: np.ndarray,
) -> None:
    """Settle every board of the layout for each copy ``c`` of its counters ``counts[c]`` (settled in place).

    Per copy: per row, the pairs annihilated, whether it dies, its chapters before and after,
    whether it is sacrificed; per threshold, reached and crossed; per board, its game events
    and the seats that lose (``lost``, a bitmask of the board's seats).
    """
    row_events = np.zeros(start.shape[0], dtype=np.int64)
    for b in range(len(n_players)):
        lo, hi = obj_off[b], obj_off[b + 1]
        players = n_players[b]
        n_seats = board_seats(lo, players, seat)
        tb = team_off[b]
        for c in range(counts.shape[0]):
            e = settle_board(
                lo, hi, thr_off[b], thr_off[b + 1], tb, team_off[b + 1] - tb, players, n_seats, shared[b] == 1,
                poison_loses[b] == 1, 0, 0, counts[c], start, flags, toughness, damage, chapters, life, seat, team,
                thr_row, thr_kind, thr_at, thr_code, thr_seat, team_threshold, tough_delta, special,
                annihilated[c], dies[c], before[c], after[c], sacrificed[c], reached[c], crossed[c], row_events,
            )  # fmt: skip
            events[c, b] = e
            lost[c, b] = lost_players(lo, players, n_seats, seat, team, e)
