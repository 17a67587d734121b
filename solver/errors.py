"""Exceptions with messages a user can act on: each names the offending field by its JSON path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BoardError", "IllegalChoice", "Infeasible", "Problem"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, at a JSON path such as ``permanents[3].counters["-1/-1"]``."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class BoardError(ValueError):
    """A board that cannot be loaded; ``problems`` lists every problem found, not only the first."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class IllegalChoice(ValueError):
    """A proliferate choice the rules do not allow (701.34a/b), with the reason."""


class Infeasible(ValueError):
    """No legal choice satisfies the constraints given (e.g. must include X with at most 0 chosen)."""
