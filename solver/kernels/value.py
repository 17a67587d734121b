"""The value of a resolution, in exact integer milli-points, and the game result (docs/objective.md).

Material adds over objects; the game result depends only on which seats lose, a bitmask.
Events are bitmasks too: with S seats, bit ``s`` is a state-based loss of seat ``s`` (704.5a,
704.5c, 704.6b), bit ``S + s`` a ``win`` threshold of seat ``s`` that triggered, bit ``2S + s``
a ``lose`` threshold.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .jit import inner
from .layout import THR_POINTS

__all__ = [
    "ends_game_104_3",
    "game_milli",
    "game_score",
    "game_weight_of",
    "lost_seats_104_2a",
    "material_row",
    "popcount",
    "rivals_into",
    "rivals_of",
    "rows_material",
    "threshold_point",
]


@inner
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@inner
def material_row(
    counts: np.ndarray,
    i: int,
    weights: np.ndarray,
    row: int,
    presence: np.ndarray,
    worth: int,
    gone: bool,
    chapters_gained: int,
    saga_chapter: int,
) -> int:
    """One object's worth after the state-based actions, before its side's sign, in milli-points.

    Its counters are row ``i`` of ``counts``, its kinds' weights row ``row`` of ``weights``.  Its own
    worth and its counters' (a presence-only kind counts once), nothing if it died or is sacrificed;
    every Saga chapter triggered is worth the policy's ``saga_chapter``.
    """
    value = 0
    if not gone:
        value = worth
        for k in range(counts.shape[1]):
            c = counts[i, k]
            if c:
                if presence[k] and c > 1:
                    c = 1
                value += c * weights[row, k]
    return value + saga_chapter * chapters_gained


@inner
def rows_material(
    lo: int,
    hi: int,
    t_lo: int,
    t_hi: int,
    base: int,
    thr_base: int,
    now: np.ndarray,
    dies: np.ndarray,
    sacrificed: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    crossed: np.ndarray,
    weights: np.ndarray,
    presence: np.ndarray,
    worth: np.ndarray,
    thr_row: np.ndarray,
    thr_code: np.ndarray,
    thr_amount: np.ndarray,
    saga_chapter: int,
    raw: np.ndarray,
) -> None:
    """Each settled row's worth before its side's sign (:func:`material_row`) and its numeric thresholds crossed.

    ``now``, the per-row arrays and ``raw`` (written) are indexed by ``row - base``, ``crossed``
    by ``threshold - thr_base``; the layout's tables by layout row.
    """
    for row in range(lo, hi):
        i = row - base
        raw[i] = material_row(
            now, i, weights, row, presence, worth[row], dies[i] or sacrificed[i], after[i] - before[i], saga_chapter
        )
    for j in range(t_lo, t_hi):
        raw[thr_row[j] - base] += threshold_point(j, thr_base, crossed, thr_code, thr_amount)


@inner
def threshold_point(j: int, thr_base: int, crossed: np.ndarray, thr_code: np.ndarray, thr_amount: np.ndarray) -> int:
    """What numeric threshold ``j`` adds to its object's worth, in milli-points: its points if it was crossed."""
    if thr_code[j] == THR_POINTS and crossed[j - thr_base]:
        return int(thr_amount[j])
    return 0


@inner
def rivals_into(seat: np.ndarray, team: np.ndarray, lo: int, players: int, n_seats: int, out: np.ndarray) -> None:
    """Per seat of the board whose players are rows ``lo:lo + players``, the bitmask of the seats on another
    team (those that lose when it wins, 104.2a), into ``out[:n_seats]``."""
    for s in range(n_seats):
        out[s] = 0
    for i in range(lo, lo + players):
        for j in range(lo, lo + players):
            if team[i] != team[j]:
                out[seat[i]] |= np.int64(1) << seat[j]


@njit(cache=True)
def rivals_of(seat: np.ndarray, team: np.ndarray, n_seats: int) -> np.ndarray:
    """:func:`rivals_into` of players ``seat`` / ``team``, as a new array (at least one entry)."""
    out = np.zeros(max(n_seats, 1), dtype=np.int64)
    rivals_into(seat, team, 0, len(seat), n_seats, out)
    return out


@inner
def lost_seats_104_2a(events: int, n_seats: int, rivals: np.ndarray) -> int:
    """The seats that lose: state-based losses first; a seat still in whose ``win`` threshold triggered wins,
    so every rival loses (104.2a); a seat's own ``lose`` threshold costs it the game unless it wins first (603.3b).
    """
    full = (np.int64(1) << n_seats) - 1
    sba = events & full
    above = events >> n_seats
    wins = above & full & ~sba
    loses = (above >> n_seats) & full & ~wins
    lost = sba | loses
    s = 0
    while wins:
        if wins & 1:
            lost |= rivals[s]
        wins >>= 1
        s += 1
    return int(lost)


@inner
def ends_game_104_3(lost: int, our_seat: int, opponents: int, n_opponents: int) -> bool:
    """Whether the seats ``lost`` end the game for the proliferator: it loses (104.3, 810.8), or every opponent
    does (a win, 104.2a, or a draw with it, 104.4a); eliminations in a free-for-all don't."""
    lost_opponents = popcount(lost & opponents)
    return bool((lost >> our_seat) & 1) or (lost_opponents == n_opponents and lost_opponents > 0)


@inner
def game_score(
    lost: int, our_seat: int, opponents: int, n_opponents: int, scores: np.ndarray, elimination: float
) -> float:
    """The policy's score of the seats ``lost``, from the proliferator's side (win, draw, loss, eliminations)."""
    lost_opponents = popcount(lost & opponents)
    all_lost = lost_opponents == n_opponents and lost_opponents > 0
    if (lost >> our_seat) & 1:
        return float(scores[1] if all_lost else scores[2])
    if all_lost:
        return float(scores[0])
    return elimination * lost_opponents


@inner
def game_milli(score: float, weight: float) -> int:
    """A game score in milli-points at the board's game weight (0 for no game event)."""
    if score == 0.0:
        return 0
    return int(np.rint(1000.0 * weight * score))


@inner
def game_weight_of(game_weight: float, span: int, gap: float) -> float:
    """Points per unit of game score: the policy's ``game_weight``, raised above the board's material ``span``
    (milli-points) so that no material can outweigh a game result; ``gap`` is the policy's smallest gap
    between game scores for the board's number of opponents."""
    return max(game_weight, (span / 1000.0 + 1.0) / gap)
