"""Agents for users: baselines that act on an env in its own action format.

They are the reference points of ``benchmarks/train_maskable.py``: the oracle (zero
regret), uniformly random legal actions, and the classic per-object filter.  The scripted
seats inside a game use the board policies of :mod:`env.policies` instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .policies import rule_choice

if TYPE_CHECKING:
    from .core import ProliferateEnv

__all__ = ["Agent", "OracleAgent", "RandomAgent", "RuleBasedAgent"]


class Agent:
    """Something that acts on a :class:`~env.core.ProliferateEnv` (pass ``env.unwrapped``)."""

    def act(self, env: ProliferateEnv) -> Any:
        raise NotImplementedError


class OracleAgent(Agent):
    """Plays :meth:`ProliferateEnv.oracle_action`: zero regret by construction."""

    def act(self, env: ProliferateEnv) -> Any:
        return env.oracle_action()


class RandomAgent(Agent):
    """A uniformly random legal action: each eligible bit is a coin flip, or one legal Discrete index."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, env: ProliferateEnv) -> Any:
        mask = env.current_mask()
        if env.action_mode == "subset":
            return (mask.astype(bool) & (self.rng.random(len(mask)) < 0.5)).astype(np.int8)
        legal = np.flatnonzero(mask)
        return int(legal[int(self.rng.integers(len(legal)))])


class RuleBasedAgent(Agent):
    """Plays :func:`env.policies.rule_choice`, the classic per-object filter, in the env's action format."""

    def act(self, env: ProliferateEnv) -> Any:
        board = env.decision_board()
        chosen, recipients = rule_choice(board, policy=env.policy)
        return env.action_for(chosen, recipients)
