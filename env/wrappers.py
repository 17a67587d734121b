"""Wrappers and helpers around the envs: scaled counters for neural nets, legal sampling.

The raw ``counters`` are lossless int16 counts, right for the oracle and for debugging but
badly scaled for a network; :class:`ScaledCounters` maps them to ``log1p(c)/log1p(c_max)``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

__all__ = ["ScaledCounters", "sample_legal"]


class ScaledCounters(gym.ObservationWrapper[dict[str, Any], Any, dict[str, Any]]):
    """``obs["counters"]`` as float32 in [0, 1]: ``log1p(count) / log1p(c_max)``."""

    def __init__(self, env: gym.Env[dict[str, Any], Any]) -> None:
        super().__init__(env)
        assert isinstance(env.observation_space, spaces.Dict)
        box = env.observation_space["counters"]
        assert isinstance(box, spaces.Box)
        self._scale = float(np.log1p(float(box.high.max())))
        self.observation_space = spaces.Dict(
            {**env.observation_space.spaces, "counters": spaces.Box(0.0, 1.0, box.shape, np.float32)}
        )

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        scaled = (np.log1p(observation["counters"].astype(np.float32)) / self._scale).astype(np.float32)
        return {**observation, "counters": scaled}


def sample_legal(env: gym.Env[Any, Any], mask: np.ndarray[Any, Any]) -> Any:
    """A random legal action from the env's action space, given ``info["action_mask"]``.

    A ``MultiBinary`` mask in ``Space.sample`` means 0 = force 0, 1 = force 1, 2 = random,
    so eligibility has to become 0/2 first; a ``Discrete`` mask is used as it is.
    """
    space = env.action_space
    if isinstance(space, spaces.MultiBinary):
        return space.sample(mask=np.where(np.asarray(mask) != 0, 2, 0).astype(np.int8))
    return space.sample(mask=np.asarray(mask, dtype=np.int8))
