"""The game's fixed vocabulary: multiplayer variants and card types.

A leaf module, so that both the board (which stores them) and the card registry (whose
effects are scoped by them) can import it without importing each other.
"""

from __future__ import annotations

from enum import IntFlag, StrEnum

__all__ = ["CARD_TYPE_NAMES", "CardType", "TeamPoison", "Variant"]


class Variant(StrEnum):
    """The multiplayer variant, which decides poison sharing and thresholds (704.5c, 810)."""

    DUEL = "duel"
    FREE_FOR_ALL = "free_for_all"
    TWO_HEADED_GIANT = "two_headed_giant"


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
