"""The seeded event model: how the game moves on during a seat's turn, between proliferates.

In the order a turn goes: Sagas get their lore counter (714.3b), new permanents enter with
counters (some proliferate when they enter), planeswalkers activate loyalty abilities,
creatures attack (infect and toxic damage give poison, 702.90 / 702.164; other damage
costs life; some attackers proliferate on combat damage), -1/-1 effects hit the
opponents' creatures, +1/+1 effects grow one's own, Sieges are attacked, and removal
destroys a creature.  The counters are put as printed: replacement effects are modelled
by the solver for proliferate only.  State-based actions are not applied here: the game
(:mod:`env.game`) runs them right after, through :func:`solver.batch.settle_many`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.core import SUPPORTED_CARDS, Board, CardType, Effect

from .boardops import add_counters, lose_lives, remove
from .opportunities import PERMANENT_SOURCES
from .scenarios import CARDS, LEGENDARY, make_permanent, with_columns

__all__ = ["EventParams", "TurnEvents", "dies_triggers", "turn_events"]

_COMBAT = frozenset(c for c, s in PERMANENT_SOURCES.items() if "combat damage" in s.text)
_ENTERS = frozenset(c for c, s in PERMANENT_SOURCES.items() if "enters" in s.text)
_DIES = frozenset(c for c, s in PERMANENT_SOURCES.items() if "dies" in s.text)


@dataclass(frozen=True)
class EventParams:
    """Per-turn probabilities of the event model (constructor kwarg ``events`` of every env)."""

    attack: float = 0.35
    wither: float = 0.25
    grow: float = 0.3
    enter: float = 0.3
    removal: float = 0.1
    loyalty: float = 0.7
    siege: float = 0.5


@dataclass(frozen=True)
class TurnEvents:
    """The board after a turn's events (state-based actions still to run) and what triggered."""

    board: Board
    log: tuple[str, ...]
    triggers: tuple[tuple[str, str], ...]


def turn_events(
    board: Board,
    seat: str,
    archetype: str,
    rng: np.random.Generator,
    params: EventParams,
    capacity: int,
    next_id: int,
) -> TurnEvents:
    """What happens in ``seat``'s turn; ``capacity`` caps permanents (slots are never exceeded)."""
    log: list[str] = []
    triggers: list[tuple[str, str]] = []
    row = board.index[seat]
    board = _enter(board, seat, archetype, rng, params, capacity, next_id, log, triggers)
    counts = board.counts.copy()
    names = board.names
    present = ~board.phased_out
    present[: board.n_players] = False
    mine = (board.controller == row) & present
    own_team = board.object_team == board.team[row]
    creature = board.has_type(CardType.CREATURE) & present

    sagas = np.flatnonzero(mine & (board.chapters > 0))
    if len(sagas):  # a lore counter each (714.3b); counts never go below zero, so this is add_counters per Saga
        counts[sagas, board.kind_column("lore")] += 1
        log.extend(f"{names[i]} gets a lore counter" for i in sagas)
    loyalty_col = board.kind_column("loyalty")
    for i in np.flatnonzero(mine & board.has_type(CardType.PLANESWALKER)):
        if rng.random() < params.loyalty:
            loyalty = counts[i, loyalty_col]
            delta = -2 if loyalty >= 5 and rng.random() < 0.3 else 1
            add_counters(board, counts, int(i), "loyalty", delta)
            log.append(f"{board.names[i]} activates {delta:+d}")

    opponents = [p for p in range(board.n_players) if board.team[p] != board.team[row]]
    power = _power(board, counts)
    life_lost = np.zeros(board.n_players, dtype=np.int64)
    for i in np.flatnonzero(mine & creature):
        if power[i] <= 0 or rng.random() >= params.attack:
            continue
        victim = opponents[int(rng.integers(len(opponents)))]
        keywords = board.keywords[i]
        toxic = sum(int(k.split()[1]) for k in keywords if k.startswith("toxic "))
        if "infect" in keywords:
            add_counters(board, counts, victim, "poison", int(power[i]))
        else:
            life_lost[victim] += int(power[i])
            if toxic:
                add_counters(board, counts, victim, "poison", toxic)
        log.append(f"{names[i]} deals {power[i]} combat damage to {board.ids[victim]}")
        if names[i] in _COMBAT:
            triggers.append((seat, str(names[i])))

    theirs = np.flatnonzero(creature & ~own_team)
    if len(theirs) and rng.random() < params.wither:
        hit = int(theirs[int(rng.integers(len(theirs)))])
        add_counters(board, counts, hit, "-1/-1", int(rng.integers(1, 3)))
        log.append(f"{board.names[hit]} gets -1/-1 counters")
    ours = np.flatnonzero(creature & mine)
    if len(ours) and rng.random() < params.grow:
        grown = int(ours[int(rng.integers(len(ours)))])
        add_counters(board, counts, grown, "+1/+1", 1)
        log.append(f"{board.names[grown]} gets a +1/+1 counter")
    for battle in np.flatnonzero(mine & board.has_type(CardType.BATTLE)):
        if rng.random() < params.siege:
            add_counters(board, counts, int(battle), "defense", -int(rng.integers(1, 3)))
            log.append(f"{board.names[battle]} is attacked")
    if log:  # every event that puts or removes counters or costs life is logged
        board = lose_lives(board.with_counts(counts), life_lost)

    if len(theirs) and rng.random() < params.removal:
        doomed = int(theirs[int(rng.integers(len(theirs)))])
        log.append(f"{board.names[doomed]} is destroyed")
        triggers.extend(dies_triggers(board, [doomed]))
        gone = np.zeros(board.n_objects, dtype=bool)
        gone[doomed] = True
        board = remove(board, gone)
    return TurnEvents(board=board, log=tuple(log), triggers=tuple(triggers))


def dies_triggers(board: Board, rows: list[int]) -> list[tuple[str, str]]:
    """(controller, card) of the "when this dies, proliferate" triggers of ``rows`` (on ``board``)."""
    return [(board.ids[int(board.controller[i])], str(board.names[i])) for i in rows if board.names[i] in _DIES]


def _power(board: Board, counts: np.ndarray) -> np.ndarray:
    """Power with P/T counters (122.1a)."""
    out: np.ndarray = board.power + counts @ board.power_per_counter
    return out


def _enter(
    board: Board,
    seat: str,
    archetype: str,
    rng: np.random.Generator,
    params: EventParams,
    capacity: int,
    next_id: int,
    log: list[str],
    triggers: list[tuple[str, str]],
) -> Board:
    if board.n_objects - board.n_players >= capacity or rng.random() >= params.enter:
        return board
    cards = CARDS[archetype]
    spec = cards[int(rng.integers(len(cards)))]
    row = board.index[seat]
    if spec.name in LEGENDARY and (spec.name in board.names[board.controller == row]):
        return board  # a second copy of a legendary permanent is not played (704.5j)
    opponents = [board.ids[p] for p in range(board.n_players) if board.team[p] != board.team[row]]
    obj_id = f"o{next_id}"
    while obj_id in board.index:
        next_id += 1
        obj_id = f"o{next_id}"
    perm = make_permanent(spec, obj_id, seat, opponents[int(rng.integers(len(opponents)))], rng)
    log.append(f"{spec.name} enters under {seat}")
    if spec.name in _ENTERS:
        triggers.append((seat, spec.name))
    effect = Effect(spec.name, seat) if spec.name in SUPPORTED_CARDS else None
    # A permanent with a kind the board has no column for rebuilds it; keep every BASE_KINDS column.
    return with_columns(board.with_permanent(perm, () if effect is None else (effect,)))
