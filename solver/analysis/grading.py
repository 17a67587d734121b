"""Grades, accuracy and the one-line comment: how a regret becomes words a player reads.

The scale follows the chess tools players already know (Lichess, chess.com): a grade from
*normalised* regret -- the points lost divided by the spread between the best and the
worst legal choice -- so a threshold means the same on a quiet board and on a crowded
one, while a missed win or a self-inflicted loss is a blunder however it normalises.
Accuracy applies Lichess's move-accuracy curve to the normalised regret.  Every number
here is defined once, in :data:`FORMULAS`, and printed on the reports as written there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "FORMULAS",
    "GLYPHS",
    "REGRET_EPSILON",
    "Grade",
    "Thresholds",
    "ThresholdsError",
    "comment",
    "decision_accuracy",
    "format_accuracy",
    "grade",
    "normalised_regret",
]

#: Values are whole milli-points, so a smaller regret is exactly zero (best).
REGRET_EPSILON = 0.0005

# Lichess's move-accuracy fit (lila AccuracyPercent.scala), without its +1 "uncertainty bonus":
# our search is exact, so there is no uncertainty to pay for.
_ACC_A = 103.1668
_ACC_K = 0.04354
_ACC_B = 3.1669


class Grade(StrEnum):
    """Decision classes, best to worst."""

    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"

    @property
    def glyph(self) -> str:
        return GLYPHS[self]

    @property
    def label(self) -> str:
        return self.value.capitalize()


#: Annotation glyphs as in PGN NAGs ($6 ?!, $2 ?, $4 ??); best and good carry none.
GLYPHS: dict[Grade, str] = {
    Grade.BEST: "",
    Grade.GOOD: "",
    Grade.INACCURACY: "?!",
    Grade.MISTAKE: "?",
    Grade.BLUNDER: "??",
}


class ThresholdsError(ValueError):
    """A ``--thresholds`` spec that cannot be used; the message names the offending key."""


@dataclass(frozen=True)
class Thresholds:
    """Lower bounds of normalised regret for each grade (a regret at a bound gets that grade).

    Defaults are chess.com's expected-points bands (inaccuracy > 0.05, mistake > 0.10,
    blunder > 0.20), read on our 0..1 normalised regret.
    """

    inaccuracy: float = 0.05
    mistake: float = 0.10
    blunder: float = 0.20

    def __post_init__(self) -> None:
        for name in ("inaccuracy", "mistake", "blunder"):
            value = getattr(self, name)
            if not (isinstance(value, float | int) and math.isfinite(value) and 0 < value <= 1):
                raise ThresholdsError(f"thresholds.{name}: must be a number in (0, 1], not {value!r}")
        if not self.inaccuracy <= self.mistake <= self.blunder:
            raise ThresholdsError(
                f"thresholds: need inaccuracy <= mistake <= blunder, got {self.inaccuracy} / {self.mistake} / "
                f"{self.blunder}"
            )

    @classmethod
    def parse(cls, spec: str) -> Thresholds:
        """``inaccuracy=0.05,mistake=0.1,blunder=0.2``; keys left out keep their defaults."""
        values: dict[str, float] = {}
        for part in spec.replace(" ", ",").split(","):
            if not part:
                continue
            key, sep, text = part.partition("=")
            key = key.strip().lower()
            if not sep or key not in ("inaccuracy", "mistake", "blunder"):
                raise ThresholdsError(
                    f"thresholds: {part!r} is not KEY=VALUE with KEY one of inaccuracy, mistake, blunder"
                )
            if key in values:
                raise ThresholdsError(f"thresholds.{key}: given twice")
            try:
                values[key] = float(text)
            except ValueError:
                raise ThresholdsError(f"thresholds.{key}: {text!r} is not a number") from None
        return cls(**values)

    def to_json(self) -> dict[str, float]:
        return {"inaccuracy": self.inaccuracy, "mistake": self.mistake, "blunder": self.blunder}


def normalised_regret(regret: float, spread: float) -> float:
    """Regret as a share of ``spread`` (best minus worst value; see :data:`FORMULAS`), 0 if nothing is at stake."""
    if regret < REGRET_EPSILON or spread < REGRET_EPSILON:
        return 0.0
    return min(1.0, regret / spread)


def grade(regret: float, norm: float, thresholds: Thresholds, game_blunder: bool) -> Grade:
    """The grade of a decision; ``game_blunder`` marks a worse game result than the best (a missed win...)."""
    if game_blunder:
        return Grade.BLUNDER
    if regret < REGRET_EPSILON:
        return Grade.BEST
    if norm >= thresholds.blunder:
        return Grade.BLUNDER
    if norm >= thresholds.mistake:
        return Grade.MISTAKE
    if norm >= thresholds.inaccuracy:
        return Grade.INACCURACY
    return Grade.GOOD


def decision_accuracy(norm: float) -> float:
    """Accuracy % of one decision: 100 exactly when nothing was lost, below 100 (down to 0) otherwise."""
    if norm <= 0.0:
        return 100.0
    return min(100.0, max(0.0, _ACC_A * math.exp(-_ACC_K * 100.0 * norm) - _ACC_B))


def format_accuracy(accuracy: float | None) -> str:
    """Rounded *down* to 0.1, so an imperfect player never shows 100.0; a dash when there is nothing to rate."""
    if accuracy is None:
        return "—"
    return f"{math.floor(accuracy * 10.0) / 10.0:.1f}"


def comment(
    grade_: Grade,
    regret: float,
    norm: float,
    reason: str | None,
    changes: Sequence[str],
    same_as_engine: bool,
) -> str:
    """One line in plain words, e.g. ``Blunder: missed lethal — also proliferate bob (poison 9 -> 10)``."""
    if grade_ is Grade.BEST:
        return "Best." if same_as_engine else "Best: as good as the engine's choice."
    points = "point" if regret == 1 else "points"
    head = reason or f"lost {regret:g} {points} ({norm:.0%} of the spread between best and worst)"
    text = f"{grade_.label}: {head}"
    if changes:
        shown = list(changes[:3])
        if len(changes) > 3:
            shown.append(f"and {len(changes) - 3} more")
        text += " — " + "; ".join(shown)
    return text


#: The formulas, as printed on the reports (HTML and JSON) and in docs/analysis.md.
FORMULAS: dict[str, Any] = {
    "regret": "regret = value(best choice) − value(chosen), in points (one +1/+1 counter on your creature = 1 point;"
    " a game result is worth at least 1000 points)",
    "normalised_regret": "r = regret / (value(best) − value(worst legal choice)) when the choice got a worse game"
    " result than the best; otherwise r = regret / (best − worst counting counters and permanents only, game results"
    " left out), so a material slip is not diluted by a self-inflicted loss that was also possible; r = 0 when nothing"
    " is at stake",
    "grade": "best if regret = 0; blunder if the choice missed a win or an elimination, or caused a loss or draw,"
    " that another choice avoided; otherwise blunder if r ≥ blunder, mistake if r ≥ mistake,"
    " inaccuracy if r ≥ inaccuracy, else good",
    "decision_accuracy": "accuracy = 100 if r = 0, else clamp(103.1668 · exp(−0.04354 · 100·r) − 3.1669, 0, 100)"
    " (Lichess's move-accuracy curve with the Win% drop replaced by 100·r; no +1 uncertainty bonus)",
    "player_accuracy": "the plain mean of the player's decision accuracies; none for a player with no decisions;"
    " shown rounded down to 0.1, so any regret shows below 100",
}
