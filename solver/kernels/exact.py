"""The exact optimum of a batch of boards in one compiled call (docs/objective.md, "The fast path").

Per board: every object is settled as if chosen in c = 0..rounds proliferates (its material and
loss events per c); objects whose events never change are decided alone (most material, then
fewest rounds); the others, with the 2HG teams (one unit each: a pattern of heads and poison
recipients per round, 701.34b), go through a dynamic programme over the seats lost so far.
Ties: more value, then fewer picks, then, unit by unit in board order, the option that chooses
more of the earlier objects.  Boards are independent: the answers do not depend on the batch.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from .layout import F_PHASED_OUT, F_PLAYER
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

__all__ = [
    "MAX_FREE_SEATS",
    "RESULT_CODES",
    "TOO_MANY_SEATS",
    "decide_batch",
    "game_of_events",
    "split_units",
    "tabulate_rows",
    "team_option_values",
    "team_options",
    "team_poison_810_10",
]

#: Seats whose loss one choice can decide; the programme has 2**this states.
MAX_FREE_SEATS = 20
#: Status of a board whose choice couples more seats than that.
TOO_MANY_SEATS = 1
#: Game results by code.
RESULT_CODES = ("none", "eliminations", "win", "draw", "loss")
_NEG = -(1 << 62)
#: The key of an end state a programme may not take (far below any reachable total, far above overflow).
_DEAD = -(1 << 60)


@njit(cache=True)
def _ends_game(events: int, n_seats: int, rivals: np.ndarray, our_seat: int, opponents: int, n_opponents: int) -> bool:
    """Whether these events end the game for the proliferator: it loses (104.3, 810.8), or every opponent does
    (a win, 104.2a, or a draw with it, 104.4a); eliminations in a free-for-all don't."""
    return ends_game_104_3(lost_seats_104_2a(events, n_seats, rivals), our_seat, opponents, n_opponents)


@njit(cache=True)
def _programme(
    n_opt: np.ndarray, keys: np.ndarray, compact: np.ndarray, terminal: np.ndarray
) -> tuple[np.ndarray, int]:
    """The dynamic programme over coupled units, backwards from the end states' keys ``terminal``.

    Returns, per unit and state, the first option that stays optimal for the rest, and the best
    total key from the empty state.
    """
    n_units = len(n_opt)
    n_states = len(terminal)
    to_go = terminal.copy()
    first_best = np.zeros((n_units, n_states), dtype=np.int64)
    for u in range(n_units - 1, -1, -1):
        nxt = np.empty(n_states, dtype=np.int64)
        for s in range(n_states):
            best = _NEG
            arg = 0
            for o in range(n_opt[u]):
                total = keys[u, o] + to_go[s | compact[u, o]]
                if total > best:
                    best = total
                    arg = o
            nxt[s] = best
            first_best[u, s] = arg
        to_go = nxt
    return first_best, int(to_go[0])


@njit(cache=True)
def tabulate_rows(
    lo: int,
    hi: int,
    t_lo: int,
    t_hi: int,
    rounds: int,
    n_seats: int,
    poison_loses: bool,
    threshold: np.ndarray,
    team_base: int,
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
    thr_row: np.ndarray,
    thr_kind: np.ndarray,
    thr_at: np.ndarray,
    thr_code: np.ndarray,
    thr_amount: np.ndarray,
    thr_seat: np.ndarray,
    tough_delta: np.ndarray,
    presence: np.ndarray,
    special: np.ndarray,
    saga_chapter: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Material (milli-points, signed for the proliferator) and loss events of every row chosen in c rounds.

    Each c settles the board's rows as :func:`solver.kernels.settle.settle_board` does (a row's
    own events: a player's losses, a threshold object's win or loss; a 2HG team's shared poison
    is its team unit's, not a row's) and values them by :func:`solver.kernels.value.rows_material`.
    """
    n = hi - lo
    n_kinds = counts.shape[1]
    players = 0
    while players < n and flags[lo + players] & F_PLAYER:
        players += 1
    material = np.zeros((rounds + 1, n), dtype=np.int64)
    events = np.zeros((rounds + 1, n), dtype=np.int64)
    now = np.empty((n, n_kinds), dtype=np.int64)
    annihilated = np.zeros(n, dtype=np.int64)
    dies = np.zeros(n, dtype=np.bool_)
    before = np.zeros(n, dtype=np.int64)
    after = np.zeros(n, dtype=np.int64)
    sacrificed = np.zeros(n, dtype=np.bool_)
    reached = np.zeros(t_hi - t_lo, dtype=np.bool_)
    crossed = np.zeros(t_hi - t_lo, dtype=np.bool_)
    raw = np.zeros(n, dtype=np.int64)
    for c in range(rounds + 1):
        for i in range(n):
            for k in range(n_kinds):
                now[i, k] = counts[lo + i, k] + c * gain[lo + i, k]
        settle_board(
            lo, hi, t_lo, t_hi, team_base, 0, players, n_seats, False, poison_loses, lo, t_lo, now, counts, flags,
            toughness, damage, chapters, life, seat, team, thr_row, thr_kind, thr_at, thr_code, thr_seat, threshold,
            tough_delta, special, annihilated, dies, before, after, sacrificed, reached, crossed, events[c],
        )  # fmt: skip
        rows_material(
            lo, hi, t_lo, t_hi, lo, t_lo, now, dies, sacrificed, before, after, crossed, weights, presence, worth,
            thr_row, thr_code, thr_amount, saga_chapter, raw,
        )  # fmt: skip
        for i in range(n):
            material[c, i] = side[lo + i] * raw[i]
    return material, events


@njit(cache=True)
def split_units(
    material: np.ndarray, events: np.ndarray, choosable: np.ndarray, n_heads: int
) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """How one board's rows split into units, from its row tables (:func:`tabulate_rows`; axis 0: rounds chosen).

    Rows ``0 .. n_heads - 1`` are 2HG heads sharing their team's poison (team units, apart).
    A choosable row (701.34a) that is not a head is a single unit; it ``varies`` if its loss
    events change with the rounds it is chosen in.  Returns ``single``, ``varies``, the
    material of the rows nobody can choose, the events of those and of the single units whose
    events never vary (the seats lost whatever is chosen), and the span of the single units'
    material (the range the game weight is raised above).
    """
    n_rounds, n = material.shape
    single = np.zeros(n, dtype=np.bool_)
    varies = np.zeros(n, dtype=np.bool_)
    base_material = 0
    base_events = 0
    span = 0
    for i in range(n):
        for c in range(1, n_rounds):
            if events[c, i] != events[0, i]:
                varies[i] = True
        head = i < n_heads
        if choosable[i] and not head:
            single[i] = True
            lo_m, hi_m = material[0, i], material[0, i]
            for c in range(1, n_rounds):
                lo_m = min(lo_m, material[c, i])
                hi_m = max(hi_m, material[c, i])
            span += hi_m - lo_m
            if not varies[i]:
                base_events |= events[0, i]
        elif not head:
            base_material += material[0, i]
            base_events |= events[0, i]
    return single, varies, base_material, base_events, span


@njit(cache=True)
def team_options(
    rounds: int, ok: np.ndarray, poisoned: bool, gains: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A 2HG team's options over all rounds (701.34b, 810.10): what its unit chooses among.

    Per round, the heads chosen (a subset of those that can be, larger subsets first, in
    combination order) and, when the team has poison, which chosen head gets the team's counter.
    Only the first pattern (round-major) per outcome -- how often each head is chosen and the
    poison given -- is kept; options come with the most picks first.  Returns per option: times
    per head, poison given, picks, and per round the heads' bitmask and the recipient (-1: none).
    """
    n_heads = len(ok)
    heads = np.zeros(n_heads, dtype=np.int64)
    m = 0
    for h in range(n_heads):
        if ok[h]:
            heads[m] = h
            m += 1
    # The per-round entries: (mask of heads, recipient).
    entry_mask = np.zeros(64, dtype=np.int64)
    entry_recipient = np.full(64, -1, dtype=np.int64)
    n_entries = 0
    idx = np.zeros(max(m, 1), dtype=np.int64)
    for size in range(m, -1, -1):
        for i in range(size):
            idx[i] = i
        while True:
            mask = 0
            for i in range(size):
                mask |= 1 << heads[idx[i]]
            if poisoned and size > 0:
                for i in range(size):
                    entry_mask[n_entries] = mask
                    entry_recipient[n_entries] = heads[idx[i]]
                    n_entries += 1
            else:
                entry_mask[n_entries] = mask
                entry_recipient[n_entries] = -1
                n_entries += 1
            # next combination of ``size`` out of ``m``, in lexicographic order
            j = size - 1
            while j >= 0 and idx[j] == m - size + j:
                j -= 1
            if j < 0:
                break
            idx[j] += 1
            for i in range(j + 1, size):
                idx[i] = idx[i - 1] + 1
    base = rounds + 1
    times = np.zeros((1, n_heads), dtype=np.int64)
    poison = np.zeros(1, dtype=np.int64)
    pat_mask = np.zeros((1, max(rounds, 1)), dtype=np.int64)
    pat_recipient = np.full((1, max(rounds, 1)), -1, dtype=np.int64)
    for r in range(rounds):
        p = len(poison)
        cap = p * n_entries
        new_times = np.zeros((cap, n_heads), dtype=np.int64)
        new_poison = np.zeros(cap, dtype=np.int64)
        new_mask = np.zeros((cap, max(rounds, 1)), dtype=np.int64)
        new_recipient = np.full((cap, max(rounds, 1)), -1, dtype=np.int64)
        seen = Dict.empty(key_type=types.int64, value_type=types.int64)
        q = 0
        for a in range(p):
            for e in range(n_entries):
                key = 0
                scale = 1
                for h in range(n_heads):
                    t = times[a, h] + ((entry_mask[e] >> h) & 1)
                    key += t * scale
                    scale *= base
                given = poison[a] + (gains[entry_recipient[e]] if entry_recipient[e] >= 0 else 0)
                key += given * scale
                if key in seen:
                    continue
                seen[key] = q
                for h in range(n_heads):
                    new_times[q, h] = times[a, h] + ((entry_mask[e] >> h) & 1)
                new_poison[q] = given
                new_mask[q, :] = pat_mask[a, :]
                new_recipient[q, :] = pat_recipient[a, :]
                new_mask[q, r] = entry_mask[e]
                new_recipient[q, r] = entry_recipient[e]
                q += 1
        times, poison, pat_mask, pat_recipient = new_times[:q], new_poison[:q], new_mask[:q], new_recipient[:q]
    n_opts = len(poison)
    picks = np.zeros(n_opts, dtype=np.int64)
    for o in range(n_opts):
        for h in range(n_heads):
            picks[o] += times[o, h]
    order = np.argsort(-picks, kind="mergesort")  # stable: most picks first, else first found
    return times[order], poison[order], picks[order], pat_mask[order], pat_recipient[order]


@njit(cache=True)
def team_poison_810_10(total: int, weight: int, threshold: int, team: int) -> tuple[int, int]:
    """A 2HG team's shared poison, counted once per team (810.10): its material, and its loss (704.6b, 810.11).

    ``weight`` is milli-points per counter, signed for the proliferator; the loss is the team's
    seat bit when ``total`` reaches the team's ``threshold``, else 0.
    """
    event = 1 << team if total >= threshold else 0
    return weight * total, event


@njit(cache=True)
def team_option_values(
    times: np.ndarray,
    poison: np.ndarray,
    start: int,
    weight: int,
    threshold: int,
    team: int,
    heads: np.ndarray,
    material: np.ndarray,
    events: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The material and loss events of each option of a 2HG team (:func:`team_options`).

    An option is worth the team's poison, ``start`` plus what it gives
    (:func:`team_poison_810_10`), and its heads' rows (``heads``, board rows of ``material``
    and ``events``, :func:`tabulate_rows`) chosen as often as it chooses them.
    """
    k = len(poison)
    mats = np.zeros(k, dtype=np.int64)
    evs = np.zeros(k, dtype=np.int64)
    for o in range(k):
        m, e = team_poison_810_10(start + poison[o], weight, threshold, team)
        for p in range(len(heads)):
            m += material[times[o, p], heads[p]]
            e |= events[times[o, p], heads[p]]
        mats[o] = m
        evs[o] = e
    return mats, evs


@njit(cache=True)
def score_events(
    events: int,
    n_seats: int,
    rivals: np.ndarray,
    our_seat: int,
    opponents: int,
    n_opponents: int,
    scores: np.ndarray,
    elimination: float,
    weight: float,
) -> int:
    lost = lost_seats_104_2a(events, n_seats, rivals)
    return game_milli(game_score(lost, our_seat, opponents, n_opponents, scores, elimination), weight)


@njit(cache=True)
def result_code(
    events: int,
    n_seats: int,
    rivals: np.ndarray,
    our_seat: int,
    opponents: int,
    n_opponents: int,
    scores: np.ndarray,
    elimination: float,
) -> int:
    """The game result of a resolution's events, as an index of :data:`RESULT_CODES`."""
    lost = lost_seats_104_2a(events, n_seats, rivals)
    score = game_score(lost, our_seat, opponents, n_opponents, scores, elimination)
    if score == scores[0]:
        return 2
    if score == scores[1] and (lost >> our_seat) & 1:
        return 3
    if score == scores[2]:
        return 4
    return 1 if score > 0 else 0


@njit(cache=True)
def game_of_events(
    lo: int,
    players: int,
    proliferator: int,
    seat: np.ndarray,
    team: np.ndarray,
    n_opponents: int,
    scores: np.ndarray,
    elimination: float,
    weight: float,
    events: np.ndarray,
    lost: np.ndarray,
    over: np.ndarray,
    score: np.ndarray,
    milli: np.ndarray,
    results: np.ndarray,
) -> None:
    """What each game-events mask ``events[j]`` of one board (players at layout rows ``lo..lo+players``) means.

    The seats that lose (``lost``, 104.2a, 810.8a), whether that ends the game for the
    proliferator (``over``, 104.3, 104.4a), the policy's score (``score``), that score in
    milli-points at the game ``weight`` (``milli``) and the result code (``results``,
    :data:`RESULT_CODES`).
    """
    n_seats, our_seat, opponents = board_seating(lo, players, proliferator, seat, team)
    rivals = rivals_of(seat[lo : lo + players], team[lo : lo + players], n_seats)
    for j in range(len(events)):
        gone = lost_seats_104_2a(events[j], n_seats, rivals)
        lost[j] = gone
        over[j] = ends_game_104_3(gone, our_seat, opponents, n_opponents)
        score[j] = game_score(gone, our_seat, opponents, n_opponents, scores, elimination)
        milli[j] = game_milli(score[j], weight)
        results[j] = result_code(events[j], n_seats, rivals, our_seat, opponents, n_opponents, scores, elimination)


@njit(cache=True)
def decide_batch(
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
    sense: int,
    values: np.ndarray,
    events_out: np.ndarray,
    results: np.ndarray,
    status: np.ndarray,
    spans: np.ndarray,
    chosen: np.ndarray,
    recipients: np.ndarray,
) -> None:
    """Decide every board of the layout; outputs are written into the arrays given (see :mod:`solver.kernels`)."""
    poison = special[5]
    for b in range(len(rounds)):
        lo, hi = obj_off[b], obj_off[b + 1]
        n = hi - lo
        players = n_players[b]
        R = rounds[b]
        tb = team_off[b]
        n_teams = team_off[b + 1] - tb
        is_shared = shared[b] == 1
        # seats, rivals, the proliferator's seat and its opponents
        n_seats, our_seat, opponents = board_seating(lo, players, proliferator[b], seat, team)
        rivals = rivals_of(seat[lo : lo + players], team[lo : lo + players], n_seats)
        material, events = tabulate_rows(
            lo, hi, thr_off[b], thr_off[b + 1], R, n_seats, poison_loses[b] == 1, team_threshold, tb,
            counts, gain, weights, flags, toughness, damage, chapters, life, worth, side, seat, team,
            thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat, tough_delta, presence, special, saga_chapter,
        )  # fmt: skip
        # the unit split
        choosable = np.zeros(n, dtype=np.bool_)
        for i in range(n):
            if not flags[lo + i] & F_PHASED_OUT:
                for k in range(counts.shape[1]):
                    if counts[lo + i, k] > 0:
                        choosable[i] = True
                        break
        baseline_material = 0
        baseline_events = 0
        for i in range(n):
            baseline_material += material[0, i]
            baseline_events |= events[0, i]
        single, varies, base_material, base_events, span = split_units(
            material, events, choosable, players if is_shared else 0
        )
        # 2HG team units (810.10): heads, start poison, options
        max_heads = 1
        for t in range(n_teams):
            cnt = 0
            for i in range(players):
                if team[lo + i] == t:
                    cnt += 1
            max_heads = max(max_heads, cnt)
        team_heads = np.full((max(n_teams, 1), max_heads), -1, dtype=np.int64)
        team_n = np.zeros(max(n_teams, 1), dtype=np.int64)
        for i in range(players):
            t = team[lo + i]
            team_heads[t, team_n[t]] = i
            team_n[t] += 1
        start_poison = np.zeros(max(n_teams, 1), dtype=np.int64)
        if is_shared:
            for t in range(n_teams):
                start_poison[t] = shared_poison_810_10(counts, lo, 0, players, team, t, poison)
                m, e = team_poison_810_10(start_poison[t], team_weight[tb + t], team_threshold[tb + t], t)
                baseline_material += m
                baseline_events |= e
        # Options of every team unit, flattened: per team its first option and count.
        opt_first = np.zeros(max(n_teams, 1) + 1, dtype=np.int64)
        all_times = np.zeros((0, max_heads), dtype=np.int64)
        all_poison = np.zeros(0, dtype=np.int64)
        all_picks = np.zeros(0, dtype=np.int64)
        all_mask = np.zeros((0, max(R, 1)), dtype=np.int64)
        all_recipient = np.zeros((0, max(R, 1)), dtype=np.int64)
        all_material = np.zeros(0, dtype=np.int64)
        all_events = np.zeros(0, dtype=np.int64)
        has_unit = np.zeros(max(n_teams, 1), dtype=np.bool_)
        if is_shared:
            for t in range(n_teams):
                h_n = team_n[t]
                ok = np.zeros(h_n, dtype=np.bool_)
                gains = np.zeros(h_n, dtype=np.int64)
                any_ok = False
                for p in range(h_n):
                    ok[p] = choosable[team_heads[t, p]]
                    gains[p] = head_gain[lo + team_heads[t, p]]
                    any_ok = any_ok or ok[p]
                if not any_ok:  # fixed: its heads and its poison as they stand
                    m, e = team_poison_810_10(start_poison[t], team_weight[tb + t], team_threshold[tb + t], t)
                    base_material += m
                    base_events |= e
                    for p in range(h_n):
                        base_material += material[0, team_heads[t, p]]
                        base_events |= events[0, team_heads[t, p]]
                    opt_first[t + 1] = opt_first[t]
                    continue
                has_unit[t] = True
                o_times, o_poison, o_picks, o_mask, o_recipient = team_options(R, ok, start_poison[t] > 0, gains)
                k = len(o_poison)
                mats, evs = team_option_values(
                    o_times, o_poison, start_poison[t], team_weight[tb + t], team_threshold[tb + t], t,
                    team_heads[t, :h_n], material, events,
                )  # fmt: skip
                lo_m, hi_m = -_NEG, _NEG
                for o in range(k):
                    hi_m = max(hi_m, mats[o])
                    lo_m = min(lo_m, mats[o])
                span += hi_m - lo_m
                padded = np.zeros((k, max_heads), dtype=np.int64)
                padded[:, :h_n] = o_times
                all_times = np.concatenate((all_times, padded))
                all_poison = np.concatenate((all_poison, o_poison))
                all_picks = np.concatenate((all_picks, o_picks))
                all_mask = np.concatenate((all_mask, o_mask))
                all_recipient = np.concatenate((all_recipient, o_recipient))
                all_material = np.concatenate((all_material, mats))
                all_events = np.concatenate((all_events, evs))
                opt_first[t + 1] = opt_first[t] + k
        spans[b] = span
        weight = game_weight_of(scores[3], span, gap[b])
        n_opp = n_opponents[b]
        elim = elimination[b]
        baseline = baseline_material + score_events(
            baseline_events, n_seats, rivals, our_seat, opponents, n_opp, scores, elim, weight
        )
        # independent single units: most material, then fewest rounds
        times = np.zeros(n, dtype=np.int64)
        for i in range(n):
            if single[i]:
                best = sense * material[0, i]
                for c in range(1, R + 1):
                    if sense * material[c, i] > best:
                        best = sense * material[c, i]
                        times[i] = c
        team_choice = np.full(max(n_teams, 1), -1, dtype=np.int64)
        # the coupled units, in board order (a team at its first head)
        n_units = 0
        for i in range(n):
            if single[i] and varies[i]:
                n_units += 1
        for t in range(n_teams):
            if has_unit[t]:
                n_units += 1
        state_events = base_events
        if n_units:
            unit_kind = np.zeros(n_units, dtype=np.int64)  # 0 single, 1 team
            unit_ref = np.zeros(n_units, dtype=np.int64)
            u = 0
            for i in range(n):
                if is_shared and i < players:
                    t = team[lo + i]
                    if has_unit[t] and team_heads[t, 0] == i:
                        unit_kind[u] = 1
                        unit_ref[u] = t
                        u += 1
                elif single[i] and varies[i]:
                    unit_ref[u] = i
                    u += 1
            width = R + 1
            for t in range(n_teams):
                width = max(width, opt_first[t + 1] - opt_first[t])
            n_opt = np.zeros(n_units, dtype=np.int64)
            opt_mat = np.zeros((n_units, width), dtype=np.int64)
            opt_picks = np.zeros((n_units, width), dtype=np.int64)
            opt_ev = np.zeros((n_units, width), dtype=np.int64)
            free = 0
            max_picks = 1
            for u in range(n_units):
                if unit_kind[u] == 0:
                    i = unit_ref[u]
                    n_opt[u] = R + 1
                    for o in range(R + 1):
                        c = R - o
                        opt_mat[u, o] = sense * material[c, i]
                        opt_picks[u, o] = c
                        opt_ev[u, o] = events[c, i]
                else:
                    t = unit_ref[u]
                    n_opt[u] = opt_first[t + 1] - opt_first[t]
                    for o in range(n_opt[u]):
                        opt_mat[u, o] = sense * all_material[opt_first[t] + o]
                        opt_picks[u, o] = all_picks[opt_first[t] + o]
                        opt_ev[u, o] = all_events[opt_first[t] + o]
                top = 0
                for o in range(n_opt[u]):
                    free |= opt_ev[u, o]
                    top = max(top, opt_picks[u, o])
                max_picks += top
            for i in range(n):  # the units outside the programme count when ending the game is weighed
                if single[i] and not varies[i]:
                    max_picks += R
            free &= ~base_events
            bits = np.zeros(64, dtype=np.int64)
            n_free = 0
            for bit in range(63):
                if (free >> bit) & 1:
                    bits[n_free] = bit
                    n_free += 1
            if n_free > MAX_FREE_SEATS:
                status[b] = TOO_MANY_SEATS
                continue
            n_states = 1 << n_free
            expanded = np.full(n_states, base_events, dtype=np.int64)
            millis = np.zeros(n_states, dtype=np.int64)
            for s in range(n_states):
                for j in range(n_free):
                    if (s >> j) & 1:
                        expanded[s] |= np.int64(1) << bits[j]
                millis[s] = score_events(expanded[s], n_seats, rivals, our_seat, opponents, n_opp, scores, elim, weight)
            compact = np.zeros((n_units, width), dtype=np.int64)
            for u in range(n_units):
                for o in range(n_opt[u]):
                    e = opt_ev[u, o]
                    s = 0
                    for j in range(n_free):
                        s |= ((e >> bits[j]) & 1) << j
                    compact[u, o] = s
            # Ending the game for the proliferator (win, loss or draw) is worth its game score alone:
            # one programme over the end states that don't, one (picks alone telling options apart)
            # over those that do; the better end wins, ties to the game going on.
            over = np.zeros(n_states, dtype=np.bool_)
            any_over = False
            any_live = False
            for s in range(n_states):
                over[s] = _ends_game(expanded[s], n_seats, rivals, our_seat, opponents, n_opp)
                any_over = any_over or over[s]
                any_live = any_live or not over[s]
            keys = np.full((n_units, width), _NEG, dtype=np.int64)
            idle = np.full((n_units, width), _NEG, dtype=np.int64)
            for u in range(n_units):
                nothing = 0
                for o in range(n_opt[u]):
                    if opt_picks[u, o] == 0:
                        nothing = opt_mat[u, o] * max_picks
                        break
                for o in range(n_opt[u]):
                    keys[u, o] = opt_mat[u, o] * max_picks - opt_picks[u, o]
                    idle[u, o] = nothing - opt_picks[u, o]
            terminal = np.empty(n_states, dtype=np.int64)
            for s in range(n_states):
                terminal[s] = _DEAD if over[s] else millis[s] * (sense * max_picks)
            first_live, best_live = _programme(n_opt, keys, compact, terminal)
            ended = False
            first = first_live
            if any_over:
                for s in range(n_states):
                    terminal[s] = millis[s] * (sense * max_picks) if over[s] else _DEAD
                first_over, best_over = _programme(n_opt, idle, compact, terminal)
                live_extra = 0
                idle_extra = 0
                for i in range(n):
                    if single[i] and not varies[i]:
                        live_extra += sense * material[times[i], i] * max_picks - times[i]
                        idle_extra += sense * material[0, i] * max_picks
                ended = (best_over + idle_extra > best_live + live_extra) if any_live else True
                if ended:
                    first = first_over
            s = 0
            for u in range(n_units):
                o = first[u, s]
                s |= compact[u, o]
                if unit_kind[u] == 0:
                    times[unit_ref[u]] = R - o
                else:
                    team_choice[unit_ref[u]] = o
            if ended:  # the units outside the programme choose nothing
                for i in range(n):
                    if single[i] and not varies[i]:
                        times[i] = 0
            state_events = expanded[s]
            game = millis[s]
        else:
            game = score_events(base_events, n_seats, rivals, our_seat, opponents, n_opp, scores, elim, weight)
            ended = _ends_game(base_events, n_seats, rivals, our_seat, opponents, n_opp)
            if ended:  # the game ends whatever is chosen: every choice is worth the same, choose nothing
                times[:] = 0
        value = base_material
        for i in range(n):
            if single[i]:
                value += material[times[i], i]
                for r in range(times[i]):
                    chosen[r, lo + i] = True
        for t in range(n_teams):
            if has_unit[t]:
                o = opt_first[t] + team_choice[t]
                value += all_material[o]
                for r in range(R):
                    mask = all_mask[o, r]
                    for p in range(team_n[t]):
                        if (mask >> p) & 1:
                            chosen[r, lo + team_heads[t, p]] = True
                    if all_recipient[o, r] >= 0:
                        recipients[r, tb + t] = team_heads[t, all_recipient[o, r]]
        if ended:  # a finished game's counters are worth nothing: the material of choosing nothing
            value = baseline_material
        values[b] = value + game - baseline
        events_out[b] = state_events
        results[b] = result_code(state_events, n_seats, rivals, our_seat, opponents, n_opp, scores, elim)
