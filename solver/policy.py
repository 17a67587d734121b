"""The tunable weights of the objective, and how they are read from TOML.

A :class:`Policy` is everything a user can change about *what* is optimal without
touching *how* it is found: per-kind counter weights (defaults from
:mod:`solver.catalogue`), the worth of creatures and Saga chapters, and the game-result
scores.  It is immutable and cheap to build, so callers make one per opinion.
"""

from __future__ import annotations

import itertools
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from .catalogue import default_spec
from .errors import Problem
from .files import TooLarge, read_bounded
from .formats import join, keyed
from .kinds import KindError, known_kind, same_kind_message
from .limits import ASSUMED_SCORE_RATIO, ASSUMED_WEIGHT, MAX_POLICY_BYTES, MAX_SEATS

__all__ = [
    "DEFAULT_POLICY",
    "MAX_GAME_SCORE",
    "MAX_GAME_WEIGHT",
    "MAX_SCORE_RATIO",
    "MAX_WEIGHT",
    "Policy",
    "PolicyError",
]

#: Largest magnitude of a counter weight or an object value (``[weights]``, ``[values]``), in points:
#: the weight the board limits' arithmetic budget assumes (``solver.limits``), so sums of
#: milli-points stay inside 64-bit integers.
MAX_WEIGHT = float(ASSUMED_WEIGHT)
#: Largest magnitude of a game score (``game.win``, ``draw``, ``loss``, ``elimination``).
MAX_GAME_SCORE = 1_000.0
#: Largest ``game.weight``, in points per unit of game score.
MAX_GAME_WEIGHT = 1_000_000_000.0
#: Largest ratio of the biggest game score to the smallest gap between two game scores (the
#: objective raises the game weight by it, docs/objective.md), as the budget in ``solver.limits`` assumes.
MAX_SCORE_RATIO = float(ASSUMED_SCORE_RATIO)
#: Game scores closer than this are one score written two ways (float rounding of k x elimination).
SCORE_TOLERANCE = 1e-9

#: Kinds tuples whose weights a policy keeps (:meth:`Policy.kind_weights`); others are worked out each time.
_KIND_TUPLES = 256


class PolicyError(ValueError):
    """A policy file or dict that cannot be used; ``problems`` lists every problem with its key path."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Policy:
    """Weights of the heuristic objective, in points (one +1/+1 counter on a creature = 1 point).

    Game results are scored on their own scale (``win``/``draw``/``loss``/``elimination``)
    and multiplied by ``game_weight`` points -- raised per board, when needed, above
    everything the counters on that board could be worth, so no material sum ever
    outweighs a game result.
    """

    weights: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    win: float = 1.0
    draw: float = -0.5
    loss: float = -1.0
    elimination: float = 0.25
    game_weight: float = 1000.0
    creature_base: float = 1.0
    saga_chapter: float = 1.5
    saga_value: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "weights", MappingProxyType(dict(self.weights)))
        problems = [
            Problem(path, why) for path, value, limit in self._numbers() if (why := _out_of_range(value, limit))
        ]
        if problems:
            raise PolicyError(problems)
        self.check()

    def _numbers(self) -> list[tuple[str, float, float]]:
        """Every number that enters the objective, with its key path and its largest magnitude."""
        numbers = [
            (f"game.{key}", getattr(self, key), MAX_GAME_SCORE) for key in ("win", "draw", "loss", "elimination")
        ]
        numbers.append(("game.weight", self.game_weight, MAX_GAME_WEIGHT))
        numbers += [(f"values.{key}", getattr(self, key), MAX_WEIGHT) for key in _VALUE_KEYS]
        numbers += [(keyed("weights", kind), value, MAX_WEIGHT) for kind, value in self.weights.items()]
        return numbers

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """Pickle through the TOML-shaped dict (worker processes get the same policy)."""
        return (Policy.from_dict, (self.to_dict(),))

    def weight(self, kind: str) -> float:
        """Worth of one counter of ``kind`` to its controller: the policy's, else the catalogue's."""
        return self.weights.get(kind, default_spec(kind).weight)

    def kind_weights(self, kinds: tuple[str, ...]) -> npt.NDArray[np.float64]:
        """:meth:`weight` of each of ``kinds``, as a read-only array.

        Kept on the policy per kinds tuple (the policy is immutable; boards of one game, or of
        one analysis, share a handful of kinds tuples), since every decision and every
        scripted seat of an environment asks for it again.
        """
        table: dict[tuple[str, ...], npt.NDArray[np.float64]] = self.__dict__.setdefault("_kind_weights", {})
        found = table.get(kinds)
        if found is None:
            found = np.fromiter(map(self.weight, kinds), dtype=np.float64, count=len(kinds))
            found.flags.writeable = False
            if len(table) < _KIND_TUPLES:
                table[kinds] = found
        return found

    def presence_only(self, kind: str) -> bool:
        return default_spec(kind).presence_only

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Policy:
        """Build from a mapping shaped like the TOML file (tables ``game``, ``values``, ``weights``)."""
        if not isinstance(data, Mapping):
            raise PolicyError(
                [Problem("", f"a policy must be a mapping of tables (game, values, weights), not {_kind_of(data)}")]
            )
        problems: list[Problem] = []
        kwargs: dict[str, Any] = {}
        spelled: dict[str, object] = {}  # canonical kind -> the key that first gave it a weight
        known = {
            "game": ("win", "draw", "loss", "elimination", "weight"),
            "values": _VALUE_KEYS,
            "weights": (),
        }
        for table, table_value in data.items():
            if table not in known:
                problems.append(Problem(join("", table), "unknown table (expected game, values, weights)"))
                continue
            if not isinstance(table_value, Mapping):
                problems.append(Problem(join("", table), "must be a table"))
                continue
            for key, val in table_value.items():
                path = join(table, key) if table != "weights" else keyed("weights", key)  # surrogates escaped
                if isinstance(val, bool) or not isinstance(val, int | float):  # before the cache: it hashes
                    problems.append(Problem(path, "must be a finite number"))
                    continue
                limit = MAX_WEIGHT if table != "game" else MAX_GAME_WEIGHT if key == "weight" else MAX_GAME_SCORE
                if why := _out_of_range(val, limit):
                    problems.append(Problem(path, why))
                    continue
                if table == "weights":
                    try:
                        kind = known_kind(key)  # a real kind, or the nearest ones named
                    except KindError as exc:
                        problems.append(Problem(path, str(exc)))
                        continue
                    if kind in spelled:  # as the board loader refuses it in counters
                        problems.append(Problem(path, same_kind_message(key, spelled[kind], kind)))
                        continue
                    spelled[kind] = key
                    kwargs.setdefault("weights", {})[kind] = float(val)
                elif key not in known[table]:
                    problems.append(Problem(path, f"unknown key (expected one of {', '.join(known[table])})"))
                else:
                    kwargs["game_weight" if (table, key) == ("game", "weight") else key] = float(val)
        if problems:
            raise PolicyError(problems)
        if "weights" in kwargs:
            kwargs["weights"] = MappingProxyType(kwargs["weights"])
        return cls(**kwargs)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Policy:
        """Read a TOML policy file; PolicyError (never another exception) for an unreadable or invalid one.

        >>> Policy.from_toml("solver/examples/policy.toml").win
        1.0
        """
        try:
            data = tomllib.loads(read_bounded(path, MAX_POLICY_BYTES, "policy file").decode("utf-8"))
        except OSError as exc:
            raise PolicyError([Problem("", f"cannot read policy file {os.fspath(path)!r}: {exc.strerror}")]) from exc
        except UnicodeDecodeError as exc:
            raise PolicyError([Problem("", f"not UTF-8 text (byte {exc.start})")]) from None
        except TooLarge as exc:
            raise PolicyError([Problem("", str(exc))]) from None
        except tomllib.TOMLDecodeError as exc:
            raise PolicyError([Problem("", f"not valid TOML: {exc}")]) from exc
        except RecursionError:
            raise PolicyError([Problem("", "not valid TOML: nested too deeply")]) from None
        except ValueError:  # a NUL byte or a lone surrogate in the name (UnicodeEncodeError)
            raise PolicyError(
                [Problem("", f"cannot read policy file {os.fspath(path)!r}: not a possible file name")]
            ) from None
        return cls.from_dict(data)

    def check(self) -> None:
        """Refuse game scores that do not rank win > draw > loss, or eliminations worth a win."""
        problems = []
        if not self.win > self.draw > self.loss:
            problems.append(Problem("game", "scores must rank win > draw > loss"))
        if self.elimination <= 0 or self.elimination >= self.win:
            problems.append(Problem("game.elimination", "must be > 0 and below the score of a win"))
        if self.game_weight <= 0:
            problems.append(Problem("game.weight", "must be > 0"))
        if not problems and (ratio := self.score_ratio()) > MAX_SCORE_RATIO:
            problems.append(
                Problem(
                    "game",
                    f"scores too close together: the largest is {ratio:.4g} times the smallest gap between two "
                    f"game results (win, draw, loss, nothing, some eliminations; at most {MAX_SCORE_RATIO:g})",
                )
            )
        if problems:
            raise PolicyError(problems)

    # ------------------------------------------------------------------ game scores
    def elimination_score(self, n_opponents: int) -> float:
        """The score of one elimination among ``n_opponents``: capped so eliminating all but one is worth half a win."""
        if n_opponents <= 1:
            return self.elimination
        return min(self.elimination, 0.5 * self.win / (n_opponents - 1))

    def score_gap(self, n_opponents: int) -> float:
        """The smallest gap between two different game scores a resolution can get against ``n_opponents``.

        ``k`` eliminations score ``k`` times one, so a multiple can equal the draw up to float
        rounding (3 x 0.1 is not 0.3): scores within :data:`SCORE_TOLERANCE` are the same score,
        or the game weight the objective derives from the gap would be astronomically large.
        """
        gaps: dict[int, float] = self.__dict__.setdefault("_score_gaps", {})  # the policy is immutable: kept per count
        found = gaps.get(n_opponents)
        if found is None:
            one = self.elimination_score(n_opponents)
            scores = sorted({self.win, self.draw, self.loss, 0.0} | {one * k for k in range(1, n_opponents)})
            found = gaps[n_opponents] = min(b - a for a, b in itertools.pairwise(scores) if b - a > SCORE_TOLERANCE)
        return found

    def score_ratio(self) -> float:
        """The largest game score over the smallest gap between two, at any number of opponents.

        The objective raises the game weight by this ratio (docs/objective.md), so it bounds how
        far the game term can exceed the material one; ``solver.limits`` budgets for it.
        """
        largest = max(abs(self.win), abs(self.draw), abs(self.loss))
        return largest / min(self.score_gap(n) for n in range(1, MAX_SEATS))

    def with_weights(self, **weights: float) -> Policy:
        """A copy with some kind weights changed (keyword names use ``_`` for spaces).

        >>> Policy().with_weights(loyalty=2, first_strike=0.5).weights["first strike"]
        0.5
        """
        merged = {**self.weights, **{k.replace("_", " "): v for k, v in weights.items()}}
        return Policy.from_dict({**self.to_dict(), "weights": merged})

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": {
                "win": self.win,
                "draw": self.draw,
                "loss": self.loss,
                "elimination": self.elimination,
                "weight": self.game_weight,
            },
            "values": {key: getattr(self, key) for key in _VALUE_KEYS},
            "weights": dict(self.weights),
        }


@lru_cache(maxsize=256)
def _out_of_range(value: object, limit: float) -> str | None:
    """Why a policy number cannot be used (not a finite number, or past ``limit``), or None.

    Integers are compared as integers, never converted, so one of thousands of digits is out
    of range like any other (docs/limits.md) rather than an OverflowError of ``float()``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a finite number"
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number"
    if abs(value) > limit:
        return f"must be from {-limit:g} to {limit:g}"
    return None


def _kind_of(value: object) -> str:
    return "null" if value is None else type(value).__name__


_VALUE_KEYS = tuple(f.name for f in fields(Policy) if f.name in ("creature_base", "saga_chapter", "saga_value"))


#: The default weights.  A Policy is immutable, so one instance serves every call that gives none.
DEFAULT_POLICY = Policy()
