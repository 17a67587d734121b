"""Env steps per second, native vector envs included, next to CartPole-v1 in the same run.

``python -m benchmarks.env_throughput`` measures, for every id: the single env made with
``gym.make`` (all default wrappers) and the native vector env of ``gym.make_vec(id,
num_envs=N)`` (aggregate sub-env steps per second), with random legal actions drawn from
the observation's mask; ``--rewards`` adds the other reward modes; ``--shards K`` (default:
the number of CPUs) adds each native vector env with its games split over K processes
(:class:`env.sharded.ShardedVectorEnv`; the targets stay judged on one process, as CartPole
runs on one).  CartPole-v1 (``gym.make``)
is the baseline every ratio is against, and its own native vector env shows what the same
N gives a simple numpy game.  Each figure is the median of ``--repeats`` timed windows with
its min-max spread.  Then: the resident memory of an N-game Duel vector env (a fresh
process: after imports, and after reset and a few steps), and a profile of a vector step
split between the solver, the env's own code and Gymnasium.

``--baseline CHECKOUT`` also measures another checkout's envs (for instance a worktree of
``main``) in the same run: each figure of ours and the baseline's is then taken in a fresh
process, one right after the other, so the "x baseline" column compares code under the
same load.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import env
from benchmarks.common import markdown_table, write_json

#: Targets of issue 12 (aggregate steps/s).
TARGETS = {
    ("proliferate/Duel-v0", "single"): 3_000,
    ("proliferate/Duel-v0", "vector"): 50_000,
    ("proliferate/TwoHeadedGiant-v0", "vector"): 20_000,
    ("proliferate/FreeForAll-v0", "vector"): 20_000,
}
MEMORY_TARGET_MB = 200


def _actions(masks: np.ndarray, discrete: bool, rng: np.random.Generator) -> Any:
    if discrete:
        return np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)
    return (masks.astype(bool) & (rng.random(masks.shape) < 0.5)).astype(np.int8)


def _single(env_id: str, kwargs: dict[str, Any]) -> Callable[[float], float]:
    made = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    obs, _ = made.reset(seed=0)
    state = {"obs": obs}

    def run(seconds: float) -> float:
        start = time.perf_counter()
        steps = 0
        while time.perf_counter() - start < seconds:
            steps += 1
            if isinstance(state["obs"], dict):
                action: Any = _actions(state["obs"]["action_mask"][None], False, rng)[0]
            else:
                action = made.action_space.sample()
            obs, _, term, trunc, _ = made.step(action)
            state["obs"] = made.reset()[0] if term or trunc else obs
        return steps / (time.perf_counter() - start)

    return run


def _vector(env_id: str, kwargs: dict[str, Any], n: int) -> Callable[[float], float]:
    return _stepper(gym.make_vec(env_id, num_envs=n, **kwargs), n)


def _stepper(vec: gym.vector.VectorEnv[Any, Any, Any], n: int) -> Callable[[float], float]:
    rng = np.random.default_rng(0)
    obs, _ = vec.reset(seed=0)
    state = {"obs": obs}

    def run(seconds: float) -> float:
        start = time.perf_counter()
        steps = 0
        while time.perf_counter() - start < seconds or steps < 2:
            steps += 1
            if isinstance(state["obs"], dict):
                action: Any = _actions(state["obs"]["action_mask"], False, rng)
            else:
                action = vec.action_space.sample()
            state["obs"] = vec.step(action)[0]
        return steps * n / (time.perf_counter() - start)

    return run


def measure(run: Callable[[float], float], seconds: float, repeats: int) -> tuple[float, float, float]:
    run(seconds / 5)  # warm-up
    rates = [run(seconds) for _ in range(repeats)]
    return statistics.median(rates), min(rates), max(rates)


_MEMORY_PROBE = """
import resource, sys
import gymnasium as gym, numpy as np
import env
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20
before = rss()
vec = gym.make_vec("proliferate/Duel-v0", num_envs=int(sys.argv[1]))
obs, _ = vec.reset(seed=0)
rng = np.random.default_rng(0)
for _ in range(5):
    obs = vec.step((obs["action_mask"].astype(bool) & (rng.random(obs["action_mask"].shape) < 0.5)).astype(np.int8))[0]
print(before, rss())
"""


_RATE_PROBE = """
import statistics, sys, time
import gymnasium as gym, numpy as np
import env
env_id, mode, n, seconds, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
rng = np.random.default_rng(0)
def act(masks):
    return (masks.astype(bool) & (rng.random(masks.shape) < 0.5)).astype(np.int8)
if mode == "single":
    made = gym.make(env_id)
    obs, _ = made.reset(seed=0)
    def step():
        global obs
        obs, _, term, trunc, _ = made.step(act(obs["action_mask"]))
        if term or trunc:
            obs = made.reset()[0]
        return 1
else:
    vec = gym.make_vec(env_id, num_envs=n)
    obs, _ = vec.reset(seed=0)
    def step():
        global obs
        obs = vec.step(act(obs["action_mask"]))[0]
        return n
def run(window):
    start, steps = time.perf_counter(), 0
    while time.perf_counter() - start < window or steps < 2:
        steps += step()
    return steps / (time.perf_counter() - start)
run(seconds / 5)
rates = [run(seconds) for _ in range(repeats)]
print(statistics.median(rates), min(rates), max(rates))
"""


def rate(checkout: Path, env_id: str, mode: str, n: int, seconds: float, repeats: int) -> tuple[float, float, float]:
    """Steps/s (median, min, max) of ``checkout``'s env in a fresh process, random legal subset actions."""
    done = subprocess.run(
        [sys.executable, "-c", _RATE_PROBE, env_id, mode, str(n), str(seconds), str(repeats)],
        capture_output=True,
        text=True,
        check=True,
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout.resolve())},
    )
    median, low, high = (float(x) for x in done.stdout.split())
    return median, low, high


def compare(baseline: Path, n: int, seconds: float, repeats: int) -> list[dict[str, Any]]:
    """Ours against ``baseline`` for every proliferate id but the bandit, single and vector, back to back."""
    ours = Path(__file__).resolve().parent.parent
    rows: list[dict[str, Any]] = []
    for env_id in [i for i in env.IDS if "Bandit" not in i]:
        for mode in ("single", "vector"):
            base = rate(baseline, env_id, mode, n, seconds, repeats)
            mine = rate(ours, env_id, mode, n, seconds, repeats)
            label = "single" if mode == "single" else f"vector x{n}"
            rows.append({"id": env_id, "mode": label, "baseline": base, "ours": mine, "ratio": mine[0] / base[0]})
    return rows


def memory(n: int) -> tuple[float, float]:
    """Resident MB of a fresh process after imports, and with an ``n``-game Duel vector env reset and stepped."""
    done = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(n)], capture_output=True, text=True, check=True)
    before, after = (float(x) for x in done.stdout.split())
    return before, after


def profile(env_id: str, n: int, seconds: float) -> list[tuple[str, float]]:
    """Share of a native vector step's time by where the code lives (own time of each function)."""
    run = _vector(env_id, {}, n)
    run(seconds / 5)
    profiler = cProfile.Profile()
    profiler.enable()
    run(seconds)
    profiler.disable()
    raw: dict[tuple[str, int, str], tuple[Any, ...]] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    groups = {"solver (rules, objective, boards)": 0.0, "env (game, events, layout)": 0.0, "numpy": 0.0, "other": 0.0}
    for (path, _, _), v in raw.items():
        own = float(v[2])
        if "/solver/" in path:
            groups["solver (rules, objective, boards)"] += own
        elif "/env/" in path and "site-packages" not in path:
            groups["env (game, events, layout)"] += own
        elif "numpy" in path or path == "~":
            groups["numpy"] += own
        else:
            groups["other"] += own
    total = sum(groups.values()) or 1.0
    return [(name, t / total) for name, t in groups.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of a timed window (default 2 s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed windows per figure (default 3)")
    parser.add_argument("--num-envs", type=int, default=256, help="games in each native vector env (default 256)")
    parser.add_argument("--rewards", action="store_true", help="also measure reward_mode terminal and regret")
    parser.add_argument(
        "--shards", type=int, default=os.cpu_count() or 1, help="processes of the sharded vector envs (1: none)"
    )
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default benchmarks/results)")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to compare with, same run")
    args = parser.parse_args(argv)
    n = args.num_envs

    cart = measure(_single("CartPole-v1", {}), args.seconds, args.repeats)
    rows: list[dict[str, Any]] = [
        {
            "id": "CartPole-v1",
            "reward_mode": "-",
            "mode": "single",
            "steps_per_s": cart[0],
            "min": cart[1],
            "max": cart[2],
        }
    ]
    cart_vec = measure(_vector("CartPole-v1", {}, n), args.seconds, args.repeats)
    rows.append(
        {
            "id": "CartPole-v1",
            "reward_mode": "-",
            "mode": f"vector x{n}",
            "steps_per_s": cart_vec[0],
            "min": cart_vec[1],
        }
        | {"max": cart_vec[2]}
    )
    rewards = ("delta", "terminal", "regret") if args.rewards else ("delta",)
    for env_id in env.IDS:
        for reward in rewards:
            kwargs = {"reward_mode": reward}
            for mode in ("single", "vector"):
                factory = _single(env_id, kwargs) if mode == "single" else _vector(env_id, kwargs, n)
                median, low, high = measure(factory, args.seconds, args.repeats)
                label = "single" if mode == "single" else f"vector x{n}"
                rows.append(
                    {"id": env_id, "reward_mode": reward, "mode": label, "steps_per_s": median, "min": low, "max": high}
                )
        if args.shards > 1:
            sharded = gym.make_vec(env_id, num_envs=n, shards=args.shards, reward_mode="delta")
            try:
                median, low, high = measure(_stepper(sharded, n), args.seconds, args.repeats)
            finally:
                sharded.close()
            label = f"vector x{n}, {args.shards} processes"
            rows.append(
                {"id": env_id, "reward_mode": "delta", "mode": label, "steps_per_s": median} | {"min": low, "max": high}
            )
    table = [
        [
            r["id"],
            r["reward_mode"],
            r["mode"],
            f"{r['steps_per_s']:,.0f} [{r['min']:,.0f}-{r['max']:,.0f}]",
            f"{r['steps_per_s'] / cart[0]:.4f}",
        ]
        for r in rows
    ]
    print(f"## Env throughput (env steps/s; ratio = / single CartPole-v1 in this run, {cart[0]:,.0f} steps/s)\n")
    print(markdown_table(["id", "reward", "mode", "steps/s [min-max]", "x CartPole"], table))

    before, after = memory(n)
    print(f"\n## Memory: a {n}-game Duel-v0 vector env\n")
    print(f"{after:,.0f} MB resident after reset and 5 steps ({before:,.0f} MB after imports; target < 200 MB)")

    shares = profile("proliferate/Duel-v0", n, args.seconds)
    print(f"\n## Where a native vector step of Duel-v0 (x{n}) goes (own time under cProfile)\n")
    print(markdown_table(["code", "share"], [[name, f"{s:.0%}"] for name, s in shares]))

    print("\n## Targets (issue 12)\n")
    target_rows = []
    for (env_id, mode), target in TARGETS.items():
        label = "single" if mode == "single" else f"vector x{n}"
        got = next(r for r in rows if r["id"] == env_id and r["mode"] == label and r["reward_mode"] == "delta")
        met = "met" if got["steps_per_s"] >= target else "NOT met"
        target_rows.append([env_id, label, f"{target:,}", f"{got['steps_per_s']:,.0f}", met])
        split = next((r for r in rows if r["id"] == env_id and r["mode"] == f"{label}, {args.shards} processes"), None)
        if split is not None:
            target_rows.append([env_id, split["mode"], "(not judged)", f"{split['steps_per_s']:,.0f}", ""])
    target_rows.append(
        ["memory", f"x{n} Duel", f"< {MEMORY_TARGET_MB} MB", f"{after:,.0f} MB", "met" if after < 200 else "NOT met"]
    )
    print(markdown_table(["id", "mode", "target steps/s", "measured", ""], target_rows))
    extra: dict[str, Any] = {}
    if args.baseline is not None:
        against = compare(args.baseline, n, args.seconds, args.repeats)
        print(f"\n## Against {args.baseline} (each pair measured back to back, fresh processes)\n")
        spread = "{0:,.0f} [{1:,.0f}-{2:,.0f}]".format
        print(
            markdown_table(
                ["id", "mode", "baseline steps/s [min-max]", "ours steps/s [min-max]", "x baseline"],
                [
                    [r["id"], r["mode"], spread(*r["baseline"]), spread(*r["ours"]), f"{r['ratio']:.2f}"]
                    for r in against
                ],
            )
        )
        extra["against_baseline"] = {"checkout": str(args.baseline), "rows": against}
    path = write_json(
        "env_throughput",
        {
            "num_envs": n,
            "results": rows,
            "memory_mb": {"after_imports": before, "vector_env": after},
            "profile_vector_duel": dict(shares),
        }
        | extra,
        args.json,
    )
    print(f"\nJSON: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
