"""The seeded event model's parameters and the proliferating permanents it triggers, as data.

In the order a turn goes: Sagas get their lore counter (714.3b), new permanents enter with
counters (some proliferate when they enter), planeswalkers activate loyalty abilities,
creatures attack (infect and toxic damage give poison, 702.90 / 702.164; other damage
costs life; some attackers proliferate on combat damage), -1/-1 effects hit the
opponents' creatures, +1/+1 effects grow one's own, Sieges are attacked, and removal
destroys a creature.  The counters are put as printed: replacement effects are modelled
by the solver for proliferate only.  The model itself is compiled
(:func:`env.kernels.game.turn_events`, read into its tables by :mod:`env.kernels.tables`);
the state-based actions run right after it (:func:`env.kernels.game.settle_game`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .opportunities import PERMANENT_SOURCES

__all__ = ["EventParams"]

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
