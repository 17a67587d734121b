"""Train MaskablePPO on proliferate/Bandit-v0 for a few CPU minutes: ``python -m benchmarks.train_maskable``.

The agent trains on the default reward (``"delta"``: the solver's value of its choice; on
a bandit, maximising it is minimising regret).  Then every agent -- the trained policy
(masked, deterministic), :class:`env.RandomAgent`, :class:`env.RuleBasedAgent` (the
classic per-object filter) and :class:`env.OracleAgent` -- plays the same evaluation
positions (the same seeds) with ``reward_mode="regret"``, and the table reports the mean
regret against the oracle in points, its standard error, how often each agent was
optimal, and the illegal bits it tried.  Needs the ``rl`` extra (sb3-contrib, torch).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

import env
from benchmarks.common import markdown_table, write_json
from env.core import ProliferateEnv

ENV_ID = "proliferate/Bandit-v0"


def evaluate(act: Callable[[ProliferateEnv, dict[str, Any]], Any], seeds: range) -> dict[str, float]:
    """Mean regret (points), its standard error, the share of optimal episodes and illegal bits per episode."""
    made = gym.make(ENV_ID, reward_mode="regret")
    core = made.unwrapped
    assert isinstance(core, ProliferateEnv)
    regrets: list[float] = []
    illegal = 0
    for seed in seeds:
        obs, _ = made.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, term, trunc, info = made.step(act(core, obs))
            total += float(reward)
            illegal += int(info["illegal_bits"])
            done = term or trunc
        regrets.append(-total)
    n = len(regrets)
    return {
        "mean_regret": statistics.fmean(regrets),
        "stderr": statistics.stdev(regrets) / n**0.5 if n > 1 else 0.0,
        "optimal_share": sum(r <= 1e-9 for r in regrets) / n,
        "illegal_per_episode": illegal / n,
        "episodes": n,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="training wall-clock budget (default 3)")
    parser.add_argument("--steps", type=int, default=None, help="train for exactly this many steps instead")
    parser.add_argument("--episodes", type=int, default=300, help="evaluation positions per agent (default 300)")
    parser.add_argument("--envs", type=int, default=4, help="parallel training envs (DummyVecEnv, default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default benchmarks/results)")
    args = parser.parse_args(argv)

    try:
        import torch
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.maskable.utils import get_action_masks
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError:
        print("error: needs the rl extra: pip install 'proliferate[rl]'")
        return 2

    torch.set_num_threads(1)
    vec = make_vec_env(ENV_ID, n_envs=args.envs, seed=args.seed)
    model = MaskablePPO("MultiInputPolicy", vec, n_steps=128, batch_size=128, seed=args.seed, verbose=0)
    deadline = time.perf_counter() + 60.0 * args.minutes

    class Budget(BaseCallback):
        def _on_step(self) -> bool:
            return args.steps is not None or time.perf_counter() < deadline

    start = time.perf_counter()
    model.learn(total_timesteps=args.steps or 10**9, callback=Budget())
    trained_for = time.perf_counter() - start
    steps = int(model.num_timesteps)

    def trained(core: ProliferateEnv, obs: dict[str, Any]) -> Any:
        action, _ = model.predict(obs, action_masks=get_action_masks(core), deterministic=True)
        return action

    random_agent = env.RandomAgent(seed=args.seed)
    rule_agent = env.RuleBasedAgent()
    oracle = env.OracleAgent()
    seeds = range(10_000, 10_000 + args.episodes)
    agents: dict[str, Callable[[ProliferateEnv, dict[str, Any]], Any]] = {
        "MaskablePPO (trained)": trained,
        "RandomAgent": lambda core, obs: random_agent.act(core),
        "RuleBasedAgent": lambda core, obs: rule_agent.act(core),
        "OracleAgent": lambda core, obs: oracle.act(core),
    }
    results = {name: evaluate(act, seeds) for name, act in agents.items()}
    print(
        f"## Mean regret vs the oracle on {ENV_ID} ({args.episodes} positions; "
        f"MaskablePPO trained {steps:,} steps in {trained_for:.0f} s on CPU, {steps / trained_for:,.0f} steps/s)\n"
    )
    rows = [
        [
            name,
            f"{r['mean_regret']:.3f} ± {r['stderr']:.3f}",
            f"{r['optimal_share']:.0%}",
            f"{r['illegal_per_episode']:.2f}",
        ]
        for name, r in results.items()
    ]
    print(markdown_table(["agent", "mean regret (points) ± s.e.", "optimal", "illegal bits / episode"], rows))
    path = write_json(
        "train_maskable",
        {"env": ENV_ID, "train_steps": steps, "train_seconds": trained_for, "agents": results},
        args.json,
    )
    print(f"\nJSON: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
