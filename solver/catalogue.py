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

from .kinds import KIND_TABLE, pt_delta

__all__ = ["CATALOGUE", "NEUTRAL_NOTE", "CounterSpec", "default_spec", "valence"]


@dataclass(frozen=True)
class CounterSpec:
    """Default worth of one counter of a kind, and whether only the first one matters."""

    kind: str
    weight: float
    presence_only: bool
    note: str


#: The neutral treatment of a catalogued kind whose worth depends on the card.
NEUTRAL_NOTE = "card-dependent: worth 0 unless the policy or the board says otherwise"

#: Every catalogued kind, keyed by canonical name, from ``solver/counter_kinds.json`` (P/T kinds are a rule, below).
CATALOGUE: dict[str, CounterSpec] = {
    row["kind"]: CounterSpec(
        row["kind"], float(row["weight"]), bool(row.get("presence_only", False)), row.get("note", NEUTRAL_NOTE)
    )
    for row in KIND_TABLE
}


@lru_cache(maxsize=4096)
def default_spec(kind: str) -> CounterSpec:
    """The default spec of any canonical kind: its catalogue row, the P/T rule (122.1a), else worth 0."""
    spec = CATALOGUE.get(kind)
    if spec is not None:
        return spec
    delta = pt_delta(kind)
    if delta is not None:
        return CounterSpec(kind, (delta[0] + delta[1]) / 2, False, "P/T counter: half its power plus toughness")
    return CounterSpec(kind, 0.0, False, "a namespaced kind of your own: worth 0 unless the policy or board says so")


def valence(kind: str) -> int:
    """+1 if the controller wants more of this kind by default, -1 if fewer, 0 if indifferent."""
    weight = default_spec(kind).weight
    return (weight > 0) - (weight < 0)
