"""State-based actions and what follows them, one object row at a time (704.3, 704.5, 714.4, 122.2).

Each rule is one small compiled function named for it; :func:`settle_row` applies them in the
order the rules give (every state-based action is checked simultaneously, 704.3, so the order
only matters where one action's result is another's input, as for annihilation before
toughness).  Each takes the counter table ``counts`` (rows x kinds) and the object's row ``i`` in it, so
no row is cut out as an array view of its own (a view costs numba two atomic reference counts per call).
"""

from __future__ import annotations

import numpy as np

from .jit import inner
from .layout import (
    F_BATTLE,
    F_CREATURE,
    F_DESTRUCTIBLE,
    F_PHASED_OUT,
    F_PLANESWALKER,
    F_PRESENT,
    F_SAGA,
)

__all__ = [
    "alive_122_2",
    "annihilate_704_5q",
    "battle_defense_704_5v",
    "lethal_damage_704_5g",
    "planeswalker_loyalty_704_5i",
    "player_loses_704_5a_704_5c",
    "saga_chapters_714_2b",
    "saga_sacrifice_714_4",
    "settle_object",
    "settle_row",
    "shared_poison_810_10",
    "team_poison_704_6b",
    "toughness_122_1a",
    "zero_toughness_704_5f",
]


@inner
def annihilate_704_5q(counts: np.ndarray, i: int, flags: int, plus: int, minus: int) -> int:
    """704.5q: a permanent with +1/+1 and -1/-1 counters loses N of each, N the smaller count."""
    if plus < 0 or minus < 0 or not flags & F_PRESENT:
        return 0
    n = min(counts[i, plus], counts[i, minus])
    counts[i, plus] -= n
    counts[i, minus] -= n
    return int(n)


@inner
def toughness_122_1a(counts: np.ndarray, i: int, printed: int, tough_delta: np.ndarray) -> int:
    """122.1a: each P/T counter changes toughness by its second half."""
    t = printed
    for k in range(len(tough_delta)):  # branch-free, so that it compiles to plain vector loads
        t += tough_delta[k] * counts[i, k]
    return t


@inner
def zero_toughness_704_5f(flags: int, toughness: int) -> bool:
    """704.5f: a creature with toughness 0 or less goes to the graveyard (indestructible doesn't help)."""
    return bool(flags & F_CREATURE) and toughness <= 0


@inner
def lethal_damage_704_5g(flags: int, toughness: int, damage: int) -> bool:
    """704.5g: a destructible creature with lethal damage marked is destroyed.

    A shield counter does not save it (122.1c): shields replace damage and destruction "as the
    result of an effect", and this destruction is a state-based action.
    """
    return bool(flags & F_DESTRUCTIBLE) and toughness > 0 and damage >= toughness


@inner
def planeswalker_loyalty_704_5i(counts: np.ndarray, i: int, flags: int, loyalty: int) -> bool:
    """704.5i: a planeswalker with 0 loyalty goes to the graveyard."""
    if not flags & F_PLANESWALKER:
        return False
    return (counts[i, loyalty] if loyalty >= 0 else 0) <= 0


@inner
def battle_defense_704_5v(counts: np.ndarray, i: int, flags: int, defense: int) -> bool:
    """704.5v: a battle with 0 defense goes to the graveyard."""
    if not flags & F_BATTLE:
        return False
    return (counts[i, defense] if defense >= 0 else 0) <= 0


@inner
def saga_chapters_714_2b(flags: int, lore: int, chapters: int) -> int:
    """714.2b/714.2c: the chapters a Saga with ``lore`` lore counters has reached (at most its final one)."""
    if not flags & F_SAGA:
        return 0
    return min(lore, chapters)


@inner
def saga_sacrifice_714_4(flags: int, lore: int, chapters: int) -> bool:
    """714.4: a Saga with as many lore counters as chapters goes (once its chapter ability has left the stack)."""
    return bool(flags & F_SAGA) and lore >= chapters


@inner
def settle_object(
    counts: np.ndarray,
    i: int,
    start: np.ndarray,
    row: int,
    flags: int,
    toughness: int,
    damage: int,
    chapters: int,
    tough_delta: np.ndarray,
    special: np.ndarray,
) -> tuple[int, bool, bool, int, int]:
    """Every state-based action of the object whose counters are row ``i`` of ``counts`` (modified in place).

    Row ``row`` of ``start`` is the object's counters before the resolution (for the chapters
    already reached); ``special`` the layout's special columns (see
    :data:`solver.kernels.layout.SPECIAL`).  Returns the pairs of +1/+1 and -1/-1 counters
    annihilated (704.5q), whether it dies, whether it is sacrificed (714.4), and its chapters
    before and after.  Counters of an object that dies cease to exist (122.2).
    """
    plus, minus, loyalty, defense, lore = special[0], special[1], special[2], special[3], special[4]
    annihilated = annihilate_704_5q(counts, i, flags, plus, minus)
    t = toughness_122_1a(counts, i, toughness, tough_delta)
    dies = zero_toughness_704_5f(flags, t) or lethal_damage_704_5g(flags, t, damage)
    dies = (
        dies
        or planeswalker_loyalty_704_5i(counts, i, flags, loyalty)
        or battle_defense_704_5v(counts, i, flags, defense)
    )
    before = after = 0
    sacrificed = False
    if flags & F_SAGA:
        lore_before = start[row, lore] if lore >= 0 else 0
        lore_after = counts[i, lore] if lore >= 0 else 0
        before = saga_chapters_714_2b(flags, lore_before, chapters)
        after = saga_chapters_714_2b(flags, lore_after, chapters)
        sacrificed = saga_sacrifice_714_4(flags, lore_after, chapters)
    if dies:
        for k in range(counts.shape[1]):
            counts[i, k] = 0
    return annihilated, dies, sacrificed, before, after


@inner
def settle_row(
    counts: np.ndarray,
    start: np.ndarray,
    i: int,
    flags: int,
    toughness: int,
    damage: int,
    chapters: int,
    tough_delta: np.ndarray,
    special: np.ndarray,
) -> tuple[bool, bool, int, int]:
    """:func:`settle_object` of row ``i`` of ``counts`` (before: row ``i`` of ``start``), but the pairs
    annihilated: whether it dies, is sacrificed, its chapters then and now.  The tables are passed whole, with
    the row, rather than the row as a view: a 1-D row made 2-D again costs numba a reshape call per object."""
    _, dies, sacrificed, before, after = settle_object(
        counts, i, start, i, flags, toughness, damage, chapters, tough_delta, special
    )
    return dies, sacrificed, before, after


@inner
def player_loses_704_5a_704_5c(life: int, poison: int, poison_counts: bool, threshold: int) -> bool:
    """704.5a: a player with 0 or less life loses; 704.5c: so does one with ``threshold`` (ten) or more poison
    counters, where a player's own poison counts (``poison_counts``; in 2HG the team's does, 704.6b)."""
    return life <= 0 or (poison_counts and poison >= threshold)


@inner
def shared_poison_810_10(
    counts: np.ndarray, lo: int, base: int, players: int, team: np.ndarray, t: int, poison: int
) -> int:
    """A 2HG team's shared poison (810.10), stored on every head: the most on any of team ``t``'s heads.

    The board's players are layout rows ``lo`` to ``lo + players``; ``counts`` is indexed by ``row - base``.
    """
    most = 0
    for i in range(players):
        if team[lo + i] == t:
            most = max(most, counts[lo + i - base, poison])
    return most


@inner
def team_poison_704_6b(poison: int, threshold: int) -> bool:
    """704.6b: a 2HG team with ``threshold`` (fifteen, 810.11: five more per head beyond two) or more poison loses."""
    return poison >= threshold


@inner
def alive_122_2(flags: int, dies: bool) -> bool:
    """An object still there after the state-based actions (not dead, not phased out, 702.26b)."""
    return not dies and not flags & F_PHASED_OUT
