"""Proliferate: rules-exact, provably optimal proliferate decisions for Magic: The Gathering.

The public API is re-exported here; see the README for a short tour.
"""

from __future__ import annotations

from .board import Board, CardType, Effect, Permanent, Player, Threshold, Variant
from .boardjson import dump_board, load_board
from .cpsat import SearchStopped
from .decision import Alternative, Decision, ExplanationRow
from .errors import BoardError, IllegalChoice, Infeasible, Problem
from .policy import Policy, PolicyError
from .rules import Choice, Outcome, Round, apply_proliferate, eligible
from .solve import Score, explain_choice, score, solve, top_k, worst_value
from .status import GameResult, Method, Status

__version__ = "0.1.0"

__all__ = [
    "Alternative",
    "Board",
    "BoardError",
    "CardType",
    "Choice",
    "Decision",
    "Effect",
    "ExplanationRow",
    "GameResult",
    "IllegalChoice",
    "Infeasible",
    "Method",
    "Outcome",
    "Permanent",
    "Player",
    "Policy",
    "PolicyError",
    "Problem",
    "Round",
    "Score",
    "SearchStopped",
    "Status",
    "Threshold",
    "Variant",
    "__version__",
    "apply_proliferate",
    "dump_board",
    "eligible",
    "explain_choice",
    "load_board",
    "score",
    "solve",
    "top_k",
    "worst_value",
]
