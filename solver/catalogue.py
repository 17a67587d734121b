"""The catalogue of counter kinds: default worth and who wants more (122; docs/objective.md).

Each entry is the worth of one counter of that kind to the object's controller (for a
player, the holder; for a battle, its protector), in *points*, where one +1/+1 counter
on a creature is worth one point.  A negative worth means the controller would rather
not have it (poison, -1/-1, stun ...).  The objective reads weights from here through a
:class:`~solver.policy.Policy`, which may override any of them; the rules engine reads
only the sign, to order replacement effects in the affected player's favour (616.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .kinds import KEYWORD_KINDS, pt_delta

__all__ = ["CATALOGUE", "CounterSpec", "default_spec", "valence"]


@dataclass(frozen=True)
class CounterSpec:
    """Default worth of one counter of a kind, and whether only the first one matters."""

    kind: str
    weight: float
    presence_only: bool
    note: str


def _spec(kind: str, weight: float, note: str, presence_only: bool = False) -> CounterSpec:
    return CounterSpec(kind, weight, presence_only, note)


_ENTRIES = [
    # Counters on players (122.1f, 107.14, 107.17, 728)
    _spec("poison", -1.0, "10 loses (704.5c); 2HG team 15 (704.6b); the game result is scored apart"),
    _spec("energy", 0.5, "spent as {E} (107.14)"),
    _spec("experience", 1.0, "scales its holder's abilities"),
    _spec("rad", -0.5, "mill and lose life each precombat main (728)"),
    _spec("ticket", 0.5, "spent for {TK} costs (107.17a)"),
    # Counters on permanents
    _spec("loyalty", 1.0, "planeswalker loyalty (306.5c); ultimates need more"),
    _spec("defense", 1.0, "battle defense, worth to the protector (310.4c)"),
    _spec("lore", 0.0, "worth is in the chapters it triggers (714.2b), scored apart"),
    _spec("time", 0.0, "vanishing wants more, impending wants fewer: card-dependent"),
    _spec("fade", 0.5, "one removed each upkeep; none left means sacrifice"),
    _spec("age", -1.0, "cumulative upkeep is paid once per age counter (702.24)"),
    _spec("charge", 0.5, "fuel for many artifacts; station bands (721)"),
    _spec("stun", -1.0, "each one replaces an untap (122.1d)"),
    _spec("shield", 1.0, "stops one destruction or damage by an effect, not a state-based action (122.1c)"),
    _spec("finality", -1.0, "dies means exiled instead (122.1h)", presence_only=True),
    _spec("hone", 0.5, "+1/+0 to the equipped creature per counter (122.1j)"),
    _spec("oil", 0.5, "spent by Phyrexian artifacts"),
    _spec("quest", 0.5, "ascension-style enablers (Luminarch Ascension at 4)"),
    _spec("level", 0.5, "level-up bands (711)"),
    _spec("storage", 0.5, "storage lands: remove X for X mana"),
    _spec("depletion", 0.5, "more counters, more activations before sacrifice"),
    _spec("page", 0.5, "spent for cards"),
    _spec("doom", -1.0, "Eye of Doom / Armageddon Clock mark the holder for harm"),
    _spec("bounty", -1.0, "an opponent is paid when it dies", presence_only=True),
    _spec("brick", 0.5, "Luxa River Shrine, Sunset Pyramid"),
    _spec("spore", 0.5, "three make a Saproling"),
    _spec("blood", 0.0, "Font of Agonies likes it, Bloodletter Quill hates it: card-dependent"),
    _spec("ice", -1.0, "Dark Depths: each one delays Marit Lage"),
    _spec("hour", 0.5, "Midnight Clock at 12"),
    _spec("incarnation", -1.0, "Nine Lives at 9 loses its controller the game"),
    _spec("growth", 1.0, "Simic Ascendancy at 20 wins"),
    _spec("tower", 0.5, "Helix Pinnacle at 100 wins"),
    _spec("filibuster", 1.0, "Azor's Elocutors at 5 wins"),
    _spec("luck", 1.0, "Chance Encounter at 10 wins"),
]

#: Every catalogued kind, keyed by canonical name (P/T and keyword kinds are rules, below).
CATALOGUE: dict[str, CounterSpec] = {spec.kind: spec for spec in _ENTRIES}

_KEYWORD_WEIGHT = 1.0
_EXALTED_WEIGHT = 0.5


@lru_cache(maxsize=4096)
def default_spec(kind: str) -> CounterSpec:
    """The default spec of any canonical kind; unknown kinds are worth 0."""
    spec = CATALOGUE.get(kind)
    if spec is not None:
        return spec
    delta = pt_delta(kind)
    if delta is not None:
        return CounterSpec(kind, (delta[0] + delta[1]) / 2, False, "P/T counter: half its power plus toughness")
    if kind == "exalted":
        return CounterSpec(kind, _EXALTED_WEIGHT, False, "keyword counter; each instance triggers")
    if kind == "decayed":
        return CounterSpec(
            kind, -_KEYWORD_WEIGHT, True, "keyword counter, a drawback: can't block, dies after attacking"
        )
    if kind in KEYWORD_KINDS:
        return CounterSpec(kind, _KEYWORD_WEIGHT, True, "keyword counter; extra copies are redundant")
    return CounterSpec(kind, 0.0, False, "unknown kind: worth 0 unless the policy or board says otherwise")


def valence(kind: str) -> int:
    """+1 if the controller wants more of this kind by default, -1 if fewer, 0 if indifferent."""
    weight = default_spec(kind).weight
    return (weight > 0) - (weight < 0)
