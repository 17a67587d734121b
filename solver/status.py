"""The small closed vocabularies of a decision, as string enums.

They are :class:`enum.StrEnum` so that they compare equal to, format as and serialise to the
exact strings the JSON form has always carried (``"OPTIMAL"``, ``"cpsat"``, ``"win"``): callers
that compare with strings keep working, and type checkers see the closed set.
"""

from __future__ import annotations

from enum import StrEnum, unique

__all__ = ["GameResult", "Method", "Status"]


@unique
class Status(StrEnum):
    """How far the answer is proven.

    ``OPTIMAL``: proven best under the objective (and, for top-k, every alternative proven
    to be the next best).  ``FEASIBLE``: a legal choice that satisfies every constraint, found
    before the time limit or a cancellation stopped the search, not proven best.
    """

    OPTIMAL = "OPTIMAL"
    FEASIBLE = "FEASIBLE"


@unique
class Method(StrEnum):
    """The solver path: ``auto`` picks ``fast`` without constraints, else ``cpsat``."""

    AUTO = "auto"
    CPSAT = "cpsat"
    FAST = "fast"
    BRUTE = "brute"


@unique
class GameResult(StrEnum):
    """What the chosen proliferate does to the game (docs/objective.md, "The game result")."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    ELIMINATIONS = "eliminations"
    NONE = "none"
