"""The vector env steps all its games in one compiled call, not one game at a time.

Equality with single envs is :mod:`tests.test_env_vector`'s job; this checks the batching
itself: one step of a 64-game vector env (regret reward, so each decision's optimum is needed
too) is one call of the compiled step over every game, which writes their observations too
(:func:`env.kernels.handle.step_observe_parallel`, numba's threads from 64 games), and one compiled call
for the games it restarts (:func:`env.kernels.handle.reset_observe`), however many of the games finish a
decision, end or play other seats' turns; no other observation call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import env  # noqa: F401  (registers the ids)
from env.kernels import handle as H

GAMES = 64


def _recording(monkeypatch: pytest.MonkeyPatch, name: str, games_at: int) -> list[int]:
    """Replace ``env.kernels.handle.name`` by a wrapper that records how many games each call gets."""
    sizes: list[int] = []
    real: Callable[..., Any] = getattr(H, name)

    def wrapper(*args: Any) -> Any:
        sizes.append(len(args[games_at]))
        return real(*args)

    monkeypatch.setattr(H, name, wrapper)
    return sizes


def test_a_vector_step_is_one_compiled_step_and_one_observation_call_for_all_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vec = gym.make_vec("proliferate/Duel-v1", num_envs=GAMES, reward_mode="regret")
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    stepped = _recording(monkeypatch, "step_observe_parallel", 1)  # (handle, indices, actions)
    one_thread = _recording(monkeypatch, "step_observe", 1)
    restarted = _recording(monkeypatch, "reset_observe", 1)
    observed = _recording(monkeypatch, "observe_games", 1)
    ended = np.zeros(GAMES, dtype=bool)
    restarts = 0  # games ended by one of the first three steps, restarted by the next
    for step in range(4):
        masks = obs["action_mask"].astype(bool)
        obs, _, terminated, truncated, _ = vec.step(masks & (rng.random(masks.shape) < 0.5))
        ended |= terminated | truncated
        restarts += int((terminated | truncated).sum()) if step < 3 else 0
    assert one_thread == []
    assert len(stepped) == 4 and stepped[0] == GAMES  # later steps: the games not being reset
    assert sum(stepped) >= 4 * GAMES - int(ended.sum()) * 3
    assert len(restarted) <= 3 and sum(restarted) == restarts  # one call per step for the games it restarts
    assert observed == []
    vec.close()
