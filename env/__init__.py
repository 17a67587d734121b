"""Gymnasium environments for proliferate decisions, registered in the namespace ``proliferate``.

Importing this package registers ``proliferate/Duel-v1``, ``proliferate/TwoHeadedGiant-v1``,
``proliferate/FreeForAll-v1`` and ``proliferate/Bandit-v1`` (``gymnasium.make("env:proliferate/Duel-v1")``
imports it for you), each with a native vector env (``gymnasium.make_vec(id, num_envs=N)``; add
``shards=K`` to step its games in K processes).  The v0 ids are retired: Gymnasium's
``DeprecatedEnv`` error for them names the v1 id.
Every rule and value comes from :mod:`solver`; see ``docs/environments.md``.
"""

from __future__ import annotations

import gymnasium as gym

from .agents import OracleAgent, RandomAgent, RuleBasedAgent
from .core import ProliferateEnv
from .events import EventParams
from .sharded import ShardedVectorEnv
from .vector import ProliferateVectorEnv
from .wrappers import ScaledCounters, sample_legal

__all__ = [
    "IDS",
    "EventParams",
    "OracleAgent",
    "ProliferateEnv",
    "ProliferateVectorEnv",
    "RandomAgent",
    "RuleBasedAgent",
    "ScaledCounters",
    "ShardedVectorEnv",
    "sample_legal",
]

#: id -> (constructor kwargs, max_episode_steps or None)
IDS: dict[str, tuple[dict[str, object], int | None]] = {
    "proliferate/Duel-v1": ({"variant": "duel"}, 64),
    "proliferate/TwoHeadedGiant-v1": ({"variant": "two_headed_giant"}, 64),
    "proliferate/FreeForAll-v1": ({"variant": "free_for_all"}, 64),
    "proliferate/Bandit-v1": ({"variant": "duel", "bandit": True}, None),
}

for _id, (_kwargs, _steps) in IDS.items():
    if _id not in gym.registry:
        gym.register(
            id=_id,
            entry_point="env.core:ProliferateEnv",
            vector_entry_point="env.sharded:make_vector_env",
            kwargs=_kwargs,
            max_episode_steps=_steps,
        )
