"""The vector env's solver passes run over many games at once, not one game at a time.

Equality with single envs is :mod:`tests.test_env_vector`'s job; this checks the batching
itself: one step of a 64-game vector env settles many games' boards per
:func:`solver.batch.settle_many` call, scores the agents' choices in one
:func:`solver.batch.score_many` call and asks for the optima in one
:func:`solver.batch.decide_many` call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import env
import env.decide
import env.game
import env.lockstep

GAMES = 64


def _recording(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Replace ``module.name`` by a wrapper that records how many boards each call gets."""
    sizes: list[int] = []
    real: Callable[..., Any] = getattr(module, name)

    def wrapper(boards: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(boards))
        return real(boards, *args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return sizes


def _step_all(vec: Any, obs: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, np.ndarray]:
    masks = obs["action_mask"].astype(bool)
    out: dict[str, np.ndarray] = vec.step(masks & (rng.random(masks.shape) < 0.5))[0]
    return out


def test_a_vector_step_settles_scores_and_decides_the_games_together(monkeypatch: pytest.MonkeyPatch) -> None:
    vec = gym.make_vec("proliferate/Duel-v0", num_envs=GAMES, reward_mode="regret")
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    settled = _recording(monkeypatch, env.game, "settle_many")
    scored = _recording(monkeypatch, env.lockstep, "score_many")
    decided = _recording(monkeypatch, env.decide, "decide_many")
    for _ in range(4):
        obs = _step_all(vec, obs, rng)
    # Most Duel decisions are one proliferate, so most games finish a decision every step.
    assert max(settled) >= GAMES // 2
    assert sum(settled) > 4 * GAMES  # each resolution and each turn's events are checked
    assert len(scored) == 4 and min(scored) >= GAMES // 2
    assert max(decided) >= GAMES // 2
    vec.close()
