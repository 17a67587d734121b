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

from solver.core import SUPPORTED_CARDS, Board, CardType, Effect, IntArray

from .boardops import add_counters, lose_lives, remove, with_counts
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


@dataclass(frozen=True)
class _Sides:
    """The phased-in permanents of one turn, by role (rows in board order, as plain ints).

    A turn looks at a dozen or two objects: Python lists of them cost less than the numpy
    masks and ``flatnonzero`` calls they replace, and the order (ascending rows) is the same.
    """

    sagas: list[int]
    planeswalkers: list[int]
    attackers: list[int]
    battles: list[int]
    theirs: list[int]
    opponents: list[int]

    @classmethod
    def of(cls, board: Board, row: int) -> _Sides:
        controller = board.controller.tolist()
        phased = board.phased_out.tolist()
        types = board.types.tolist()
        chapters = board.chapters.tolist()
        team = board.team.tolist()
        my_team = team[row]
        sides = cls([], [], [], [], [], [p for p in range(board.n_players) if team[p] != my_team])
        for i in range(board.n_players, board.n_objects):  # one pass, rows ascending
            if phased[i]:
                continue
            kind = types[i]
            if controller[i] == row:
                if chapters[i] > 0:
                    sides.sagas.append(i)
                if kind & _PLANESWALKER:
                    sides.planeswalkers.append(i)
                if kind & _CREATURE:
                    sides.attackers.append(i)
                if kind & _BATTLE:
                    sides.battles.append(i)
            if kind & _CREATURE and team[controller[i]] != my_team:
                sides.theirs.append(i)
        return sides


_CREATURE = int(CardType.CREATURE)
_PLANESWALKER = int(CardType.PLANESWALKER)
_BATTLE = int(CardType.BATTLE)


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
    sides = _Sides.of(board, row)

    if sides.sagas:  # a lore counter each (714.3b); counts never go below zero, so this is add_counters per Saga
        lore_col = board.kind_column("lore")
        for i in sides.sagas:  # scalar updates: a turn has a Saga or two, fewer than a fancy index costs
            counts[i, lore_col] += 1
        log.extend(f"{names[i]} gets a lore counter" for i in sides.sagas)
    loyalty_col = board.kind_column("loyalty")
    for i in sides.planeswalkers:
        if rng.random() < params.loyalty:
            loyalty = counts[i, loyalty_col]
            delta = -2 if loyalty >= 5 and rng.random() < 0.3 else 1
            add_counters(board, counts, i, "loyalty", delta)
            log.append(f"{names[i]} activates {delta:+d}")

    life_lost = _attack(board, counts, seat, sides, rng, params, log, triggers)
    theirs = sides.theirs
    if theirs and rng.random() < params.wither:
        hit = theirs[int(rng.integers(len(theirs)))]
        add_counters(board, counts, hit, "-1/-1", int(rng.integers(1, 3)))
        log.append(f"{names[hit]} gets -1/-1 counters")
    ours = sides.attackers
    if ours and rng.random() < params.grow:
        grown = ours[int(rng.integers(len(ours)))]
        add_counters(board, counts, grown, "+1/+1", 1)
        log.append(f"{names[grown]} gets a +1/+1 counter")
    for battle in sides.battles:
        if rng.random() < params.siege:
            add_counters(board, counts, battle, "defense", -int(rng.integers(1, 3)))
            log.append(f"{names[battle]} is attacked")
    if log:  # every event that puts or removes counters or costs life is logged
        board = lose_lives(with_counts(board, counts), life_lost)

    if theirs and rng.random() < params.removal:
        doomed = theirs[int(rng.integers(len(theirs)))]
        log.append(f"{names[doomed]} is destroyed")
        triggers.extend(dies_triggers(board, [doomed]))
        gone = np.zeros(board.n_objects, dtype=bool)
        gone[doomed] = True
        board = remove(board, gone)
    return TurnEvents(board=board, log=tuple(log), triggers=tuple(triggers))


def dies_triggers(board: Board, rows: list[int]) -> list[tuple[str, str]]:
    """(controller, card) of the "when this dies, proliferate" triggers of ``rows`` (on ``board``)."""
    return [(board.ids[int(board.controller[i])], str(board.names[i])) for i in rows if board.names[i] in _DIES]


def _attack(
    board: Board,
    counts: IntArray,
    seat: str,
    sides: _Sides,
    rng: np.random.Generator,
    params: EventParams,
    log: list[str],
    triggers: list[tuple[str, str]],
) -> IntArray:
    """Combat: each creature with power attacks with probability ``attack``; the life each player loses.

    Infect damage gives poison instead (702.90), toxic adds poison to the damage (702.164).
    """
    life_lost = np.zeros(board.n_players, dtype=np.int64)
    if not sides.attackers:
        return life_lost
    names = board.names
    opponents = sides.opponents
    power = _power(board, counts, sides.attackers)
    for i in sides.attackers:
        if power[i] <= 0 or rng.random() >= params.attack:
            continue
        victim = opponents[int(rng.integers(len(opponents)))]
        keywords = board.keywords[i]
        toxic = sum(int(k.split()[1]) for k in keywords if k.startswith("toxic "))
        if "infect" in keywords:
            add_counters(board, counts, victim, "poison", power[i])
        else:
            life_lost[victim] += power[i]
            if toxic:
                add_counters(board, counts, victim, "poison", toxic)
        log.append(f"{names[i]} deals {power[i]} combat damage to {board.ids[victim]}")
        if names[i] in _COMBAT:
            triggers.append((seat, str(names[i])))
    return life_lost


def _power(board: Board, counts: IntArray, rows: list[int]) -> dict[int, int]:
    """Power with P/T counters (122.1a) of ``rows``, in plain ints: a turn looks at a few attackers."""
    base = board.power.tolist()
    columns = [(col, per) for col, per in enumerate(board.power_per_counter.tolist()) if per]
    held = counts[rows].tolist()  # the rows' counts in one fancy index, not one numpy scalar per row and column
    return {i: base[i] + sum(row[col] * per for col, per in columns) for i, row in zip(rows, held, strict=True)}


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
