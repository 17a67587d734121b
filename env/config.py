"""What every environment is built from, converted and checked once.

The Gymnasium env, its native vector env and the PettingZoo AEC adapter all take the same
constructor keywords for the game (variant, slots, events, archetypes, objective weights,
...).  :class:`EnvConfig` turns them into checked values in one place, so the three
classes cannot disagree on a default, a conversion or the slot arithmetic; the Gymnasium
envs' own keywords (action and reward modes, the opponents, the oracle) are
:class:`AgentConfig`.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from solver.core import Policy, Variant

from .events import EventParams
from .policies import BOARD_POLICIES, BoardPolicy
from .scenarios import check_archetypes

__all__ = ["ActionMode", "AgentConfig", "EnvConfig", "GameConfig", "Opponent", "RewardMode", "whole_number"]

ActionMode = Literal["subset", "sequential"]
RewardMode = Literal["delta", "terminal", "regret"]
Opponent = str | BoardPolicy


def whole_number(name: str, value: object, at_least: int) -> int:
    """``value`` as an int if it is a whole number (numpy's included) of at least ``at_least``; else ValueError.

    ``int()`` would take 2.5 as 2 and "4" as 4: a count given wrongly is refused, naming it.
    """
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ValueError(f"{name} must be an integer of at least {at_least}, not {value!r}")
    number = operator.index(value)
    if number < at_least:
        raise ValueError(f"{name} must be an integer of at least {at_least}, not {value!r}")
    return number


@dataclass(frozen=True)
class GameConfig:
    """How the game moves between decisions: the event model's probabilities (:class:`env.events.EventParams`),
    the opportunities' (:mod:`env.opportunities`), the turn limit and the proliferate queue's capacity."""

    events: EventParams | None = field(default_factory=EventParams)
    p_activate: float = 0.5
    p_spell: float = 0.35
    p_fizzle: float = 0.15
    max_turns: int = 200
    capacity: int = 30


#: Seats per variant: the player slots that come first in every observation.
SEATS = {Variant.DUEL: 2, Variant.TWO_HEADED_GIANT: 4, Variant.FREE_FOR_ALL: 4}


@dataclass(frozen=True)
class EnvConfig:
    """The game an env plays and how its boards are laid out (shared by every env class)."""

    variant: Variant
    slots: int
    archetypes: tuple[str, ...] | None
    policy: Policy
    game: GameConfig
    c_max: int
    horizon: int

    @property
    def n_seats(self) -> int:
        return SEATS[self.variant]

    @property
    def capacity(self) -> int:
        """Permanents that fit in the slots left after the player slots."""
        return self.slots - self.n_seats

    @property
    def start_permanents(self) -> int:
        """At most this many permanents at the start, so that the game has room to grow."""
        return self.capacity * 2 // 3

    @classmethod
    def build(
        cls,
        variant: str,
        *,
        slots: int | None = None,
        events: EventParams | Mapping[str, float] | None = None,
        archetypes: Sequence[str] | None = None,
        policy: Policy | Mapping[str, Any] | None = None,
        c_max: int = 255,
        horizon: int = 64,
        p_activate: float = 0.5,
        p_spell: float = 0.35,
        p_fizzle: float = 0.15,
        max_turns: int = 200,
    ) -> EnvConfig:
        """Check and convert the constructor keywords; ValueError names the keyword at fault."""
        try:
            kind = Variant(variant)
        except ValueError:
            known = ", ".join(repr(v.value) for v in Variant)
            raise ValueError(f"variant must be one of {known}, not {variant!r}") from None
        n_seats = SEATS[kind]
        size = whole_number("slots", slots, 1) if slots is not None else (32 if kind is Variant.DUEL else 48)
        if size <= n_seats:
            raise ValueError(f"slots must exceed the {n_seats} player slots of a {kind.value}, not {size}")
        return cls(
            variant=kind,
            slots=size,
            archetypes=check_archetypes(archetypes),
            policy=policy if isinstance(policy, Policy) else Policy.from_dict(policy or {}),
            game=GameConfig(
                events=_event_params(events),
                p_activate=p_activate,
                p_spell=p_spell,
                p_fizzle=p_fizzle,
                max_turns=whole_number("max_turns", max_turns, 1),
                capacity=size - n_seats,
            ),
            c_max=whole_number("c_max", c_max, 1),
            horizon=whole_number("horizon", horizon, 1),
        )


@dataclass(frozen=True)
class AgentConfig:
    """How the Gymnasium envs' learning seat acts and is paid, and who plays the other seats."""

    action_mode: ActionMode
    reward_mode: RewardMode
    bandit: bool
    opponent: BoardPolicy
    illegal_penalty: float
    oracle_in_info: bool
    n_bits: int
    extra: int

    @classmethod
    def build(
        cls,
        config: EnvConfig,
        *,
        action_mode: str = "subset",
        reward_mode: str = "delta",
        bandit: bool = False,
        opponent: Opponent = "rule",
        illegal_penalty: float = 0.0,
        oracle_in_info: bool = False,
    ) -> AgentConfig:
        if action_mode not in ("subset", "sequential"):
            raise ValueError(f"action_mode must be 'subset' or 'sequential', not {action_mode!r}")
        if reward_mode not in ("delta", "terminal", "regret"):
            raise ValueError(f"reward_mode must be 'delta', 'terminal' or 'regret', not {reward_mode!r}")
        extra = 2 if config.variant is Variant.TWO_HEADED_GIANT else 0
        return cls(
            action_mode="subset" if action_mode == "subset" else "sequential",
            reward_mode="delta" if reward_mode == "delta" else "terminal" if reward_mode == "terminal" else "regret",
            bandit=bool(bandit),
            opponent=board_policy(opponent),
            illegal_penalty=float(illegal_penalty),
            oracle_in_info=bool(oracle_in_info),
            n_bits=config.slots + extra if action_mode == "subset" else config.slots + 1,
            extra=extra,
        )


def board_policy(opponent: Opponent) -> BoardPolicy:
    """A named board policy, or the callable itself."""
    if callable(opponent):
        return opponent
    if opponent not in BOARD_POLICIES:
        raise ValueError(f"opponent must be one of {sorted(BOARD_POLICIES)} or a callable, not {opponent!r}")
    return BOARD_POLICIES[opponent]


def _event_params(events: EventParams | Mapping[str, float] | None) -> EventParams:
    if isinstance(events, EventParams):
        return events
    given = dict(events or {})
    known = [f.name for f in fields(EventParams)]
    unknown = [k for k in given if k not in known]
    if unknown:
        raise ValueError(f"events: unknown event {unknown[0]!r}; known: {', '.join(known)}")
    return EventParams(**given)
