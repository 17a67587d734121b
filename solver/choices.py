"""A choice for a proliferate resolution, as data: the ids chosen in each round (701.34a).

:class:`Round` is one proliferate's choice (with, in Two-Headed Giant, the head of each team
that gets the team's poison, 701.34b), :class:`Choice` one per proliferate of the resolution.
Below the rules (:mod:`solver.rules` checks a choice and applies it) and the decision
(:mod:`solver.decision` carries one), and importing neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["Choice", "Round"]


def _id_tuple(chosen: Iterable[str]) -> tuple[str, ...]:
    """The chosen ids as a tuple; one string is refused, since ``tuple("bob")`` would choose "b", "o" and "b"."""
    if isinstance(chosen, str | bytes):
        raise TypeError(f"chosen must be a sequence of ids, not one {type(chosen).__name__} ({chosen!r})")
    return tuple(chosen)


@dataclass(frozen=True)
class Round:
    """One proliferate: the chosen ids and, in 2HG, which chosen head of a team gets its poison."""

    chosen: tuple[str, ...] = ()
    poison_recipients: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "chosen", _id_tuple(self.chosen))
        object.__setattr__(self, "poison_recipients", MappingProxyType(dict(self.poison_recipients)))

    def __reduce__(self) -> tuple[type[Round], tuple[tuple[str, ...], dict[str, str]]]:
        return (Round, (self.chosen, dict(self.poison_recipients)))


#: ``object.__setattr__``: a frozen dataclass's own way to set its fields.
_set = object.__setattr__


def round_of(chosen: tuple[str, ...], poison_recipients: dict[str, str]) -> Round:
    """``Round(chosen, poison_recipients)`` for values already of its fields' types, built without the checks
    and copies of its ``__init__``: the rules' own conversion from choice matrices (a loaded board's ``solve()``
    takes microseconds, and the generated frozen ``__init__`` is one of them).  ``poison_recipients`` is
    the round's own from then on."""
    made = object.__new__(Round)
    _set(made, "chosen", chosen)  # attribute by attribute: a materialised ``__dict__`` costs the GC
    _set(made, "poison_recipients", MappingProxyType(poison_recipients))
    return made


@dataclass(frozen=True)
class Choice:
    """A choice for every proliferate of the resolution, in order."""

    rounds: tuple[Round, ...]

    @classmethod
    def of(
        cls, chosen: Iterable[str], poison_recipients: Mapping[str, str] | None = None, *, rounds: int = 1
    ) -> Choice:
        """The same choice in each of ``rounds`` proliferates."""
        one = Round(_id_tuple(chosen), poison_recipients or {})
        return cls(tuple([one] * rounds))

    @classmethod
    def empty(cls, rounds: int = 1) -> Choice:
        return cls.of((), rounds=rounds)


def choice_of(rounds: tuple[Round, ...]) -> Choice:
    """``Choice(rounds)`` built without the generated frozen ``__init__`` (see :func:`round_of`)."""
    made = object.__new__(Choice)
    _set(made, "rounds", rounds)
    return made
