"""The game's fixed vocabulary: multiplayer variants (and what each changes, :data:`VARIANTS`) and card types.

A leaf module, so that both the board (which stores them) and the card registry (whose
effects are scoped by them) can import it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntFlag, StrEnum

__all__ = ["CARD_TYPE_NAMES", "VARIANTS", "CardType", "TeamPoison", "Variant", "VariantRules"]


class Variant(StrEnum):
    """The multiplayer variant, which decides poison sharing and thresholds (704.5c, 810)."""

    DUEL = "duel"
    FREE_FOR_ALL = "free_for_all"
    TWO_HEADED_GIANT = "two_headed_giant"


@dataclass(frozen=True)
class VariantRules:
    """What a variant changes in the rules, as data (810 for Two-Headed Giant).

    ``seats_are_teams``: a team wins or loses together (810.8a), else each player is a seat;
    ``shared_poison``: poison counters are the team's (810.10, 704.6b), else each player's
    (704.5c); ``poison_threshold`` and ``extra_head_poison``: poison at which a seat loses, and
    how much more per head beyond two (810.11); ``starting_life`` (103.4, 810.3).
    """

    seats_are_teams: bool
    shared_poison: bool
    poison_threshold: int
    extra_head_poison: int
    starting_life: int


#: The variant table: what each variant changes, read as data by the board's layout and the kernels.
VARIANTS: dict[Variant, VariantRules] = {
    Variant.DUEL: VariantRules(False, False, 10, 0, 20),
    Variant.FREE_FOR_ALL: VariantRules(False, False, 10, 0, 20),
    Variant.TWO_HEADED_GIANT: VariantRules(True, True, 15, 5, 30),
}


class TeamPoison(StrEnum):
    """How a Two-Headed Giant board writes its teams' shared poison (810.10), in and out.

    ``shared``: the team's total on each head that states it (the rules' view, and this
    library's default).  ``per_head``: each head's own count, the team's total being their
    sum (how Forge stores it).  The engine works on the team's total either way; additions
    are reported as the board wrote its poison.
    """

    SHARED = "shared"
    PER_HEAD = "per_head"


class CardType(IntFlag):
    """Permanent card types the rules care about, as bits of ``Board.types``."""

    ARTIFACT = 1
    BATTLE = 2
    CREATURE = 4
    ENCHANTMENT = 8
    LAND = 16
    PLANESWALKER = 32
    KINDRED = 64


CARD_TYPE_NAMES: dict[str, CardType] = {t.name.lower(): t for t in CardType if t.name}
