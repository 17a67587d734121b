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
from numba import njit

from ..board import (
    N_OPPONENTS,
    N_PLAYERS,
    N_POISON_LOSES,
    N_PROLIFERATOR,
    N_ROUNDS,
    N_SHARED,
    R_CHAPTERS,
    R_DAMAGE,
    R_FLAGS,
    R_LIFE,
    R_SEAT,
    R_SIDE,
    R_TEAM,
    R_TOUGHNESS,
)
from .jit import inner
from .layout import F_PHASED_OUT, F_PLAYER
from .sba import settle_object, shared_poison_810_10
from .settle import board_seating, player_event, threshold_event
from .value import (
    ends_game_104_3,
    game_milli,
    game_score,
    game_weight_of,
    lost_seats_104_2a,
    material_row,
    rivals_into,
    rivals_of,
    threshold_point,
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


@inner
def _ends_game(events: int, n_seats: int, rivals: np.ndarray, our_seat: int, opponents: int, n_opponents: int) -> bool:
    """Whether these events end the game for the proliferator: it loses (104.3, 810.8), or every opponent does
    (a win, 104.2a, or a draw with it, 104.4a); eliminations in a free-for-all don't."""
    return ends_game_104_3(lost_seats_104_2a(events, n_seats, rivals), our_seat, opponents, n_opponents)


@inner
def _programme_into(
    n_opt: np.ndarray,
    keys: np.ndarray,
    compact: np.ndarray,
    terminal: np.ndarray,
    first_best: np.ndarray,
    to_go: np.ndarray,
    nxt: np.ndarray,
) -> int:
    """The dynamic programme over coupled units, backwards from the end states' keys ``terminal``.

    Writes, per unit and state, the first option that stays optimal for the rest into
    ``first_best``; returns the best total key from the empty state.  ``to_go`` and ``nxt``
    are scratch of at least ``len(terminal)`` entries (no allocation: a batch reuses them).
    """
    n_units = len(n_opt)
    n_states = len(terminal)
    for s in range(n_states):
        to_go[s] = terminal[s]
    for u in range(n_units - 1, -1, -1):
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
        to_go, nxt = nxt, to_go
    return int(to_go[0])


@njit(cache=True)
def _programme(
    n_opt: np.ndarray, keys: np.ndarray, compact: np.ndarray, terminal: np.ndarray
) -> tuple[np.ndarray, int]:
    """:func:`_programme_into` with its own arrays: the first optimal option per unit and state, and the best total."""
    n_states = len(terminal)
    first_best = np.zeros((len(n_opt), n_states), dtype=np.int64)
    to_go = np.empty(n_states, dtype=np.int64)
    nxt = np.empty(n_states, dtype=np.int64)
    best = _programme_into(n_opt, keys, compact, terminal, first_best, to_go, nxt)
    return first_best, best


@inner
def tabulate_into(
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
    material: np.ndarray,
    events: np.ndarray,
    now: np.ndarray,
    dies: np.ndarray,
    reached: np.ndarray,
    crossed: np.ndarray,
) -> None:
    """:func:`tabulate_rows` into the arrays given: ``material`` / ``events`` (rounds + 1 x rows), and scratch
    (``now``: one row of kinds, ``dies``: one entry, ``reached`` / ``crossed``: per threshold of the board), every
    entry written (no allocation).

    Each c settles the board as :func:`~solver.kernels.settle.settle_board` and values it as
    :func:`~solver.kernels.value.rows_material` do (no 2HG team poison: a team is its own unit), from the
    same rules, but a row at a time and every c of a row in turn: its counters after c
    proliferates (into ``now``), its state-based actions, its player's losses, its thresholds and its
    worth (a huge board's counter tables are read once, and no board-sized table is written).
    A board's thresholds are in row order (:attr:`solver.board.Board.thr_object`).
    """
    n = hi - lo
    n_kinds = counts.shape[1]
    players = 0
    while players < n and flags[lo + players] & F_PLAYER:
        players += 1
    j_hi = t_lo
    for i in range(n):
        row = lo + i  # the rules below read the row's counters as ``now[row - row]``
        j_lo = j_hi  # the row's thresholds
        while j_hi < t_hi and thr_row[j_hi] == row:
            j_hi += 1
        for c in range(rounds + 1):
            for k in range(n_kinds):
                now[0, k] = counts[row, k] + c * gain[row, k]
            _, dead, gone, was, now_at = settle_object(
                now, 0, counts, row, flags[row], toughness[row], damage[row], chapters[row], tough_delta, special
            )
            dies[0] = dead
            event = 0
            if i < players:
                event = player_event(row, row, team_base, poison_loses, now, life, seat, team, threshold, special)
            worth_of = material_row(
                now, 0, weights, row, presence, worth[row], dead or gone, now_at - was, saga_chapter
            )
            for j in range(j_lo, j_hi):
                event |= threshold_event(
                    j, row, t_lo, n_seats, now, counts, dies, flags, thr_row, thr_kind, thr_at, thr_code, thr_seat,
                    reached, crossed,
                )  # fmt: skip
                worth_of += threshold_point(j, t_lo, crossed, thr_code, thr_amount)
            events[c, i] = event
            material[c, i] = side[row] * worth_of


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
    is its team unit's, not a row's) and values them by :func:`solver.kernels.value.rows_material`
    (:func:`tabulate_into`, with arrays of its own).
    """
    n = hi - lo
    n_thr = t_hi - t_lo
    material = np.zeros((rounds + 1, n), dtype=np.int64)
    events = np.zeros((rounds + 1, n), dtype=np.int64)
    tabulate_into(
        lo, hi, t_lo, t_hi, rounds, n_seats, poison_loses, threshold, team_base, counts, gain, weights, flags,
        toughness, damage, chapters, life, worth, side, seat, team, thr_row, thr_kind, thr_at, thr_code, thr_amount,
        thr_seat, tough_delta, presence, special, saga_chapter, material, events,
        np.empty((1, counts.shape[1]), dtype=np.int64), np.zeros(1, dtype=np.bool_), np.zeros(n_thr, dtype=np.bool_),
        np.zeros(n_thr, dtype=np.bool_),
    )  # fmt: skip
    return material, events


@inner
def split_units_into(
    material: np.ndarray,
    events: np.ndarray,
    choosable: np.ndarray,
    n_heads: int,
    single: np.ndarray,
    varies: np.ndarray,
) -> tuple[int, int, int]:
    """:func:`split_units` writing ``single`` and ``varies`` into the arrays given (one entry per row)."""
    n_rounds, n = material.shape
    base_material = 0
    base_events = 0
    span = 0
    for i in range(n):
        single[i] = False
        varies[i] = False
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
    return base_material, base_events, span


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
    n = material.shape[1]
    single = np.zeros(n, dtype=np.bool_)
    varies = np.zeros(n, dtype=np.bool_)
    base_material, base_events, span = split_units_into(material, events, choosable, n_heads, single, varies)
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
    table = np.zeros(0, dtype=np.int64)
    used = np.zeros(0, dtype=np.bool_)
    for r in range(rounds):
        p = len(poison)
        cap = p * n_entries
        new_times = np.zeros((cap, n_heads), dtype=np.int64)
        new_poison = np.zeros(cap, dtype=np.int64)
        new_mask = np.zeros((cap, max(rounds, 1)), dtype=np.int64)
        new_recipient = np.full((cap, max(rounds, 1)), -1, dtype=np.int64)
        size = 16
        while size < 2 * cap:
            size *= 2
        if len(table) < size:
            table = np.empty(size, dtype=np.int64)
            used = np.empty(size, dtype=np.bool_)
        used[:size] = False  # the outcomes seen this round (open addressing)
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
                if not _first_time(table, used, size - 1, key):
                    continue
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
    order = _most_picks_first(picks, rounds * n_heads)
    return times[order], poison[order], picks[order], pat_mask[order], pat_recipient[order]


@inner
def _first_time(table: np.ndarray, used: np.ndarray, mask: int, key: int) -> bool:
    """Whether ``key`` is new to the open-addressing set ``table`` (``used`` its filled slots, ``mask`` its size - 1),
    adding it."""
    h = (key * 0x9E3779B1) & mask
    while used[h]:
        if table[h] == key:
            return False
        h = (h + 1) & mask
    used[h] = True
    table[h] = key
    return True


@njit(cache=True)
def _most_picks_first(picks: np.ndarray, most: int) -> np.ndarray:
    """The stable order of ``picks`` (each in 0..most) from most to fewest: a counting sort, first found first."""
    start = np.zeros(most + 2, dtype=np.int64)
    for o in range(len(picks)):
        start[most - picks[o] + 1] += 1
    for j in range(1, most + 2):
        start[j] += start[j - 1]
    order = np.empty(len(picks), dtype=np.int64)
    for o in range(len(picks)):
        j = most - picks[o]
        order[start[j]] = o
        start[j] += 1
    return order


@inner
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


@inner
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


@inner
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
    """Decide every board of the layout; outputs are written into the arrays given (see :mod:`solver.kernels`).

    The boards' working arrays are allocated once per call, sized by the batch's largest board
    (those of the coupled units' programme grow on demand), and reused board after board.
    """
    poison = special[5]
    n_boards = len(rounds)
    n_kinds = counts.shape[1]
    max_n = max_thr = max_teams = max_players = max_rounds = 0
    for b in range(n_boards):
        max_n = max(max_n, obj_off[b + 1] - obj_off[b])
        max_thr = max(max_thr, thr_off[b + 1] - thr_off[b])
        max_teams = max(max_teams, team_off[b + 1] - team_off[b])
        max_players = max(max_players, n_players[b])
        max_rounds = max(max_rounds, rounds[b])
    max_teams = max(max_teams, 1)
    max_players = max(max_players, 1)
    stride = max(max_rounds, 1)  # a team option's per-round entries
    # per row and per threshold of a board
    mat_buf = np.empty((max_rounds + 1) * max_n, dtype=np.int64)
    ev_buf = np.empty((max_rounds + 1) * max_n, dtype=np.int64)
    now = np.empty((1, n_kinds), dtype=np.int64)  # one row's counters (tabulate_into)
    rivals = np.empty(max(max_players, 1), dtype=np.int64)  # a seat per player at most
    dies = np.empty(1, dtype=np.bool_)
    reached = np.empty(max_thr, dtype=np.bool_)
    crossed = np.empty(max_thr, dtype=np.bool_)
    choosable = np.empty(max_n, dtype=np.bool_)
    single = np.empty(max_n, dtype=np.bool_)
    varies = np.empty(max_n, dtype=np.bool_)
    times = np.empty(max_n, dtype=np.int64)
    # per team of a board
    heads_buf = np.empty(max_teams * max_players, dtype=np.int64)
    team_n = np.empty(max_teams, dtype=np.int64)
    start_poison = np.empty(max_teams, dtype=np.int64)
    has_unit = np.empty(max_teams, dtype=np.bool_)
    team_choice = np.empty(max_teams, dtype=np.int64)
    opt_first = np.empty(max_teams + 1, dtype=np.int64)
    ok = np.empty(max_players, dtype=np.bool_)
    head_gains = np.empty(max_players, dtype=np.int64)
    # the teams' options, one after another (grown on demand)
    all_material = np.empty(16, dtype=np.int64)
    all_picks = np.empty(16, dtype=np.int64)
    all_events = np.empty(16, dtype=np.int64)
    all_mask = np.empty(16 * stride, dtype=np.int64)
    all_recipient = np.empty(16 * stride, dtype=np.int64)
    # the coupled units and the programme's states (grown on demand)
    unit_kind = np.empty(max_n + max_teams, dtype=np.int64)  # 0 single, 1 team
    unit_ref = np.empty(max_n + max_teams, dtype=np.int64)
    n_opt_buf = np.empty(max_n + max_teams, dtype=np.int64)
    opt_mat_buf = np.empty(16, dtype=np.int64)
    opt_picks_buf = np.empty(16, dtype=np.int64)
    opt_ev_buf = np.empty(16, dtype=np.int64)
    compact_buf = np.empty(16, dtype=np.int64)
    keys_buf = np.empty(16, dtype=np.int64)
    idle_buf = np.empty(16, dtype=np.int64)
    bits = np.zeros(64, dtype=np.int64)
    expanded_buf = np.empty(16, dtype=np.int64)
    millis_buf = np.empty(16, dtype=np.int64)
    over_buf = np.empty(16, dtype=np.bool_)
    terminal_buf = np.empty(16, dtype=np.int64)
    to_go = np.empty(16, dtype=np.int64)
    nxt = np.empty(16, dtype=np.int64)
    live_buf = np.empty(16, dtype=np.int64)
    ended_buf = np.empty(16, dtype=np.int64)
    for b in range(n_boards):
        lo, hi = obj_off[b], obj_off[b + 1]
        n = hi - lo
        players = n_players[b]
        R = rounds[b]
        tb = team_off[b]
        n_teams = team_off[b + 1] - tb
        t_lo, t_hi = thr_off[b], thr_off[b + 1]
        is_shared = shared[b] == 1
        # seats, rivals, the proliferator's seat and its opponents
        n_seats, our_seat, opponents = board_seating(lo, players, proliferator[b], seat, team)
        rivals_into(seat, team, lo, players, n_seats, rivals)
        material = mat_buf[: (R + 1) * n].reshape((R + 1, n))
        events = ev_buf[: (R + 1) * n].reshape((R + 1, n))
        tabulate_into(
            lo, hi, t_lo, t_hi, R, n_seats, poison_loses[b] == 1, team_threshold, tb, counts, gain, weights, flags,
            toughness, damage, chapters, life, worth, side, seat, team, thr_row, thr_kind, thr_at, thr_code,
            thr_amount, thr_seat, tough_delta, presence, special, saga_chapter, material, events,
            now, dies, reached, crossed,
        )  # fmt: skip
        # the unit split
        for i in range(n):
            choosable[i] = False
            if not flags[lo + i] & F_PHASED_OUT:
                for k in range(n_kinds):
                    if counts[lo + i, k] > 0:
                        choosable[i] = True
                        break
        baseline_material = 0
        baseline_events = 0
        for i in range(n):
            baseline_material += material[0, i]
            baseline_events |= events[0, i]
        base_material, base_events, span = split_units_into(
            material, events, choosable, players if is_shared else 0, single, varies
        )
        # 2HG team units (810.10): heads, start poison, options
        max_heads = 1
        for t in range(n_teams):
            cnt = 0
            for i in range(players):
                if team[lo + i] == t:
                    cnt += 1
            max_heads = max(max_heads, cnt)
        team_heads = heads_buf[: max(n_teams, 1) * max_heads].reshape((max(n_teams, 1), max_heads))
        team_heads[:, :] = -1
        for t in range(max(n_teams, 1)):
            team_n[t] = 0
            start_poison[t] = 0
            has_unit[t] = False
            team_choice[t] = -1
            opt_first[t + 1] = 0
        opt_first[0] = 0
        for i in range(players):
            t = team[lo + i]
            team_heads[t, team_n[t]] = i
            team_n[t] += 1
        if is_shared:
            for t in range(n_teams):
                start_poison[t] = shared_poison_810_10(counts, lo, 0, players, team, t, poison)
                m, e = team_poison_810_10(start_poison[t], team_weight[tb + t], team_threshold[tb + t], t)
                baseline_material += m
                baseline_events |= e
        # Options of every team unit, flattened: per team its first option and count.
        if is_shared:
            for t in range(n_teams):
                h_n = team_n[t]
                any_ok = False
                for p in range(h_n):
                    ok[p] = choosable[team_heads[t, p]]
                    head_gains[p] = head_gain[lo + team_heads[t, p]]
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
                o_times, o_poison, o_picks, o_mask, o_recipient = team_options(
                    R, ok[:h_n], start_poison[t] > 0, head_gains[:h_n]
                )
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
                at = opt_first[t]
                all_material = _reserve(all_material, at, at + k)
                all_picks = _reserve(all_picks, at, at + k)
                all_events = _reserve(all_events, at, at + k)
                all_mask = _reserve(all_mask, at * stride, (at + k) * stride)
                all_recipient = _reserve(all_recipient, at * stride, (at + k) * stride)
                for o in range(k):
                    all_material[at + o] = mats[o]
                    all_picks[at + o] = o_picks[o]
                    all_events[at + o] = evs[o]
                    for r in range(o_mask.shape[1]):
                        all_mask[(at + o) * stride + r] = o_mask[o, r]
                        all_recipient[(at + o) * stride + r] = o_recipient[o, r]
                opt_first[t + 1] = at + k
        spans[b] = span
        weight = game_weight_of(scores[3], span, gap[b])
        n_opp = n_opponents[b]
        elim = elimination[b]
        baseline = baseline_material + score_events(
            baseline_events, n_seats, rivals, our_seat, opponents, n_opp, scores, elim, weight
        )
        # independent single units: most material, then fewest rounds
        for i in range(n):
            times[i] = 0
            if single[i]:
                best = sense * material[0, i]
                for c in range(1, R + 1):
                    if sense * material[c, i] > best:
                        best = sense * material[c, i]
                        times[i] = c
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
            u = 0
            for i in range(n):
                if is_shared and i < players:
                    t = team[lo + i]
                    if has_unit[t] and team_heads[t, 0] == i:
                        unit_kind[u] = 1
                        unit_ref[u] = t
                        u += 1
                elif single[i] and varies[i]:
                    unit_kind[u] = 0
                    unit_ref[u] = i
                    u += 1
            width = R + 1
            for t in range(n_teams):
                width = max(width, opt_first[t + 1] - opt_first[t])
            cells = n_units * width
            opt_mat_buf = _room(opt_mat_buf, cells)
            opt_picks_buf = _room(opt_picks_buf, cells)
            opt_ev_buf = _room(opt_ev_buf, cells)
            compact_buf = _room(compact_buf, cells)
            keys_buf = _room(keys_buf, cells)
            idle_buf = _room(idle_buf, cells)
            n_opt = n_opt_buf[:n_units]
            opt_mat = opt_mat_buf[:cells].reshape((n_units, width))
            opt_picks = opt_picks_buf[:cells].reshape((n_units, width))
            opt_ev = opt_ev_buf[:cells].reshape((n_units, width))
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
            n_free = 0
            for bit in range(63):
                if (free >> bit) & 1:
                    bits[n_free] = bit
                    n_free += 1
            if n_free > MAX_FREE_SEATS:
                status[b] = TOO_MANY_SEATS
                continue
            n_states = 1 << n_free
            expanded_buf = _room(expanded_buf, n_states)
            millis_buf = _room(millis_buf, n_states)
            over_buf = _room(over_buf, n_states)
            terminal_buf = _room(terminal_buf, n_states)
            to_go = _room(to_go, n_states)
            nxt = _room(nxt, n_states)
            live_buf = _room(live_buf, n_units * n_states)
            ended_buf = _room(ended_buf, n_units * n_states)
            expanded = expanded_buf[:n_states]
            millis = millis_buf[:n_states]
            over = over_buf[:n_states]
            terminal = terminal_buf[:n_states]
            for s in range(n_states):
                expanded[s] = base_events
                for j in range(n_free):
                    if (s >> j) & 1:
                        expanded[s] |= np.int64(1) << bits[j]
                millis[s] = score_events(expanded[s], n_seats, rivals, our_seat, opponents, n_opp, scores, elim, weight)
            compact = compact_buf[:cells].reshape((n_units, width))
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
            any_over = False
            any_live = False
            for s in range(n_states):
                over[s] = _ends_game(expanded[s], n_seats, rivals, our_seat, opponents, n_opp)
                any_over = any_over or over[s]
                any_live = any_live or not over[s]
            keys = keys_buf[:cells].reshape((n_units, width))
            idle = idle_buf[:cells].reshape((n_units, width))
            for u in range(n_units):
                nothing = 0
                for o in range(n_opt[u]):
                    if opt_picks[u, o] == 0:
                        nothing = opt_mat[u, o] * max_picks
                        break
                for o in range(n_opt[u]):
                    keys[u, o] = opt_mat[u, o] * max_picks - opt_picks[u, o]
                    idle[u, o] = nothing - opt_picks[u, o]
            for s in range(n_states):
                terminal[s] = _DEAD if over[s] else millis[s] * (sense * max_picks)
            first_live = live_buf[: n_units * n_states].reshape((n_units, n_states))
            best_live = _programme_into(n_opt, keys, compact, terminal, first_live, to_go, nxt)
            ended = False
            first = first_live
            if any_over:
                for s in range(n_states):
                    terminal[s] = millis[s] * (sense * max_picks) if over[s] else _DEAD
                first_over = ended_buf[: n_units * n_states].reshape((n_units, n_states))
                best_over = _programme_into(n_opt, idle, compact, terminal, first_over, to_go, nxt)
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
                times[:n] = 0
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
                    mask = all_mask[o * stride + r]
                    for p in range(team_n[t]):
                        if (mask >> p) & 1:
                            chosen[r, lo + team_heads[t, p]] = True
                    if all_recipient[o * stride + r] >= 0:
                        recipients[r, tb + t] = team_heads[t, all_recipient[o * stride + r]]
        if ended:  # a finished game's counters are worth nothing: the material of choosing nothing
            value = baseline_material
        values[b] = value + game - baseline
        events_out[b] = state_events
        results[b] = result_code(state_events, n_seats, rivals, our_seat, opponents, n_opp, scores, elim)


@njit(cache=True)
def _room(a: np.ndarray, need: int) -> np.ndarray:
    """``a`` if it has ``need`` entries, else a larger array of its type (contents not kept: scratch)."""
    if len(a) >= need:
        return a
    return np.empty(max(need, 2 * len(a)), dtype=a.dtype)


@njit(cache=True)
def _reserve(a: np.ndarray, used: int, need: int) -> np.ndarray:
    """``a`` if it has ``need`` entries, else a larger array of its type starting with ``a``'s first ``used``."""
    if len(a) >= need:
        return a
    out = np.empty(max(need, 2 * len(a)), dtype=a.dtype)
    out[:used] = a[:used]
    return out


#: Rows of :func:`decide_arrays`' per-board table of results.
D_VALUE, D_EVENTS, D_RESULT, D_STATUS, D_SPAN = range(5)


@njit(cache=True)
def decide_arrays(
    obj_off: np.ndarray,
    thr_off: np.ndarray,
    team_off: np.ndarray,
    numbers: np.ndarray,
    elimination: np.ndarray,
    gap: np.ndarray,
    counts: np.ndarray,
    gain: np.ndarray,
    weights: np.ndarray,
    ints: np.ndarray,
    worth: np.ndarray,
    head_gain: np.ndarray,
    thresholds: np.ndarray,
    team_threshold: np.ndarray,
    team_weight: np.ndarray,
    tough_delta: np.ndarray,
    presence: np.ndarray,
    special: np.ndarray,
    scores: np.ndarray,
    saga_chapter: int,
    sense: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """:func:`decide_batch` over a layout's tables, its outputs allocated here: what
    :func:`solver.kernels.decide_layout` reads.

    ``numbers``, ``ints`` and ``thresholds`` are the layout's per-board, per-row and per-threshold
    tables (:data:`solver.board.NUMBER_FIELDS`, :data:`~solver.board.ROW_FIELDS`,
    :data:`~solver.board.THRESHOLD_FIELDS`), passed whole: a compiled call's dispatch costs per
    argument, and a board alone is decided in microseconds.  Returns per board (rows
    :data:`D_VALUE` ... :data:`D_SPAN`) its value, game events, result code, status and material
    span; per proliferate and row whether it is chosen; per proliferate and 2HG team the head
    getting the team's poison (-1: none); and whether some board coupled more than
    :data:`MAX_FREE_SEATS` seats.
    """
    n_boards = numbers.shape[1]
    rounds = numbers[N_ROUNDS]
    width = 0
    for b in range(n_boards):
        width = max(width, rounds[b])
    out = np.zeros((5, n_boards), dtype=np.int64)
    chosen = np.zeros((width, ints.shape[1]), dtype=np.bool_)
    recipients = np.full((width, team_off[n_boards]), -1, dtype=np.int64)
    decide_batch(
        obj_off, thr_off, team_off, numbers[N_PLAYERS], rounds, numbers[N_PROLIFERATOR], numbers[N_SHARED],
        numbers[N_POISON_LOSES], numbers[N_OPPONENTS], elimination, gap, counts, gain, weights, ints[R_FLAGS],
        ints[R_TOUGHNESS], ints[R_DAMAGE], ints[R_CHAPTERS], ints[R_LIFE], worth, ints[R_SIDE], ints[R_SEAT],
        ints[R_TEAM], head_gain, thresholds[0], thresholds[1], thresholds[2], thresholds[3], thresholds[4],
        thresholds[5], team_threshold, team_weight, tough_delta, presence, special, scores, saga_chapter, sense,
        out[D_VALUE], out[D_EVENTS], out[D_RESULT], out[D_STATUS], out[D_SPAN], chosen, recipients,
    )  # fmt: skip
    too_many = False
    for b in range(n_boards):
        too_many = too_many or out[D_STATUS, b] == TOO_MANY_SEATS
    return out, chosen, recipients, too_many
