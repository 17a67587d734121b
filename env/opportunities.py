"""Where proliferate decisions come from: real cards and how they proliferate (their Oracle text, 701.34).

A decision is never handed out for free.  It comes from a triggered ability (Atraxa at
the beginning of its controller's end step, Thrummingbird on combat damage, Martyr for
the Cause when it dies, Bloom Hulk when it enters), an activated ability whose cost is
paid (mana and tap, or sacrificing an artifact or creature), a planeswalker's loyalty
ability, or a spell.  "Put a counter on target X, then proliferate" spells (Grim
Affliction, Courage in Crisis) put their counter first, in the same resolution and with
no state-based actions in between (704.3), so the new counter is there to be
proliferated.  A spell whose only target is gone when it resolves does nothing at all,
so it does not proliferate either (608.2b).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["GIVEN", "PERMANENT_SOURCES", "SPELLS", "Opportunity", "Source"]


@dataclass(frozen=True)
class Source:
    """How one card proliferates: ``pattern`` is trigger, activated, loyalty or spell."""

    card: str
    pattern: str
    text: str
    cost: str = ""
    proliferates: int = 1
    prelude: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class Opportunity:
    """One proliferate about to happen: who, from what, and what happens first."""

    source: Source
    controller: str
    target: str | None = None
    sacrifice: str | None = None
    fizzled: bool = False

    def to_info(self) -> dict[str, Any]:
        return {
            "card": self.source.card,
            "pattern": self.source.pattern,
            "text": self.source.text,
            "cost": self.source.cost,
            "controller": self.controller,
            "proliferates": self.source.proliferates,
            "target": self.target,
            "sacrifice": self.sacrifice,
            "fizzled": self.fizzled,
        }


def _sources(*items: Source) -> dict[str, Source]:
    return {s.card: s for s in items}


#: Permanents that proliferate, by card name, with the part of their Oracle text that does it.
PERMANENT_SOURCES: dict[str, Source] = _sources(
    Source("Atraxa, Praetors' Voice", "trigger", "at the beginning of your end step, proliferate"),
    Source("Contagion Clasp", "activated", "{4}, {T}: proliferate", cost="{4}, {T}"),
    Source("Contagion Engine", "activated", "{4}, {T}: proliferate, then proliferate again", "{4}, {T}", 2),
    Source("Karn's Bastion", "activated", "{4}, {T}: proliferate", cost="{4}, {T}"),
    Source("Viral Drake", "activated", "{3}{U}: proliferate", cost="{3}{U}"),
    Source("Throne of Geth", "activated", "{T}, sacrifice an artifact: proliferate", "{T}, sacrifice an artifact"),
    Source("Plaguemaw Beast", "activated", "{T}, sacrifice a creature: proliferate", "{T}, sacrifice a creature"),
    Source("Yawgmoth, Thran Physician", "activated", "{B}{B}, discard a card: proliferate", "{B}{B}, discard a card"),
    Source("Vraska, Betrayal's Sting", "loyalty", "0: draw a card, lose 1 life, proliferate", "0 loyalty, 1 life"),
    Source("Evolution Sage", "trigger", "landfall: proliferate"),
    Source("Thrummingbird", "trigger", "combat damage to a player: proliferate"),
    Source("Bloated Contaminator", "trigger", "combat damage to a player: proliferate"),
    Source("Grateful Apparition", "trigger", "combat damage to a player or planeswalker: proliferate"),
    Source("Guildpact Informant", "trigger", "combat damage to a player or planeswalker: proliferate"),
    Source("Core Prowler", "trigger", "when it dies, proliferate"),
    Source("Martyr for the Cause", "trigger", "when it dies, proliferate"),
    Source("Bloom Hulk", "trigger", "when it enters, proliferate"),
    Source("Huatli's Raptor", "trigger", "when it enters, proliferate"),
)

#: Spells a seat may cast on its turn.  ``target`` says whose creature the prelude needs.
SPELLS: tuple[Source, ...] = (
    Source(
        "Grim Affliction",
        "spell",
        "put a -1/-1 counter on target creature, then proliferate",
        "{2}{B}",
        1,
        "-1/-1",
        "opponent",
    ),
    Source(
        "Courage in Crisis",
        "spell",
        "put a +1/+1 counter on target creature, then proliferate",
        "{2}{G}",
        1,
        "+1/+1",
        "own",
    ),
    Source(
        "Spread the Sickness", "spell", "destroy target creature, then proliferate", "{4}{B}", 1, "destroy", "opponent"
    ),
    Source("Steady Progress", "spell", "proliferate, draw a card", "{2}{U}"),
)

#: The source of a decision on a board passed to ``reset(options={"board": ...})``.
GIVEN = Source("the given board", "given", "the board's own proliferate")

_ACTIVATED = frozenset(s.card for s in PERMANENT_SOURCES.values() if s.pattern in ("activated", "loyalty"))
_LANDFALL = "Evolution Sage"
_END_STEP = "Atraxa, Praetors' Voice"
