"""Decisions: the answer of a solve, in the shape every interface prints.

A :class:`Decision` is what :func:`solver.solve` returns and what ``proliferate solve
--json``, the protocol server and the analysis all print, through :meth:`Decision.to_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .board import Board
from .policy import Policy
from .rules import Choice, Outcome, Round

__all__ = ["Alternative", "Decision", "ExplanationRow", "choice_to_json", "round_to_json"]


@dataclass(frozen=True)
class ExplanationRow:
    """Why one eligible object is or is not chosen.

    ``marginal`` is what the decision would lose, in points, by not choosing the object
    (for a chosen one), or gain by also choosing it (for one left out, so <= 0 at the optimum).
    """

    id: str
    chosen: int
    marginal: float
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "chosen": self.chosen,
            "marginal": self.marginal,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class Alternative:
    """One of the k best distinct choices, with its value and regret against the best."""

    rank: int
    choice: Choice
    value: float
    regret: float

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, **choice_to_json(self.choice), "value": self.value, "regret": self.regret}


def round_to_json(rnd: Round) -> dict[str, Any]:
    return {"chosen": list(rnd.chosen), "poison_recipients": dict(rnd.poison_recipients)}


def choice_to_json(choice: Choice) -> dict[str, Any]:
    first = choice.rounds[0] if choice.rounds else Round()
    return {
        "chosen": list(first.chosen),
        "poison_recipients": dict(first.poison_recipients),
        "rounds": [round_to_json(r) for r in choice.rounds],
    }


@dataclass(frozen=True)
class Decision:
    """The optimal choice for a board under a policy, with its proof status and explanation."""

    board: Board
    policy: Policy
    choice: Choice
    value: float
    status: str
    bound: float
    method: str
    outcome: Outcome
    alternatives: tuple[Alternative, ...]
    elapsed: float
    game_result: str
    _explain: Any = field(repr=False, compare=False)

    @property
    def chosen(self) -> tuple[str, ...]:
        """Ids chosen in the first (or only) proliferate."""
        return self.choice.rounds[0].chosen if self.choice.rounds else ()

    @property
    def poison_recipients(self) -> Mapping[str, str]:
        return self.choice.rounds[0].poison_recipients if self.choice.rounds else {}

    @property
    def rounds(self) -> tuple[Round, ...]:
        return self.choice.rounds

    @cached_property
    def explanation(self) -> tuple[ExplanationRow, ...]:
        """Per eligible object: marginal value and reasons in plain words (built on first use)."""
        rows: tuple[ExplanationRow, ...] = self._explain()
        return rows

    def to_json(self) -> dict[str, Any]:
        """Exactly what ``proliferate solve --json`` prints."""
        return {
            **choice_to_json(self.choice),
            "value": self.value,
            "status": self.status,
            "bound": self.bound,
            "method": self.method,
            "game_result": self.game_result,
            "outcome": self.outcome.to_json(),
            "explanation": [row.to_json() for row in self.explanation],
            "alternatives": [alt.to_json() for alt in self.alternatives],
            "elapsed_ms": round(self.elapsed * 1000, 3),
        }
