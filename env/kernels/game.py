"""The game between the agent's decisions, compiled: events, opportunities, scripted seats, state-based actions.

One function per step of the game (docs/environments.md: a seat's turn, its events, its opportunities,
their costs, a decision and its resolution), over one game's slots (:mod:`env.kernels.state`) and the
tables of :mod:`env.kernels.tables` (the cards of :mod:`env.scenarios`, :mod:`env.opportunities` and
:mod:`env.events` as data).  The state-based
actions of every object are the compiled core's :func:`solver.kernels.sba.settle_row`; who
loses is :func:`solver.kernels.value.lost_seats_104_2a`; the oracle seat is
:func:`solver.kernels.exact.decide_batch`.  Every random draw reads the game's own stream
(:mod:`env.kernels.rng`).

``S`` is the tuple of state arrays (:data:`STATE_ORDER`) and ``T`` the tables (:meth:`Tables.as_tuple`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from solver.core import (
    F_BATTLE,
    F_CREATURE,
    F_DESTRUCTIBLE,
    F_PHASED_OUT,
    F_PLANESWALKER,
    F_PLAYER,
    F_PRESENT,
    F_SAGA,
    decide_batch,
    inner,
    lost_seats_104_2a,
    popcount,
    rivals_of,
    score_events,
    settle_row,
    tabulate_into,
    team_options,
)

from .gains import game_gains, game_rounds
from .jit import boundary, spine
from .rng import draw_below, draw_unit
from .state import (
    B_DIES,
    B_GONE,
    B_LOSERS,
    B_LOST_GONE,
    B_PLAYER_IN,
    B_REMOVED,
    B_SECOND,
    G_AGENT,
    G_DECISIONS,
    G_ERROR,
    G_NEFF,
    G_NEXT_SEAT,
    G_NEXT_UID,
    G_NPERM,
    G_NPICK,
    G_NSEATS,
    G_OVER,
    G_PENDING,
    G_PROLIF,
    G_PROLIFS,
    G_PROUND,
    G_PROUNDS,
    G_PSAC,
    G_PSEAT,
    G_PSRC,
    G_PTARGET,
    G_QHEAD,
    G_QLEN,
    G_STEPS,
    G_TRUNC,
    G_TURNS,
    MAX_QUEUE,
    O_CARD,
    O_CTRL,
    O_DAMAGE,
    O_PHASED,
    O_PROT,
    O_UID,
    Q_FIZZLED,
    Q_SAC,
    Q_SEAT,
    Q_SRC,
    Q_TARGET,
    S_DECK,
    S_IN,
    S_LIFE,
    S_LOST,
    S_TEAM,
    X_FRAME,
    X_LEGAL,
    X_TRIG_SEAT,
    X_TRIG_SRC,
)
from .tables import (
    C_CHAPTERS,
    C_EFFECT,
    C_INDESTRUCTIBLE,
    C_INFECT,
    C_LEGENDARY,
    C_NAME,
    C_POWER,
    C_SOURCE,
    C_TOUGHNESS,
    C_TOXIC,
    C_TYPES,
    C_WORTH,
    F_ACTIVATE,
    F_ATTACK,
    F_ENTER,
    F_FIZZLE,
    F_GROW,
    F_LOYALTY,
    F_REMOVAL,
    F_SIEGE,
    F_SPELL,
    F_WITHER,
    I_BANDIT,
    I_C_MAX,
    I_CAPACITY,
    I_DEFENSE,
    I_END_STEP,
    I_ENERGY,
    I_EVENTS,
    I_EXPERIENCE,
    I_GOES_ON,
    I_LANDFALL,
    I_LORE,
    I_LOYALTY,
    I_MAX_TURNS,
    I_MINUS,
    I_N_SPELLS,
    I_OPPONENT,
    I_PLUS,
    I_POISON,
    I_POISON_THRESHOLD,
    I_POISON_W,
    I_SAGA_CHAPTER,
    I_SEATS_ARE_TEAMS,
    I_SEQUENTIAL,
    I_SHARED,
    I_SPELL0,
    I_START_LIFE,
    I_START_PERMANENTS,
    OPPONENTS,
    PRELUDE_DESTROY,
    PRELUDE_NONE,
    SRC_ACTIVATED,
    SRC_COMBAT,
    SRC_DIES,
    SRC_ENTERS,
    SRC_NEEDS,
    SRC_OPENING,
    SRC_PRELUDE,
    SRC_PROLIFS,
    SRC_SAC,
    SRC_TARGET,
    SRC_VRASKA,
    TARGET_NONE,
    TARGET_OWN,
)
from .tables import (
    I_GIVEN as I_GIVEN_SRC,
)

__all__ = ["STATE_ORDER", "advance", "opening", "play_games", "resolve", "settle_game"]

#: The state arrays in the order of ``S`` (attributes of :class:`env.kernels.state.GameArrays`).
STATE_ORDER = ("counts", "gain", "obj", "seat", "game", "effects", "queue", "chosen", "recipients", "picked", "order",
               "rng", "scratch", "marks", "start")  # fmt: skip

_CREATURE, _PLANESWALKER, _BATTLE, _ARTIFACT = 4, 32, 2, 1
#: ``game[G_AGENT]`` of a game with no learning seat: every seat is decided from outside (the PettingZoo adapter,
#: whose tables' opponent is :data:`POLICY_PYTHON`, so :func:`advance` returns :data:`PYTHON` for every decision).
NO_AGENT = -1
#: Outcomes of :func:`advance`: the agent decides, the game is over, a Python seat must decide.
AGENT, OVER, PYTHON = 0, 1, 2
#: The seats' policy codes (:data:`env.kernels.tables.OPPONENTS`, the names of :data:`env.policies.BOARD_POLICIES`).
POLICY_NOOP, POLICY_RANDOM, POLICY_RULE, POLICY_ORACLE, POLICY_EVERYTHING, POLICY_PYTHON = (
    OPPONENTS.index(name) for name in ("noop", "random", "rule", "oracle", "everything", "python")
)
#: The agent's policy when its decisions are made outside (the env's step): :func:`advance` stops for them.
AGENT_EXTERNAL = -1


# ---------------------------------------------------------------------- small helpers
@inner
def flags_of(s: int, seats: int, obj: np.ndarray, card: np.ndarray) -> int:
    """The compiled core's row flags (solver.kernels.layout) of slot ``s``."""
    if s < seats:
        return F_PLAYER
    c = obj[s, O_CARD]
    if obj[s, O_PHASED]:
        return F_PHASED_OUT
    types = card[c, C_TYPES]
    f = F_PRESENT
    if types & _CREATURE:
        f |= F_CREATURE
        if not card[c, C_INDESTRUCTIBLE]:
            f |= F_DESTRUCTIBLE
    if types & _PLANESWALKER:
        f |= F_PLANESWALKER
    if types & _BATTLE:
        f |= F_BATTLE
    if card[c, C_CHAPTERS] > 0:
        f |= F_SAGA
    return f


@inner
def same_team_head(seat: np.ndarray, player: int, shared: bool, p: int) -> bool:
    """Whether player ``p`` shares ``player``'s life and poison (itself, or its 2HG teammate: 810.4, 810.10)."""
    return seat[p, S_IN] == 1 and (p == player or (shared and seat[p, S_TEAM] == seat[player, S_TEAM]))


@inner
def add_counters(
    counts: np.ndarray, seat: np.ndarray, s: int, col: int, amount: int, shared: bool, poison: int
) -> None:
    """Counters put on slot ``s``: a 2HG team's poison on every head (810.10), else never below zero."""
    seats = seat.shape[0]
    if col == poison and s < seats:
        for p in range(seats):
            if same_team_head(seat, s, shared, p):
                counts[p, col] += amount
    else:
        counts[s, col] = max(counts[s, col] + amount, 0)


@inner
def lose_life(seat: np.ndarray, player: int, amount: int, shared: bool) -> None:
    """A player loses life; a 2HG team's life is shared (810.4)."""
    for p in range(seat.shape[0]):
        if same_team_head(seat, player, shared, p):
            seat[p, S_LIFE] -= amount


@inner
def slot_of_uid(obj: np.ndarray, seats: int, n_perm: int, uid: int) -> int:
    for s in range(seats, seats + n_perm):
        if obj[s, O_UID] == uid:
            return s
    return -1


@inner
def controls(obj: np.ndarray, card: np.ndarray, seats: int, n_perm: int, seat: int, name: int) -> bool:
    """Whether ``seat`` controls a phased-in permanent of card name ``name``."""
    for s in range(seats, seats + n_perm):
        if obj[s, O_CTRL] == seat and not obj[s, O_PHASED] and card[obj[s, O_CARD], C_NAME] == name:
            return True
    return False


@inner
def queue_push(queue: np.ndarray, game: np.ndarray, front: bool, seat: int, src: int, target: int, sac: int,
               fizzled: int) -> None:  # fmt: skip
    """Queue an opportunity at the back (or the front: a dies trigger goes first)."""
    n = game[G_QLEN]
    if n >= MAX_QUEUE:
        game[G_ERROR] = 1
        return
    if front:
        game[G_QHEAD] = (game[G_QHEAD] - 1) % MAX_QUEUE
        at = game[G_QHEAD]
    else:
        at = (game[G_QHEAD] + n) % MAX_QUEUE
    queue[at, Q_SEAT] = seat
    queue[at, Q_SRC] = src
    queue[at, Q_TARGET] = target
    queue[at, Q_SAC] = sac
    queue[at, Q_FIZZLED] = fizzled
    game[G_QLEN] = n + 1


@inner
def remove_slots(counts: np.ndarray, obj: np.ndarray, game: np.ndarray, effects: np.ndarray, card: np.ndarray,
                 seats: int, gone: np.ndarray) -> None:  # fmt: skip
    """The permanents in ``gone`` leave (the others keep their order), and so do the
    replacement effects no permanent of their card under their controller generates any more."""
    n_perm = game[G_NPERM]
    w = seats
    any_gone = False
    for s in range(seats, seats + n_perm):
        if gone[s]:
            any_gone = True
            continue
        if w != s:
            for k in range(counts.shape[1]):
                counts[w, k] = counts[s, k]
            for k in range(obj.shape[1]):
                obj[w, k] = obj[s, k]
        w += 1
    if not any_gone:
        return
    for s in range(w, seats + n_perm):
        counts[s, :] = 0
        obj[s, :] = 0
        obj[s, O_CARD] = -1
        obj[s, O_CTRL] = -1
        obj[s, O_PROT] = -1
    game[G_NPERM] = w - seats
    n_eff = game[G_NEFF]
    e_w = 0
    for e in range(n_eff):
        kept = False
        for s in range(seats, w):
            if card[obj[s, O_CARD], C_EFFECT] == effects[e, 0] and obj[s, O_CTRL] == effects[e, 1]:
                kept = True
                break
        if kept:
            copy_effect(effects, e, e_w)
            e_w += 1
    game[G_NEFF] = e_w


@inner
def copy_effect(effects: np.ndarray, e: int, to: int) -> None:
    """Row ``e`` of the effects in play moves to row ``to`` (a loop: a row assignment may copy)."""
    for k in range(effects.shape[1]):
        effects[to, k] = effects[e, k]


@inner
def remove_uid(counts: np.ndarray, obj: np.ndarray, game: np.ndarray, effects: np.ndarray, card: np.ndarray,
               seats: int, uid: int, gone: np.ndarray) -> None:  # fmt: skip
    """The permanent ``uid`` leaves, if it is still there (``gone``: a scratch row of at least a slot each)."""
    s = slot_of_uid(obj, seats, game[G_NPERM], uid)
    if s >= 0:
        gone[:] = False
        gone[s] = True
        remove_slots(counts, obj, game, effects, card, seats, gone)


# ---------------------------------------------------------------------- state-based actions and losing
@inner
def settle_game(S: tuple, T: tuple, g: int, start: np.ndarray) -> None:  # type: ignore[type-arg]
    """The state-based actions after a resolution or a turn's events (704.3), then who lost (:func:`lose`).

    ``start`` is the counts before (for the Saga chapters already reached).  Dead permanents
    and finished Sagas (714.4) leave, dies triggers go to the front of the queue, losers are out.
    """
    counts_all, _, obj_all, seat_all, game_all, effects_all, queue_all = S[0], S[1], S[2], S[3], S[4], S[5], S[6]
    card, ints = T[1], T[10]
    tough_delta, special, thr_off, thr, team_threshold = T[6], T[9], T[18], T[19], T[23]
    counts, obj, seat, game, effects, queue = (counts_all[g], obj_all[g], seat_all[g], game_all[g], effects_all[g],
                                               queue_all[g])  # fmt: skip
    X, B = S[12][g], S[13][g]
    seats = seat.shape[0]
    n_perm = game[G_NPERM]
    hi = seats + n_perm
    dies, gone = B[B_DIES], B[B_GONE]  # per slot
    dies[:] = False
    gone[:] = False
    any_gone = False
    for s in range(seats, hi):
        c = obj[s, O_CARD]
        d, sacrificed, _, _ = settle_row(counts, start, s, flags_of(s, seats, obj, card), card[c, C_TOUGHNESS],
                                         obj[s, O_DAMAGE], card[c, C_CHAPTERS], tough_delta, special)  # fmt: skip
        dies[s] = d
        gone[s] = d or sacrificed
        any_gone = any_gone or gone[s]
    # who loses (704.5a, 704.5c, 704.6b; thresholds that win or lose, 104.2a)
    seats_are_teams = ints[I_SEATS_ARE_TEAMS] == 1
    shared = ints[I_SHARED] == 1
    poison = ints[I_POISON]
    seat_of, team_of, team_size, team_poison = X[X_FRAME], X[X_FRAME + 1], X[X_FRAME + 2], X[X_FRAME + 3]
    seat_of[:] = -1
    team_of[:] = -1
    team_size[:] = 0
    team_poison[:] = 0
    n_seats = 0
    for p in range(seats):
        if seat[p, S_IN]:
            seat_of[p] = seat[p, S_TEAM] if seats_are_teams else p
            team_of[p] = seat[p, S_TEAM]
            n_seats = max(n_seats, seat_of[p] + 1)
    events = 0
    for p in range(seats):
        if seat_of[p] < 0:
            continue
        team_size[team_of[p]] += 1
        team_poison[team_of[p]] = max(team_poison[team_of[p]], counts[p, poison])
        if seat[p, S_LIFE] <= 0:
            events |= np.int64(1) << seat_of[p]
    for p in range(seats):
        if seat_of[p] < 0:
            continue
        if shared:
            if team_poison[team_of[p]] >= team_threshold[team_size[team_of[p]]]:
                events |= np.int64(1) << seat_of[p]
        elif counts[p, poison] >= team_threshold[2]:
            events |= np.int64(1) << seat_of[p]
    for s in range(seats, hi):
        if dies[s] or obj[s, O_PHASED]:
            continue
        c = obj[s, O_CARD]
        for j in range(thr_off[c], thr_off[c + 1]):
            if thr[j, 2] != 0 and counts[s, thr[j, 0]] >= thr[j, 1]:
                shift = 1 if thr[j, 2] == 1 else 2
                events |= np.int64(1) << (seat_of[obj[s, O_CTRL]] + shift * n_seats)
    lost = 0
    if events:
        compact_seat, compact_team = X[X_FRAME + 4], X[X_FRAME + 5]
        m = 0
        for p in range(seats):
            if seat_of[p] >= 0:
                compact_seat[m] = seat_of[p]
                compact_team[m] = team_of[p]
                m += 1
        lost = seats_lost(events, n_seats, compact_seat[:m], compact_team[:m])
    if any_gone:
        for s in range(seats, hi):  # each dies trigger goes to the front, the last one first
            src = card[obj[s, O_CARD], C_SOURCE]
            if dies[s] and src >= 0 and T[0][src, SRC_DIES]:
                queue_push(queue, game, True, obj[s, O_CTRL], src, -1, -1, 0)
        remove_slots(counts, obj, game, effects, card, seats, gone)
    game[G_PROLIFS] = 1
    if lost:
        losers = B[B_LOSERS]
        losers[:] = False
        for p in range(seats):
            if seat_of[p] >= 0 and (lost >> seat_of[p]) & 1:
                losers[p] = True
        lose(S, T, g, losers)


@boundary
def seats_lost(events: int, n_seats: int, seat: np.ndarray, team: np.ndarray) -> int:
    """The seats that lose (:func:`solver.kernels.value.lost_seats_104_2a`) on the rivals of the players' seats
    and teams (:func:`solver.kernels.value.rivals_of`, which allocates them)."""
    return lost_seats_104_2a(events, n_seats, rivals_of(seat, team, n_seats))


@inner
def lose(S: tuple, T: tuple, g: int, losers: np.ndarray) -> None:  # type: ignore[type-arg]
    """The losers are out; a duel or 2HG is over, a free-for-all goes on (800.4a) while the
    agent is in (or, with :data:`NO_AGENT`, any seat) and more than one player is left, without the losers'
    permanents and effects."""
    counts, obj, seat, game, effects = S[0][g], S[2][g], S[3][g], S[4][g], S[5][g]
    card, ints = T[1], T[10]
    seats = seat.shape[0]
    shared = ints[I_SHARED] == 1
    for p in range(seats):
        if losers[p]:
            seat[p, S_LOST] = 1
            if shared:  # a 2HG team loses together (810.8a)
                for q in range(seats):
                    if seat[q, S_IN] and seat[q, S_TEAM] == seat[p, S_TEAM]:
                        seat[q, S_LOST] = 1
    alive = 0
    for p in range(seats):
        if seat[p, S_IN] and not seat[p, S_LOST]:
            alive += 1
    agent = game[G_AGENT]
    if ints[I_GOES_ON] == 0 or alive <= 1 or (agent != NO_AGENT and seat[agent, S_LOST]):
        game[G_OVER] = 1
        return
    gone = S[13][g][B_LOST_GONE]
    gone[:] = False
    for s in range(seats, seats + game[G_NPERM]):
        if seat[obj[s, O_CTRL], S_LOST]:
            gone[s] = True
    remove_slots(counts, obj, game, effects, card, seats, gone)
    for s in range(seats, seats + game[G_NPERM]):
        if obj[s, O_PROT] >= 0 and seat[obj[s, O_PROT], S_LOST]:
            obj[s, O_PROT] = -1
    e_w = 0
    for e in range(game[G_NEFF]):
        if not seat[effects[e, 1], S_LOST]:
            copy_effect(effects, e, e_w)
            e_w += 1
    game[G_NEFF] = e_w
    for p in range(seats):
        if seat[p, S_LOST] and seat[p, S_IN]:
            seat[p, S_IN] = 0
            counts[p, :] = 0
    if seat[game[G_PROLIF], S_LOST]:
        for p in range(seats):
            if seat[p, S_IN]:
                game[G_PROLIF] = p
                break


# ---------------------------------------------------------------------- a seat's turn (env.events)
@inner
def turn_events(S: tuple, T: tuple, g: int, p: int, trig_seat: np.ndarray, trig_src: np.ndarray) -> tuple[bool, int]:  # type: ignore[type-arg]
    """The event model (:class:`env.events.EventParams`) of seat ``p``'s turn: whether anything happened, and the
    triggers (seat, source) in ``trig_seat`` and ``trig_src`` (their number is returned)."""
    counts, obj, seat, game, effects, rng = S[0][g], S[2][g], S[3][g], S[4][g], S[5][g], S[11]
    X = S[12][g]
    src_t, card, ints, floats = T[0], T[1], T[10], T[11]
    power_delta = T[7]
    deck_off, deck_card, deck_cnt = T[12], T[13], T[14]
    seats = seat.shape[0]
    shared = ints[I_SHARED] == 1
    poison = ints[I_POISON]
    n_trig = 0
    logged = False
    my_team = seat[p, S_TEAM]
    opponents = X[X_FRAME]
    n_opp = 0
    for q in range(seats):
        if seat[q, S_IN] and seat[q, S_TEAM] != my_team:
            opponents[n_opp] = q
            n_opp += 1
    # a permanent enters (env.events._enter)
    n_perm = game[G_NPERM]
    if not (n_perm >= ints[I_CAPACITY] or draw_unit(rng, g) >= floats[F_ENTER]):
        deck = seat[p, S_DECK]
        k = deck_off[deck] + draw_below(rng, g, deck_off[deck + 1] - deck_off[deck])
        c = deck_card[k]
        if not (card[c, C_LEGENDARY] and controls(obj, card, seats, n_perm, p, card[c, C_NAME])):
            protector = opponents[draw_below(rng, g, n_opp)]
            s = seats + n_perm
            counts[s, :] = 0
            for j in range(2):
                col = deck_cnt[k, j, 0]
                if col >= 0:
                    lo, hi = deck_cnt[k, j, 1], deck_cnt[k, j, 2]
                    counts[s, col] = lo + draw_below(rng, g, hi - lo + 1)
            obj[s, O_CARD] = c
            obj[s, O_UID] = game[G_NEXT_UID]
            game[G_NEXT_UID] += 1
            obj[s, O_CTRL] = p
            obj[s, O_PROT] = protector if card[c, C_TYPES] & _BATTLE else -1
            obj[s, O_DAMAGE] = 0
            obj[s, O_PHASED] = 0
            game[G_NPERM] = n_perm + 1
            logged = True
            src = card[c, C_SOURCE]
            if src >= 0 and src_t[src, SRC_ENTERS]:
                trig_seat[n_trig] = p
                trig_src[n_trig] = src
                n_trig += 1
            if card[c, C_EFFECT] >= 0 and game[G_NEFF] < effects.shape[0]:
                e = game[G_NEFF]
                effects[e, 0] = card[c, C_EFFECT]
                effects[e, 1] = p
                effects[e, 2] = 3
                game[G_NEFF] = e + 1
    n_perm = game[G_NPERM]
    hi = seats + n_perm
    # the sides (env.events._Sides)
    sagas, walkers, attackers = X[X_FRAME + 1], X[X_FRAME + 2], X[X_FRAME + 3]
    battles, theirs = X[X_FRAME + 4], X[X_FRAME + 5]
    n_sagas = n_walkers = n_attackers = n_battles = n_theirs = 0
    for s in range(seats, hi):
        if obj[s, O_PHASED]:
            continue
        c = obj[s, O_CARD]
        types = card[c, C_TYPES]
        if obj[s, O_CTRL] == p:
            if card[c, C_CHAPTERS] > 0:
                sagas[n_sagas] = s
                n_sagas += 1
            if types & _PLANESWALKER:
                walkers[n_walkers] = s
                n_walkers += 1
            if types & _CREATURE:
                attackers[n_attackers] = s
                n_attackers += 1
            if types & _BATTLE:
                battles[n_battles] = s
                n_battles += 1
        if types & _CREATURE and seat[obj[s, O_CTRL], S_TEAM] != my_team:
            theirs[n_theirs] = s
            n_theirs += 1
    lore, loyalty = ints[I_LORE], ints[I_LOYALTY]
    for j in range(n_sagas):  # a lore counter each (714.3b)
        counts[sagas[j], lore] += 1
        logged = True
    for j in range(n_walkers):
        if draw_unit(rng, g) < floats[F_LOYALTY]:
            s = walkers[j]
            delta = 1
            if counts[s, loyalty] >= 5 and draw_unit(rng, g) < 0.3:
                delta = -2
            add_counters(counts, seat, s, loyalty, delta, shared, poison)
            logged = True
    # combat (env.events._attack): infect gives poison (702.90), toxic adds poison (702.164)
    life_lost = X[X_FRAME + 6]
    life_lost[:] = 0
    if n_attackers:
        power = X[X_FRAME + 7]
        for j in range(n_attackers):
            s = attackers[j]
            pw = card[obj[s, O_CARD], C_POWER]
            for k in range(counts.shape[1]):
                pw += counts[s, k] * power_delta[k]
            power[j] = pw
        for j in range(n_attackers):
            if power[j] <= 0 or draw_unit(rng, g) >= floats[F_ATTACK]:
                continue
            s = attackers[j]
            c = obj[s, O_CARD]
            victim = opponents[draw_below(rng, g, n_opp)]
            if card[c, C_INFECT]:
                add_counters(counts, seat, victim, poison, power[j], shared, poison)
            else:
                life_lost[victim] += power[j]
                if card[c, C_TOXIC]:
                    add_counters(counts, seat, victim, poison, card[c, C_TOXIC], shared, poison)
            logged = True
            src = card[c, C_SOURCE]
            if src >= 0 and src_t[src, SRC_COMBAT]:
                trig_seat[n_trig] = p
                trig_src[n_trig] = src
                n_trig += 1
    if n_theirs and draw_unit(rng, g) < floats[F_WITHER]:
        hit = theirs[draw_below(rng, g, n_theirs)]
        add_counters(counts, seat, hit, ints[I_MINUS], 1 + int(draw_below(rng, g, 2)), shared, poison)
        logged = True
    if n_attackers and draw_unit(rng, g) < floats[F_GROW]:
        grown = attackers[draw_below(rng, g, n_attackers)]
        add_counters(counts, seat, grown, ints[I_PLUS], 1, shared, poison)
        logged = True
    for j in range(n_battles):
        if draw_unit(rng, g) < floats[F_SIEGE]:
            add_counters(counts, seat, battles[j], ints[I_DEFENSE], -(1 + int(draw_below(rng, g, 2))), shared, poison)
            logged = True
    if logged:
        for q in range(seats):
            if life_lost[q]:
                lose_life(seat, q, life_lost[q], shared)
    if n_theirs and draw_unit(rng, g) < floats[F_REMOVAL]:
        doomed = theirs[draw_below(rng, g, n_theirs)]
        logged = True
        src = card[obj[doomed, O_CARD], C_SOURCE]
        if src >= 0 and src_t[src, SRC_DIES]:
            trig_seat[n_trig] = obj[doomed, O_CTRL]
            trig_src[n_trig] = src
            n_trig += 1
        gone = S[13][g][B_REMOVED]
        gone[:] = False
        gone[doomed] = True
        remove_slots(counts, obj, game, effects, card, seats, gone)
    return logged, n_trig


# ---------------------------------------------------------------------- opportunities (env.opportunities)
@inner
def cast(S: tuple, T: tuple, g: int, p: int, spell: int, p_fizzle: float) -> tuple[bool, int, int]:  # type: ignore[type-arg]
    """``_cast``: whether the spell can be cast, its target's uid (-1: none) and whether it fizzles."""
    obj, seat, game, rng = S[2][g], S[3][g], S[4][g], S[11]
    src_t, card = T[0], T[1]
    if src_t[spell, SRC_TARGET] == TARGET_NONE:
        return True, -1, 0
    seats = seat.shape[0]
    own = src_t[spell, SRC_TARGET] == TARGET_OWN
    legal = S[12][g][X_LEGAL]
    n = 0
    for s in range(seats, seats + game[G_NPERM]):
        creature = card[obj[s, O_CARD], C_TYPES] & _CREATURE and not obj[s, O_PHASED]
        if creature and (seat[obj[s, O_CTRL], S_TEAM] == seat[p, S_TEAM]) == own:
            legal[n] = s
            n += 1
    if n == 0:
        return False, -1, 0
    target = obj[legal[draw_below(rng, g, n)], O_UID]
    fizzled = 1 if draw_unit(rng, g) < p_fizzle else 0
    return True, target, fizzled


@inner
def turn_opportunities(S: tuple, T: tuple, g: int, p: int) -> None:  # type: ignore[type-arg]
    """``turn_opportunities``: the proliferates seat ``p`` chooses to make this turn, queued in order."""
    obj, seat, game, queue, rng = S[2][g], S[3][g], S[4][g], S[6][g], S[11]
    src_t, card, ints, floats = T[0], T[1], T[10], T[11]
    seats = seat.shape[0]
    hi = seats + game[G_NPERM]
    mine, fodder = S[12][g][X_FRAME], S[12][g][X_FRAME + 1]
    n = 0
    landfall = end_step = False
    for s in range(seats, hi):
        if obj[s, O_CTRL] == p and not obj[s, O_PHASED]:
            mine[n] = s
            n += 1
            src = card[obj[s, O_CARD], C_SOURCE]
            landfall = landfall or src == ints[I_LANDFALL]
            end_step = end_step or src == ints[I_END_STEP]
    if landfall and draw_unit(rng, g) < 0.6:
        queue_push(queue, game, False, p, ints[I_LANDFALL], -1, -1, 0)
    for j in range(n):
        i = mine[j]
        src = card[obj[i, O_CARD], C_SOURCE]
        if src < 0 or not src_t[src, SRC_ACTIVATED] or draw_unit(rng, g) >= floats[F_ACTIVATE]:
            continue
        sac = -1
        wanted = src_t[src, SRC_SAC]
        if wanted:
            m = 0
            for jj in range(n):
                if mine[jj] != i and card[obj[mine[jj], O_CARD], C_TYPES] & wanted:
                    fodder[m] = mine[jj]
                    m += 1
            if m == 0:
                continue
            sac = obj[fodder[draw_below(rng, g, m)], O_UID]
        queue_push(queue, game, False, p, src, -1, sac, 0)
    if draw_unit(rng, g) < floats[F_SPELL]:
        spell = ints[I_SPELL0] + draw_below(rng, g, ints[I_N_SPELLS])
        ok, target, fizzled = cast(S, T, g, p, spell, floats[F_FIZZLE])
        if ok:
            queue_push(queue, game, False, p, spell, target, -1, fizzled)
    if end_step:
        queue_push(queue, game, False, p, ints[I_END_STEP], -1, -1, 0)


@spine
def opening(S: tuple, T: tuple, g: int, p: int) -> None:  # type: ignore[type-arg]
    """The opening: a proliferate that surely happens, queued to start the episode on."""
    obj, seat, game, queue, rng = S[2][g], S[3][g], S[4][g], S[6][g], S[11]
    src_t, card, ints = T[0], T[1], T[10]
    seats = seat.shape[0]
    cand_src, cand_target = S[12][g][X_FRAME], S[12][g][X_FRAME + 1]
    n = 0
    for s in range(seats, seats + game[G_NPERM]):
        if obj[s, O_CTRL] == p:
            src = card[obj[s, O_CARD], C_SOURCE]
            if src >= 0 and src_t[src, SRC_OPENING]:
                seen = False  # each source once, in the order its first permanent holds
                for j in range(n):
                    seen = seen or cand_src[j] == src
                if not seen:
                    cand_src[n] = src
                    cand_target[n] = -1
                    n += 1
    for j in range(ints[I_N_SPELLS]):
        spell = ints[I_SPELL0] + j
        ok, target, _ = cast(S, T, g, p, spell, 0.0)
        if ok:
            cand_src[n] = spell
            cand_target[n] = target
            n += 1
    k = draw_below(rng, g, n)
    queue_push(queue, game, False, p, cand_src[k], cand_target[k], -1, 0)
    game[G_NEXT_SEAT] = (p + 1) % game[G_NSEATS]


@inner
def prepare(S: tuple, T: tuple, g: int, p: int, src: int, target: int, sac: int, fizzled: int) -> bool:  # type: ignore[type-arg]
    """An opportunity's resolution begins: pay the costs and resolve what comes first; False if nothing proliferates."""
    counts, obj, seat, game, effects = S[0][g], S[2][g], S[3][g], S[4][g], S[5][g]
    src_t, card, ints = T[0], T[1], T[10]
    gone = S[13][g][B_REMOVED]
    seats = seat.shape[0]
    if src_t[src, SRC_NEEDS]:
        found = False
        for s in range(seats, seats + game[G_NPERM]):
            if obj[s, O_CTRL] == p and not obj[s, O_PHASED] and card[obj[s, O_CARD], C_SOURCE] == src:
                found = True
                break
        if not found:
            return False
    if sac >= 0:
        if slot_of_uid(obj, seats, game[G_NPERM], sac) < 0:
            return False
        remove_uid(counts, obj, game, effects, card, seats, sac, gone)
    if target >= 0:
        s = slot_of_uid(obj, seats, game[G_NPERM], target)
        if fizzled or s < 0:
            remove_uid(counts, obj, game, effects, card, seats, target, gone)
            return False
        prelude = src_t[src, SRC_PRELUDE]
        if prelude == PRELUDE_DESTROY:
            remove_uid(counts, obj, game, effects, card, seats, target, gone)
        elif prelude != PRELUDE_NONE:
            add_counters(counts, seat, s, prelude, 1, ints[I_SHARED] == 1, ints[I_POISON])
    if src_t[src, SRC_VRASKA]:
        lose_life(seat, p, 1, ints[I_SHARED] == 1)
    game[G_PROLIF] = p
    game[G_PROLIFS] = src_t[src, SRC_PROLIFS]
    return True


@inner
def turn(S: tuple, T: tuple, g: int) -> None:  # type: ignore[type-arg]
    """The next seat's turn (its events, their state-based actions, its opportunities)."""
    counts, seat, game, queue = S[0][g], S[3][g], S[4][g], S[6][g]
    ints = T[10]
    if game[G_TURNS] >= ints[I_MAX_TURNS]:
        game[G_OVER] = 1
        game[G_TRUNC] = 1
        return
    p = game[G_NEXT_SEAT]
    game[G_NEXT_SEAT] = (p + 1) % game[G_NSEATS]
    if seat[p, S_LOST]:
        return
    game[G_TURNS] += 1
    if ints[I_EVENTS]:
        trig_seat, trig_src = S[12][g][X_TRIG_SEAT], S[12][g][X_TRIG_SRC]
        logged, n_trig = turn_events(S, T, g, p, trig_seat, trig_src)
        for j in range(n_trig):
            queue_push(queue, game, False, trig_seat[j], trig_src[j], -1, -1, 0)
        if logged:
            start = S[14][g]
            copy_counts(counts, start, seat.shape[0] + game[G_NPERM])
            settle_game(S, T, g, start)
        if game[G_OVER]:
            return
    turn_opportunities(S, T, g, p)


@inner
def copy_counts(counts: np.ndarray, start: np.ndarray, hi: int) -> None:
    """The rows ``0 .. hi - 1`` of ``counts`` (the game's players and permanents) into the game's ``start`` (the
    counts before a resolution, for the Saga chapters already reached; the rows past them are never read; a loop:
    an array assignment may copy)."""
    for s in range(hi):
        for k in range(counts.shape[1]):
            start[s, k] = counts[s, k]


# ---------------------------------------------------------------------- decisions
@inner
def begin(S: tuple, T: tuple, g: int, p: int, src: int, target: int, sac: int) -> None:  # type: ignore[type-arg]
    """A proliferate for seat ``p`` is to be decided: its gains and rounds, nothing chosen yet."""
    counts, gain, obj, seat, game, effects = S[0][g], S[1][g], S[2][g], S[3][g], S[4][g], S[5][g]
    chosen, recipients, picked = S[7][g], S[8][g], S[9][g]
    card, ints, wanted, scopes, n_scopes, factor = T[1], T[10], T[8], T[15], T[16], T[17]
    game[G_PENDING] = 1
    game[G_PSEAT] = p
    game[G_PSRC] = src
    game[G_PTARGET] = target
    game[G_PSAC] = sac
    game[G_PROUND] = 0
    game[G_NPICK] = 0
    game[G_PROLIF] = p
    player_in = S[13][g][B_PLAYER_IN][: seat.shape[0]]
    for q in range(seat.shape[0]):
        player_in[q] = seat[q, S_IN] == 1
    game_gains(counts, obj[:, O_CARD], obj[:, O_CTRL], obj[:, O_PROT], player_in, seat[:, S_TEAM], game[G_NPERM],
               effects, game[G_NEFF], p, card[:, C_TYPES], scopes, n_scopes, wanted, ints[I_DEFENSE],
               gain)  # fmt: skip
    rounds = game_rounds(effects, game[G_NEFF], p, game[G_PROLIFS], factor)
    game[G_PROUNDS] = min(rounds, chosen.shape[0])
    chosen[:, :] = 0
    recipients[:, :] = -1
    picked[:] = 0


@inner
def eligible_slots(counts: np.ndarray, obj: np.ndarray, seat: np.ndarray, n_perm: int, out: np.ndarray) -> int:
    """Objects that may be chosen (701.34a): players in the game and phased-in permanents with a counter."""
    seats = seat.shape[0]
    n = 0
    for s in range(seats + n_perm):
        if s < seats and not seat[s, S_IN]:
            continue
        if s >= seats and obj[s, O_PHASED]:
            continue
        for k in range(counts.shape[1]):
            if counts[s, k] > 0:
                out[n] = s
                n += 1
                break
    return n


@inner
def implicit_recipients(S: tuple, T: tuple, g: int) -> None:  # type: ignore[type-arg]
    """Fill in the 2HG poison recipients that follow from the choice (one poisoned head chosen, 701.34b)."""
    counts, seat, game, chosen, recipients = S[0][g], S[3][g], S[4][g], S[7][g], S[8][g]
    ints = T[10]
    if ints[I_SHARED] == 0:
        return
    poison = ints[I_POISON]
    for r in range(game[G_PROUNDS]):
        for t in range(recipients.shape[1]):
            if recipients[r, t] >= 0:
                continue
            for p in range(seat.shape[0]):
                if seat[p, S_IN] and seat[p, S_TEAM] == t and chosen[r, p] and counts[p, poison] > 0:
                    recipients[r, t] = p
                    break


@inner
def decide_scripted(S: tuple, T: tuple, g: int, policy: int) -> None:  # type: ignore[type-arg]
    """Seat ``policy``'s choice for game ``g``'s pending decision (``env.policies``: noop, random, rule, everything;
    the oracle through the compiled core)."""
    counts, obj, seat, game, chosen, recipients, rng = S[0][g], S[2][g], S[3][g], S[4][g], S[7][g], S[8][g], S[11]
    card, kind_w, ints = T[1], T[4], T[10]
    seats = seat.shape[0]
    rounds = game[G_PROUNDS]
    poison = ints[I_POISON]
    shared = ints[I_SHARED] == 1
    ok = S[12][g][X_FRAME]
    n_ok = eligible_slots(counts, obj, seat, game[G_NPERM], ok)
    if policy == POLICY_NOOP:
        return
    if policy == POLICY_ORACLE:
        oracle_choice(S, T, g, chosen, recipients)
        return
    if policy == POLICY_RANDOM:
        heads = S[12][g][X_FRAME + 1]
        for r in range(rounds):
            for j in range(n_ok):
                if draw_unit(rng, g) < 0.5:
                    chosen[r, ok[j]] = 1
            if shared:
                for t in range(recipients.shape[1]):
                    m = 0
                    for p in range(seats):
                        if seat[p, S_IN] and seat[p, S_TEAM] == t and chosen[r, p] and counts[p, poison] > 0:
                            heads[m] = p
                            m += 1
                    if m > 1:
                        recipients[r, t] = heads[draw_below(rng, g, m)]
        return
    me = game[G_PROLIF]
    if policy == POLICY_EVERYTHING:  # env.policies.everything_choice: every eligible object of mine, and me
        for j in range(n_ok):
            s = ok[j]
            if s == me or (s >= seats and obj[s, O_CTRL] == me):
                for r in range(rounds):
                    chosen[r, s] = 1
        return
    # the rule-based filter (env.policies.rule_choice)
    my_team = seat[me, S_TEAM]
    for j in range(n_ok):
        s = ok[j]
        balance = 0
        for k in range(counts.shape[1]):
            if counts[s, k] > 0:
                balance += kind_w[k]
        if s < seats:
            owner = s
            creature_or_player = True
        else:
            owner = obj[s, O_PROT] if obj[s, O_PROT] >= 0 else obj[s, O_CTRL]
            creature_or_player = (card[obj[s, O_CARD], C_TYPES] & _CREATURE) != 0
        ally = seat[owner, S_TEAM] == my_team
        good = balance > 0 if ally else (balance < 0 and creature_or_player)
        if good:
            for r in range(rounds):
                chosen[r, s] = 1
    if shared:  # the first poisoned head chosen gets the team's counter
        for t in range(recipients.shape[1]):
            m = 0
            first = -1
            for p in range(seats):
                if seat[p, S_IN] and seat[p, S_TEAM] == t and chosen[0, p] and counts[p, poison] > 0:
                    if first < 0:
                        first = p
                    m += 1
            if m > 1:
                for r in range(rounds):
                    recipients[r, t] = first


@spine
def resolve(S: tuple, T: tuple, g: int) -> None:  # type: ignore[type-arg]
    """Apply the decided choice (``solver.rules.counters_after``, 701.34), then the state-based actions (704.3)."""
    counts, gain, seat, game, chosen, recipients = S[0][g], S[1][g], S[3][g], S[4][g], S[7][g], S[8][g]
    ints = T[10]
    implicit_recipients(S, T, g)
    start = S[14][g]
    rounds = game[G_PROUNDS]
    seats = seat.shape[0]
    hi = seats + game[G_NPERM]
    copy_counts(counts, start, hi)
    for s in range(hi):
        times = 0
        for r in range(rounds):
            times += chosen[r, s]
        if times:
            for k in range(counts.shape[1]):
                counts[s, k] += times * gain[s, k]
    if ints[I_SHARED] == 1:  # a 2HG team's poison: what its recipients get, on every head (810.10)
        poison = ints[I_POISON]
        for t in range(recipients.shape[1]):
            team_gain = 0
            for r in range(rounds):
                if recipients[r, t] >= 0:
                    team_gain += gain[recipients[r, t], poison]
            for p in range(seats):
                if seat[p, S_IN] and seat[p, S_TEAM] == t:
                    counts[p, poison] = start[p, poison] + team_gain
    game[G_PENDING] = 0
    game[G_DECISIONS] += 1
    settle_game(S, T, g, start)


# ---------------------------------------------------------------------- one game as the compiled core's layout
@njit(cache=True)
def gather(S: tuple, T: tuple, g: int) -> tuple:  # type: ignore[type-arg]
    """Game ``g``'s decision as a one-board layout of :mod:`solver.kernels.layout` (what ``stack`` makes of its
    :meth:`~env.kernels.state.GameArrays.board`), and the slot of each row."""
    counts_g, gain_g, obj, seat, game = S[0][g], S[1][g], S[2][g], S[3][g], S[4][g]
    card, card_cv, card_cvm, kind_w, ints = T[1], T[2], T[3], T[4], T[10]
    thr_off_c, thr_c, elimination, gap, team_threshold = T[18], T[19], T[21], T[22], T[23]
    seats = seat.shape[0]
    n_kinds = counts_g.shape[1]
    n_perm = game[G_NPERM]
    seats_are_teams = ints[I_SEATS_ARE_TEAMS] == 1
    shared = ints[I_SHARED] == 1
    poison = ints[I_POISON]
    n_players = 0
    for p in range(seats):
        if seat[p, S_IN]:
            n_players += 1
    n = n_players + n_perm
    n_thr = 0
    for s in range(seats, seats + n_perm):
        c = obj[s, O_CARD]
        n_thr += thr_off_c[c + 1] - thr_off_c[c]
    # Every array of the layout is a piece of one block (one allocation per call, not ~30): rows; local, team_map;
    # counts, gain, weights; the 10 per-row columns; the 6 threshold columns; the 4 per-seat ones; per_board,
    # offsets.  The counter tables (most of it) and the thresholds are written whole below; the rest starts at 0.
    block = np.empty(n + 2 * seats + 3 * n * n_kinds + 10 * n + 6 * n_thr + 4 * seats + 12, dtype=np.int64)
    at = 0
    rows = block[at : at + n]
    at += n
    local = block[at : at + seats]
    at += seats
    team_map = block[at : at + seats]
    at += seats
    counts = block[at : at + n * n_kinds].reshape((n, n_kinds))
    at += n * n_kinds
    gain = block[at : at + n * n_kinds].reshape((n, n_kinds))
    at += n * n_kinds
    weights = block[at : at + n * n_kinds].reshape((n, n_kinds))
    at += n * n_kinds
    flags = block[at : at + n]
    toughness = block[at + n : at + 2 * n]
    damage = block[at + 2 * n : at + 3 * n]
    chapters = block[at + 3 * n : at + 4 * n]
    life = block[at + 4 * n : at + 5 * n]
    worth = block[at + 5 * n : at + 6 * n]
    side = block[at + 6 * n : at + 7 * n]
    seat_l = block[at + 7 * n : at + 8 * n]
    team_l = block[at + 8 * n : at + 9 * n]
    head_gain = block[at + 9 * n : at + 10 * n]
    at += 10 * n
    thr_row = block[at : at + n_thr]
    thr_kind = block[at + n_thr : at + 2 * n_thr]
    thr_at = block[at + 2 * n_thr : at + 3 * n_thr]
    thr_code = block[at + 3 * n_thr : at + 4 * n_thr]
    thr_amount = block[at + 4 * n_thr : at + 5 * n_thr]
    thr_seat = block[at + 5 * n_thr : at + 6 * n_thr]
    at += 6 * n_thr
    opp_seen = block[at : at + seats]
    team_size = block[at + seats : at + 2 * seats]
    t_threshold = block[at + 2 * seats : at + 3 * seats]
    t_weight = block[at + 3 * seats : at + 4 * seats]
    at += 4 * seats
    per_board = block[at : at + 6]
    offsets = block[at + 6 : at + 12]
    block[: n + 2 * seats] = 0
    block[n + 2 * seats + 3 * n * n_kinds : n + 2 * seats + 3 * n * n_kinds + 10 * n] = 0
    block[n + 2 * seats + 3 * n * n_kinds + 10 * n + 6 * n_thr :] = 0
    local[:] = -1
    team_map[:] = -1
    life[:] = 1
    seat_l[:] = -1
    team_l[:] = -1
    n_players = 0
    for p in range(seats):
        if seat[p, S_IN]:
            rows[n_players] = p
            n_players += 1
    m = n_players
    for s in range(seats, seats + n_perm):
        rows[m] = s
        m += 1
    n_teams = 0
    for i in range(n_players):
        p = rows[i]
        local[p] = i
        t = seat[p, S_TEAM]
        if team_map[t] < 0:
            team_map[t] = n_teams
            n_teams += 1
    me = game[G_PROLIF]
    our_team = seat[me, S_TEAM]
    j = 0
    for i in range(n):
        s = rows[i]
        counts[i, :] = counts_g[s, :]
        gain[i, :] = gain_g[s, :]
        flags[i] = flags_of(s, seats, obj, card)
        if i < n_players:
            weights[i, :] = kind_w
            life[i] = seat[s, S_LIFE]
            team_l[i] = team_map[seat[s, S_TEAM]]
            seat_l[i] = team_l[i] if seats_are_teams else i
            side[i] = 1 if seat[s, S_TEAM] == our_team else -1
            if shared:
                head_gain[i] = gain[i, poison]
                gain[i, poison] = 0
                weights[i, poison] = 0
        else:
            c = obj[s, O_CARD]
            for k in range(n_kinds):
                weights[i, k] = card_cv[c, k] if card_cvm[c, k] else kind_w[k]
            toughness[i] = card[c, C_TOUGHNESS]
            damage[i] = obj[s, O_DAMAGE]
            chapters[i] = card[c, C_CHAPTERS]
            worth[i] = card[c, C_WORTH]
            owner = obj[s, O_PROT] if obj[s, O_PROT] >= 0 else obj[s, O_CTRL]
            side[i] = 1 if seat[owner, S_TEAM] == our_team else -1
            ctrl = local[obj[s, O_CTRL]]
            owner_seat = team_map[seat[obj[s, O_CTRL], S_TEAM]] if seats_are_teams else ctrl
            for q in range(thr_off_c[c], thr_off_c[c + 1]):
                thr_row[j] = i
                thr_kind[j] = thr_c[q, 0]
                thr_at[j] = thr_c[q, 1]
                thr_code[j] = thr_c[q, 2]
                thr_amount[j] = thr_c[q, 3]
                thr_seat[j] = owner_seat
                j += 1
    n_opp = 0
    for i in range(n_players):
        if seat[rows[i], S_TEAM] != our_team and not opp_seen[seat_l[i]]:
            opp_seen[seat_l[i]] = 1
            n_opp += 1
    for i in range(n_players):
        team_size[team_l[i]] += 1
    for t in range(n_teams):
        t_threshold[t] = team_threshold[team_size[t]]
    for i in range(n_players):
        t_weight[team_l[i]] = ints[I_POISON_W] * side[i]
    per_board[0], per_board[1], per_board[2] = n_players, game[G_PROUNDS], local[me]
    per_board[3], per_board[4], per_board[5] = 1 if shared else 0, 0 if shared else 1, n_opp
    offsets[1], offsets[3], offsets[5] = n, n_thr, n_teams
    return (rows, offsets, per_board, elimination[n_opp], gap[n_opp], counts, gain, weights, flags, toughness, damage,
            chapters, life, worth, side, seat_l, team_l, head_gain, thr_row, thr_kind, thr_at, thr_code, thr_amount,
            thr_seat, t_threshold[:n_teams], t_weight[:n_teams], team_map)  # fmt: skip


@boundary
def oracle_choice(S: tuple, T: tuple, g: int, chosen_g: np.ndarray, recipients_g: np.ndarray) -> int:  # type: ignore[type-arg]
    """The exact optimum of game ``g``'s decision (:func:`solver.kernels.exact.decide_batch`) into ``chosen_g``
    (rounds x slots) and ``recipients_g`` (rounds x teams); its value in milli-points (relative to choosing nothing)."""
    game = S[4][g]
    ints, tough_delta, presence, special, scores = T[10], T[6], T[5], T[9], T[20]
    (rows, off, pb, elim, gap, counts, gain, weights, flags, toughness, damage, chapters, life, worth, side, seat_l,
     team_l, head_gain, thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat, t_threshold, t_weight,
     team_map) = gather(S, T, g)  # fmt: skip
    n = off[1]
    n_teams = off[5]
    rounds = game[G_PROUNDS]
    width, n_slots = max(rounds, 1), max(n_teams, 1)
    # the outputs, as pieces of three blocks (a decision takes microseconds; an allocation a tenth of one)
    out = np.zeros(5 + width * n_slots + n_slots, dtype=np.int64)
    values, events, results, status, spans = out[0:1], out[1:2], out[2:3], out[3:4], out[4:5]
    recipients = out[5 : 5 + width * n_slots].reshape((width, n_slots))
    back = out[5 + width * n_slots :]
    chosen = np.zeros((width, n), dtype=np.bool_)
    recipients[:, :] = -1
    reals = np.empty(2, dtype=np.float64)
    reals[0], reals[1] = elim, gap
    decide_batch(
        off[0:2], off[2:4], off[4:6], pb[0:1], pb[1:2], pb[2:3], pb[3:4], pb[4:5], pb[5:6],
        reals[0:1], reals[1:2], counts, gain, weights, flags, toughness, damage, chapters, life, worth,
        side, seat_l, team_l, head_gain, thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat, t_threshold,
        t_weight, tough_delta, presence, special, scores, ints[I_SAGA_CHAPTER], 1, values, events, results, status,
        spans, chosen, recipients,
    )  # fmt: skip
    if status[0] != 0:
        game[G_ERROR] = 2
    chosen_g[:, :] = 0
    recipients_g[:, :] = -1
    back[:] = -1
    for t in range(team_map.shape[0]):
        if team_map[t] >= 0:
            back[team_map[t]] = t
    for r in range(rounds):
        for i in range(n):
            if chosen[r, i]:
                chosen_g[r, rows[i]] = 1
        for t in range(n_teams):
            if recipients[r, t] >= 0:
                recipients_g[r, back[t]] = rows[recipients[r, t]]
    return int(values[0])


@boundary
def optimum_value(S: tuple, T: tuple, g: int) -> int:  # type: ignore[type-arg]
    """The value of game ``g``'s exact optimum (:func:`oracle_choice`, into arrays of its own), in milli-points."""
    rounds = S[7].shape[1]
    chosen = np.zeros((rounds, S[7].shape[2]), dtype=np.int8)
    recipients = np.full((rounds, 2), -1, dtype=np.int64)
    return oracle_choice(S, T, g, chosen, recipients)


@boundary
def choice_value(S: tuple, T: tuple, g: int) -> int:  # type: ignore[type-arg]
    """The value of game ``g``'s decided choice in milli-points, relative to choosing nothing (the objective of
    docs/objective.md as :func:`solver.kernels.exact.decide_batch` computes it for its optimum).

    An adapter over the compiled core's pieces (``tabulate_into``, ``team_options``, the game score) until the
    core has a kernel that scores a given choice.
    """
    chosen_g, recipients_g = S[7][g], S[8][g]
    ints, tough_delta, presence, special, scores = T[10], T[6], T[5], T[9], T[20]
    (rows, off, pb, elim, gap, counts, gain, weights, flags, toughness, damage, chapters, life, worth, side, seat_l,
     team_l, head_gain, thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat, t_threshold, t_weight,
     team_map) = gather(S, T, g)  # fmt: skip
    n, n_thr, n_teams = off[1], off[3], off[5]
    players, R, me = pb[0], pb[1], pb[2]
    shared = pb[3] == 1
    poison = special[5]
    n_seats = 0
    for i in range(players):
        n_seats = max(n_seats, seat_l[i] + 1)
    rivals = rivals_of(seat_l[:players], team_l[:players], n_seats)
    our_seat, our_team = seat_l[me], team_l[me]
    opponents = 0
    for i in range(players):
        if team_l[i] != our_team:
            opponents |= np.int64(1) << seat_l[i]
    # tabulate_rows' tables and scratch, and a 2HG team's heads, as pieces of two blocks (two allocations rather
    # than seven, and none per team)
    n_kinds, R1, seats = counts.shape[1], R + 1, S[3].shape[1]
    ints_block = np.empty(2 * R1 * n + n_kinds + n + seats + 2 * players, dtype=np.int64)  # written before read
    bools_block = np.empty(1 + 2 * n_thr + n + players, dtype=np.bool_)
    material = ints_block[: R1 * n].reshape((R1, n))
    events = ints_block[R1 * n : 2 * R1 * n].reshape((R1, n))
    at = 2 * R1 * n
    now = ints_block[at : at + n_kinds].reshape((1, n_kinds))
    times = ints_block[at + n_kinds : at + n_kinds + n]
    at += n_kinds + n
    local_of = ints_block[at : at + seats]  # a head's row, by its seat
    heads = ints_block[at + seats : at + seats + players]  # a team's heads (rows), team by team
    gains = ints_block[at + seats + players : at + seats + 2 * players]  # their poison gains
    dies = bools_block[:1]
    reached, crossed = bools_block[1 : 1 + n_thr], bools_block[1 + n_thr : 1 + 2 * n_thr]
    choosable = bools_block[1 + 2 * n_thr : 1 + 2 * n_thr + n]  # 701.34a, per row (tabulate_into)
    ok = bools_block[1 + 2 * n_thr + n :]  # whether each head may be chosen
    times[:] = 0
    tabulate_into(
        0, n, 0, n_thr, R, n_seats, pb[4] == 1, t_threshold, 0, counts, gain, weights, flags, toughness, damage,
        chapters, life, worth, side, seat_l, team_l, thr_row, thr_kind, thr_at, thr_code, thr_amount, thr_seat,
        tough_delta, presence, special, ints[I_SAGA_CHAPTER], material, events, now, dies, reached, crossed, choosable,
    )  # fmt: skip
    for i in range(n):
        for r in range(R):
            times[i] += chosen_g[r, rows[i]]
    base_mat = 0
    base_ev = 0
    val_mat = 0
    val_ev = 0
    span = 0
    for i in range(n):
        base_mat += material[0, i]
        base_ev |= events[0, i]
        if shared and i < players:
            continue
        val_mat += material[times[i], i]
        val_ev |= events[times[i], i]
        if choosable[i]:
            lo_m, hi_m = material[0, i], material[0, i]
            for c in range(1, R + 1):
                lo_m = min(lo_m, material[c, i])
                hi_m = max(hi_m, material[c, i])
            span += hi_m - lo_m
    if shared:
        local_of[:] = -1
        for i in range(players):
            local_of[rows[i]] = i
        for t in range(n_teams):
            h_n = 0
            start = 0
            for i in range(players):
                if team_l[i] == t:
                    heads[h_n] = i
                    h_n += 1
                    start = max(start, counts[i, poison])
            base_mat += t_weight[t] * start
            if start >= t_threshold[t]:
                base_ev |= 1 << t
            given = 0
            state_team = -1
            for q in range(team_map.shape[0]):
                if team_map[q] == t:
                    state_team = q
            for r in range(R):
                rec = recipients_g[r, state_team]
                if rec >= 0:
                    given += head_gain[local_of[rec]]
            total = start + given
            val_mat += t_weight[t] * total
            if total >= t_threshold[t]:
                val_ev |= 1 << t
            any_ok = False
            for h in range(h_n):
                i = heads[h]
                val_mat += material[times[i], i]
                val_ev |= events[times[i], i]
                ok[h] = choosable[i]
                gains[h] = head_gain[i]
                any_ok = any_ok or ok[h]
            if any_ok:
                o_times, o_poison, _, _, _ = team_options(R, ok[:h_n], start > 0, gains[:h_n])
                lo_m, hi_m = np.int64(1) << 62, -(np.int64(1) << 62)
                for o in range(len(o_poison)):
                    m = t_weight[t] * (start + o_poison[o])
                    for h in range(h_n):
                        m += material[o_times[o, h], heads[h]]
                    lo_m = min(lo_m, m)
                    hi_m = max(hi_m, m)
                span += hi_m - lo_m
    weight = max(scores[3], (span / 1000.0 + 1.0) / gap)
    if val_ev:  # a resolution that ends the game for the proliferator is worth its game score alone
        lost = lost_seats_104_2a(val_ev, n_seats, rivals)
        n_lost = popcount(lost & opponents)
        if (lost >> our_seat) & 1 or (n_lost == pb[5] and n_lost > 0):
            val_mat = base_mat
    value = val_mat + score_events(val_ev, n_seats, rivals, our_seat, opponents, pb[5], scores, elim, weight)
    baseline = base_mat + score_events(base_ev, n_seats, rivals, our_seat, opponents, pb[5], scores, elim, weight)
    return value - baseline


# ---------------------------------------------------------------------- running a game
@spine
def advance(S: tuple, T: tuple, g: int, agent: int) -> int:  # type: ignore[type-arg]
    """The game with the scripted seats' decisions made here: run until the agent must decide
    (:data:`AGENT`), the game is over (:data:`OVER`) or a seat decided in Python must (:data:`PYTHON`).

    ``agent`` is the agent's policy: :data:`AGENT_EXTERNAL` (the env's step decides: stop for it) or a policy
    code, whose decisions are made here like the other seats' (each counts one agent step, ``G_STEPS``)."""
    seat, game, queue = S[3][g], S[4][g], S[6][g]
    ints = T[10]
    game[G_PENDING] = 0
    while not game[G_OVER]:
        if game[G_ERROR]:
            return OVER
        if game[G_QLEN] > 0:
            at = game[G_QHEAD]
            p, src, target, sac, fizzled = (queue[at, Q_SEAT], queue[at, Q_SRC], queue[at, Q_TARGET], queue[at, Q_SAC],
                                            queue[at, Q_FIZZLED])  # fmt: skip
            game[G_QHEAD] = (at + 1) % MAX_QUEUE
            game[G_QLEN] -= 1
            if seat[p, S_LOST]:
                continue
            if not prepare(S, T, g, p, src, target, sac, fizzled):
                continue
            begin(S, T, g, p, src, target, sac)
            policy = ints[I_OPPONENT]
            if p == game[G_AGENT]:
                if agent == AGENT_EXTERNAL:
                    return AGENT
                policy = agent
                game[G_STEPS] += 1
            elif policy == POLICY_PYTHON:
                return PYTHON
            decide_scripted(S, T, g, policy)
            resolve(S, T, g)
            continue
        turn(S, T, g)
    return OVER


@inner
def result_of(seat: np.ndarray, game: np.ndarray) -> int:
    """The result for the agent: 0 undecided, 1 win, 2 loss, 3 draw (a 2HG team's result, 810.8a)."""
    return result_of_seat(seat, game, game[G_AGENT])


@inner
def result_of_seat(seat: np.ndarray, game: np.ndarray, agent: int) -> int:
    """The result for seat ``agent``: 0 undecided, 1 win, 2 loss, 3 draw.  A seat that lost has lost (104.3,
    800.4a; a draw if nobody is left, 104.4a); the others win once the game is over before ``max_turns``.  In 2HG
    :func:`lose` marks the whole team, so teammates always share a result (810.8a)."""
    if seat[agent, S_LOST]:
        for p in range(seat.shape[0]):
            if seat[p, S_IN] and not seat[p, S_LOST]:
                return 2
        return 3 if game[G_OVER] else 2
    if game[G_OVER] and not game[G_TRUNC]:
        return 1
    return 0


# ---------------------------------------------------------------------- a new game (the scenarios of env.scenarios)
@spine
def sample_game(S: tuple, T: tuple, g: int, pool: np.ndarray, teams: np.ndarray) -> None:  # type: ignore[type-arg]
    """A seeded game start (``sample_scenario``): each seat's deck from ``pool``, a handful of its permanents
    with the counters a few turns leave, poison where an opponent plays a poison deck; seat 0 is the agent."""
    counts, obj, seat, game, effects, queue = S[0][g], S[2][g], S[3][g], S[4][g], S[5][g], S[6][g]
    rng = S[11]
    card, ints, deck_off, deck_card, deck_cnt, poisoner = T[1], T[10], T[12], T[13], T[14], T[24]
    seats = seat.shape[0]
    counts[:, :] = 0
    obj[:, :] = 0
    obj[:, O_CARD] = -1
    obj[:, O_CTRL] = -1
    obj[:, O_PROT] = -1
    seat[:, :] = 0
    game[:] = 0
    effects[:, :] = 0
    queue[:, :] = 0
    X = S[12][g]
    decks = X[X_FRAME]
    for p in range(seats):
        decks[p] = pool[draw_below(rng, g, len(pool))]
    if ints[I_SHARED] == 1:  # teammates share a deck plan
        decks[1], decks[3] = decks[0], decks[2]
    per_seat = max(1, ints[I_START_PERMANENTS] // seats)
    n_perm = 0
    n_eff = 0
    opponents, legends = X[X_FRAME + 1], X[X_FRAME + 2]
    for p in range(seats):
        seat[p, S_IN] = 1
        seat[p, S_TEAM] = teams[p]
        seat[p, S_DECK] = decks[p]
        lo = max(1, per_seat // 3)
        count = lo + draw_below(rng, g, per_seat + 1 - lo)
        n_opp = 0
        for q in range(seats):
            if teams[q] != teams[p]:
                opponents[n_opp] = q
                n_opp += 1
        n_legends = 0
        d = decks[p]
        for _ in range(count):
            k = deck_off[d] + draw_below(rng, g, deck_off[d + 1] - deck_off[d])
            c = deck_card[k]
            name = card[c, C_NAME]
            seen = False
            for j in range(n_legends):
                if legends[j] == name:
                    seen = True
            if seen:
                continue
            if card[c, C_LEGENDARY]:
                legends[n_legends] = name
                n_legends += 1
            protector = opponents[draw_below(rng, g, n_opp)]
            s = seats + n_perm
            for j in range(2):
                col = deck_cnt[k, j, 0]
                if col >= 0:
                    counts[s, col] = deck_cnt[k, j, 1] + draw_below(rng, g, deck_cnt[k, j, 2] - deck_cnt[k, j, 1] + 1)
            obj[s, O_CARD] = c
            obj[s, O_UID] = n_perm
            obj[s, O_CTRL] = p
            obj[s, O_PROT] = protector if card[c, C_TYPES] & _BATTLE else -1
            if card[c, C_EFFECT] >= 0:
                effects[n_eff, 0] = card[c, C_EFFECT]
                effects[n_eff, 1] = p
                effects[n_eff, 2] = 3
                n_eff += 1
            n_perm += 1
    poison = ints[I_POISON]
    for p in range(seats):
        poisoned = False
        for q in range(seats):
            if teams[q] != teams[p] and poisoner[decks[q]]:
                poisoned = True
        if poisoned:
            counts[p, poison] = draw_below(rng, g, 7)
        if draw_unit(rng, g) < 0.3:
            counts[p, ints[I_ENERGY]] = 1 + draw_below(rng, g, 4)
        if draw_unit(rng, g) < 0.2:
            counts[p, ints[I_EXPERIENCE]] = 1 + draw_below(rng, g, 3)
        seat[p, S_LIFE] = ints[I_START_LIFE]
    if ints[I_SHARED] == 1:  # a 2HG team's poison is shared, stored on every head (810.10)
        for p in range(seats):
            top = 0
            for q in range(seats):
                if teams[q] == teams[p]:
                    top = max(top, counts[q, poison])
            counts[p, poison] = top
    game[G_NPERM] = n_perm
    game[G_NEFF] = n_eff
    game[G_NEXT_UID] = n_perm
    game[G_NSEATS] = seats
    game[G_PROLIFS] = 1


# ---------------------------------------------------------------------- what the agent sees (env.spaces.View)
@inner
def seat_order(seat: np.ndarray, game: np.ndarray, a: int, out: np.ndarray) -> None:
    """Seats relative to the viewing seat ``a`` into ``out``: self, teammates, then opponents, each group in turn
    order (from ``a`` on)."""
    n = game[G_NSEATS]
    out[0] = a
    m = 1
    for teammates in (True, False):
        for r in range(1, n):
            q = (a + r) % n
            if (seat[q, S_IN] == 1 and seat[q, S_TEAM] == seat[a, S_TEAM]) == teammates:
                out[m] = q
                m += 1


@inner
def build_view(S: tuple, T: tuple, g: int, V: tuple) -> None:  # type: ignore[type-arg]
    """Lay game ``g``'s decision out in observation slots from the agent's side (``View.build``) into ``V``."""
    build_view_of(S, T, g, V, S[4][g][G_AGENT])


@spine
def build_view_of(S: tuple, T: tuple, g: int, V: tuple, a: int) -> None:  # type: ignore[type-arg]
    """Lay game ``g`` out in observation slots from seat ``a``'s side (``View.build`` with ``a`` the actor) into
    ``V``: ``a`` in slot 0, its teammates, then its opponents, and each seat's permanents in that order; the 2HG
    recipient heads (701.34b) are ``a``'s team's first."""
    counts, obj, seat, game = S[0][g], S[2][g], S[3][g], S[4][g]
    card, ints, team_threshold = T[1], T[10], T[23]
    v_slot, v_counters, v_kind, v_rel, v_stats, v_present, v_eligible, v_heads, v_open, v_glob = (
        V[0][g], V[1][g], V[2][g], V[3][g], V[4][g], V[5][g], V[6][g], V[7][g], V[8][g], V[9][g])  # fmt: skip
    seats = seat.shape[0]
    slots = v_slot.shape[0]
    c_max = ints[I_C_MAX]
    n_kinds = counts.shape[1]
    vocab = v_counters.shape[1] - 1
    order = S[12][g][X_FRAME]
    seat_order(seat, game, a, order)
    n_view = game[G_NSEATS]
    v_slot[:] = -1
    for r in range(n_view):
        if seat[order[r], S_IN]:
            v_slot[r] = order[r]
    j = n_view
    for r in range(n_view):
        for s in range(seats, seats + game[G_NPERM]):
            if obj[s, O_CTRL] == order[r]:
                v_slot[j] = s
                j += 1
    v_counters[:, :] = 0
    v_kind[:] = 0
    v_rel[:] = 0
    v_stats[:, :] = 0
    v_present[:] = 0
    v_eligible[:] = 0
    for o in range(slots):
        s = v_slot[o]
        if s < 0:
            continue
        v_present[o] = 1
        held = False
        rest = 0  # the kinds past the vocabulary, summed in its last column
        for k in range(n_kinds):
            if counts[s, k] > 0:
                held = True
            if k < vocab:
                v_counters[o, k] = min(max(counts[s, k], 0), c_max)
            else:
                rest += counts[s, k]
        v_counters[o, vocab] = min(max(rest, 0), c_max)
        if s < seats:
            v_kind[o] = 1
            ctrl = s
            v_eligible[o] = 1 if held else 0
        else:
            c = obj[s, O_CARD]
            v_kind[o] = card[c, 12]  # C_TYPE_CODE
            ctrl = obj[s, O_CTRL]
            v_stats[o, 0] = min(max(card[c, C_POWER], -c_max), c_max)
            v_stats[o, 1] = min(max(card[c, C_TOUGHNESS], -c_max), c_max)
            v_stats[o, 2] = min(max(obj[s, O_DAMAGE], -c_max), c_max)
            v_stats[o, 3] = min(max(card[c, C_CHAPTERS], -c_max), c_max)
            v_eligible[o] = 1 if held and not obj[s, O_PHASED] else 0
        if ctrl == a:
            v_rel[o] = 1
        elif seat[ctrl, S_TEAM] == seat[a, S_TEAM]:
            v_rel[o] = 2
        else:
            v_rel[o] = 3
    v_open[:] = 0
    v_heads[:, :] = -1
    if ints[I_SHARED] == 1:
        poison = ints[I_POISON]
        for t in range(2):
            first, other = order[2 * t], order[2 * t + 1]
            v_heads[t, 0] = first
            v_heads[t, 1] = other
            both = v_eligible[2 * t] == 1 and v_eligible[2 * t + 1] == 1
            v_open[t] = 1 if both and counts[first, poison] > 0 else 0
    v_glob[:] = 0.0
    team_size = S[12][g][X_FRAME + 1]
    team_size[:] = 0
    for q in range(seats):
        if seat[q, S_IN]:
            team_size[seat[q, S_TEAM]] += 1
    start_life = ints[I_START_LIFE]
    for r in range(n_view):
        q = order[r]
        if not seat[q, S_IN]:
            continue
        v_glob[3 * r] = 1.0
        v_glob[3 * r + 1] = min(max(seat[q, S_LIFE] / (2.0 * start_life), 0.0), 1.0)
        threshold = team_threshold[team_size[seat[q, S_TEAM]]] if ints[I_SHARED] == 1 else ints[I_POISON_THRESHOLD]
        v_glob[3 * r + 2] = min(counts[q, ints[I_POISON]] / threshold, 1.0)


# ---------------------------------------------------------------------- the step
@inner
def close_round(S: tuple, T: tuple, g: int, V: tuple, second: np.ndarray, sequential: bool) -> None:  # type: ignore[type-arg]
    """Finish one proliferate of the agent's decision: the 2HG poison recipients (701.34b), then the next round."""
    seat, game, chosen, recipients, picked, order = S[3][g], S[4][g], S[7][g], S[8][g], S[9][g], S[10][g]
    v_heads, v_open = V[7][g], V[8][g]
    r = game[G_PROUND]
    if T[10][I_SHARED] == 1:
        for t in range(2):
            first, other = v_heads[t, 0], v_heads[t, 1]
            if not (v_open[t] and chosen[r, first] and chosen[r, other]):
                continue
            team = seat[first, S_TEAM]
            if sequential:  # the head picked first receives
                at_first = at_other = -1
                for j in range(game[G_NPICK]):
                    if order[j] == 2 * t:
                        at_first = j
                    if order[j] == 2 * t + 1:
                        at_other = j
                recipients[r, team] = first if at_first < at_other else other
            else:
                recipients[r, team] = other if second[t] else first
    game[G_PROUND] = r + 1
    game[G_NPICK] = 0
    picked[:] = 0


@inner
def take_action(S: tuple, T: tuple, g: int, V: tuple, action: np.ndarray, sequential: bool) -> int:  # type: ignore[type-arg]
    """Record this step's part of the agent's decision; the number of ineligible bits or picks ignored."""
    game, chosen, picked, order = S[4][g], S[7][g], S[9][g], S[10][g]
    v_slot, v_eligible, v_open = V[0][g], V[6][g], V[8][g]
    slots = v_slot.shape[0]
    r = game[G_PROUND]
    illegal = 0
    second = S[13][g][B_SECOND][:2]
    second[:] = False
    if not sequential:
        for o in range(slots):
            if action[o]:
                if v_eligible[o]:
                    chosen[r, v_slot[o]] = 1
                else:
                    illegal += 1
        for t in range(action.shape[0] - slots):
            if action[slots + t]:
                if v_open[t]:
                    second[t] = True
                else:
                    illegal += 1
        close_round(S, T, g, V, second, False)
        return illegal
    index = action[0]
    if index == slots:
        close_round(S, T, g, V, second, True)
    elif not v_eligible[index] or picked[index]:
        illegal = 1
    else:
        picked[index] = 1
        order[game[G_NPICK]] = index
        game[G_NPICK] += 1
        chosen[r, v_slot[index]] = 1
    return illegal


@spine
def step_one(S: tuple, T: tuple, V: tuple, g: int, action: np.ndarray, out_f: np.ndarray, out_i: np.ndarray,  # type: ignore[type-arg]
             want_value: bool, want_regret: bool) -> None:  # fmt: skip
    """One agent step of game ``g``: ``out_f`` = reward terms (illegal, delta, regret, optimum), ``out_i`` =
    (illegal bits, decision done, status, result)."""
    game, seat = S[4][g], S[3][g]
    ints, floats = T[10], T[11]
    sequential = ints[I_SEQUENTIAL] == 1
    game[G_STEPS] += 1
    illegal = take_action(S, T, g, V, action, sequential)
    out_f[0] = -floats[10] * illegal  # F_PENALTY
    out_f[1] = 0.0
    out_f[2] = 0.0
    out_f[3] = 0.0
    out_i[0] = illegal
    out_i[1] = 0
    out_i[2] = AGENT
    if game[G_PROUND] < game[G_PROUNDS]:
        out_i[3] = result_of(seat, game)
        return
    out_i[1] = 1
    implicit_recipients(S, T, g)
    if want_value:
        value = choice_value(S, T, g)
        out_f[1] = value / 1000.0
        if want_regret:
            best = optimum_value(S, T, g)
            out_f[2] = -(best - value) / 1000.0
            out_f[3] = best / 1000.0
    resolve(S, T, g)
    status = OVER
    if not game[G_OVER] and ints[I_BANDIT] == 0:
        status = advance(S, T, g, AGENT_EXTERNAL)
    out_i[2] = status
    out_i[3] = result_of(seat, game)
    if status == AGENT:
        build_view(S, T, g, V)


@njit(cache=True)
def step_games(S: tuple, T: tuple, V: tuple, games: np.ndarray, actions: np.ndarray, out_f: np.ndarray,  # type: ignore[type-arg]
               out_i: np.ndarray, want_value: bool, want_regret: bool) -> None:  # fmt: skip
    """:func:`step_one` for every game of ``games`` (row ``j`` of ``actions`` and the outputs is ``games[j]``)."""
    for j in range(len(games)):
        step_one(S, T, V, games[j], actions[j], out_f[j], out_i[j], want_value, want_regret)


@njit(cache=True, parallel=True)
def step_games_parallel(S: tuple, T: tuple, V: tuple, games: np.ndarray, actions: np.ndarray, out_f: np.ndarray,  # type: ignore[type-arg]
                        out_i: np.ndarray, want_value: bool, want_regret: bool) -> None:  # fmt: skip
    """:func:`step_games` over numba's threads: every game's work and draws are its own, so the results are the
    same on one thread or several."""
    for j in prange(len(games)):
        step_one(S, T, V, games[j], actions[j], out_f[j], out_i[j], want_value, want_regret)


@spine
def reset_seats(S: tuple, T: tuple, g: int, pool: np.ndarray, teams: np.ndarray, first: int) -> int:  # type: ignore[type-arg]
    """Start game ``g`` with no agent seat (:data:`NO_AGENT`): a sampled scenario, seat ``first``'s opening, and
    the game run to its first decision; the status (:data:`PYTHON` with a decision pending)."""
    sample_game(S, T, g, pool, teams)
    S[4][g][G_AGENT] = NO_AGENT
    opening(S, T, g, first)
    return advance(S, T, g, AGENT_EXTERNAL)


@spine
def resume_one(S: tuple, T: tuple, V: tuple, g: int) -> int:  # type: ignore[type-arg]
    """After a Python seat's choice was written into the decision: resolve it and run on; the status."""
    resolve(S, T, g)
    status = OVER
    if not S[4][g][G_OVER]:
        status = advance(S, T, g, AGENT_EXTERNAL)
    if status == AGENT:
        build_view(S, T, g, V)
    return status


@spine
def reset_one(S: tuple, T: tuple, V: tuple, g: int, pool: np.ndarray, teams: np.ndarray, given: bool) -> int:  # type: ignore[type-arg]
    """Start game ``g``: a sampled scenario and its opening (or the loaded board's own decision); the status."""
    game = S[4][g]
    ints = T[10]
    if given:
        p = game[G_PROLIF]
        game[G_AGENT] = p
        game[G_NEXT_SEAT] = (p + 1) % game[G_NSEATS]
        begin(S, T, g, p, ints[I_GIVEN_SRC], -1, -1)
        build_view(S, T, g, V)
        return AGENT
    sample_game(S, T, g, pool, teams)
    opening(S, T, g, 0)
    status = advance(S, T, g, AGENT_EXTERNAL)
    if status == AGENT:
        build_view(S, T, g, V)
    return status


@njit(cache=True)
def reset_games(S: tuple, T: tuple, V: tuple, games: np.ndarray, states: np.ndarray, pool: np.ndarray,  # type: ignore[type-arg]
                teams: np.ndarray, given: bool, status: np.ndarray) -> None:  # fmt: skip
    """:func:`reset_one` for every game of ``games``, game ``games[j]``'s stream starting at ``states[j]``; the
    statuses into ``status`` (one compiled call for all the games a step resets)."""
    rng = S[11]
    for j in range(len(games)):
        rng[games[j]] = states[j]
        status[j] = reset_one(S, T, V, games[j], pool, teams, given)


# ---------------------------------------------------------------------- whole games (benchmarks.games)
#: Columns of :func:`play_games`' row per game.
W_RESULT, W_DECISIONS, W_TURNS, W_POISON, W_THRESHOLD, W_ERROR = range(6)
N_W = 6


@inner
def first_decision_flags(S: tuple, T: tuple, g: int) -> tuple[bool, bool]:  # type: ignore[type-arg]
    """What game ``g``'s pending decision holds: poison counters on any object, and a permanent with a counter
    threshold or a Saga (714: its chapters)."""
    counts, obj, seat, game = S[0][g], S[2][g], S[3][g], S[4][g]
    card, thr_off, poison = T[1], T[18], T[10][I_POISON]
    seats = seat.shape[0]
    poisoned = threshold = False
    for s in range(seats + game[G_NPERM]):
        if s < seats:
            if seat[s, S_IN] and counts[s, poison] > 0:
                poisoned = True
            continue
        c = obj[s, O_CARD]
        poisoned = poisoned or counts[s, poison] > 0
        threshold = threshold or thr_off[c + 1] > thr_off[c] or card[c, C_CHAPTERS] > 0
    return poisoned, threshold


@spine
def play_one(S: tuple, T: tuple, V: tuple, g: int, state: np.uint64, pool: np.ndarray, teams: np.ndarray,  # type: ignore[type-arg]
             policy: int, out: np.ndarray) -> None:  # fmt: skip
    """One whole game on slot ``g``, its stream starting at ``state``, the agent deciding by ``policy``: the game
    :func:`reset_one` starts, the agent's decisions made here (:func:`advance`), to its end; into ``out`` (the
    ``W_`` columns) its result (:func:`result_of`), the agent's decisions, the turns, what the agent's first
    decision held and the error code (3: a seat decided in Python, which this loop cannot call)."""
    seat, game = S[3][g], S[4][g]
    S[11][g] = state
    status = reset_one(S, T, V, g, pool, teams, False)
    out[:] = 0
    if status == AGENT:
        poisoned, threshold = first_decision_flags(S, T, g)
        out[W_POISON] = poisoned
        out[W_THRESHOLD] = threshold
        game[G_STEPS] += 1
        decide_scripted(S, T, g, policy)
        resolve(S, T, g)
        status = OVER if game[G_OVER] else advance(S, T, g, policy)
    out[W_RESULT] = result_of(seat, game)
    out[W_DECISIONS] = game[G_STEPS]
    out[W_TURNS] = game[G_TURNS]
    out[W_ERROR] = 3 if status == PYTHON else game[G_ERROR]


@njit(cache=True, parallel=True)
def play_games(S: tuple, T: tuple, V: tuple, states: np.ndarray, pool: np.ndarray, teams: np.ndarray,  # type: ignore[type-arg]
               policy: int, out: np.ndarray) -> None:  # fmt: skip
    """:func:`play_one` for game ``j`` of ``states`` (its stream's start) into ``out[j]``, on slot ``j % N``
    over numba's threads.  Each game starts from its own state and draws only its own stream, so ``out`` is the
    same whatever the thread count or ``N``."""
    n = S[4].shape[0]
    k = len(states)
    for w in prange(n):
        for j in range(w, k, n):
            play_one(S, T, V, w, states[j], pool, teams, policy, out[j])


@inner
def observe_row(S: tuple, V: tuple, g: int, j: int, done: bool, horizon: int, sequential: bool,  # type: ignore[type-arg]
                one_hot: np.ndarray, out: tuple) -> None:  # type: ignore[type-arg]  # fmt: skip
    """Game ``g``'s observation into row ``j`` of the arrays of ``out``: counters, kind, relation, stats, present,
    eligible (the decision's views), times (rounds of this decision choosing each slot), picked, action_mask and
    globals (round, rounds, agent steps / ``horizon``, the variant, the seats' globals).  A game that is ``done``
    (its episode over) shows its last view with nothing allowed (bar DONE in sequential mode)."""
    game_all, chosen_all, picked_all = S[4], S[7], S[9]
    o_counters, o_kind, o_rel, o_stats, o_present, o_eligible, o_times, o_picked, o_mask, o_glob = (
        out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], out[8], out[9])  # fmt: skip
    slots = V[0].shape[1]
    extra = o_mask.shape[1] - slots
    game, v_slot, v_counters, v_stats, v_eligible, v_open = game_all[g], V[0][g], V[1][g], V[4][g], V[6][g], V[8][g]
    v_kind, v_rel, v_present, v_glob = V[2][g], V[3][g], V[5][g], V[9][g]
    for o in range(slots):  # loops: a slice assignment broadcasts element by element
        for k in range(v_counters.shape[1]):
            o_counters[j, o, k] = v_counters[o, k]
        for k in range(v_stats.shape[1]):
            o_stats[j, o, k] = v_stats[o, k]
        o_kind[j, o] = v_kind[o]
        o_rel[j, o] = v_rel[o]
        o_present[j, o] = v_present[o]
        o_eligible[j, o] = v_eligible[o]
    rounds_done = 0 if done else game[G_PROUND]
    rounds = 1 if done else max(game[G_PROUNDS], 1)
    for o in range(slots):
        t = 0
        s = v_slot[o]
        if s >= 0:
            for r in range(rounds_done):
                t += chosen_all[g, r, s]
        o_times[j, o] = t
        o_picked[j, o] = 0 if done else picked_all[g, o]
        if done:
            o_mask[j, o] = 0
        elif sequential:
            o_mask[j, o] = v_eligible[o] & (1 - picked_all[g, o])
        else:
            o_mask[j, o] = v_eligible[o]
    for t in range(extra):
        if sequential:
            o_mask[j, slots + t] = 1
        else:
            o_mask[j, slots + t] = 0 if done else v_open[t]
    o_glob[j, 0] = np.float32(rounds_done) / np.float32(rounds)
    o_glob[j, 1] = min(np.float32(rounds) / np.float32(4.0), np.float32(1.0))
    o_glob[j, 2] = min(max(np.float32(game[G_STEPS]) / np.float32(horizon), np.float32(0.0)), np.float32(1.0))
    for k in range(3):
        o_glob[j, 3 + k] = one_hot[k]
    for k in range(o_glob.shape[1] - 6):
        o_glob[j, 6 + k] = v_glob[k]


@njit(cache=True)
def observe(S: tuple, V: tuple, games: np.ndarray, over: np.ndarray, horizon: int, sequential: bool,  # type: ignore[type-arg]
            one_hot: np.ndarray, out: tuple) -> None:  # type: ignore[type-arg]  # fmt: skip
    """The observations of ``games`` (row ``j`` is ``games[j]``, :func:`observe_row`) into the arrays of ``out``;
    ``over[j]``: ``games[j]``'s episode is over."""
    for j in range(len(games)):
        observe_row(S, V, games[j], j, over[j], horizon, sequential, one_hot, out)
