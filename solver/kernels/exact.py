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
    "SPAN_ONLY",
    "TOO_MANY_SEATS",
    "decide_batch",
    "game_of_events",
    "split_units",
    "tabulate_rows",
    "team_entries_bound",
    "team_entries_into",
    "team_option_value",
    "team_option_values",
    "team_options",
    "team_options_into",
    "team_poison_810_10",
]

#: Seats whose loss one choice can decide; the programme has 2**this states.
MAX_FREE_SEATS = 20
#: Status of a board whose choice couples more seats than that.
TOO_MANY_SEATS = 1
#: The ``sense`` of :func:`decide_batch` that works out each board's material span alone (``spans``), choosing
#: nothing: ``1`` maximises, ``-1`` minimises.
SPAN_ONLY = 0
#: Game results by code.
RESULT_CODES = ("none", "eliminations", "win", "draw", "loss")
_NEG = -(1 << 62)
#: Rows of a batch's largest board up to which :func:`decide_batch` keeps its per-row arrays in its blocks.
_ROWS_IN_BLOCK = 2048
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
def choosable_701_34a(held: int, flags: int) -> bool:
    """701.34a: a proliferate may choose a permanent or player with a counter (``held``: its most counters of a
    kind), not one phased out (702.26b: it is treated as though it doesn't exist)."""
    return held > 0 and not flags & F_PHASED_OUT


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
    choosable: np.ndarray,
) -> None:
    """:func:`tabulate_rows` into the arrays given: ``material`` / ``events`` (rounds + 1 x rows), ``choosable``
    (per row, :func:`choosable_701_34a`), and scratch (``now``: one row of kinds, ``dies``: one entry, ``reached`` /
    ``crossed``: per threshold of the board), every entry written (no allocation).

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
        moves = 0  # a row no proliferate adds to is the same chosen or not: settled once
        held = 0  # its most counters of a kind
        for k in range(n_kinds):  # (an OR and a max rather than tests, so that it compiles to vector code)
            moves |= gain[row, k]
            held = max(held, counts[row, k])
        choosable[i] = choosable_701_34a(held, flags[row])
        last = rounds if moves != 0 else 0
        for c in range(last + 1):
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
        for c in range(last + 1, rounds + 1):
            events[c, i] = events[0, i]
            material[c, i] = material[0, i]


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
        np.zeros(n_thr, dtype=np.bool_), np.zeros(n, dtype=np.bool_),
    )  # fmt: skip
    return material, events


@inner
def split_units_into(
    n_rounds: int,
    n: int,
    material: np.ndarray,
    events: np.ndarray,
    choosable: np.ndarray,
    n_heads: int,
    single: np.ndarray,
    varies: np.ndarray,
) -> tuple[int, int, int]:
    """:func:`split_units` writing ``single`` and ``varies`` into the arrays given (one entry per row), the tables'
    first ``n_rounds`` rows and ``n`` columns read."""
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
    base_material, base_events, span = split_units_into(
        material.shape[0], n, material, events, choosable, n_heads, single, varies
    )
    return single, varies, base_material, base_events, span


@inner
def team_entries_bound(n_heads: int) -> int:
    """How many per-round entries (:func:`team_entries_into`) a team of ``n_heads`` heads has at most: each subset
    of its heads once per recipient it can name, and the empty one."""
    return n_heads * (1 << max(n_heads - 1, 0)) + 1


@inner
def team_entries_into(
    ok: np.ndarray,
    n_heads: int,
    poisoned: bool,
    heads: np.ndarray,
    idx: np.ndarray,
    entry_mask: np.ndarray,
    entry_recipient: np.ndarray,
) -> int:
    """A 2HG team's choices in one round (701.34b): each subset of the heads that can be chosen (larger
    subsets first, in combination order) and, when the team has poison, which chosen head gets its counter.

    ``ok[:n_heads]``: whether each head can be chosen.  Writes ``entry_mask`` (the heads' bitmask) and
    ``entry_recipient`` (-1: none); ``heads`` and ``idx`` are scratch of ``n_heads`` entries.  Returns the
    number of entries (at most :func:`team_entries_bound`).
    """
    m = 0
    for h in range(n_heads):
        if ok[h]:
            heads[m] = h
            m += 1
    n_entries = 0
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
    return n_entries


@inner
def team_options_into(
    rounds: int,
    n_heads: int,
    gains: np.ndarray,
    n_entries: int,
    entry_mask: np.ndarray,
    entry_recipient: np.ndarray,
    times: np.ndarray,
    poison: np.ndarray,
    masks: np.ndarray,
    recipients: np.ndarray,
    table: np.ndarray,
    used: np.ndarray,
    order: np.ndarray,
    start: np.ndarray,
) -> tuple[int, int]:
    """A 2HG team's options over all rounds (701.34b, 810.10), from its per-round entries
    (:func:`team_entries_into`), into the arrays given: what :func:`team_options` returns.

    Round by round, each option so far is extended by each entry; only the first pattern
    (round-major) per outcome -- how often each head is chosen and the poison given -- is kept
    (an open-addressing set, ``table`` / ``used``).  The options are built in two halves,
    ``times[side, q, :n_heads]``, ``poison[side, q]``, ``masks[side, q, :rounds]`` and
    ``recipients[side, q, :rounds]``, one round reading a half and writing the other; ``order``
    then lists the options with the most picks first (``start``: ``rounds * n_heads + 2``
    entries of scratch).  Returns (the number of options, the half holding them), or (-1, 0)
    when a round would need more options than the arrays hold (the caller grows them and calls again).
    """
    cap = poison.shape[1]
    base = rounds + 1
    side = 0
    p = 1
    for h in range(n_heads):
        times[0, 0, h] = 0
    poison[0, 0] = 0
    for r in range(rounds):
        size = 16
        while size < 2 * p * n_entries:
            size *= 2
        if p * n_entries > cap or len(table) < size:
            return -1, 0
        for j in range(size):
            used[j] = False  # the outcomes seen this round
        out = 1 - side
        q = 0
        for a in range(p):
            for e in range(n_entries):
                key = 0
                scale = 1
                for h in range(n_heads):
                    key += (times[side, a, h] + ((entry_mask[e] >> h) & 1)) * scale
                    scale *= base
                given = poison[side, a] + (gains[entry_recipient[e]] if entry_recipient[e] >= 0 else 0)
                key += given * scale
                if not _first_time(table, used, size - 1, key):
                    continue
                for h in range(n_heads):
                    times[out, q, h] = times[side, a, h] + ((entry_mask[e] >> h) & 1)
                poison[out, q] = given
                for rr in range(r):
                    masks[out, q, rr] = masks[side, a, rr]
                    recipients[out, q, rr] = recipients[side, a, rr]
                masks[out, q, r] = entry_mask[e]
                recipients[out, q, r] = entry_recipient[e]
                q += 1
        side = out
        p = q
    # the options, most picks first (a stable counting sort: first found first)
    most = rounds * n_heads
    for j in range(most + 2):
        start[j] = 0
    for o in range(p):
        picks = 0
        for h in range(n_heads):
            picks += times[side, o, h]
        start[most - picks + 1] += 1
    for j in range(1, most + 2):
        start[j] += start[j - 1]
    for o in range(p):
        picks = 0
        for h in range(n_heads):
            picks += times[side, o, h]
        order[start[most - picks]] = o
        start[most - picks] += 1
    return p, side


@njit(cache=True)
def _team_scratch(
    n_heads: int, rounds: int, cap: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Arrays for :func:`team_options_into` holding ``cap`` options of ``n_heads`` heads over ``rounds`` rounds:
    times, poison, masks (zeros), recipients (-1), the table and the order (unset, every entry written before it
    is read) as pieces of one block, and the table's marks: two allocations, not seven (the env's reward asks for a
    team's options at every 2HG decision)."""
    stride = max(rounds, 1)
    heads = max(n_heads, 1)
    size = 16
    while size < 2 * cap:
        size *= 2
    a, b, c = 2 * cap * heads, 2 * cap, 2 * cap * stride
    block = np.empty(a + b + 2 * c + size + cap, dtype=np.int64)
    block[: a + b + c] = 0
    block[a + b + c : a + b + 2 * c] = -1
    return (
        block[:a].reshape((2, cap, heads)),
        block[a : a + b].reshape((2, cap)),
        block[a + b : a + b + c].reshape((2, cap, stride)),
        block[a + b + c : a + b + 2 * c].reshape((2, cap, stride)),
        block[a + b + 2 * c : a + b + 2 * c + size],
        np.empty(size, dtype=np.bool_),
        block[a + b + 2 * c + size :],
    )


@njit(cache=True)
def team_options(
    rounds: int, ok: np.ndarray, poisoned: bool, gains: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A 2HG team's options over all rounds (701.34b, 810.10): what its unit chooses among.

    Per round, the heads chosen (a subset of those that can be, larger subsets first, in
    combination order) and, when the team has poison, which chosen head gets the team's counter.
    Only the first pattern (round-major) per outcome -- how often each head is chosen and the
    poison given -- is kept; options come with the most picks first.  Returns per option: times
    per head, poison given, picks, and per round the heads' bitmask and the recipient (-1: none)
    (:func:`team_entries_into` and :func:`team_options_into`, in arrays of their own).
    """
    n_heads = len(ok)
    bound, heads = team_entries_bound(n_heads), max(n_heads, 1)
    # the entries, two heads' scratch and the rounds' starts as pieces of one block (one allocation, not five)
    ints = np.zeros(2 * bound + 2 * heads + rounds * n_heads + 2, dtype=np.int64)
    entry_mask, entry_recipient = ints[:bound], ints[bound : 2 * bound]
    entry_recipient[:] = -1
    n_entries = team_entries_into(
        ok, n_heads, poisoned, ints[2 * bound : 2 * bound + heads], ints[2 * bound + heads : 2 * bound + 2 * heads],
        entry_mask, entry_recipient,
    )  # fmt: skip
    cap = 16
    start = ints[2 * bound + 2 * heads :]
    while True:
        times, poison, masks, recipients, table, used, order = _team_scratch(n_heads, rounds, cap)
        k, side = team_options_into(
            rounds, n_heads, gains, n_entries, entry_mask, entry_recipient, times, poison, masks, recipients, table,
            used, order, start,
        )  # fmt: skip
        if k >= 0:
            break
        cap *= 4
    stride = max(rounds, 1)
    out = np.zeros(k * n_heads + 2 * k + 2 * k * stride, dtype=np.int64)  # the five outputs, pieces of one block
    out_times = out[: k * n_heads].reshape((k, n_heads))
    out_poison = out[k * n_heads : k * n_heads + k]
    picks = out[k * n_heads + k : k * n_heads + 2 * k]
    out_mask = out[k * n_heads + 2 * k : k * n_heads + 2 * k + k * stride].reshape((k, stride))
    out_recipient = out[k * n_heads + 2 * k + k * stride :].reshape((k, stride))
    out_recipient[:, :] = -1
    for j in range(k):
        o = order[j]
        for h in range(n_heads):
            out_times[j, h] = times[side, o, h]
            picks[j] += times[side, o, h]
        out_poison[j] = poison[side, o]
        for r in range(rounds):
            out_mask[j, r] = masks[side, o, r]
            out_recipient[j, r] = recipients[side, o, r]
    return out_times, out_poison, picks, out_mask, out_recipient


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


@inner
def team_poison_810_10(total: int, weight: int, threshold: int, team: int) -> tuple[int, int]:
    """A 2HG team's shared poison, counted once per team (810.10): its material, and its loss (704.6b, 810.11).

    ``weight`` is milli-points per counter, signed for the proliferator; the loss is the team's
    seat bit when ``total`` reaches the team's ``threshold``, else 0.
    """
    event = 1 << team if total >= threshold else 0
    return weight * total, event


@inner
def team_option_value(
    times: np.ndarray,
    side: int,
    o: int,
    n_heads: int,
    given: int,
    start: int,
    weight: int,
    threshold: int,
    team: int,
    heads: np.ndarray,
    h_row: int,
    material: np.ndarray,
    events: np.ndarray,
) -> tuple[int, int]:
    """The material and loss events of option ``o`` of a 2HG team (``times[side, o, p]``: how often it chooses head
    ``p``, board row ``heads[h_row, p]``; ``given``: the poison it gives): the team's poison, ``start`` plus
    ``given`` (:func:`team_poison_810_10`), and its heads' rows of ``material`` and ``events``
    (:func:`tabulate_rows`) chosen as often as it chooses them."""
    m, e = team_poison_810_10(start + given, weight, threshold, team)
    for p in range(n_heads):
        m += material[times[side, o, p], heads[h_row, p]]
        e |= events[times[side, o, p], heads[h_row, p]]
    return m, e


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
    n_heads = len(heads)
    mats = np.zeros(k, dtype=np.int64)
    evs = np.zeros(k, dtype=np.int64)
    every = np.ascontiguousarray(times).reshape((1, k, n_heads))
    rows = np.ascontiguousarray(heads).reshape((1, n_heads))
    for o in range(k):
        mats[o], evs[o] = team_option_value(
            every, 0, o, n_heads, poison[o], start, weight, threshold, team, rows, 0, material, events
        )
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

    ``sense`` 1 finds each board's optimum, -1 its worst choice; :data:`SPAN_ONLY` writes each board's material
    span alone (``spans``: what the game weight is raised above).

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
    max_heads = 1  # the most heads of a team whose poison is shared
    for b in range(n_boards):
        if shared[b] == 1:
            lo = obj_off[b]
            for t in range(team_off[b + 1] - team_off[b]):
                heads = 0
                for i in range(n_players[b]):
                    if team[lo + i] == t:
                        heads += 1
                max_heads = max(max_heads, heads)
    n_entries_cap = team_entries_bound(max_heads)
    stride = max(max_rounds, 1)  # a team option's per-round entries
    # The working arrays of fixed size are pieces of one integer and one boolean block: a board alone is
    # decided in microseconds, and forty allocations would be most of them.  A huge board's per-row arrays are
    # arrays of their own: each stays below glibc's mmap threshold (solver.allocator), so the next call reuses
    # its pages rather than faulting a fresh mapping in.
    n_slots = max_n + max_teams  # units of a board at most
    rows_apart = max_n > _ROWS_IN_BLOCK
    n_rows = 0 if rows_apart else max_n  # the per-row arrays' share of the blocks
    n_row_slots = 0 if rows_apart else n_slots
    o_cap, n_opts, opt_width, n_states_cap = 64, 16, max_rounds + 1, 16  # the growing ones' first sizes
    u_cap = min(n_slots, 16)
    n_fixed = (
        2 * (max_rounds + 1) * n_rows + n_kinds + max_players + n_rows + max_teams * max_players + 4 * max_teams + 1
        + 3 * max_players + 2 * n_entries_cap + max_rounds * max_players + 2 + 3 * n_row_slots + 64
    )  # fmt: skip
    n_growing = (
        o_cap * (2 * max_players + 2 + 4 * stride + 1) + 2 * o_cap + n_opts * (3 + 2 * stride)
        + 6 * u_cap * opt_width + 5 * n_states_cap + 2 * u_cap * n_states_cap
    )  # fmt: skip
    n_int = n_fixed + n_growing
    n_bool = 1 + 2 * max_thr + 3 * n_rows + max_teams + max_players + 2 * o_cap + n_states_cap
    ints_block = np.empty(n_int, dtype=np.int64)  # every entry is written before it is read
    bools_block = np.empty(n_bool, dtype=np.bool_)
    at = 0
    # per row and per threshold of a board
    material = ints_block[at : at + (max_rounds + 1) * n_rows].reshape((max_rounds + 1, n_rows))
    at += (max_rounds + 1) * n_rows
    events = ints_block[at : at + (max_rounds + 1) * n_rows].reshape((max_rounds + 1, n_rows))
    at += (max_rounds + 1) * n_rows
    now = ints_block[at : at + n_kinds].reshape((1, n_kinds))  # one row's counters (tabulate_into)
    at += n_kinds
    rivals = ints_block[at : at + max_players]  # a seat per player at most
    at += max_players
    times = ints_block[at : at + n_rows]
    at += n_rows
    # per team of a board
    team_heads = ints_block[at : at + max_teams * max_players].reshape((max_teams, max_players))
    at += max_teams * max_players
    team_n = ints_block[at : at + max_teams]
    start_poison = ints_block[at + max_teams : at + 2 * max_teams]
    team_choice = ints_block[at + 2 * max_teams : at + 3 * max_teams]
    opt_first = ints_block[at + 3 * max_teams : at + 4 * max_teams + 1]
    at += 4 * max_teams + 1
    head_gains = ints_block[at : at + max_players]
    heads_scratch = ints_block[at + max_players : at + 2 * max_players]
    idx_scratch = ints_block[at + 2 * max_players : at + 3 * max_players]
    at += 3 * max_players
    # a team's options as they are built (team_options_into)
    entry_mask = ints_block[at : at + n_entries_cap]
    entry_recipient = ints_block[at + n_entries_cap : at + 2 * n_entries_cap]
    at += 2 * n_entries_cap
    pick_start = ints_block[at : at + max_rounds * max_players + 2]
    at += max_rounds * max_players + 2
    # the coupled units
    unit_kind = ints_block[at : at + n_row_slots]  # 0 single, 1 team
    unit_ref = ints_block[at + n_row_slots : at + 2 * n_row_slots]
    n_opt_buf = ints_block[at + 2 * n_row_slots : at + 3 * n_row_slots]
    at += 3 * n_row_slots
    bits = ints_block[at : at + 64]
    dies = bools_block[0:1]
    reached = bools_block[1 : 1 + max_thr]
    crossed = bools_block[1 + max_thr : 1 + 2 * max_thr]
    at = 1 + 2 * max_thr
    choosable = bools_block[at : at + n_rows]
    single = bools_block[at + n_rows : at + 2 * n_rows]
    varies = bools_block[at + 2 * n_rows : at + 3 * n_rows]
    at += 3 * n_rows
    if rows_apart:
        material = np.empty((max_rounds + 1, max_n), dtype=np.int64)
        events = np.empty((max_rounds + 1, max_n), dtype=np.int64)
        times = np.empty(max_n, dtype=np.int64)
        unit_kind = np.empty(n_slots, dtype=np.int64)
        unit_ref = np.empty(n_slots, dtype=np.int64)
        n_opt_buf = np.empty(n_slots, dtype=np.int64)
        choosable = np.empty(max_n, dtype=np.bool_)
        single = np.empty(max_n, dtype=np.bool_)
        varies = np.empty(max_n, dtype=np.bool_)
    has_unit = bools_block[at : at + max_teams]
    ok = bools_block[at + max_teams : at + max_teams + max_players]
    # Grown on demand (then arrays of their own): a team's options as they are built, the teams' options one
    # after another, the units' options (units x options), the programme's states.
    at = n_fixed
    o_times = ints_block[at : at + 2 * o_cap * max_players].reshape((2, o_cap, max_players))
    at += 2 * o_cap * max_players
    o_poison = ints_block[at : at + 2 * o_cap].reshape((2, o_cap))
    at += 2 * o_cap
    o_masks = ints_block[at : at + 2 * o_cap * stride].reshape((2, o_cap, stride))
    at += 2 * o_cap * stride
    o_recipients = ints_block[at : at + 2 * o_cap * stride].reshape((2, o_cap, stride))
    at += 2 * o_cap * stride
    o_table = ints_block[at : at + 2 * o_cap]
    at += 2 * o_cap
    o_order = ints_block[at : at + o_cap]
    at += o_cap
    all_material = ints_block[at : at + n_opts]
    all_picks = ints_block[at + n_opts : at + 2 * n_opts]
    all_events = ints_block[at + 2 * n_opts : at + 3 * n_opts]
    at += 3 * n_opts
    all_mask = ints_block[at : at + n_opts * stride]
    all_recipient = ints_block[at + n_opts * stride : at + 2 * n_opts * stride]
    at += 2 * n_opts * stride
    opt_tables = ints_block[at : at + 6 * u_cap * opt_width].reshape((6, u_cap, opt_width))
    at += 6 * u_cap * opt_width
    state_tables = ints_block[at : at + 5 * n_states_cap].reshape((5, n_states_cap))
    at += 5 * n_states_cap
    first_tables = ints_block[at : at + 2 * u_cap * n_states_cap].reshape((2, u_cap, n_states_cap))
    at = n_bool - 2 * o_cap - n_states_cap
    o_used = bools_block[at : at + 2 * o_cap]
    over_buf = bools_block[at + 2 * o_cap : at + 2 * o_cap + n_states_cap]
    opt_mat, opt_picks, opt_ev, compact, keys, idle = (
        opt_tables[0], opt_tables[1], opt_tables[2], opt_tables[3], opt_tables[4], opt_tables[5]
    )  # fmt: skip
    expanded, millis, terminal, to_go, nxt = (
        state_tables[0], state_tables[1], state_tables[2], state_tables[3], state_tables[4]
    )  # fmt: skip
    first_live, first_over = first_tables[0], first_tables[1]
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
        tabulate_into(
            lo, hi, t_lo, t_hi, R, n_seats, poison_loses[b] == 1, team_threshold, tb, counts, gain, weights, flags,
            toughness, damage, chapters, life, worth, side, seat, team, thr_row, thr_kind, thr_at, thr_code,
            thr_amount, thr_seat, tough_delta, presence, special, saga_chapter, material, events,
            now, dies, reached, crossed, choosable,
        )  # fmt: skip
        # the unit split
        baseline_material = 0
        baseline_events = 0
        for i in range(n):
            baseline_material += material[0, i]
            baseline_events |= events[0, i]
        base_material, base_events, span = split_units_into(
            R + 1, n, material, events, choosable, players if is_shared else 0, single, varies
        )
        # 2HG team units (810.10): heads, start poison, options
        for t in range(max(n_teams, 1)):
            for p in range(max_players):
                team_heads[t, p] = -1
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
                n_entries = team_entries_into(
                    ok, h_n, start_poison[t] > 0, heads_scratch, idx_scratch, entry_mask, entry_recipient
                )
                while True:
                    k, half = team_options_into(
                        R, h_n, head_gains, n_entries, entry_mask, entry_recipient, o_times, o_poison, o_masks,
                        o_recipients, o_table, o_used, o_order, pick_start,
                    )  # fmt: skip
                    if k >= 0:
                        break
                    o_cap *= 4
                    o_times, o_poison, o_masks, o_recipients, o_table, o_used, o_order = _team_scratch(
                        max_players, max_rounds, o_cap
                    )
                at = opt_first[t]
                if len(all_material) < at + k:  # the five grow together
                    all_material = _reserve(all_material, at, at + k)
                    all_picks = _reserve(all_picks, at, at + k)
                    all_events = _reserve(all_events, at, at + k)
                    all_mask = _reserve(all_mask, at * stride, (at + k) * stride)
                    all_recipient = _reserve(all_recipient, at * stride, (at + k) * stride)
                lo_m, hi_m = -_NEG, _NEG
                for j in range(k):  # the options, most picks first
                    o = o_order[j]
                    m, e = team_option_value(
                        o_times, half, o, h_n, o_poison[half, o], start_poison[t], team_weight[tb + t],
                        team_threshold[tb + t], t, team_heads, t, material, events,
                    )  # fmt: skip
                    hi_m = max(hi_m, m)
                    lo_m = min(lo_m, m)
                    picks = 0
                    for p in range(h_n):
                        picks += o_times[half, o, p]
                    all_material[at + j] = m
                    all_picks[at + j] = picks
                    all_events[at + j] = e
                    for r in range(R):
                        all_mask[(at + j) * stride + r] = o_masks[half, o, r]
                        all_recipient[(at + j) * stride + r] = o_recipients[half, o, r]
                span += hi_m - lo_m
                opt_first[t + 1] = at + k
        spans[b] = span
        if sense == SPAN_ONLY:  # the span alone: no programme, nothing else of this board written
            continue
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
            if n_units > u_cap:  # the units' tables, more rows (the programme's first options too)
                u_cap = max(n_units, 2 * u_cap)
                opt_width = max(width, opt_width)
                first_tables = np.empty((2, u_cap, n_states_cap), dtype=np.int64)
                first_live, first_over = first_tables[0], first_tables[1]
            if width > opt_width or opt_tables.shape[1] < u_cap:
                opt_width = max(width, 2 * opt_width) if width > opt_width else opt_width
                opt_tables = np.empty((6, u_cap, opt_width), dtype=np.int64)
                opt_mat, opt_picks, opt_ev, compact, keys, idle = (
                    opt_tables[0],
                    opt_tables[1],
                    opt_tables[2],
                    opt_tables[3],
                    opt_tables[4],
                    opt_tables[5],
                )
            n_opt = n_opt_buf[:n_units]
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
            if n_states > n_states_cap:
                n_states_cap = max(n_states, 2 * n_states_cap)
                state_tables = np.empty((5, n_states_cap), dtype=np.int64)
                expanded, millis, terminal, to_go, nxt = (
                    state_tables[0],
                    state_tables[1],
                    state_tables[2],
                    state_tables[3],
                    state_tables[4],
                )
                over_buf = np.empty(n_states_cap, dtype=np.bool_)
                first_tables = np.empty((2, u_cap, n_states_cap), dtype=np.int64)
                first_live, first_over = first_tables[0], first_tables[1]
            over = over_buf
            for s in range(n_states):
                expanded[s] = base_events
                for j in range(n_free):
                    if (s >> j) & 1:
                        expanded[s] |= np.int64(1) << bits[j]
                millis[s] = score_events(expanded[s], n_seats, rivals, our_seat, opponents, n_opp, scores, elim, weight)
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
            best_live = _programme_into(n_opt, keys, compact, terminal[:n_states], first_live, to_go, nxt)
            ended = False
            first = first_live
            if any_over:
                for s in range(n_states):
                    terminal[s] = millis[s] * (sense * max_picks) if over[s] else _DEAD
                best_over = _programme_into(n_opt, idle, compact, terminal[:n_states], first_over, to_go, nxt)
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
