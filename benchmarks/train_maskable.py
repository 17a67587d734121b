"""Train MaskablePPO on a native vector env and record its learning curve: ``python -m benchmarks.train_maskable``.

The agent trains on ``--env`` (default ``proliferate/Duel-v0``) through
:class:`env.sb3.SB3VecEnv`, the Stable-Baselines3 adapter of the native vector env, with SB3's
``VecNormalize`` for count scales.  The default set-up learns each decision on its own:

* reward ``"regret"`` (``--reward``): minus the gap between the choice and the solver's
  optimum, 0 when optimal.  The optimum is that of the objective, whose game weight already
  values what a choice does to the game, so no later reward has to be credited back;
* ``--gamma 0``: the return of a step is its own reward (a contextual bandit per decision),
  which removes the variance of bootstrapping through 64-step episodes;
* ``sign(r) * log1p(|r|)`` of the reward (``--no-symlog`` turns it off): a missed win costs
  1,000 points against 1 for a counter, and left as it is it dominates the reward scale.

With the env's default reward instead (``"delta"``, ``gamma`` 0.99, normalised reward) runs
peaked after 2-4 minutes and then fell below random; this set-up learns within a minute and
stays.  Every ``--eval-every`` seconds of training it plays ``--eval-games`` evaluation games (fixed seeds, masked deterministic
policy) with ``reward_mode="regret"``: the learning curve is the win rate against the
env's opponents (the rule-based per-object filter by default) and the mean regret per
decision against the oracle, against env steps and training wall time (evaluation time
excluded).  The same games are played by :class:`env.RandomAgent`-style random legal
actions, the rule-based agent and the oracle, for reference.  Writes JSON and, with the
``plot`` extra, a PNG next to it.  Needs the ``rl`` extra (sb3-contrib, torch).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import env
from benchmarks.common import RESULTS, markdown_table, write_json
from env.policies import rule_choice
from env.vector import ProliferateVectorEnv

Act = Callable[[ProliferateVectorEnv, dict[str, np.ndarray]], np.ndarray]
REWARDS = ("regret", "delta", "terminal")


def symlog(rewards: np.ndarray) -> np.ndarray:
    """``sign(r) * log1p(|r|)``: a missed win (1,000 points) weighs ~7 against ~0.7 for one counter."""
    out: np.ndarray = (np.sign(rewards) * np.log1p(np.abs(rewards))).astype(np.float32)
    return out


def evaluate(env_id: str, act: Act, games: int, seed: int) -> dict[str, float | None]:
    """Play one episode in each of ``games`` sub-envs (seeds ``seed + i``): win rate and mean regret per decision."""
    import gymnasium as gym

    vec = gym.make_vec(env_id, num_envs=games, reward_mode="regret").unwrapped
    assert isinstance(vec, ProliferateVectorEnv)
    obs, _ = vec.reset(seed=seed)
    finished = np.zeros(games, dtype=bool)
    wins = 0
    results = 0
    regrets: list[float] = []
    while not finished.all():
        actions = act(vec, obs)
        obs, _, terminated, truncated, infos = vec.step_each(actions)
        for i, info in enumerate(infos):
            if finished[i]:
                continue
            if info.get("decision_done"):
                regrets.append(-float(info["reward_terms"]["regret"]))
            if "game_result" in info:
                results += 1
                wins += info["game_result"] == "win"
            if terminated[i] or truncated[i]:
                finished[i] = True
    bandit = vec.agent.bandit
    return {
        "win_rate": None if bandit else wins / games,
        "decided": None if bandit else results / games,
        "mean_regret": statistics.fmean(regrets) if regrets else 0.0,
        "optimal_share": sum(r <= 1e-9 for r in regrets) / max(len(regrets), 1),
        "decisions": float(len(regrets)),
    }


def random_act(rng: np.random.Generator) -> Act:
    def act(vec: ProliferateVectorEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
        mask = obs["action_mask"].astype(bool)
        if vec.agent.action_mode == "subset":
            return (mask & (rng.random(mask.shape) < 0.5)).astype(np.int8)
        return np.array([int(rng.choice(np.flatnonzero(m))) for m in mask])

    return act


def rule_act(vec: ProliferateVectorEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
    policy = vec.settings.policy
    return vec.policy_actions(lambda board, _: rule_choice(board, policy=policy))


def oracle_act(vec: ProliferateVectorEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
    return vec.oracle_actions()


def plot(payload: dict[str, Any], path: Path) -> Path | None:
    """Win rate and mean regret against env steps and training wall time (needs matplotlib: the plot extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    curve = payload["curve"]
    steps = [p["steps"] for p in curve]
    seconds = [p["train_seconds"] / 60 for p in curve]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharey="row")
    for col, (xs, xlabel) in enumerate(((steps, "env steps"), (seconds, "training wall time (min)"))):
        for row, key, ylabel in (
            (0, "win_rate", "win rate vs rule-based opponents"),
            (1, "mean_regret", "mean regret"),
        ):
            ax = axes[row][col]
            ys = [p[key] for p in curve]
            if any(y is None for y in ys):
                ax.set_visible(False)
                continue
            ax.plot(xs, ys, marker="o", label="MaskablePPO")
            for name, style in (("rule-based", "--"), ("random", ":"), ("oracle", "-.")):
                value = payload["baselines"][name][key]
                if value is not None:
                    ax.axhline(value, linestyle=style, color="grey", label=name)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
    axes[0][0].legend(loc="lower right")
    fig.suptitle(f"MaskablePPO on {payload['env']} (native vector env x{payload['envs']}, 2-core CPU)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="proliferate/Duel-v0", choices=list(env.IDS), help="env id (default Duel-v0)")
    parser.add_argument("--minutes", type=float, default=15.0, help="training wall-clock budget (default 15)")
    parser.add_argument("--steps", type=int, default=None, help="train for exactly this many steps instead")
    parser.add_argument("--envs", type=int, default=16, help="games in the native vector env (default 16)")
    parser.add_argument("--eval-every", type=float, default=60.0, help="seconds of training between evaluations")
    parser.add_argument("--eval-games", type=int, default=200, help="games per evaluation (default 200)")
    parser.add_argument("--reward", choices=REWARDS, default="regret", help="training reward (default regret)")
    parser.add_argument("--no-symlog", action="store_true", help="the normalised reward, not sign(r)*log1p(|r|)")
    parser.add_argument("--gamma", type=float, default=0.0, help="discount (default 0: each decision on its own)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default benchmarks/results)")
    args = parser.parse_args(argv)

    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.vec_env import VecEnvWrapper, VecNormalize

        from env.sb3 import make_sb3_vec_env
    except ImportError:
        print("error: needs the rl extra: pip install 'proliferate[rl]'")
        return 2

    torch.set_num_threads(1)
    eval_seed = 10_000
    baselines = {
        "random": evaluate(args.env, random_act(np.random.default_rng(args.seed)), args.eval_games, eval_seed),
        "rule-based": evaluate(args.env, rule_act, args.eval_games, eval_seed),
        "oracle": evaluate(args.env, oracle_act, args.eval_games, eval_seed),
    }

    class SymlogReward(VecEnvWrapper):
        """The adapter's rewards through :func:`symlog`."""

        def reset(self) -> Any:
            return self.venv.reset()

        def step_wait(self) -> Any:
            obs, rewards, dones, infos = self.venv.step_wait()
            return obs, symlog(rewards), dones, infos

    train_env = make_sb3_vec_env(args.env, args.envs, seed=args.seed, reward_mode=args.reward)
    venv = VecNormalize(
        train_env if args.no_symlog else SymlogReward(train_env),
        norm_obs=True,
        norm_reward=args.no_symlog,
        norm_obs_keys=["counters", "stats", "times"],
        clip_obs=10.0,
    )
    model = MaskablePPO(
        "MultiInputPolicy",
        venv,
        n_steps=128,
        batch_size=256,
        n_epochs=4,
        learning_rate=3e-4,
        ent_coef=0.01,
        gamma=args.gamma,
        seed=args.seed,
        verbose=0,
    )

    def trained(vec: ProliferateVectorEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
        normalized = venv.normalize_obs(obs)
        assert isinstance(normalized, dict)
        action, _ = model.predict(normalized, action_masks=vec.action_masks(), deterministic=True)
        return np.asarray(action)

    curve: list[dict[str, Any]] = []
    clock = {"train": 0.0, "since": time.perf_counter(), "next_eval": args.eval_every}

    def checkpoint() -> None:
        clock["train"] += time.perf_counter() - clock["since"]
        point = evaluate(args.env, trained, args.eval_games, eval_seed)
        curve.append({"steps": int(model.num_timesteps), "train_seconds": clock["train"], **point})
        win = "-" if point["win_rate"] is None else f"{point['win_rate']:.0%}"
        print(
            f"{model.num_timesteps:>9,} steps  {clock['train']:6.0f} s  win {win}  regret {point['mean_regret']:.3f}",
            flush=True,
        )
        clock["since"] = time.perf_counter()

    budget = 60.0 * args.minutes

    class Curve(BaseCallback):
        def _on_step(self) -> bool:
            elapsed = clock["train"] + time.perf_counter() - clock["since"]
            if elapsed >= clock["next_eval"]:
                checkpoint()
                clock["next_eval"] += args.eval_every
            return args.steps is not None or clock["train"] + time.perf_counter() - clock["since"] < budget

    checkpoint()
    clock["train"] = 0.0
    clock["since"] = time.perf_counter()
    model.learn(total_timesteps=args.steps or 10**9, callback=Curve())
    checkpoint()
    steps, trained_for = int(model.num_timesteps), clock["train"]

    final = curve[-1]
    rule_win = baselines["rule-based"]["win_rate"]
    reached = next(
        (p for p in curve if p["win_rate"] is not None and rule_win is not None and p["win_rate"] >= rule_win), None
    )
    print(
        f"\n## MaskablePPO on {args.env}: {steps:,} steps in {trained_for:.0f} s of training "
        f"({steps / max(trained_for, 1e-9):,.0f} steps/s incl. learning), {args.eval_games} evaluation games\n"
    )

    def show(value: float | None, pct: bool) -> str:
        return "-" if value is None else (f"{value:.0%}" if pct else f"{value:.3f}")

    rows = [
        ["MaskablePPO (final)", show(final["win_rate"], True), show(final["mean_regret"], False)],
        *[[name, show(r["win_rate"], True), show(r["mean_regret"], False)] for name, r in baselines.items()],
    ]
    print(markdown_table(["agent", "win rate", "mean regret / decision (points)"], rows))
    if reached is not None:
        print(f"\nReached the rule-based win rate at {reached['steps']:,} steps, {reached['train_seconds']:.0f} s.")
    else:
        print("\nDid not reach the rule-based agent's win rate within the budget.")
    payload = {
        "env": args.env,
        "envs": args.envs,
        "train_steps": steps,
        "train_seconds": trained_for,
        "eval_games": args.eval_games,
        "reward": args.reward,
        "symlog": not args.no_symlog,
        "gamma": args.gamma,
        "curve": curve,
        "baselines": baselines,
        "reached_rule_based": None if reached is None else {k: reached[k] for k in ("steps", "train_seconds")},
    }
    path = write_json("train_maskable", payload, args.json)
    picture = plot(payload, (args.json or RESULTS / "train_maskable.json").with_suffix(".png"))
    print(f"\nJSON: {path}" + (f"\nplot: {picture}" if picture else " (no plot: install the plot extra)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
