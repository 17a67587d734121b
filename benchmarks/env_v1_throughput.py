"""Env v1 steps per second at N = 1, 64, 256 and 4,096, against CartPole in the same run (issue 28).

``python -m benchmarks.env_v1_throughput`` times, for every v1 id: the single env
(``gym.make``, all default wrappers) and the native vector env at each N (aggregate sub-env
steps per second), with random legal actions drawn from the observation's mask; next to the
yardstick ``u`` (one ``gym.make("CartPole-v1")`` step, :func:`benchmarks.common.cartpole_unit`)
and ``CartPoleVectorEnv`` at N = 256, all in the same run.  Figures are steps per ``u``
(the issue's targets: Duel-v1 N = 256 at least 3, 2HG and FFA at least 1.5, the single Duel-v1
at least 0.25), and the bytes of the arrays of 4,096 Duel games.  Results go to
``benchmarks/results/env_v1_throughput.json``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

import env
from env.config import AgentConfig, EnvConfig
from env.kernels.engine import Engine

from .common import cartpole_unit, markdown_table, write_json

SIZES = (1, 64, 256, 4096)


def _vector(env_id: str, n: int, seconds: float) -> float:
    vec = gym.make_vec(env_id, num_envs=n)
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)

    def act() -> Any:
        mask = obs["action_mask"]
        return (mask.astype(bool) & (rng.random(mask.shape) < 0.5)).astype(np.int8)

    for _ in range(3):
        obs, *_ = vec.step(act())
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, *_ = vec.step(act())
        steps += n
    vec.close()
    return steps / (time.perf_counter() - start)


def _single(env_id: str, seconds: float) -> float:
    made = gym.make(env_id)
    obs, _ = made.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        mask = obs["action_mask"]
        obs, _, terminated, truncated, _ = made.step(
            (mask.astype(bool) & (rng.random(mask.shape) < 0.5)).astype(np.int8)
        )
        steps += 1
        if terminated or truncated:
            obs, _ = made.reset()
    return steps / (time.perf_counter() - start)


def _cartpole_vector(n: int, seconds: float) -> float:
    vec = gym.make_vec("CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point")
    vec.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        vec.step(vec.action_space.sample())
        steps += n
    return steps / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per figure")
    parser.add_argument("--ids", nargs="+", default=list(env.IDS_V1), choices=list(env.IDS_V1))
    args = parser.parse_args(argv)
    unit = cartpole_unit().median
    cart = _cartpole_vector(256, args.seconds)
    rows: list[list[object]] = []
    figures: dict[str, dict[str, float]] = {}
    for env_id in args.ids:
        per = {"single": _single(env_id, args.seconds)}
        for n in SIZES:
            per[f"N={n}"] = _vector(env_id, n, args.seconds)
        figures[env_id] = per
        rows.append([env_id, *(f"{v:,.0f}/s = {v * unit:.3f}/u" for v in per.values())])
    config = EnvConfig.build("duel")
    mb = Engine(config, AgentConfig.build(config), 4096).nbytes / 2**20
    print(f"u = {unit * 1e6:.1f} µs (one CartPole-v1 step, this run); CartPoleVectorEnv N=256: {cart * unit:.1f}/u\n")
    print(markdown_table(["id", "single", *(f"vector N={n}" for n in SIZES)], rows))
    print(f"\nthe arrays of 4,096 Duel-v1 games: {mb:.1f} MB")
    write_json(
        "env_v1_throughput",
        {"u_s": unit, "cartpole_vector_256": cart, "steps_per_s": figures, "arrays_4096_mb": mb},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
