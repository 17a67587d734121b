"""Train PPO with RLlib on many workers, action masks respected: ``python -m benchmarks.train_rllib``.

RLlib runs the same code on a laptop and on a cluster: ``--env-runners N`` environment
workers collect experience (each a Ray actor with its own copies of the environment) and a
learner updates one torch policy.  Two set-ups, both on the project's own environments:

* ``--env proliferate/Duel-v1`` (or any single-agent id): the Gymnasium env in sequential
  mode (``Discrete(slots + 1)``: pick one object per step, then DONE);
* ``--env 2hg`` / ``--env ffa``: every seat of a Two-Headed Giant or free-for-all game is an
  agent, through the PettingZoo AEC adapter (:mod:`env.pettingzoo`) and RLlib's
  ``PettingZooEnv``; one shared policy plays every seat (observations are laid out from the
  observer's seat), actions are the adapter's subsets (``MultiBinary``), presented to RLlib as
  ``MultiDiscrete([2] * n)``.

Masks: RLlib's ``ActionMaskingTorchRLModule`` (its action-masking example, shipped with Ray)
adds log(mask) to the action logits, so a masked action has probability 0 in sampling,
evaluation and the PPO loss.  It needs observations ``{"observations", "action_mask"}`` with
one mask entry per logit: :class:`MaskedEnv` and :class:`MaskedAEC` lay them out (for a
subset, the "no" logit of each bit is always allowed and the "yes" logit only where the
bit is eligible).  Nothing else is custom.

The table reports iterations, environment steps, steps per second, the mean episode return
and the share of illegal bits the sampled actions carried (0 when masks hold).  Needs the
``rllib`` extra (``pip install 'proliferate[rllib]'``).  ``--address`` joins a cluster
(``ray://head:10001``); the project's packages are shipped to the workers with the job.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from benchmarks.common import markdown_table, write_json

ROOT = Path(__file__).resolve().parent.parent
MULTI_AGENT = {"2hg": "two_headed_giant", "ffa": "free_for_all"}
ENV_NAME = "proliferate-masked"


def masked_space(action_space: spaces.Space[Any], features: spaces.Box) -> tuple[spaces.Dict, spaces.Space[Any]]:
    """The observation and action spaces RLlib sees: a Discrete stays, a MultiBinary(n) becomes MultiDiscrete([2]*n)."""
    action: spaces.Space[Any]
    if isinstance(action_space, spaces.Discrete):
        logits, action = int(action_space.n), action_space
    elif isinstance(action_space, spaces.MultiBinary):
        n = int(np.prod(action_space.shape))
        logits, action = 2 * n, spaces.MultiDiscrete(np.full(n, 2, dtype=np.int64))
    else:
        raise TypeError(f"no action mask layout for {action_space}")
    observation = spaces.Dict({"observations": features, "action_mask": spaces.Box(0.0, 1.0, (logits,), np.float32)})
    return observation, action


def logit_mask(action_space: spaces.Space[Any], mask: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """One entry per logit: the env's mask for a Discrete; ``[1, m0, 1, m1, ...]`` for a subset (off always legal)."""
    bits = np.asarray(mask, dtype=np.float32)
    if isinstance(action_space, spaces.Discrete):
        return bits
    return np.stack([np.ones_like(bits), bits], axis=1).reshape(-1)


class MaskedEnv(gym.Wrapper[dict[str, Any], Any, dict[str, Any], Any]):
    """A single-agent proliferate env as RLlib's action-masking module wants it."""

    def __init__(self, env: gym.Env[dict[str, Any], Any]) -> None:
        super().__init__(env)
        source = env.observation_space
        assert isinstance(source, spaces.Dict)
        self._features = spaces.Dict({k: s for k, s in source.spaces.items() if k != "action_mask"})
        flat = spaces.flatten_space(self._features)
        assert isinstance(flat, spaces.Box)
        box = spaces.Box(flat.low.astype(np.float32), flat.high.astype(np.float32), flat.shape, np.float32)
        self.observation_space, self.action_space = masked_space(env.action_space, box)

    def _masked(self, obs: dict[str, Any]) -> dict[str, Any]:
        features = {k: obs[k] for k in self._features.spaces}
        return {
            "observations": np.asarray(spaces.flatten(self._features, features), dtype=np.float32),
            "action_mask": logit_mask(self.env.action_space, obs["action_mask"]),
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._masked(obs), info

    def step(self, action: Any) -> tuple[dict[str, Any], Any, bool, bool, dict[str, Any]]:
        if isinstance(self.env.action_space, spaces.MultiBinary):
            action = np.asarray(action, dtype=np.int8)
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._masked(obs), reward, terminated, truncated, info


def masked_aec(variant: str, **kwargs: Any) -> Any:
    """The PettingZoo AEC adapter with masked observations, as an RLlib ``PettingZooEnv`` (needs the rl extra)."""
    from pettingzoo.utils import BaseWrapper
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from env.pettingzoo import ProliferateAEC

    class MaskedAEC(BaseWrapper):  # type: ignore[misc]
        """Every seat's observation as ``{"observations", "action_mask"}``; subsets as ``MultiDiscrete([2] * n)``."""

        def __init__(self, inner: ProliferateAEC) -> None:
            super().__init__(inner)
            agent = inner.possible_agents[0]
            observation = inner.observation_space(agent)
            box = observation["observation"] if isinstance(observation, spaces.Dict) else None
            if not isinstance(box, spaces.Box):
                raise TypeError(f"expected a Dict observation with a Box 'observation', not {observation}")
            self._source_action = inner.action_space(agent)
            self._spaces = masked_space(self._source_action, box)

        def observation_space(self, agent: str) -> spaces.Space[Any]:
            return self._spaces[0]

        def action_space(self, agent: str) -> spaces.Space[Any]:
            return self._spaces[1]

        def observe(self, agent: str) -> dict[str, Any]:
            obs = super().observe(agent)
            return {
                "observations": obs["observation"],
                "action_mask": logit_mask(self._source_action, obs["action_mask"]),
            }

        def step(self, action: Any) -> None:
            super().step(None if action is None else np.asarray(action, dtype=np.int8))

    return PettingZooEnv(MaskedAEC(ProliferateAEC(variant, **kwargs)))  # type: ignore[no-untyped-call]


def make_env(config: dict[str, Any]) -> Any:
    """RLlib's env creator: ``{"env": id or 2hg/ffa, "kwargs": {...}}``."""
    import env  # noqa: F401 -- registers the ids on the worker

    name, kwargs = config["env"], dict(config.get("kwargs", {}))
    if name in MULTI_AGENT:
        return masked_aec(MULTI_AGENT[name], **kwargs)
    return MaskedEnv(gym.make(name, action_mode="sequential", **kwargs))


def build(env_name: str, env_runners: int, *, batch: int = 512, hidden: int = 64, seed: int = 0) -> Any:
    """A PPO algorithm with masked torch modules; ``env_runners`` Ray actors sample (0: the driver samples)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": [hidden, hidden], "vf_share_layers": False},
    )
    config = (
        PPOConfig()  # type: ignore[no-untyped-call]
        .environment(ENV_NAME, env_config={"env": env_name})
        .env_runners(num_env_runners=env_runners, num_cpus_per_env_runner=1, rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=batch, minibatch_size=min(128, batch), num_epochs=2, lr=3e-4)
        .debugging(seed=seed)
    )
    if env_name in MULTI_AGENT:
        config = config.multi_agent(
            policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared"
        ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
    else:
        config = config.rl_module(rl_module_spec=module)
    return config.build_algo()


def illegal_share(env_name: str, algo: Any, episodes: int, seed: int) -> float:
    """Share of chosen bits (or picks) that the mask forbade, over greedy evaluation episodes of the trained module."""
    import torch
    from ray.rllib.core.columns import Columns

    modules = algo.get_module() if env_name not in MULTI_AGENT else algo.get_module("shared")
    made = make_env({"env": env_name})
    multi = env_name in MULTI_AGENT
    chosen = illegal = 0
    for episode in range(episodes):
        obs, _ = made.reset(seed=seed + episode)
        for _ in range(500):
            if not obs:
                break
            # Multi-agent: observations also come for seats that just left the game; the acting seat is the AEC's.
            agent, single = (made.env.agent_selection, obs[made.env.agent_selection]) if multi else (None, obs)
            batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in single.items()}}
            logits = modules.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].detach().numpy()
            mask = single["action_mask"]
            if multi:
                pairs = logits.reshape(-1, 2)
                action: Any = (pairs[:, 1] > pairs[:, 0]).astype(np.int64)
                picked = action.astype(bool)
                chosen += int(picked.sum())
                illegal += int((picked & (mask.reshape(-1, 2)[:, 1] == 0)).sum())
                obs, _, terms, truncs, _ = made.step({agent: action})
                if terms.get("__all__") or truncs.get("__all__"):
                    break
            else:
                action = int(np.argmax(logits))
                chosen += 1
                illegal += int(mask[action] == 0)
                obs, _, term, trunc, _ = made.step(action)
                if term or trunc:
                    break
    return illegal / chosen if chosen else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--env", default="proliferate/Duel-v1", help="a single-agent id, or 2hg / ffa (multi-agent)")
    parser.add_argument("--iterations", type=int, default=5, help="training iterations (default 5)")
    parser.add_argument("--env-runners", type=int, nargs="+", default=[1], help="env runner counts to compare")
    parser.add_argument("--batch", type=int, default=512, help="environment steps per iteration (default 512)")
    parser.add_argument("--episodes", type=int, default=20, help="greedy evaluation episodes for the mask check")
    parser.add_argument("--address", default=None, help="join this Ray cluster (default: RAY_ADDRESS, else local)")
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default benchmarks/results)")
    args = parser.parse_args(argv)
    try:
        import ray
        import ray.rllib
        import torch
    except ImportError:
        print("error: needs the rllib extra: pip install 'proliferate[rllib]'", file=sys.stderr)
        return 2

    torch.set_num_threads(1)
    modules = [str(ROOT / name) for name in ("solver", "env", "benchmarks")]
    address = args.address or os.environ.get("RAY_ADDRESS") or None
    ray.init(
        address=address,
        num_cpus=None if address else args.num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"py_modules": modules},
    )
    runs = []
    try:
        for runners in args.env_runners:
            start = time.perf_counter()
            algo = build(args.env, runners, batch=args.batch, seed=args.seed)
            setup = time.perf_counter() - start
            steps, returns, train_s = 0, float("nan"), 0.0
            for _ in range(args.iterations):
                tick = time.perf_counter()
                result = algo.train()
                train_s += time.perf_counter() - tick
                steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
                returns = float(result["env_runners"].get("episode_return_mean", float("nan")))
            illegal = illegal_share(args.env, algo, args.episodes, args.seed)
            algo.stop()
            runs.append(
                {
                    "env_runners": runners,
                    "iterations": args.iterations,
                    "env_steps": steps,
                    "setup_s": setup,
                    "train_s": train_s,
                    "steps_per_s": steps / train_s if train_s else 0.0,
                    "episode_return_mean": returns,
                    "illegal_share": illegal,
                }
            )
    finally:
        ray.shutdown()
    base = runs[0]["steps_per_s"] or 1.0
    rows = [
        [
            r["env_runners"],
            r["iterations"],
            r["env_steps"],
            f"{r['setup_s']:.1f} s",
            f"{r['steps_per_s']:,.0f}",
            f"{r['steps_per_s'] / base:.2f}x",
            f"{r['episode_return_mean']:.3f}",
            f"{r['illegal_share']:.3f}",
        ]
        for r in runs
    ]
    print(f"## RLlib PPO on {args.env} (masked)\n")
    headers = ["env runners", "iterations", "env steps", "set-up", "steps/s", f"vs {runs[0]['env_runners']}"]
    print(markdown_table([*headers, "return mean", "illegal share"], rows))
    target = write_json("train_rllib", {"env": args.env, "batch": args.batch, "runs": runs}, args.json)
    print(f"\nwrote {target}")
    return 0 if all(r["illegal_share"] == 0.0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
