"""The vector env steps all its games in one compiled call, not one game at a time.

Equality with single envs is :mod:`tests.test_env_vector`'s job; this checks the batching
itself: one step of a 64-game vector env (regret reward, so each decision's optimum is needed
too) is one compiled call for every game: their agents' steps, the autoresets owed to the games that ended
and every game's observation (:func:`env.kernels.handle.vector_step_parallel`, numba's threads from 64
games), however many of the games finish a decision, end or play other seats' turns; a single env's step
is one compiled call too (:func:`env.kernels.handle.step_observe`).
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
#: The compiled entries of :mod:`env.kernels.handle` but the vector env's step.
OTHER_ENTRIES = ("step_observe", "step_observe_parallel", "reset_observe", "observe_games", "vector_step")


def _recording(monkeypatch: pytest.MonkeyPatch, name: str, games_at: int) -> list[int]:
    """Replace ``env.kernels.handle.name`` by a wrapper that records how many games each call gets."""
    sizes: list[int] = []
    real: Callable[..., Any] = getattr(H, name)

    def wrapper(*args: Any) -> Any:
        sizes.append(len(args[games_at]))
        return real(*args)

    monkeypatch.setattr(H, name, wrapper)
    return sizes


def test_a_vector_step_is_one_compiled_call_for_all_games_and_their_autoresets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vec = gym.make_vec("proliferate/Duel-v1", num_envs=GAMES, reward_mode="regret")
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    obs, _, terminated, truncated, _ = vec.step(np.zeros(vec.action_space.shape or (), dtype=np.int8))
    restarts = int((terminated | truncated).sum())  # games ended by the step before the next, restarted by it
    stepped = _recording(monkeypatch, "vector_step_parallel", 1)  # (handle, moving, actions, restart, ...)
    restarted = _recording(monkeypatch, "vector_step_parallel", 3)
    others = [_recording(monkeypatch, name, 1) for name in OTHER_ENTRIES]
    ended = np.zeros(GAMES, dtype=bool)
    for step in range(4):
        masks = obs["action_mask"].astype(bool)
        obs, _, terminated, truncated, _ = vec.step(masks & (rng.random(masks.shape) < 0.5))
        ended |= terminated | truncated
        restarts += int((terminated | truncated).sum()) if step < 3 else 0
    assert len(stepped) == 4 and all(0 < moving <= GAMES for moving in stepped)  # all games but those reset
    assert sum(stepped) + sum(restarted) == 4 * GAMES and sum(restarted) == restarts  # the autoresets in the call
    assert all(calls == [] for calls in others)  # no other compiled entry: the observations are in the call too
    vec.close()


def test_a_single_env_step_is_one_compiled_call(monkeypatch: pytest.MonkeyPatch) -> None:
    made = gym.make("proliferate/Duel-v1")
    made.reset(seed=1)
    made.step(np.zeros(made.action_space.shape or (), dtype=np.int8))  # compiled before the recorders
    obs, _ = made.reset(seed=0)
    rng = np.random.default_rng(0)
    stepped = _recording(monkeypatch, "step_observe", 1)  # (handle, games, actions)
    others = [_recording(monkeypatch, name, 1) for name in OTHER_ENTRIES if name != "step_observe"]
    steps = 0
    while steps < 5:
        masks = obs["action_mask"].astype(bool)
        obs, _, terminated, truncated, _ = made.step((masks & (rng.random(masks.shape) < 0.5)).astype(np.int8))
        steps += 1
        if terminated or truncated:
            break
    assert stepped == [1] * steps
    assert all(calls == [] for calls in others)
    made.close()
