"""PettingZoo adapter steps per second, against CartPole in the same run.

``python -m benchmarks.pettingzoo_throughput [--seconds 3]`` plays the AEC adapter
(:func:`env.pettingzoo.aec_env`) of each variant with random legal subsets (every agent in turn,
``agent_iter``/``last``/``step``, new games as games end) and the parallel adapter the same way,
and prints agent steps per second, the time of one step and that time in ``u`` (one
``gym.make("CartPole-v1")`` step, :func:`benchmarks.common.cartpole_unit`, timed in the same run).
Results go to ``benchmarks/results/pettingzoo_throughput.json``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .common import cartpole_unit, markdown_table, write_json

VARIANTS = ("duel", "two_headed_giant", "free_for_all")


def _aec(variant: str, seconds: float, reward_mode: str) -> float:
    from env.pettingzoo import aec_env

    env = aec_env(variant, reward_mode=reward_mode)
    rng = np.random.default_rng(0)
    seed = 0
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not env.agents:
            seed += 1
            env.reset(seed=seed)
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
        else:
            mask = obs["action_mask"].astype(bool)
            env.step((mask & (rng.random(mask.shape) < 0.5)).astype(np.int8))
        steps += 1
    return steps / (time.perf_counter() - start)


def _parallel(variant: str, seconds: float, reward_mode: str) -> float:
    from env.pettingzoo import parallel_env

    env = parallel_env(variant, reward_mode=reward_mode)
    rng = np.random.default_rng(0)
    seed = 0
    obs, _ = env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not env.agents:
            seed += 1
            obs, _ = env.reset(seed=seed)
        acting = env.acting_agent
        mask = obs[acting]["action_mask"].astype(bool)
        obs, *_ = env.step({acting: (mask & (rng.random(mask.shape) < 0.5)).astype(np.int8)})
        steps += 1
    return steps / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per row (default 3)")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=VARIANTS)
    args = parser.parse_args(argv)
    for variant in args.variants:  # load the compiled kernels outside the timed windows
        _aec(variant, 0.05, "delta")
    unit = cartpole_unit()
    u = unit.median
    rows: list[list[object]] = []
    results: list[dict[str, Any]] = []
    for variant in args.variants:
        for api, run in (("aec", _aec), ("parallel", _parallel)):
            for reward_mode in ("terminal", "delta"):
                rate = run(variant, args.seconds, reward_mode)
                per_step = 1.0 / rate
                rows.append(
                    [variant, api, reward_mode, f"{rate:,.0f}", f"{per_step * 1e6:,.0f} µs", f"{per_step / u:.0f}u"]
                )
                results.append(
                    {
                        "variant": variant,
                        "api": api,
                        "reward_mode": reward_mode,
                        "steps_per_s": rate,
                        "step_in_u": per_step / u,
                    }
                )
    print(f"u = one CartPole-v1 step = {u * 1e6:.1f} µs (this run)")
    print(markdown_table(["variant", "API", "reward", "agent steps/s", "one step", "one step in u"], rows))
    write_json("pettingzoo_throughput", {"u_s": u, "rows": results})


if __name__ == "__main__":
    main()
