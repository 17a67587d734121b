"""The value of given choices, for a batch of boards and any number of alternatives, in one compiled call.

Per board and alternative: the counters after the choice (701.34a: each object gains its gain
table once per round it is chosen in; 701.34b: a 2HG team's poison counter goes to the head
named to receive it), the state-based actions (:func:`solver.kernels.settle.settle_board`), the
material (:func:`solver.kernels.value.material_row`, 2HG team poison once per team), the game
events and the game score at the board's game weight (raised above the board's material span,
as :func:`solver.kernels.exact.decide_batch` raises it), and the value in milli-points relative
to choosing nothing (docs/objective.md).  A resolution that ends the game for the proliferator
is worth its game score alone, on the material of choosing nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .exact import SPAN_ONLY, decide_batch, result_code
from .jit import inner
from .sba import shared_poison_810_10
from .settle import board_seating, settle_board
from .value import (
    ends_game_104_3,
    game_milli,
    game_score,
    game_weight_of,
    lost_seats_104_2a,
    rivals_of,
    rows_material,
)

__all__ = ["board_material", "counters_after_701_34", "score_batch", "value_settled_batch"]


@inner
def counters_after_701_34(
    lo: int,
    hi: int,
    tb: int,
    n_teams: int,
    players: int,
    rounds: int,
    shared: bool,
    counts: np.ndarray,
    gain: np.ndarray,
    head_gain: np.ndarray,
    team: np.ndarray,
    special: np.ndarray,
    times: np.ndarray,
    recipients: np.ndarray,
    now: np.ndarray,
) -> None:
    """The counters after every round, before the state-based actions (none happen between rounds, 704.4).

    701.34a: an object chosen in ``times[row]`` rounds gains its gain table that many times.
    701.34b, 810.10: a 2HG team's shared poison grows by the gain of the head named to receive
    it each round (``recipients[r, tb + t]``, a board row or -1), on every head; the layout's
    gain table has no poison on heads whose team shares it.
    """
    for row in range(lo, hi):
        for k in range(counts.shape[1]):
            now[row, k] = counts[row, k] + times[row] * gain[row, k]
    if shared:
        poison = special[5]
        for t in range(n_teams):
            added = 0
            for r in range(rounds):
                head = recipients[r, tb + t]
                if head >= 0:
                    added += head_gain[lo + head]
            for i in range(players):
                if team[lo + i] == t:
                    now[lo + i, poison] = counts[lo + i, poison] + added


@inner
def board_material(
    lo: int,
    hi: int,
    t_lo: int,
    t_hi: int,
    tb: int,
    n_teams: int,
    players: int,
    shared: bool,
    now: np.ndarray,
    dies: np.ndarray,
    sacrificed: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    crossed: np.ndarray,
    weights: np.ndarray,
    presence: np.ndarray,
    worth: np.ndarray,
    side: np.ndarray,
    team: np.ndarray,
    thr_row: np.ndarray,
    thr_code: np.ndarray,
    thr_amount: np.ndarray,
    team_weight: np.ndarray,
    special: np.ndarray,
    saga_chapter: int,
    raw: np.ndarray,
) -> int:
    """A settled board's material in milli-points, from its proliferator's side (docs/objective.md).

    Every object's worth and counters unless it died or is sacrificed, every Saga chapter
    triggered, every numeric threshold crossed (:func:`~solver.kernels.value.rows_material`,
    into the scratch ``raw``); a 2HG team's shared poison once per team.  Arrays by layout row.
    """
    rows_material(
        lo, hi, t_lo, t_hi, 0, 0, now, dies, sacrificed, before, after, crossed, weights, presence, worth,
        thr_row, thr_code, thr_amount, saga_chapter, raw,
    )  # fmt: skip
    total = 0
    for row in range(lo, hi):
        total += side[row] * raw[row]
    if shared:
        poison = special[5]
        for t in range(n_teams):
            total += team_weight[tb + t] * shared_poison_810_10(now, lo, 0, players, team, t, poison)
    return total


@njit(cache=True)
def _span(
    b: int,
    obj_off: np.ndarray,
    thr_off: np.ndarray,
    team_off: np.ndarray,
    n_players: np.ndarray,
    rounds: np.ndarray,
    proliferator: np.ndarray,
    shared: np.ndarray,
    poison_loses: np.ndarray,
    n_opponents: np.ndarray,
    elimination: np.ndarray,
    gap: np.ndarray,
    counts: np.ndarray,
    gain: np.ndarray,
    weights: np.ndarray,
    flags: np.ndarray,
    toughness: np.ndarray,
    damage: np.ndarray,
    chapters: np.ndarray,
    life: np.ndarray,
    worth: np.ndarray,
    side: np.ndarray,
    seat: np.ndarray,
    team: np.ndarray,
    head_gain: np.ndarray,
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_amount: np.ndarray,
    thr_seat: np.ndarray,
    team_threshold: np.ndarray,
    team_weight: np.ndarray,
    tough_delta: np.ndarray,
    presence: np.ndarray,
    special: np.ndarray,
    scores: np.ndarray,
    saga_chapter: int,
    chosen: np.ndarray,
    recipients: np.ndarray,
) -> int:
    """Board ``b``'s material span, as :func:`solver.kernels.exact.decide_batch` works it out (its board alone,
    :data:`~solver.kernels.exact.SPAN_ONLY`)."""
    out = np.zeros(5, dtype=np.int64)
    values, events, results, status, spans = out[0:1], out[1:2], out[2:3], out[3:4], out[4:5]
    decide_batch(
        obj_off[b : b + 2], thr_off[b : b + 2], team_off[b : b + 2], n_players[b : b + 1], rounds[b : b + 1],
        proliferator[b : b + 1], shared[b : b + 1], poison_loses[b : b + 1], n_opponents[b : b + 1],
        elimination[b : b + 1], gap[b : b + 1], counts, gain, weights, flags, toughness, damage, chapters, life,
        worth, side, seat, team, head_gain, thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat,
        team_threshold, team_weight, tough_delta, presence, special, scores, saga_chapter, SPAN_ONLY, values, events,
        results, status, spans, chosen, recipients,
    )  # fmt: skip
    return int(spans[0])


@inner
def board_values(
    material: np.ndarray,
    events: np.ndarray,
    span: int,
    gap: float,
    n_seats: int,
    rivals: np.ndarray,
    our_seat: int,
    opponents: int,
    n_opponents: int,
    scores: np.ndarray,
    elimination: float,
    totals: np.ndarray,
    game: np.ndarray,
    results: np.ndarray,
) -> bool:
    """Each resolution's value (not yet relative to choosing nothing, ``material[0]`` / ``events[0]``) into ``totals``.

    Its policy score into ``game`` and its result code into ``results``; the game weight is the
    policy's raised above the board's material ``span``.  A resolution that ends the game for
    the proliferator (a win, a loss or a draw; eliminations in a free-for-all don't) is worth
    its game score alone on the material of choosing nothing.  Returns True, leaving ``totals``
    unset, when some resolution scores a game result and the span is not known (``span < 0``).
    """
    scored = False
    for j in range(len(events)):
        lost = lost_seats_104_2a(events[j], n_seats, rivals)
        game[j] = game_score(lost, our_seat, opponents, n_opponents, scores, elimination)
        results[j] = result_code(events[j], n_seats, rivals, our_seat, opponents, n_opponents, scores, elimination)
        scored = scored or game[j] != 0.0
    if scored and span < 0:
        return True
    weight = game_weight_of(scores[3], span, gap) if scored else 0.0
    for j in range(len(events)):
        over = ends_game_104_3(lost_seats_104_2a(events[j], n_seats, rivals), our_seat, opponents, n_opponents)
        totals[j] = (material[0] if over else material[j]) + game_milli(game[j], weight)
    return False


@njit(cache=True)
def score_batch(
    obj_off: np.ndarray,
    thr_off: np.ndarray,
    team_off: np.ndarray,
    n_players: np.ndarray,
    rounds: np.ndarray,
    proliferator: np.ndarray,
    shared: np.ndarray,
    poison_loses: np.ndarray,
    n_opponents: np.ndarray,
    elimination: np.ndarray,
    gap: np.ndarray,
    counts: np.ndarray,
    gain: np.ndarray,
    weights: np.ndarray,
    flags: np.ndarray,
    toughness: np.ndarray,
    damage: np.ndarray,
    chapters: np.ndarray,
    life: np.ndarray,
    worth: np.ndarray,
    side: np.ndarray,
    seat: np.ndarray,
    team: np.ndarray,
    head_gain: np.ndarray,
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_amount: np.ndarray,
    thr_seat: np.ndarray,
    team_threshold: np.ndarray,
    team_weight: np.ndarray,
    tough_delta: np.ndarray,
    presence: np.ndarray,
    special: np.ndarray,
    scores: np.ndarray,
    saga_chapter: int,
    times: np.ndarray,
    recipients: np.ndarray,
    spans: np.ndarray,
    values: np.ndarray,
    material: np.ndarray,
    events_out: np.ndarray,
    game_out: np.ndarray,
    results_out: np.ndarray,
    baseline: np.ndarray,
) -> None:
    """Score every alternative ``a`` (``times[a]`` rounds per row, ``recipients[a]``) on every board of the layout.

    Writes, per alternative and board: the value relative to choosing nothing (milli-points),
    the material after it, its game events, the policy's game score and the result code
    (:data:`solver.kernels.exact.RESULT_CODES`); per board the value of choosing nothing
    (``baseline``).  ``spans[b]`` is board ``b``'s material span when known, else -1: it is
    then worked out (by the decision kernel) where a game result scores, and written back.
    """
    n_alt = times.shape[0]
    n_rows, n_kinds = counts.shape
    n_thr = len(thr_row)
    width = max(int(rounds.max()) if len(rounds) else 0, 1)
    n_named = width * max(int(team_off[-1]), 1)
    # The working arrays are pieces of three blocks (one board is scored in microseconds, and twenty allocations
    # would be a good part of them): the counters after an alternative and the per-row scratch of the state-based
    # actions and the material, the two choices of nothing, then per alternative its material, events, total,
    # result code and game score.
    ints = np.zeros(n_rows * n_kinds + 6 * n_rows + 2 * n_named + 4 * (n_alt + 1), dtype=np.int64)
    bools = np.zeros(2 * n_rows + 2 * n_thr + width * n_rows, dtype=np.bool_)
    game = np.zeros(n_alt + 1, dtype=np.float64)
    now = ints[: n_rows * n_kinds].reshape((n_rows, n_kinds))
    at = n_rows * n_kinds
    annihilated, before, after = (
        ints[at : at + n_rows],
        ints[at + n_rows : at + 2 * n_rows],
        ints[at + 2 * n_rows : at + 3 * n_rows],
    )
    raw, row_events, nothing = (
        ints[at + 3 * n_rows : at + 4 * n_rows],
        ints[at + 4 * n_rows : at + 5 * n_rows],
        ints[at + 5 * n_rows : at + 6 * n_rows],
    )
    at += 6 * n_rows
    no_recipients = ints[at : at + n_named].reshape((width, n_named // width))
    scratch_recipients = ints[at + n_named : at + 2 * n_named].reshape((width, n_named // width))
    no_recipients[:, :] = -1
    scratch_recipients[:, :] = -1
    at += 2 * n_named
    k = n_alt + 1
    mat, ev, totals, res = (
        ints[at : at + k],
        ints[at + k : at + 2 * k],
        ints[at + 2 * k : at + 3 * k],
        ints[at + 3 * k : at + 4 * k],
    )
    dies, sacrificed = bools[:n_rows], bools[n_rows : 2 * n_rows]
    reached, crossed = bools[2 * n_rows : 2 * n_rows + n_thr], bools[2 * n_rows + n_thr : 2 * n_rows + 2 * n_thr]
    scratch_chosen = bools[2 * n_rows + 2 * n_thr :].reshape((width, n_rows))
    for b in range(len(rounds)):
        lo, hi = obj_off[b], obj_off[b + 1]
        t_lo, t_hi = thr_off[b], thr_off[b + 1]
        tb = team_off[b]
        n_teams = team_off[b + 1] - tb
        players = n_players[b]
        is_shared = shared[b] == 1
        n_seats, our_seat, opponents = board_seating(lo, players, proliferator[b], seat, team)
        rivals = rivals_of(seat[lo : lo + players], team[lo : lo + players], n_seats)
        for a in range(n_alt + 1):
            t = nothing if a == 0 else times[a - 1]
            r = no_recipients if a == 0 else recipients[a - 1]
            counters_after_701_34(
                lo, hi, tb, n_teams, players, rounds[b], is_shared, counts, gain, head_gain, team, special, t, r, now
            )
            ev[a] = settle_board(
                lo, hi, t_lo, t_hi, tb, n_teams, players, n_seats, is_shared, poison_loses[b] == 1, 0, 0, now,
                counts, flags, toughness, damage, chapters, life, seat, team, thr_row, thr_kind, thr_at, thr_code,
                thr_seat, team_threshold, tough_delta, special, annihilated, dies, before, after, sacrificed, reached,
                crossed, row_events,
            )  # fmt: skip
            mat[a] = board_material(
                lo, hi, t_lo, t_hi, tb, n_teams, players, is_shared, now, dies, sacrificed, before, after, crossed,
                weights, presence, worth, side, team, thr_row, thr_code, thr_amount, team_weight, special,
                saga_chapter, raw,
            )  # fmt: skip
        span = spans[b]
        unknown = board_values(
            mat, ev, span, gap[b], n_seats, rivals, our_seat, opponents, n_opponents[b], scores, elimination[b],
            totals, game, res,
        )  # fmt: skip
        if unknown:
            span = _span(
                b, obj_off, thr_off, team_off, n_players, rounds, proliferator, shared, poison_loses, n_opponents,
                elimination, gap, counts, gain, weights, flags, toughness, damage, chapters, life, worth, side, seat,
                team, head_gain, thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat, team_threshold,
                team_weight, tough_delta, presence, special, scores, saga_chapter, scratch_chosen, scratch_recipients,
            )  # fmt: skip
            spans[b] = span
            board_values(
                mat, ev, span, gap[b], n_seats, rivals, our_seat, opponents, n_opponents[b], scores, elimination[b],
                totals, game, res,
            )  # fmt: skip
        baseline[b] = totals[0]
        for a in range(n_alt):
            values[a, b] = totals[a + 1] - totals[0]
            material[a, b] = mat[a + 1]
            events_out[a, b] = ev[a + 1]
            game_out[a, b] = game[a + 1]
            results_out[a, b] = res[a + 1]


@njit(cache=True)
def value_settled_batch(
    obj_off: np.ndarray,
    thr_off: np.ndarray,
    team_off: np.ndarray,
    n_players: np.ndarray,
    rounds: np.ndarray,
    proliferator: np.ndarray,
    shared: np.ndarray,
    poison_loses: np.ndarray,
    n_opponents: np.ndarray,
    elimination: np.ndarray,
    gap: np.ndarray,
    counts: np.ndarray,
    gain: np.ndarray,
    weights: np.ndarray,
    flags: np.ndarray,
    toughness: np.ndarray,
    damage: np.ndarray,
    chapters: np.ndarray,
    life: np.ndarray,
    worth: np.ndarray,
    side: np.ndarray,
    seat: np.ndarray,
    team: np.ndarray,
    head_gain: np.ndarray,
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_amount: np.ndarray,
    thr_seat: np.ndarray,
    team_threshold: np.ndarray,
    team_weight: np.ndarray,
    tough_delta: np.ndarray,
    presence: np.ndarray,
    special: np.ndarray,
    scores: np.ndarray,
    saga_chapter: int,
    settled: np.ndarray,
    dies_in: np.ndarray,
    sacrificed_in: np.ndarray,
    before_in: np.ndarray,
    after_in: np.ndarray,
    crossed_in: np.ndarray,
    events_in: np.ndarray,
    spans: np.ndarray,
    values: np.ndarray,
    baseline: np.ndarray,
) -> None:
    """:func:`score_batch` for resolutions already settled (their counters, fates, thresholds and events given)."""
    n_rows, n_kinds = counts.shape
    now = np.empty((n_rows, n_kinds), dtype=np.int64)
    annihilated = np.zeros(n_rows, dtype=np.int64)
    dies = np.zeros(n_rows, dtype=np.bool_)
    before = np.zeros(n_rows, dtype=np.int64)
    after = np.zeros(n_rows, dtype=np.int64)
    sacrificed = np.zeros(n_rows, dtype=np.bool_)
    reached = np.zeros(len(thr_row), dtype=np.bool_)
    crossed = np.zeros(len(thr_row), dtype=np.bool_)
    raw = np.zeros(n_rows, dtype=np.int64)
    row_events = np.zeros(n_rows, dtype=np.int64)
    width = max(int(rounds.max()) if len(rounds) else 0, 1)
    scratch_chosen = np.zeros((width, n_rows), dtype=np.bool_)
    scratch_recipients = np.full((width, max(int(team_off[-1]), 1)), -1, dtype=np.int64)
    mat = np.zeros(2, dtype=np.int64)
    ev = np.zeros(2, dtype=np.int64)
    totals = np.zeros(2, dtype=np.int64)
    game = np.zeros(2, dtype=np.float64)
    res = np.zeros(2, dtype=np.int64)
    for b in range(len(rounds)):
        lo, hi = obj_off[b], obj_off[b + 1]
        t_lo, t_hi = thr_off[b], thr_off[b + 1]
        tb = team_off[b]
        n_teams = team_off[b + 1] - tb
        players = n_players[b]
        is_shared = shared[b] == 1
        n_seats, our_seat, opponents = board_seating(lo, players, proliferator[b], seat, team)
        rivals = rivals_of(seat[lo : lo + players], team[lo : lo + players], n_seats)
        now[lo:hi] = counts[lo:hi]
        ev[0] = settle_board(
            lo, hi, t_lo, t_hi, tb, n_teams, players, n_seats, is_shared, poison_loses[b] == 1, 0, 0, now,
            counts, flags, toughness, damage, chapters, life, seat, team, thr_row, thr_kind, thr_at, thr_code,
            thr_seat, team_threshold, tough_delta, special, annihilated, dies, before, after, sacrificed, reached,
            crossed, row_events,
        )  # fmt: skip
        mat[0] = board_material(
            lo, hi, t_lo, t_hi, tb, n_teams, players, is_shared, now, dies, sacrificed, before, after, crossed,
            weights, presence, worth, side, team, thr_row, thr_code, thr_amount, team_weight, special, saga_chapter,
            raw,
        )  # fmt: skip
        mat[1] = board_material(
            lo, hi, t_lo, t_hi, tb, n_teams, players, is_shared, settled, dies_in, sacrificed_in, before_in,
            after_in, crossed_in, weights, presence, worth, side, team, thr_row, thr_code, thr_amount, team_weight,
            special, saga_chapter, raw,
        )  # fmt: skip
        ev[1] = events_in[b]
        span = spans[b]
        unknown = board_values(
            mat, ev, span, gap[b], n_seats, rivals, our_seat, opponents, n_opponents[b], scores, elimination[b],
            totals, game, res,
        )  # fmt: skip
        if unknown:
            span = _span(
                b, obj_off, thr_off, team_off, n_players, rounds, proliferator, shared, poison_loses, n_opponents,
                elimination, gap, counts, gain, weights, flags, toughness, damage, chapters, life, worth, side, seat,
                team, head_gain, thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat, team_threshold,
                team_weight, tough_delta, presence, special, scores, saga_chapter, scratch_chosen, scratch_recipients,
            )  # fmt: skip
            spans[b] = span
            board_values(
                mat, ev, span, gap[b], n_seats, rivals, our_seat, opponents, n_opponents[b], scores, elimination[b],
                totals, game, res,
            )  # fmt: skip
        baseline[b] = totals[0]
        values[b] = totals[1] - totals[0]
