"""RLlib on the proliferate envs (``rllib`` extra): masks laid out per logit, and a one-iteration PPO run per set-up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from analysis_helpers import ROOT
from gymnasium import spaces

import env  # noqa: F401 -- registers the ids
from benchmarks.train_rllib import MaskedEnv, logit_mask, make_env, masked_space
from env.core import ProliferateEnv

pytest.importorskip("ray.rllib")
pytest.importorskip("pettingzoo")


def test_a_subset_mask_allows_every_bit_off_and_only_eligible_bits_on() -> None:
    bits = spaces.MultiBinary(3)
    assert logit_mask(bits, [1, 0, 1]).tolist() == [1, 1, 1, 0, 1, 1]
    assert logit_mask(spaces.Discrete(3), [0, 1, 1]).tolist() == [0, 1, 1]
    observation, action = masked_space(bits, spaces.Box(0, 1, (4,), np.float32))
    assert action == spaces.MultiDiscrete([2, 2, 2]) and observation["action_mask"].shape == (6,)


def test_the_single_agent_view_keeps_the_env_mask_and_its_actions() -> None:
    inner = gym.make("proliferate/Duel-v1", action_mode="sequential")
    wrapped = MaskedEnv(inner)
    obs, _ = wrapped.reset(seed=3)
    assert wrapped.observation_space.contains(obs)
    mask = obs["action_mask"]
    core = inner.unwrapped
    assert isinstance(core, ProliferateEnv)
    assert mask.tolist() == core.current_mask().astype(np.float32).tolist()
    legal = int(np.flatnonzero(mask[:-1])[0])
    _, _, _, _, info = wrapped.step(legal)
    assert info["illegal_bits"] == 0


@pytest.mark.parametrize("name", ["2hg", "ffa"])
def test_the_multi_agent_view_masks_every_seat_but_the_acting_one(name: str) -> None:
    made = make_env({"env": name})
    obs, _ = made.reset(seed=1)
    illegal = steps = 0
    while obs and steps < 400:
        agent = made.env.agent_selection  # seats that just left the game get a last observation too
        first = obs[agent]
        assert made.observation_space[agent].contains(first)
        pairs = first["action_mask"].reshape(-1, 2)
        assert pairs[:, 0].all()  # "off" is always legal
        assert made.action_space[agent] == spaces.MultiDiscrete(np.full(len(pairs), 2))
        obs, _, terminated, truncated, _ = made.step({agent: (pairs[:, 1] > 0).astype(np.int64)})
        illegal += made.env.unwrapped.infos.get(agent, {}).get("illegal_bits", 0)
        steps += 1
        if terminated["__all__"] or truncated["__all__"]:
            break
    assert steps > 3 and illegal == 0


@pytest.mark.parametrize("name", ["proliferate/Duel-v1", "2hg"])
def test_one_ppo_iteration_on_a_remote_env_runner_respects_the_masks(name: str, tmp_path: Path) -> None:
    out = tmp_path / "rllib.json"
    args = ["--env", name, "--iterations", "1", "--batch", "128", "--episodes", "2", "--env-runners", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.train_rllib", *args, "--num-cpus", "2", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = json.loads(out.read_text())["runs"]
    assert run["env_steps"] >= 128 and run["illegal_share"] == 0.0
