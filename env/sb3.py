"""Stable-Baselines3's ``VecEnv`` over the native vector env, so SB3 and sb3-contrib train on it directly.

SB3 does not take a Gymnasium ``VectorEnv``: it has its own ``VecEnv`` API, resets a
finished sub-env in the same step and puts the last observation in
``infos[i]["terminal_observation"]``.  :class:`SB3VecEnv` runs
:class:`~env.vector.ProliferateVectorEnv` (or :class:`~env.sharded.ShardedVectorEnv`) in its
``SAME_STEP`` autoreset mode and converts; sb3-contrib's ``get_action_masks`` calls
``env_method("action_masks")``, which returns every sub-env's mask in one batched call.
:func:`make_sb3_vec_env` wraps it in SB3's ``VecMonitor``, so episodes' returns and lengths
reach ``infos[i]["episode"]``: SB3 logs ``rollout/ep_rew_mean`` and ``evaluate_policy`` finds
the monitor it looks for.  Needs the ``rl`` extra (``import env`` does not import this module).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from .sharded import ShardedVectorEnv
from .vector import ProliferateVectorEnv

__all__ = ["SB3VecEnv", "make_sb3_vec_env"]


class SB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` stepping a native vector env (same-step autoreset), in one process or sharded."""

    def __init__(self, venv: ProliferateVectorEnv | ShardedVectorEnv) -> None:
        if venv.metadata["autoreset_mode"] is not AutoresetMode.SAME_STEP:
            raise ValueError("SB3VecEnv needs a native vector env made with autoreset_mode=AutoresetMode.SAME_STEP")
        self.venv = venv
        #: The native vector env, also reachable as ``.native`` through SB3 wrappers (``VecMonitor``, ...).
        self.native = venv
        self._actions: np.ndarray[Any, Any] | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    def reset(self) -> VecEnvObs:
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        options = self._options[0] or None
        obs, _ = self.venv.reset(seed=seeds, options=options)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray[Any, Any]) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("call step_async() before step_wait()")
        obs, rewards, terminated, truncated, infos = self.venv.step_each(self._actions)
        self._actions = None
        dones = terminated | truncated
        out: list[dict[str, Any]] = []
        for i, info in enumerate(infos):
            if "final_obs" in info:
                entry = dict(info["final_info"])
                entry["terminal_observation"] = info["final_obs"]
                self.reset_infos[i] = {k: v for k, v in info.items() if k not in ("final_obs", "final_info")}
            else:
                entry = dict(info)
            entry["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            out.append(entry)
        return obs, rewards.astype(np.float32), dones, out

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Per-env results of a vector method that returns one row per sub-env (``action_masks``, ...)."""
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        rows = list(self._get_indices(indices))
        if isinstance(result, np.ndarray) and result.shape[:1] == (self.num_envs,):
            return [result[i] for i in rows]
        return [result for _ in rows]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def make_sb3_vec_env(
    env_id: str, num_envs: int, seed: int | None = None, *, monitor: bool = True, **kwargs: Any
) -> VecMonitor | SB3VecEnv:
    """``make_vec(env_id, num_envs)``'s native vector env as an SB3 ``VecEnv`` (``kwargs``, ``shards`` too, to it).

    Wrapped in ``VecMonitor`` unless ``monitor=False``; either way ``.native`` is the native
    vector env (its ``agent``, ``settings``, ...).
    """
    venv = gym.make_vec(env_id, num_envs=num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
    core = venv.unwrapped
    if not isinstance(core, ProliferateVectorEnv | ShardedVectorEnv):
        raise ValueError(f"{env_id} has no native proliferate vector env")
    adapter = SB3VecEnv(core)
    if seed is not None:
        adapter.seed(seed)
    return VecMonitor(adapter) if monitor else adapter
