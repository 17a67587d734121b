"""Grades, accuracy and the one-line comment: how a regret becomes words a player reads.

A grade says how much a choice cost the decider's chance of winning, the way Lichess
grades a chess move: the position after the best choice and after the choice made are
each read as winning chances (:mod:`solver.analysis.winprob`: a logistic curve of the
material balance, fitted on simulated games; a decided game result is 100, 50 or 0), and
the drop is graded with Lichess's thresholds (10, 20, 30 points of Win%).  So the same
lost point is a slip on a quiet even board and nothing at all when the game is already
decided, and a missed win or a self-inflicted loss is a blunder however the curve reads
it.  A sub-point slip is at most an inaccuracy.  Accuracy applies Lichess's move-accuracy
curve to the same drop.  Every number here is defined once, in :data:`FORMULAS`, and
printed on the reports as written there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .winprob import K

__all__ = [
    "FORMULAS",
    "GLYPHS",
    "REGRET_EPSILON",
    "SUB_POINT",
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
#: A regret below this many points is at most an inaccuracy, whatever the curve says.
SUB_POINT = 1.0

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
    """Lower bounds of the drop in winning chances (points of Win%) for each grade; a drop at a bound gets it.

    Defaults are Lichess's: inaccuracy 10, mistake 20, blunder 30 (lila ``Advice.scala``).
    """

    inaccuracy: float = 10.0
    mistake: float = 20.0
    blunder: float = 30.0

    def __post_init__(self) -> None:
        for name in ("inaccuracy", "mistake", "blunder"):
            value = getattr(self, name)
            if not (isinstance(value, float | int) and math.isfinite(value) and 0 < value <= 100):
                raise ThresholdsError(f"thresholds.{name}: must be a number of Win% points in (0, 100], not {value!r}")
        if self.mistake < self.inaccuracy:
            raise ThresholdsError(
                f"thresholds.mistake: {self.mistake} is below inaccuracy {self.inaccuracy} "
                "(need inaccuracy <= mistake <= blunder)"
            )
        if self.blunder < self.mistake:
            raise ThresholdsError(
                f"thresholds.blunder: {self.blunder} is below mistake {self.mistake} "
                "(need inaccuracy <= mistake <= blunder)"
            )

    @classmethod
    def parse(cls, spec: str) -> Thresholds:
        """``inaccuracy=10,mistake=20,blunder=30``; keys left out keep their defaults."""
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


def grade(regret: float, drop: float, thresholds: Thresholds, game_blunder: bool) -> Grade:
    """The grade of a decision from its regret (points) and the drop in winning chances (Win% points).

    ``game_blunder`` marks a worse game result than the best (a missed win or elimination, a
    self-inflicted loss or draw): always a blunder.  A regret under :data:`SUB_POINT` is at
    most an inaccuracy.
    """
    if game_blunder:
        return Grade.BLUNDER
    if regret < REGRET_EPSILON:
        return Grade.BEST
    if drop >= thresholds.blunder:
        graded = Grade.BLUNDER
    elif drop >= thresholds.mistake:
        graded = Grade.MISTAKE
    elif drop >= thresholds.inaccuracy:
        graded = Grade.INACCURACY
    else:
        graded = Grade.GOOD
    if regret < SUB_POINT and graded in (Grade.MISTAKE, Grade.BLUNDER):
        return Grade.INACCURACY
    return graded


def decision_accuracy(regret: float, drop: float) -> float:
    """Accuracy % of one decision: 100 exactly when nothing was lost, below 100 (down to 0) otherwise.

    Lichess's curve of the Win% drop; at a drop of 0 it gives 99.9999, so any regret reads
    below 100.
    """
    if regret < REGRET_EPSILON:
        return 100.0
    return min(100.0, max(0.0, _ACC_A * math.exp(-_ACC_K * max(0.0, drop)) - _ACC_B))


def format_accuracy(accuracy: float | None) -> str:
    """Rounded *down* to 0.1, so an imperfect player never shows 100.0; a dash when there is nothing to rate."""
    if accuracy is None:
        return "—"
    return f"{math.floor(accuracy * 10.0) / 10.0:.1f}"


def comment(
    grade_: Grade,
    regret: float,
    chances: tuple[float, float],
    reason: str | None,
    changes: Sequence[str],
    same_as_engine: bool,
) -> str:
    """One line in plain words, e.g. ``Blunder: missed lethal — also proliferate bob (poison 9 -> 10)``.

    ``chances`` is (Win% after the best choice, Win% after the choice made).
    """
    if grade_ is Grade.BEST:
        return "Best." if same_as_engine else "Best: as good as the engine's choice."
    points = "point" if regret == 1 else "points"
    best, chosen = chances
    head = reason or f"lost {regret:g} {points} (winning chances {best:.0f}% -> {chosen:.0f}%)"
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
    "win_chances": "Win% after a choice = 100 for a win, 50 for a draw, 0 for a loss, else"
    " 50 + 50 · (2 / (1 + exp(−k · balance)) − 1), where balance is the material of the board after the choice"
    f" (counters and permanents, from the decider's side, in points) and k = {K} was fitted on simulated games"
    " (benchmarks/winprob_fit.py)",
    "drop": "drop = Win%(best choice) − Win%(chosen), in points of Win%",
    "grade": "best if regret = 0; blunder if the choice missed a win or an elimination, or caused a loss or draw,"
    " that another choice avoided; otherwise blunder if drop ≥ blunder, mistake if drop ≥ mistake, inaccuracy if"
    " drop ≥ inaccuracy, else good; a regret under 1 point is at most an inaccuracy",
    "decision_accuracy": "accuracy = 100 if regret = 0, else clamp(103.1668 · exp(−0.04354 · drop) − 3.1669, 0, 100)"
    " (Lichess's move-accuracy curve; no +1 uncertainty bonus, our search is exact)",
    "player_accuracy": "the plain mean of the player's decision accuracies; none for a player with no decisions;"
    " shown rounded down to 0.1, so any regret shows below 100",
    "normalised_regret": "r = regret / (value(best) − value(worst legal choice)) when the choice got a worse game"
    " result than the best; otherwise r = regret / (best − worst counting counters and permanents only); r = 0 when"
    " nothing is at stake (informative: grades use the drop)",
}
