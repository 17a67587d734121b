"""Proliferate: rules-exact, provably optimal proliferate decisions for Magic: The Gathering.

The public API is re-exported here; see the README for a short tour.
"""

from __future__ import annotations

from .batch import BatchDecisions, decide_many, solve_many
from .board import Board, CardType, Effect, Permanent, Player, TeamPoison, Threshold, Variant
from .boardjson import dump_board, load_board
from .cards import CARDS, SUPPORTED_CARDS
from .cpsat import SearchStopped
from .decision import Alternative, Decision, ExplanationRow
from .errors import BoardError, IllegalChoice, Infeasible, Problem
from .policy import Policy, PolicyError
from .preload import load as _load_core
from .rules import Choice, ChoiceMatrix, Outcome, Round
from .solve import (
    Score,
    apply_proliferate,
    decision_from_json,
    eligible,
    explain_choice,
    score,
    solve,
    top_k,
    worst_value,
)
from .status import GameResult, Method, Status
from .svg import board_svg, choice_svg

__version__ = "0.1.0"

_load_core()  # the compiled core, loaded with the library: no first decision pays for it

__all__ = [
    "CARDS",
    "SUPPORTED_CARDS",
    "Alternative",
    "BatchDecisions",
    "Board",
    "BoardError",
    "CardType",
    "Choice",
    "ChoiceMatrix",
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
    "TeamPoison",
    "Threshold",
    "Variant",
    "__version__",
    "apply_proliferate",
    "board_svg",
    "choice_svg",
    "decide_many",
    "decision_from_json",
    "dump_board",
    "eligible",
    "explain_choice",
    "load_board",
    "score",
    "solve",
    "solve_many",
    "top_k",
    "worst_value",
]
