"""What the public entry points accept, turned into the library's own types in one place.

Every public entry point that takes a board (``solve``, ``score``, ``explain_choice``,
``top_k``, ``worst_value``, ``eligible``, ``apply_proliferate``, ``solve_many``,
``decide_many``, ``dump_board``, ``board_svg``, ``choice_svg``, ``solver.decision_from_json``, the
envs' ``reset(options={"board": ...})``) takes it as a :class:`~solver.board.Board`, a
mapping (parsed board JSON), JSON text (``str`` or UTF-8 ``bytes``) or a path, through
:func:`as_board` (defined beside :func:`~solver.boardjson.load_board`, which
:func:`~solver.boardjson.dump_board` needs too); a choice as a :class:`~solver.rules.Choice`
or a list of ids; a policy as a :class:`~solver.policy.Policy`, a mapping shaped like the
TOML file, or a TOML path.  Anything else is a :class:`TypeError` that says what is
accepted, rather than an ``AttributeError`` deep inside the solver.  The data types built
from a loaded board (``ChoiceMatrix``, ``Outcome``, ``Decision``'s constructor) take a
:class:`~solver.board.Board` only."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from .board import Board
from .boardjson import BoardLike, as_board
from .policy import DEFAULT_POLICY, Policy
from .rules import Choice, Round

__all__ = ["BoardLike", "ChoiceLike", "PolicyLike", "as_board", "as_choice", "as_policy"]

ChoiceLike: TypeAlias = Choice | Round | Sequence[str] | Mapping[str, Any]
PolicyLike: TypeAlias = Policy | Mapping[str, Any] | str | os.PathLike[str] | None

_CHOICE = 'a Choice, a Round, a list of object ids, or a mapping {"chosen": [...]} / {"rounds": [...]}'
_POLICY = "a Policy, a mapping shaped like the policy file, a path to a TOML file, or None"


def as_policy(policy: object) -> Policy:
    """The policy given in any accepted form (None: the default weights); PolicyError for a bad one.

    >>> as_policy({"weights": {"loyalty": 2}}).weight("loyalty")
    2.0
    """
    if policy is None:
        return DEFAULT_POLICY
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, Mapping):
        return Policy.from_dict(policy)
    if isinstance(policy, str | os.PathLike):
        return Policy.from_toml(policy)
    raise TypeError(f"policy must be {_POLICY}, not {type(policy).__name__}")


def as_choice(choice: object, board: Board) -> Choice:
    """The choice given in any accepted form, for ``board``.

    A list of ids, a :class:`Round` or ``{"chosen": [...], "poison_recipients": {...}}`` means
    the same choice in every proliferate of the board; ``{"rounds": [...]}`` gives one per
    proliferate.  Whether the choice is legal is checked when it is scored.

    >>> board = as_board("solver/examples/classic.json")
    >>> as_choice(["bob"], board).rounds[0].chosen
    ('bob',)
    """
    if isinstance(choice, Choice):
        return choice
    if isinstance(choice, Round):
        return Choice(tuple([choice] * board.rounds))
    if isinstance(choice, Mapping):
        if "rounds" in choice and isinstance(choice["rounds"], Sequence):
            return Choice(tuple(_round(r) for r in choice["rounds"]))
        return Choice(tuple([_round(choice)] * board.rounds))
    if isinstance(choice, Sequence) and not isinstance(choice, str | bytes):
        return Choice.of(_ids(choice), rounds=board.rounds)
    raise TypeError(f"choice must be {_CHOICE}, not {type(choice).__name__}")


def _round(raw: object) -> Round:
    if isinstance(raw, Round):
        return raw
    if not isinstance(raw, Mapping) or "chosen" not in raw:
        raise TypeError(f'each round must be a Round or a mapping {{"chosen": [...]}}, not {type(raw).__name__}')
    recipients = raw.get("poison_recipients") or {}
    if not isinstance(recipients, Mapping):
        raise TypeError("poison_recipients must map team names to player ids")
    return Round(_ids(raw["chosen"]), {str(k): str(v) for k, v in recipients.items()})


def _ids(raw: object) -> tuple[str, ...]:
    if isinstance(raw, str | bytes) or not isinstance(raw, Sequence):
        raise TypeError(f"chosen must be a list of object ids, not {type(raw).__name__}")
    bad = [v for v in raw if not isinstance(v, str)]
    if bad:
        raise TypeError(f"object ids must be strings, not {type(bad[0]).__name__}")
    return tuple(raw)
