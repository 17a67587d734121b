"""Gymnasium environments for proliferate decisions, registered in the namespace ``proliferate``.

Importing this package registers ``proliferate/Duel-v0``, ``proliferate/TwoHeadedGiant-v0``,
``proliferate/FreeForAll-v0`` and ``proliferate/Bandit-v0`` (``gymnasium.make("env:proliferate/Duel-v0")``
imports it for you), each with a native vector env (``gymnasium.make_vec(id, num_envs=N)``; add
``shards=K`` to step its games in K processes).
Every rule and value comes from :mod:`solver`; see ``docs/environments.md``.
"""

from __future__ import annotations

import gymnasium as gym

from .agents import OracleAgent, RandomAgent, RuleBasedAgent
from .core import ProliferateEnv, ProliferateEnvV1
from .events import EventParams
from .sharded import ShardedVectorEnv
from .vector import ProliferateVectorEnv, ProliferateVectorEnvV1
from .wrappers import ScaledCounters, sample_legal

__all__ = [
    "IDS",
    "IDS_V1",
    "EventParams",
    "OracleAgent",
    "ProliferateEnv",
    "ProliferateEnvV1",
    "ProliferateVectorEnv",
    "ProliferateVectorEnvV1",
    "RandomAgent",
    "RuleBasedAgent",
    "ScaledCounters",
    "ShardedVectorEnv",
    "sample_legal",
]

#: id -> (constructor kwargs, max_episode_steps or None)
IDS: dict[str, tuple[dict[str, object], int | None]] = {
    "proliferate/Duel-v0": ({"variant": "duel"}, 64),
    "proliferate/TwoHeadedGiant-v0": ({"variant": "two_headed_giant"}, 64),
    "proliferate/FreeForAll-v0": ({"variant": "free_for_all"}, 64),
    "proliferate/Bandit-v0": ({"variant": "duel", "bandit": True}, None),
}
#: The v1 ids (issue 28): the same games kept as arrays and stepped by compiled code.
IDS_V1: dict[str, tuple[dict[str, object], int | None]] = {
    name.replace("-v0", "-v1"): spec for name, spec in IDS.items()
}

#: Each version's ids with the single env's and the vector env's entry points.
_VERSIONS = (
    (IDS, "env.core:ProliferateEnv", "env.sharded:make_vector_env"),
    (IDS_V1, "env.core:ProliferateEnvV1", "env.sharded:make_vector_env_v1"),
)
for _ids, _entry, _vector_entry in _VERSIONS:
    for _id, (_kwargs, _steps) in _ids.items():
        if _id not in gym.registry:
            gym.register(
                id=_id,
                entry_point=_entry,
                vector_entry_point=_vector_entry,
                kwargs=_kwargs,
                max_episode_steps=_steps,
            )
