"""Decisions: the answer of a solve, in the shape every interface prints.

A :class:`Decision` is what :func:`solver.solve` returns and what ``proliferate solve
--json``, the protocol server and the analysis all print, through :meth:`Decision.to_json`;
``str(decision)`` is the command line's readable answer.  The parts that cost more than the
choice itself -- the board after (``outcome``), the explanation and the game result -- are
derived on first access, so a caller that only wants the choice does not pay for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from .board import Board
from .choices import Choice, Round
from .policy import Policy
from .render import render_decision
from .status import GameResult, Method, Status

if TYPE_CHECKING:
    from .rules import Outcome

__all__ = [
    "JSON_FIELDS",
    "Alternative",
    "Decision",
    "Derivation",
    "ExplanationRow",
    "choice_from_json",
    "choice_to_json",
    "round_to_json",
]

#: The keys of :meth:`Decision.to_json`, in order (``fields`` selects among them).
JSON_FIELDS: Final = (
    "chosen",
    "poison_recipients",
    "rounds",
    "value",
    "status",
    "bound",
    "method",
    "game_result",
    "outcome",
    "explanation",
    "alternatives",
    "elapsed_ms",
)


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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExplanationRow:
        return cls(str(data["id"]), int(data["chosen"]), float(data["marginal"]), tuple(data["reasons"]))


@dataclass(frozen=True)
class Alternative:
    """One of the k best distinct choices, with its value and regret against the best."""

    rank: int
    choice: Choice
    value: float
    regret: float

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, **choice_to_json(self.choice), "value": self.value, "regret": self.regret}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Alternative:
        return cls(int(data["rank"]), choice_from_json(data), float(data["value"]), float(data["regret"]))


def round_to_json(rnd: Round) -> dict[str, Any]:
    return {"chosen": list(rnd.chosen), "poison_recipients": dict(rnd.poison_recipients)}


def choice_to_json(choice: Choice) -> dict[str, Any]:
    first = choice.rounds[0] if choice.rounds else Round()
    return {
        "chosen": list(first.chosen),
        "poison_recipients": dict(first.poison_recipients),
        "rounds": [round_to_json(r) for r in choice.rounds],
    }


def choice_from_json(data: Mapping[str, Any], rounds: int = 1) -> Choice:
    """The inverse of :func:`choice_to_json` (``rounds`` repeats a bare ``chosen`` when ``rounds`` is absent).

    ``chosen`` beside ``rounds`` is the first round's, as :func:`choice_to_json` writes it; one
    that says otherwise is a ValueError rather than silently ignored.
    """
    if "rounds" in data:
        choice = Choice(tuple(Round(r["chosen"], r.get("poison_recipients") or {}) for r in data["rounds"]))
        first = choice.rounds[0].chosen if choice.rounds else ()
        if "chosen" in data and tuple(data["chosen"]) != first:
            raise ValueError(f"chosen {list(data['chosen'])} is not the first round's {list(first)}")
        return choice
    return Choice.of(data["chosen"], data.get("poison_recipients") or {}, rounds=rounds)


class Derivation(Protocol):
    """How a decision computes its expensive parts when they are first asked for."""

    def outcome(self) -> Outcome: ...

    def explanation(self) -> tuple[ExplanationRow, ...]: ...

    def game_result(self) -> GameResult: ...


@dataclass(frozen=True, repr=False)
class Decision:
    """The optimal choice for a board under a policy, with its proof status and explanation.

    ``value`` is in points relative to choosing nothing; ``status`` is :attr:`Status.OPTIMAL`
    when proven (for top-k: every alternative too) and :attr:`Status.FEASIBLE` when a time
    limit or a cancellation stopped the search first; ``bound`` is the best value still
    possible by the proof; ``alternatives`` starts with the choice itself (rank 1).
    ``outcome``, ``explanation`` and ``game_result`` are computed on first access.

    >>> import solver
    >>> decision = solver.solve("solver/examples/classic.json")
    >>> decision
    Decision(chosen=('bob', 'bears', 'tamiyo', 'courser'), value=4.0, status=OPTIMAL, method=fast)
    >>> print(str(decision).splitlines()[0])
    Proliferate: bob, bears, tamiyo, courser
    """

    board: Board
    policy: Policy
    choice: Choice
    value: float
    status: Status
    bound: float
    method: Method
    alternatives: tuple[Alternative, ...]
    elapsed: float
    derive: Derivation = field(compare=False)

    def __repr__(self) -> str:
        return (
            f"Decision(chosen={self.chosen!r}, value={self.value}, status={self.status}, method={self.method})"
            if len(self.choice.rounds) <= 1
            else f"Decision(rounds={tuple(r.chosen for r in self.rounds)!r}, value={self.value}, "
            f"status={self.status}, method={self.method})"
        )

    def __str__(self) -> str:
        """The command line's readable answer: choice, value and proof, outcome, why, alternatives."""
        return render_decision(self)

    @property
    def chosen(self) -> tuple[str, ...]:
        """Ids chosen in the first (or only) proliferate."""
        return self.choice.rounds[0].chosen if self.choice.rounds else ()

    @property
    def poison_recipients(self) -> Mapping[str, str]:
        """Per 2HG team, the chosen head that gets the team's poison in the first proliferate (701.34b)."""
        return self.choice.rounds[0].poison_recipients if self.choice.rounds else {}

    @property
    def rounds(self) -> tuple[Round, ...]:
        return self.choice.rounds

    @cached_property
    def outcome(self) -> Outcome:
        """The board after the choice, state-based actions applied, and what happened (built on first use)."""
        return self.derive.outcome()

    @cached_property
    def explanation(self) -> tuple[ExplanationRow, ...]:
        """Per eligible object: marginal value and reasons in plain words (built on first use)."""
        return self.derive.explanation()

    @cached_property
    def game_result(self) -> GameResult:
        """What the choice does to the game: win, draw, loss, eliminations or none."""
        return self.derive.game_result()

    def to_json(self, fields: Sequence[str] | None = None) -> dict[str, Any]:
        """Exactly what ``proliferate solve --json`` prints; ``fields`` keeps only those keys (see JSON_FIELDS).

        Leaving out ``outcome`` and ``explanation`` also skips computing them.
        """
        keys = JSON_FIELDS if fields is None else [key for key in JSON_FIELDS if key in fields]
        out: dict[str, Any] = {}
        for key in keys:
            out.update(self._json_part(key))
        return out

    def _json_part(self, key: str) -> dict[str, Any]:
        if key in ("chosen", "poison_recipients", "rounds"):
            return {key: choice_to_json(self.choice)[key]}
        if key == "outcome":
            return {key: self.outcome.to_json()}
        if key == "explanation":
            return {key: [row.to_json() for row in self.explanation]}
        if key == "alternatives":
            return {key: [alt.to_json() for alt in self.alternatives]}
        if key == "elapsed_ms":
            return {key: round(self.elapsed * 1000, 3)}
        if key in ("status", "method", "game_result"):
            return {key: str(getattr(self, key))}
        return {key: getattr(self, key)}


E = TypeVar("E", bound=Enum)


def json_number(data: Mapping[str, Any], key: str, default: float | None = None) -> float:
    """A number of a decision's JSON (KeyError if it is required and missing), else ValueError naming the key."""
    value = data[key] if default is None or key in data else default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key}: must be a number, not {value!r}")
    return float(value)


def json_member(enum: type[E], data: Mapping[str, Any], key: str) -> E:
    """An enum member from its JSON value, else ValueError naming the key and the values accepted."""
    value = data[key]
    try:
        return enum(value)
    except ValueError:
        accepted = ", ".join(str(m.value) for m in enum)
        raise ValueError(f"{key}: must be one of {accepted}, not {value!r}") from None


class Given:
    """The parts a decision's JSON carries, read from it; the rest derived from the board."""

    def __init__(self, derived: Derivation, data: Mapping[str, Any]) -> None:
        self._derived = derived
        self._rows = data.get("explanation")
        self._result = data.get("game_result")

    def outcome(self) -> Outcome:
        return self._derived.outcome()

    def explanation(self) -> tuple[ExplanationRow, ...]:
        if self._rows is None:
            return self._derived.explanation()
        return tuple(ExplanationRow.from_json(row) for row in self._rows)

    def game_result(self) -> GameResult:
        return self._derived.game_result() if self._result is None else GameResult(self._result)
