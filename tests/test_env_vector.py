"""The envs with vector envs and with sb3-contrib's MaskablePPO (skipped cleanly without the rl extra)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import env


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_runs_100_steps_with_a_batched_mask(mode: str) -> None:
    vec = gym.make_vec("proliferate/Duel-v0", num_envs=2, vectorization_mode=mode)
    try:
        obs, info = vec.reset(seed=0)
        n_bits = int(obs["action_mask"].shape[1])
        assert info["action_mask"].shape == (2, n_bits)
        assert obs["action_mask"].shape == (2, n_bits)
        rng = np.random.default_rng(0)
        for _ in range(100):
            mask = info["action_mask"].astype(bool)
            action = (mask & (rng.random(mask.shape) < 0.5)).astype(np.int8)
            obs, reward, _term, _trunc, info = vec.step(action)
            assert info["action_mask"].shape == (2, n_bits)
            assert reward.shape == (2,)
    finally:
        vec.close()


def test_maskable_ppo_learns_a_few_hundred_steps_and_never_picks_an_illegal_bit() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    vec = make_vec_env("proliferate/Bandit-v0", n_envs=2, seed=0)
    model = MaskablePPO("MultiInputPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(256)
    single: Any = gym.make("proliferate/Bandit-v0")
    obs, info = single.reset(seed=1)
    for _ in range(20):
        action, _ = model.predict(obs, action_masks=get_action_masks(single), deterministic=False)
        obs, _, term, trunc, info = single.step(action)
        assert info["illegal_bits"] == 0
        if term or trunc:
            obs, info = single.reset()
    assert isinstance(env.ProliferateEnv, type)
