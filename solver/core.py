"""The solver's internals that the environments build on, declared in one place.

:mod:`env` simulates games with the same rules and values as the solver: it builds and edits
boards, applies choices, runs the state-based actions of many games at once and scores them.
Those are not all part of the public API in :mod:`solver` (which is for callers deciding one
board or many), but ``env`` may use every name listed here, and only these
(``tests/test_layout.py`` checks it), so a change inside :mod:`solver` shows at once what it
breaks in the environments.
"""

from __future__ import annotations

from .batch import decide_many, decide_one, score_many, settle_many
from .board import Board, BoolArray, CardType, Effect, IntArray, Permanent, Player, Variant
from .boardjson import as_board
from .cards import SUPPORTED_CARDS
from .errors import BoardError
from .objective import MILLI, Objective
from .policy import DEFAULT_POLICY, Policy
from .rules import ChoiceMatrix, Settled, counters_after, eligible_mask

__all__ = [
    "DEFAULT_POLICY",
    "MILLI",
    "SUPPORTED_CARDS",
    "Board",
    "BoardError",
    "BoolArray",
    "CardType",
    "ChoiceMatrix",
    "Effect",
    "IntArray",
    "Objective",
    "Permanent",
    "Player",
    "Policy",
    "Settled",
    "Variant",
    "as_board",
    "counters_after",
    "decide_many",
    "decide_one",
    "eligible_mask",
    "score_many",
    "settle_many",
]
