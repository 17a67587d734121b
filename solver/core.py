"""The solver's internals that the environments build on, declared in one place.

:mod:`env` simulates games with the same rules and values as the solver: its compiled step calls the
core's kernels (the decision, the state-based actions, the 616.1 gains) on each game's arrays, and its
Python side builds boards and decides them for the agents and the oracle.
Those are not all part of the public API in :mod:`solver` (which is for callers deciding one
board or many), but ``env`` may use every name listed here, and only these
(``tests/test_layout.py`` checks it), so a change inside :mod:`solver` shows at once what it
breaks in the environments.
"""

from __future__ import annotations

from .batch import decide_many, decide_one
from .board import Board, BoolArray, CardType, Effect, IntArray, Permanent, Player, Threshold, Variant, pt_table
from .boardjson import as_board
from .cards import CARDS, SUPPORTED_CARDS, Op
from .catalogue import default_spec, valence
from .errors import BoardError
from .kernels.exact import decide_batch, score_events, tabulate_into, team_options
from .kernels.gains import gains_616_1
from .kernels.jit import inner
from .kernels.layout import (
    F_BATTLE,
    F_CREATURE,
    F_DESTRUCTIBLE,
    F_PHASED_OUT,
    F_PLANESWALKER,
    F_PLAYER,
    F_PRESENT,
    F_SAGA,
    SPECIAL,
    VARIANTS,
)
from .kernels.sba import settle_row
from .kernels.value import lost_seats_104_2a, popcount, rivals_of
from .objective import MILLI
from .policy import DEFAULT_POLICY, Policy
from .rules import ChoiceMatrix, eligible_mask
from .terms import CARD_TYPE_NAMES

__all__ = [
    "CARDS",
    "CARD_TYPE_NAMES",
    "DEFAULT_POLICY",
    "F_BATTLE",
    "F_CREATURE",
    "F_DESTRUCTIBLE",
    "F_PHASED_OUT",
    "F_PLANESWALKER",
    "F_PLAYER",
    "F_PRESENT",
    "F_SAGA",
    "MILLI",
    "SPECIAL",
    "SUPPORTED_CARDS",
    "VARIANTS",
    "Board",
    "BoardError",
    "BoolArray",
    "CardType",
    "ChoiceMatrix",
    "Effect",
    "IntArray",
    "Op",
    "Permanent",
    "Player",
    "Policy",
    "Threshold",
    "Variant",
    "as_board",
    "decide_batch",
    "decide_many",
    "decide_one",
    "default_spec",
    "eligible_mask",
    "gains_616_1",
    "inner",
    "lost_seats_104_2a",
    "popcount",
    "pt_table",
    "rivals_of",
    "score_events",
    "settle_row",
    "tabulate_into",
    "team_options",
    "valence",
]
