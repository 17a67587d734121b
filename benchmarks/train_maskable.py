"""Train MaskablePPO on a native vector env and record its learning curve: ``python -m benchmarks.train_maskable``.

The agent trains on ``--env`` (default ``proliferate/Duel-v1``) through
:class:`env.sb3.SB3VecEnv`, the Stable-Baselines3 adapter of the native vector env, with SB3's
``VecNormalize`` for count scales.  The default set-up learns each decision on its own, with
one network for every slot:

* reward ``"regret"`` (``--reward``): minus the gap between the choice and the solver's
  optimum, 0 when optimal.  The optimum is that of the objective, whose game weight already
  values what a choice does to the game, so no later reward has to be credited back;
* ``--gamma 0``: the return of a step is its own reward (a contextual bandit per decision),
  which removes the variance of bootstrapping through 64-step episodes;
* ``sign(r) * c * log1p(|r| / c)`` of the reward with ``c = --scale 1`` (``--no-compress``
  turns it off): a missed win costs 1,000 points against 1 for a counter, and left as it is
  it dominates the reward scale.  Weighing missed wins more is not what the win rate needs:
  on the 500 evaluation games the rule-based agent misses 14 decisions worth ~1,000 points
  and still wins only one game fewer than the oracle;
* ``--policy slots`` (:func:`slot_policy`): every slot's bit comes from the same network,
  so what a counter is worth to the agent is learned once.  SB3's flat ``MultiInputPolicy``
  (``--policy mlp``, 64x64 or 256x256) got its mean regret below the rule-based agent's but
  chose the optimum in only 30% of the decisions against the rule-based agent's 90%, because
  it learns each slot position on its own: after 70,000 steps it still added loyalty to
  opponents' planeswalkers and left its own creatures' +1/+1 counters out, its share of
  optimal choices did not move up to 200,000 steps, and it won 47-49% of the games against
  the rule-based agent's 50%;
* ``--lr 1e-3``: at 3e-4 the slot network was still at 48% wins and 52% optimal choices
  after 6 minutes; at 1e-3 it is optimal in over 90% of the decisions after 2 minutes;
* ``--envs 64`` with ``--n-steps 32`` (2,048-step rollouts as 16 x 128 before): the vector
  env and the policy's forward pass cost less per step with more games (the flat MLP made
  576 steps/s with 64 games, against 226 in the earlier run with 16); ``--shards K`` splits
  the games over K processes (:class:`env.sharded.ShardedVectorEnv`), which steps them in
  parallel while the learner waits for the rollout.

With the env's default reward instead (``"delta"``, ``gamma`` 0.99, normalised reward) runs
peaked after 2-4 minutes and then fell below random.  Every ``--eval-every`` seconds of
training it plays ``--eval-games`` evaluation games (fixed seeds, masked deterministic
policy; 500 games, so that the standard error of a win rate is about 2 points, not 3.5)
with ``reward_mode="regret"``: the learning curve is the win rate against the env's
opponents (the rule-based per-object filter by default) and the mean regret per decision
against the oracle, against env steps and training wall time (evaluation time excluded).  The time spent inside the
training env (the adapter's ``reset`` and ``step_wait``, i.e. the native vector env and SB3's
``VecMonitor``) is clocked on its own, and the run reports its share of the training wall time.
The same games are played by :class:`env.RandomAgent`-style random legal actions, the
rule-based agent and the oracle, for reference.  Writes JSON and, with the ``plot`` extra, a
PNG next to it.  Needs the ``rl`` extra (sb3-contrib, torch).
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
from env.spaces import N_GLOBALS, N_KINDS, N_RELATIONS, N_STATS, N_TYPES
from env.vector import ProliferateVectorEnv

Act = Callable[[ProliferateVectorEnv, dict[str, np.ndarray]], np.ndarray]
REWARDS = ("regret", "delta", "terminal")


def compress(rewards: np.ndarray, scale: float) -> np.ndarray:
    """``sign(r) * scale * log1p(|r| / scale)``: linear well below ``scale`` points, logarithmic above."""
    out: np.ndarray = (np.sign(rewards) * scale * np.log1p(np.abs(rewards) / scale)).astype(np.float32)
    return out


def slot_policy(slots: int, extra: int, width: int) -> type[Any]:
    """A MaskablePPO policy whose bit logits come from one network shared by every slot.

    Each slot's features (counters, stats, kind, relation, flags) and the globals go through
    the same MLP, then again with the mean over present slots as context; the logits of a
    slot's bit are a shared linear read-out of its embedding, those of the ``extra`` 2HG bits
    a read-out of the pooled embedding.  What a counter is worth to the agent then is learned
    once for all slots, not once per slot position as by a flat MLP.  The value is a 64x64 MLP
    over its own such extractor: with one extractor for both the agent did not learn at all.
    """
    import torch
    from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from torch import nn

    per_slot = {"counters": N_KINDS, "stats": N_STATS, "kind": N_TYPES, "relation": N_RELATIONS}
    flags = ("times", "eligible", "present", "picked", "action_mask")
    n_in = sum(per_slot.values()) + len(flags) + N_GLOBALS

    class SlotFeatures(BaseFeaturesExtractor):
        """Per-slot embeddings (``slots x width``) followed by their pooled mean (``width``), flattened."""

        def __init__(self, observation_space: Any) -> None:
            super().__init__(observation_space, features_dim=(slots + 1) * width)
            self.first = nn.Sequential(nn.Linear(n_in, width), nn.Tanh())
            self.second = nn.Sequential(nn.Linear(2 * width, width), nn.Tanh())

        def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
            n = obs["globals"].shape[0]
            parts = [obs[key].reshape(n, slots, size) for key, size in per_slot.items()]
            parts += [obs[key].reshape(n, -1)[:, :slots, None] for key in flags]
            parts.append(obs["globals"][:, None, :].expand(n, slots, N_GLOBALS))
            present = obs["present"].reshape(n, slots, 1)
            hidden = self.first(torch.cat(parts, dim=2))
            context = (hidden * present).sum(1) / present.sum(1).clamp(min=1.0)
            hidden = self.second(torch.cat([hidden, context[:, None, :].expand_as(hidden)], dim=2))
            pooled = (hidden * present).sum(1) / present.sum(1).clamp(min=1.0)
            return torch.cat([hidden.reshape(n, -1), pooled], dim=1)

    class SlotHead(nn.Module):
        """Two logits per slot bit from its own embedding, the extra bits' from the pooled one."""

        def __init__(self) -> None:
            super().__init__()
            self.slot = nn.Linear(width, 2)
            self.extra = nn.Linear(width, 2 * extra) if extra else None

        def forward(self, latent: torch.Tensor) -> torch.Tensor:
            n = latent.shape[0]
            logits: torch.Tensor = self.slot(latent[:, : slots * width].reshape(n, slots, width)).reshape(n, -1)
            if self.extra is None:
                return logits
            return torch.cat([logits, self.extra(latent[:, slots * width :])], dim=1)

    class SlotPolicy(MaskableMultiInputActorCriticPolicy):
        """:class:`SlotFeatures` into :class:`SlotHead` (no policy MLP), an MLP for the value."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.update(
                features_extractor_class=SlotFeatures,
                share_features_extractor=False,
                net_arch={"pi": [], "vf": [64, 64]},
            )
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule: Any) -> None:
            super()._build(lr_schedule)
            self.action_net = SlotHead()
            for layer in (self.action_net.slot, self.action_net.extra):
                if layer is not None:
                    nn.init.orthogonal_(layer.weight, gain=0.01)
                    nn.init.zeros_(layer.bias)
            # As SB3's own _build does: the optimizer class is Adam-like, with an lr.
            self.optimizer = self.optimizer_class(
                self.parameters(),
                lr=lr_schedule(1),  # type: ignore[call-arg]
                **self.optimizer_kwargs,
            )

    return SlotPolicy


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
    steps = [p["steps"] / 1000 for p in curve]
    seconds = [p["train_seconds"] / 60 for p in curve]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharey="row")
    for col, (xs, xlabel) in enumerate(((steps, "env steps (thousands)"), (seconds, "training wall time (min)"))):
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
    parser.add_argument("--env", default="proliferate/Duel-v1", choices=list(env.IDS), help="env id (default Duel-v1)")
    parser.add_argument("--minutes", type=float, default=15.0, help="training wall-clock budget (default 15)")
    parser.add_argument("--steps", type=int, default=None, help="train for exactly this many steps instead")
    parser.add_argument("--envs", type=int, default=64, help="games in the native vector env (default 64)")
    parser.add_argument(
        "--shards", type=int, default=1, help="processes the training games are split over (default 1; see env.sharded)"
    )
    parser.add_argument(
        "--eval-every", type=float, default=60.0, help="seconds of training between evaluations (default 60)"
    )
    parser.add_argument("--eval-games", type=int, default=500, help="games per evaluation (default 500)")
    parser.add_argument("--reward", choices=REWARDS, default="regret", help="training reward (default regret)")
    parser.add_argument("--scale", type=float, default=1.0, help="c of sign(r)*c*log1p(|r|/c) (default 1)")
    parser.add_argument(
        "--no-compress", action="store_true", help="the reward normalised by VecNormalize, not compressed"
    )
    parser.add_argument("--gamma", type=float, default=0.0, help="discount (default 0: each decision on its own)")
    parser.add_argument("--n-steps", type=int, default=32, help="rollout steps per env per update (default 32)")
    parser.add_argument("--batch-size", type=int, default=256, help="minibatch size (default 256)")
    parser.add_argument("--epochs", type=int, default=4, help="epochs per update (default 4)")
    parser.add_argument("--lr", type=float, default=1e-3, help="learning rate (default 1e-3)")
    parser.add_argument(
        "--lr-final",
        type=float,
        default=None,
        help="decay the learning rate linearly to this over the budget (default: constant --lr)",
    )
    parser.add_argument("--policy", choices=("slots", "mlp"), default="slots", help="policy network (default slots)")
    parser.add_argument(
        "--net",
        default="64,64",
        help="mlp: hidden layer sizes; slots: the first is the embedding width (default 64,64)",
    )
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy coefficient (default 0.01)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default benchmarks/results)")
    args = parser.parse_args(argv)

    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.logger import Logger
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

    class CompressedReward(VecEnvWrapper):
        """The adapter's rewards through :func:`compress`."""

        def reset(self) -> Any:
            return self.venv.reset()

        def step_wait(self) -> Any:
            obs, rewards, dones, infos = self.venv.step_wait()
            return obs, compress(rewards, args.scale), dones, infos

    in_env = {"seconds": 0.0}

    class Clocked(VecEnvWrapper):
        """The training env, with the time spent inside it added to ``in_env``."""

        def reset(self) -> Any:
            start = time.perf_counter()
            obs = self.venv.reset()
            in_env["seconds"] += time.perf_counter() - start
            return obs

        def step_wait(self) -> Any:
            start = time.perf_counter()
            out = self.venv.step_wait()
            in_env["seconds"] += time.perf_counter() - start
            return out

    train_env = make_sb3_vec_env(args.env, args.envs, seed=args.seed, reward_mode=args.reward, shards=args.shards)
    clocked = Clocked(train_env)
    venv = VecNormalize(
        clocked if args.no_compress else CompressedReward(clocked),
        norm_obs=True,
        norm_reward=args.no_compress,
        norm_obs_keys=["counters", "stats", "times"],
        clip_obs=10.0,
    )
    core = train_env.native
    if args.policy == "slots":
        policy: Any = slot_policy(core.settings.slots, core.agent.extra, int(args.net.split(",")[0]))
        policy_kwargs: dict[str, Any] = {}
    else:
        policy, policy_kwargs = "MultiInputPolicy", {"net_arch": [int(n) for n in args.net.split(",")]}
    clock = {"train": 0.0, "since": time.perf_counter(), "next_eval": args.eval_every}
    budget = 60.0 * args.minutes

    def learning_rate(progress_remaining: float) -> float:
        """``--lr`` to ``--lr-final`` linearly over the budget: the steps' one, or the wall-clock one."""
        if args.lr_final is None:
            return float(args.lr)
        if args.steps is not None:
            done = 1.0 - progress_remaining
        else:
            done = min(1.0, (clock["train"] + time.perf_counter() - clock["since"]) / budget)
        return float(args.lr + (args.lr_final - args.lr) * done)

    model = MaskablePPO(
        policy,
        venv,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.epochs,
        learning_rate=learning_rate,
        ent_coef=args.ent_coef,
        gamma=args.gamma,
        policy_kwargs=policy_kwargs,
        seed=args.seed,
        verbose=0,
    )
    # The run reports its own curve; SB3's default logger would leave an empty /tmp/SB3-<time> folder.
    model.set_logger(Logger(folder=None, output_formats=[]))

    def trained(vec: ProliferateVectorEnv, obs: dict[str, np.ndarray]) -> np.ndarray:
        normalized = venv.normalize_obs(obs)
        assert isinstance(normalized, dict)
        action, _ = model.predict(normalized, action_masks=vec.action_masks(), deterministic=True)
        return np.asarray(action)

    curve: list[dict[str, Any]] = []

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

    class Curve(BaseCallback):
        def _on_step(self) -> bool:
            elapsed = clock["train"] + time.perf_counter() - clock["since"]
            if elapsed >= clock["next_eval"]:
                checkpoint()
                clock["next_eval"] += args.eval_every
            return args.steps is not None or clock["train"] + time.perf_counter() - clock["since"] < budget

    checkpoint()
    clock["train"] = 0.0
    in_env["seconds"] = 0.0  # the model's set-up reset is not training
    clock["since"] = time.perf_counter()
    model.learn(total_timesteps=args.steps or 10**9, callback=Curve())
    checkpoint()
    venv.close()  # the training games (and their processes, when sharded)
    steps, trained_for = int(model.num_timesteps), clock["train"]
    env_share = in_env["seconds"] / max(trained_for, 1e-9)

    final = curve[-1]
    rule_win = baselines["rule-based"]["win_rate"]
    reached = next(
        (p for p in curve if p["win_rate"] is not None and rule_win is not None and p["win_rate"] >= rule_win), None
    )
    print(
        f"\n## MaskablePPO on {args.env}: {steps:,} steps in {trained_for:.0f} s of training "
        f"({steps / max(trained_for, 1e-9):,.0f} steps/s incl. learning), {args.eval_games} evaluation games; "
        f"{in_env['seconds']:.1f} s of it inside the env ({env_share:.1%} of the training wall time)\n"
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
        "shards": args.shards,
        "train_steps": steps,
        "train_seconds": trained_for,
        "env_seconds": in_env["seconds"],
        "env_share": env_share,
        "eval_games": args.eval_games,
        "reward": args.reward,
        "compress_scale": None if args.no_compress else args.scale,
        "gamma": args.gamma,
        "n_steps": args.n_steps,
        "batch_size": args.batch_size,
        "epochs": args.epochs,
        "learning_rate": args.lr,
        "learning_rate_final": args.lr_final,
        "learning_rate_at_end": float(model.policy.optimizer.param_groups[0]["lr"]),
        "ent_coef": args.ent_coef,
        "policy": args.policy,
        "net": args.net,
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
