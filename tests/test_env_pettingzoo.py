"""The PettingZoo adapters (AEC and parallel): PettingZoo's own checks, random legal subsets, team rewards (810.8a)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from env.pettingzoo import ProliferateAEC, ProliferateParallel, aec_env, parallel_env

VARIANTS = ("duel", "two_headed_giant", "free_for_all")
TEAMS = (("player_0", "player_1"), ("player_2", "player_3"))


@pytest.mark.parametrize("variant", VARIANTS)
def test_api_and_seed_tests_pass(variant: str) -> None:
    # PettingZoo warns about Dict/MultiBinary spaces and dict observations; those are expected (see the docs).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(aec_env(variant), num_cycles=40)
        seed_test(lambda: aec_env(variant), num_cycles=40)


def _random_game(env: ProliferateAEC, seed: int, rng: np.random.Generator) -> dict[str, float]:
    """Play one game with random legal subsets (recipient bits included), checking every step."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(2000):
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        assert env.observation_space(agent).contains(obs)
        for other in env.agents:
            if other != agent or terminated or truncated:
                assert not env.observe(other)["action_mask"].any(), "the mask is all zeros off-turn and when finished"
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        action = (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8)
        decision = env._pending()
        rows_before = len(decision.rows)
        env.step(action)
        assert env.infos[agent]["illegal_bits"] == 0
        view_slots = np.flatnonzero(action[: env.slots])
        assert len(decision.rows) == rows_before + 1
        assert len(decision.rows[-1]) == len(view_slots), "every legal chosen bit is a chosen object"
    assert not env.agents, "the game ended within the step budget"
    return totals


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_legal_subsets_are_taken_as_chosen(variant: str) -> None:
    env = aec_env(variant)
    rng = np.random.default_rng(7)
    for seed in range(4):
        totals = _random_game(env, seed, rng)
        assert set(totals.values()) <= {-1.0, 0.0, 1.0}


def test_ineligible_bits_are_ignored_and_counted() -> None:
    env = aec_env("two_headed_giant")
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(np.ones_like(mask))
    assert env.infos[agent]["illegal_bits"] == int((mask == 0).sum())


@pytest.mark.parametrize("reward_mode", ["terminal", "delta"])
def test_two_headed_giant_teammates_share_rewards(reward_mode: Any) -> None:
    # 810.8a: a Two-Headed Giant team wins or loses together; a decision's value is the team's.
    env = aec_env("two_headed_giant", reward_mode=reward_mode)
    rng = np.random.default_rng(11)
    saw_nonzero = False
    for seed in range(3):
        env.reset(seed=seed)
        for _agent in env.agent_iter(2000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                mask = obs["action_mask"].astype(bool)
                action = (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8)
            env.step(action)
            for first, second in TEAMS:
                if first in env.rewards and second in env.rewards:
                    assert env.rewards[first] == env.rewards[second]
                    saw_nonzero |= env.rewards[first] != 0.0
    assert saw_nonzero


def test_terminal_rewards_are_opposite_between_teams() -> None:
    env = aec_env("two_headed_giant")
    totals = _random_game(env, 1, np.random.default_rng(0))
    assert totals["player_0"] == totals["player_1"] == -totals["player_2"] == -totals["player_3"] != 0.0


def test_bad_arguments_name_the_field() -> None:
    with pytest.raises(ValueError, match="variant must be 'duel', 'two_headed_giant' or 'free_for_all'"):
        aec_env("archenemy")
    with pytest.raises(ValueError, match="reward_mode"):
        aec_env("free_for_all", reward_mode="regret")


def test_import_env_does_not_import_pettingzoo() -> None:
    code = "import sys, env; assert 'pettingzoo' not in sys.modules and 'env.pettingzoo' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_parallel_api_and_seed_tests_pass(variant: str) -> None:
    """Issue 24 item 11: a parallel API, checked by PettingZoo's own ``parallel_api_test``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(variant), num_cycles=200)
        parallel_seed_test(lambda: parallel_env(variant), num_cycles=40)


def test_a_duel_has_two_agents_on_opposite_sides() -> None:
    """Issue 24 item 11: the duel (704.5a/c: one player loses, the other wins)."""
    env = aec_env("duel")
    assert env.possible_agents == ["player_0", "player_1"]
    totals = _random_game(env, 2, np.random.default_rng(1))
    assert totals["player_0"] == -totals["player_1"] != 0.0


def _parallel_game(env: ProliferateParallel, seed: int, rng: np.random.Generator) -> dict[str, float]:
    """Random legal subsets by the acting agent; every other agent sends all ones (ignored)."""
    obs, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(2000):
        if not env.agents:
            break
        acting = env.acting_agent
        assert [a for a in env.agents if infos[a]["acting"]] == [acting]
        assert [a for a in env.agents if obs[a]["action_mask"].any()] in ([acting], [])
        actions = {a: np.ones(env.aec.n_bits, dtype=np.int8) for a in env.agents}
        mask = obs[acting]["action_mask"].astype(bool)
        actions[acting] = (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8)
        obs, rewards, _, _, infos = env.step(actions)
        assert infos[acting]["illegal_bits"] == 0, "other agents' actions are ignored"
        for a, r in rewards.items():
            totals[a] += r
    assert not env.agents
    return totals


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_parallel_env_plays_the_aec_game(variant: str) -> None:
    """The same seed and the same acting agents' choices give the same rewards through either API."""
    rng_seed = 5
    parallel = _parallel_game(parallel_env(variant), 3, np.random.default_rng(rng_seed))
    aec = _random_game(aec_env(variant), 3, np.random.default_rng(rng_seed))
    assert parallel == aec
