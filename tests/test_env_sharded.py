"""The sharded vector env: the same games as the one-process native vector env, in worker processes."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

import env  # noqa: F401  (registers the ids)
from env.sharded import ShardedVectorEnv
from env.vector import ProliferateVectorEnv

N = 5  # shards of 3 and 2 games
LIMIT = 6  # a short TimeLimit, so that trajectories have truncations and autoresets


def _random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (masks.astype(bool) & (rng.random(masks.shape) < 0.5)).astype(np.int8)


@pytest.mark.parametrize(
    ("env_id", "autoreset"),
    [
        ("proliferate/Duel-v1", AutoresetMode.NEXT_STEP),
        ("proliferate/TwoHeadedGiant-v1", AutoresetMode.SAME_STEP),
        ("proliferate/FreeForAll-v1", AutoresetMode.NEXT_STEP),
    ],
)
def test_sharded_trajectories_equal_the_one_process_envs(env_id: str, autoreset: AutoresetMode) -> None:
    kwargs: dict[str, Any] = {"autoreset_mode": autoreset, "max_episode_steps": LIMIT, "oracle_in_info": True}
    one = gym.make_vec(env_id, num_envs=N, **kwargs)
    sharded = gym.make_vec(env_id, num_envs=N, shards=2, **kwargs)
    try:
        assert isinstance(one, ProliferateVectorEnv) and isinstance(sharded, ShardedVectorEnv)
        assert sharded.shards == 2 and sharded.metadata["autoreset_mode"] is autoreset
        assert sharded.observation_space == one.observation_space and sharded.action_space == one.action_space
        rng = np.random.default_rng(0)
        obs, info = one.reset(seed=7)
        assert data_equivalence((obs, info), sharded.reset(seed=7))
        for _ in range(3 * LIMIT):
            assert np.array_equal(one.action_masks(), sharded.action_masks())
            assert np.array_equal(one.oracle_actions(), sharded.oracle_actions())
            actions = _random_actions(obs["action_mask"], rng)
            expected = one.step(actions)
            assert data_equivalence(expected, sharded.step(actions))
            obs = expected[0]
    finally:
        one.close()
        sharded.close()


def test_seed_lists_and_reseeding_reach_the_same_sub_envs() -> None:
    one = ProliferateVectorEnv(N)
    sharded = ShardedVectorEnv(N, 2)
    try:
        assert data_equivalence(one.reset(seed=[11, 4, 5, 3, 8]), sharded.reset(seed=[11, 4, 5, 3, 8]))
        assert data_equivalence(one.reset(seed=2), sharded.reset(seed=2))
        again = [None, 9, None, 1, None]  # None: that sub-env's generator goes on, the same in both
        assert data_equivalence(one.reset(seed=again), sharded.reset(seed=again))
        with pytest.raises(ValueError, match="5 seeds, not 2"):
            sharded.reset(seed=[1, 2])
    finally:
        one.close()
        sharded.close()


def test_bad_actions_and_bad_arguments_raise_as_the_one_process_env_does() -> None:
    before = set(multiprocessing.active_children())
    sharded = ShardedVectorEnv(4, 2)
    try:
        sharded.reset(seed=0)
        with pytest.raises(ValueError, match="a subset action must be"):
            sharded.step(np.zeros((3, 2), dtype=np.int8))
        with pytest.raises((pickle.PicklingError, AttributeError), match=r"[Pp]ickle"):  # decide runs in the workers
            sharded.policy_actions(lambda board, decision: (decision.optimum.chosen, decision.optimum.recipients))
    finally:
        sharded.close()
    with pytest.raises(ValueError, match="shards must be an integer of at least 1, not 0"):
        gym.make_vec("proliferate/Duel-v1", num_envs=2, shards=0)
    with pytest.raises(ValueError, match="num_envs \\(1\\) must be an integer of at least shards \\(2\\)"):
        ShardedVectorEnv(1, 2)
    with pytest.raises(ValueError, match="variant"):  # raised in the workers, re-raised here
        ShardedVectorEnv(2, 2, variant="chess")
    assert set(multiprocessing.active_children()) <= before  # every worker of this test is gone


def test_close_stops_the_workers() -> None:
    before = set(multiprocessing.active_children())
    sharded = gym.make_vec("proliferate/Duel-v1", num_envs=3, shards=3)
    workers = set(multiprocessing.active_children()) - before
    assert len(workers) == 3 and all(w.is_alive() for w in workers)
    sharded.close()
    assert not any(w.is_alive() for w in workers)


@pytest.mark.parametrize("call", ["step", "action_masks"])
def test_a_worker_that_dies_is_an_error_naming_its_shard_and_the_env_still_closes(call: str) -> None:
    """A killed worker (out of memory, say) is a RuntimeError naming the shard, never a hang or a raw pipe error."""
    sharded = ShardedVectorEnv(4, 2)
    obs, _ = sharded.reset(seed=0)
    workers = list(sharded._processes)
    victim = workers[1]
    os.kill(victim.pid, signal.SIGKILL)  # type: ignore[arg-type]
    victim.join(timeout=10)
    ask = (lambda: sharded.step(obs["action_mask"])) if call == "step" else sharded.action_masks
    with pytest.raises(RuntimeError, match=r"shard 1 of the vector env has stopped \(exit code -9\)"):
        ask()
    with pytest.raises(RuntimeError, match="shard 1"):  # the other shard's replies no longer line up
        sharded.reset(seed=0)
    sharded.close()
    assert not any(w.is_alive() for w in workers)


def test_maskable_ppo_trains_on_the_sharded_env() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.logger import Logger

    from env.sb3 import make_sb3_vec_env

    torch.set_num_threads(1)
    vec = make_sb3_vec_env("proliferate/Duel-v1", 4, seed=0, max_episode_steps=8, shards=2)
    try:
        assert isinstance(vec.native, ShardedVectorEnv)
        model = sb3_contrib.MaskablePPO("MultiInputPolicy", vec, n_steps=16, batch_size=32, n_epochs=1, seed=0)
        model.set_logger(Logger(folder=None, output_formats=[]))  # else SB3 leaves a /tmp/SB3-<time> folder
        model.learn(64)
        assert model.num_timesteps >= 64
        assert get_action_masks(vec).shape == (4, 2 * vec.native.agent.n_bits)
    finally:
        vec.close()
