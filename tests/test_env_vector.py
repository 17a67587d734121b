"""The native vector envs: same games as single envs, Gymnasium's vector conventions, and SB3 on top."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import env
from env.vector import ProliferateVectorEnv, batch_infos

IDS = tuple(env.IDS)
MODES = ("subset", "sequential")
N = 3
STEPS = 60
LIMIT = 12  # a short TimeLimit, so that every trajectory has truncations and autoresets


def _random_actions(masks: np.ndarray, mode: str, rng: np.random.Generator) -> np.ndarray:
    """Random legal actions from a batch of masks (subset: coin flips on allowed bits; sequential: one index)."""
    if mode == "subset":
        return (masks.astype(bool) & (rng.random(masks.shape) < 0.5)).astype(np.int8)
    return np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)


def _info_of(batched: dict[str, Any], i: int) -> dict[str, Any]:
    """Sub-env ``i``'s info out of Gymnasium's batched info (keys whose ``_key`` mask is set)."""
    out: dict[str, Any] = {}
    for key, value in batched.items():
        if key.startswith("_") or not batched[f"_{key}"][i]:
            continue
        out[key] = _info_of(value, i) if isinstance(value, dict) else value[i]
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray | np.generic) or isinstance(b, np.ndarray | np.generic):
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    return bool(a == b)


@pytest.mark.parametrize(
    ("env_id", "mode", "opponent"),
    [(i, m, "rule") for i in IDS for m in MODES]
    + [("proliferate/FreeForAll-v1", "subset", "random"), ("proliferate/TwoHeadedGiant-v1", "subset", "oracle")],
)
def test_vector_trajectories_equal_single_env_trajectories(env_id: str, mode: str, opponent: str) -> None:
    kwargs: dict[str, Any] = {"action_mode": mode, "opponent": opponent, "max_episode_steps": LIMIT}
    vec = gym.make_vec(env_id, num_envs=N, **kwargs)
    assert isinstance(vec.unwrapped, ProliferateVectorEnv)
    singles = [gym.make(env_id, **kwargs) for _ in range(N)]
    obs, info = vec.reset(seed=21)
    firsts = [s.reset(seed=21 + i) for i, s in enumerate(singles)]
    for i, (o, inf) in enumerate(firsts):
        assert data_equivalence(o, {k: v[i] for k, v in obs.items()})
        assert _same(inf, _info_of(info, i))
    rng = np.random.default_rng(5)
    ended = np.zeros(N, dtype=bool)
    resets = 0
    for _ in range(STEPS):
        actions = _random_actions(obs["action_mask"], mode, rng)
        obs, reward, terminated, truncated, info = vec.step(actions)
        for i, single in enumerate(singles):
            if ended[i]:  # NEXT_STEP autoreset: this step reset sub-env i and ignored its action
                o, inf = single.reset()
                expected: tuple[Any, ...] = (0.0, False, False)
                resets += 1
            else:
                o, *rest, inf = single.step(actions[i])
                expected = tuple(rest)
            assert data_equivalence(o, {k: v[i] for k, v in obs.items()}), (i, o, obs)
            assert expected == (reward[i], terminated[i], truncated[i])
            assert _same(inf, _info_of(info, i))
        ended = terminated | truncated
    assert resets > 0, "the trajectories must cross an autoreset"


def test_same_step_autoreset_reports_the_final_observation() -> None:
    vec = ProliferateVectorEnv(2, "duel", bandit=True, autoreset_mode=AutoresetMode.SAME_STEP)
    single = env.ProliferateEnv("duel", bandit=True)
    obs, info = vec.reset(seed=3)
    single.reset(seed=3)
    action = np.zeros((2, single.n_bits), dtype=np.int8)
    obs, _, terminated, _, info = vec.step(action)
    expected, *_ = single.step(action[0])
    assert terminated.all() and info["_final_obs"].all()
    assert data_equivalence(info["final_obs"][0], expected)
    after, _ = single.reset()
    assert data_equivalence({k: v[0] for k, v in obs.items()}, after)


def test_metadata_masks_and_seeds() -> None:
    vec = gym.make_vec("proliferate/TwoHeadedGiant-v1", num_envs=4)
    assert vec.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    core = vec.unwrapped
    assert isinstance(core, ProliferateVectorEnv)
    obs, info = core.reset(seed=[7, None, 9, 10])
    n_bits = core.single_action_space.shape[0]  # type: ignore[index]
    assert info["action_mask"].shape == (4, n_bits) and info["_action_mask"].all()
    assert np.array_equal(info["action_mask"], obs["action_mask"])
    masks = core.action_masks()
    assert masks.shape == (4, 2 * n_bits) and masks.reshape(4, n_bits, 2)[:, :, 0].all()
    assert np.array_equal(masks.reshape(4, n_bits, 2)[:, :, 1], obs["action_mask"].astype(bool))
    alone = env.ProliferateEnv("two_headed_giant")
    first, _ = alone.reset(seed=9)
    assert data_equivalence(first, {k: v[2] for k, v in obs.items()})
    assert obs in core.observation_space


@pytest.mark.parametrize("shards", [1, 2])
@pytest.mark.parametrize("bad", [0, -1, 1.5, 2.0, "4", True, None])
def test_a_count_that_is_not_a_whole_number_is_refused_by_name(bad: object, shards: int) -> None:
    """num_envs=1.5 was taken as 1 (``int()``): a wrong count is a ValueError naming it; numpy integers are counts."""
    with pytest.raises(ValueError, match=rf"^num_envs must be an integer of at least 1, not {re.escape(repr(bad))}$"):
        gym.make_vec("proliferate/Duel-v1", num_envs=bad, shards=shards)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=rf"^shards must be an integer of at least 1, not {re.escape(repr(bad))}$"):
        gym.make_vec("proliferate/Duel-v1", num_envs=2, shards=bad)


def test_numpy_integers_are_counts() -> None:
    vec = gym.make_vec("proliferate/Duel-v1", num_envs=np.int64(3))  # type: ignore[arg-type]  # as RL code passes it
    assert vec.num_envs == 3 and type(vec.num_envs) is int
    vec.close()


def test_a_rejected_vector_step_changes_nothing() -> None:
    vec = ProliferateVectorEnv(2, "duel")
    twin = ProliferateVectorEnv(2, "duel")
    vec.reset(seed=1)
    twin.reset(seed=1)
    with pytest.raises(ValueError, match="subset action must be"):
        vec.step(np.zeros((3, vec.agent.n_bits), dtype=np.int8))
    with pytest.raises(ValueError, match="each 0 or 1"):
        vec.step(np.full((2, vec.agent.n_bits), 0.5))
    action = np.zeros((2, vec.agent.n_bits), dtype=np.int8)
    assert data_equivalence(vec.step(action)[:4], twin.step(action)[:4])


def test_oracle_actions_are_the_single_envs_oracle() -> None:
    vec = ProliferateVectorEnv(3, "free_for_all", action_mode="sequential")
    vec.reset(seed=4)
    actions = vec.oracle_actions()
    for i in range(3):
        single = env.ProliferateEnv("free_for_all", action_mode="sequential")
        single.reset(seed=4 + i)
        assert actions[i] == single.oracle_action()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_sync_and_async_still_run_with_a_batched_mask(mode: str) -> None:
    vec = gym.make_vec("proliferate/Duel-v1", num_envs=2, vectorization_mode=mode)
    try:
        obs, info = vec.reset(seed=0)
        n_bits = int(obs["action_mask"].shape[1])
        assert info["action_mask"].shape == (2, n_bits)
        rng = np.random.default_rng(0)
        for _ in range(30):
            obs, reward, _term, _trunc, info = vec.step(_random_actions(info["action_mask"], "subset", rng))
            assert info["action_mask"].shape == (2, n_bits)
            assert reward.shape == (2,)
    finally:
        vec.close()


def test_maskable_ppo_trains_on_the_native_vector_env_and_never_picks_an_illegal_bit() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.logger import Logger

    from env.sb3 import make_sb3_vec_env

    torch.set_num_threads(1)
    vec = make_sb3_vec_env("proliferate/Duel-v1", 4, seed=0, max_episode_steps=8)
    model = MaskablePPO("MultiInputPolicy", vec, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # else SB3 leaves a /tmp/SB3-<time> folder
    model.learn(256)
    assert model.num_timesteps >= 256
    obs = vec.reset()
    assert isinstance(obs, dict)
    ended = 0
    for _ in range(30):
        masks = get_action_masks(vec)
        assert masks.shape == (4, 2 * vec.native.agent.n_bits)
        action, _ = model.predict(obs, action_masks=masks, deterministic=False)
        obs, _, dones, infos = vec.step(action)
        assert isinstance(obs, dict)
        for done, info in zip(dones, infos, strict=True):
            assert info["illegal_bits"] == 0
            if done:
                ended += 1
                assert "terminal_observation" in info
                assert isinstance(info["TimeLimit.truncated"], bool)
    assert ended > 0
    assert vec.env_is_wrapped(gym.Wrapper) == [False] * 4
    assert vec.get_attr("num_envs") == [4] * 4


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 4),
    env_id=st.sampled_from(IDS),
    mode=st.sampled_from(MODES),
    opponent=st.sampled_from(["rule", "random", "oracle", "noop"]),
)
def test_property_any_seed_and_size_gives_the_single_envs_games(
    seed: int, n: int, env_id: str, mode: str, opponent: str
) -> None:
    kwargs: dict[str, Any] = {"action_mode": mode, "opponent": opponent, "max_episode_steps": 6}
    vec = gym.make_vec(env_id, num_envs=n, **kwargs)
    singles = [gym.make(env_id, **kwargs) for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    for i, single in enumerate(singles):
        assert data_equivalence(single.reset(seed=seed + i)[0], {k: v[i] for k, v in obs.items()})
    rng = np.random.default_rng(seed)
    ended = np.zeros(n, dtype=bool)
    for _ in range(10):
        actions = _random_actions(obs["action_mask"], mode, rng)
        obs, reward, terminated, truncated, _ = vec.step(actions)
        for i, single in enumerate(singles):
            if ended[i]:
                expected: tuple[Any, ...] = (single.reset()[0], 0.0, False, False)
            else:
                expected = tuple(single.step(actions[i])[:4])
            got = ({k: v[i] for k, v in obs.items()}, reward[i], terminated[i], truncated[i])
            assert data_equivalence(expected[0], got[0]) and expected[1:] == got[1:]
        ended = terminated | truncated


@pytest.mark.parametrize("autoreset", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_batched_infos_are_gymnasiums(autoreset: AutoresetMode) -> None:
    """The env's own batching of infos gives what ``VectorEnv._add_info`` gives: keys, order, dtypes, masks."""
    vec = ProliferateVectorEnv(4, "two_headed_giant", autoreset_mode=autoreset, oracle_in_info=True, bandit=True)
    rng = np.random.default_rng(0)
    obs, _ = vec.reset(seed=1)
    for _ in range(6):
        obs, _, _, _, infos = vec.step_each(_random_actions(obs["action_mask"], "subset", rng))
        expected: dict[str, Any] = {}
        for i, info in enumerate(infos):
            expected = vec._add_info(expected, info, i)
        batched = batch_infos(infos)
        assert list(batched) == list(expected)
        assert data_equivalence(batched, expected)


def test_the_sb3_adapter_is_monitored_so_sb3_logs_returns_and_evaluate_policy_does_not_warn() -> None:
    """Issue 24 item 11: ``VecMonitor`` fills ``infos[i]["episode"]``, hence ``ep_info_buffer`` (ep_rew_mean)."""
    pytest.importorskip("sb3_contrib")
    import warnings

    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy as maskable_evaluate
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import VecMonitor

    from env.sb3 import SB3VecEnv, make_sb3_vec_env

    torch.set_num_threads(1)
    vec = make_sb3_vec_env("proliferate/Duel-v1", 2, seed=0, max_episode_steps=4)
    assert isinstance(vec, VecMonitor) and isinstance(vec.venv, SB3VecEnv)
    assert isinstance(vec.native, ProliferateVectorEnv)
    assert isinstance(make_sb3_vec_env("proliferate/Duel-v1", 2, monitor=False), SB3VecEnv)
    model = MaskablePPO("MultiInputPolicy", vec, n_steps=16, batch_size=32, n_epochs=1, seed=0, verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(32)
    assert model.ep_info_buffer is not None and len(model.ep_info_buffer) > 0
    assert {"r", "l", "t"} <= set(model.ep_info_buffer[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Evaluation environment is not wrapped with a ``Monitor`` wrapper" was raised
        rewards, lengths = maskable_evaluate(model, vec, n_eval_episodes=2, return_episode_rewards=True)
        assert isinstance(rewards, list) and isinstance(lengths, list)
        assert len(rewards) == len(lengths) == 2 and all(1 <= n <= 4 for n in lengths)
        evaluate_policy(model, vec, n_eval_episodes=2)
    vec.close()
