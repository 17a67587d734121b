"""Env steps per second: the single env and the native vector env at N = 1, 64, 256 and 4,096, against CartPole.

``python -m benchmarks.env_throughput`` times, for every id: the single env (``gym.make``, all
default wrappers) and the native vector env of ``gym.make_vec(id, num_envs=N)`` at each N
(aggregate sub-env steps per second), with random legal actions drawn from the observation's
mask; next to the yardstick ``u`` (one ``gym.make("CartPole-v1")`` step,
:func:`benchmarks.common.cartpole_unit`) and ``CartPoleVectorEnv`` at the same N, all in the
same run.  Every figure is the median of ``--repeats`` timed windows (min-max spread), each
env stepped for a warm-up window first (the first step loads the compiled kernels), and is
stated in steps per ``u`` (issue 28's targets: Duel N = 256 at least 3, TwoHeadedGiant and
FreeForAll at least 1.5, the single Duel env at least 0.25).  ``--shards K`` adds each id's
N = 256 env with its games split over K processes (:class:`env.sharded.ShardedVectorEnv`; not
judged).  Then the resident memory of a fresh process holding 4,096 Duel games, reset and
stepped (target at most 500 MB), and the bytes of their arrays.

``--baseline CHECKOUT`` also times another checkout's envs (a worktree of ``main``, say; it must
have the same ids) in the same run: each figure of ours and the baseline's is then taken in a
fresh process, one right after the other, so the "x baseline" column compares code under the
same load.  Results go to ``benchmarks/results/env_throughput.json``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import env
from env.config import AgentConfig, EnvConfig
from env.kernels.engine import Engine

from .common import cartpole_unit, markdown_table, run_checkout, write_json

SIZES = (1, 64, 256, 4096)
#: Issue 28's targets, in steps per u.
TARGETS = {
    ("proliferate/Duel-v1", "N=256"): 3.0,
    ("proliferate/TwoHeadedGiant-v1", "N=256"): 1.5,
    ("proliferate/FreeForAll-v1", "N=256"): 1.5,
    ("proliferate/Duel-v1", "single"): 0.25,
}
MEMORY_TARGET_MB = 500
MEMORY_GAMES = 4096

Rate = tuple[float, float, float]  # steps/s: median, min, max


def _legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random legal subset actions: a coin flip on each allowed bit."""
    return (masks.astype(bool) & (rng.random(masks.shape) < 0.5)).astype(np.int8)


def _single(env_id: str) -> Callable[[float], float]:
    made = gym.make(env_id)
    rng = np.random.default_rng(0)
    state = {"obs": made.reset(seed=0)[0]}

    def run(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds or steps < 2:
            obs, _, terminated, truncated, _ = made.step(_legal(state["obs"]["action_mask"], rng))
            state["obs"] = made.reset()[0] if terminated or truncated else obs
            steps += 1
        return steps / (time.perf_counter() - start)

    return run


def _stepper(vec: gym.vector.VectorEnv[Any, Any, Any], n: int) -> Callable[[float], float]:
    """Aggregate steps/s of a vector env (random legal actions; CartPole's sampled from its space)."""
    rng = np.random.default_rng(0)
    state = {"obs": vec.reset(seed=0)[0]}

    def run(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds or steps < 2:
            obs = state["obs"]
            action = _legal(obs["action_mask"], rng) if isinstance(obs, dict) else vec.action_space.sample()
            state["obs"] = vec.step(action)[0]
            steps += 1
        return steps * n / (time.perf_counter() - start)

    return run


def measure(run: Callable[[float], float], seconds: float, repeats: int) -> Rate:
    """Median, min and max of ``repeats`` timed windows, after an untimed warm-up window (kernel loads, caches)."""
    run(max(seconds / 5, 0.2))
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
vec = gym.make_vec("proliferate/Duel-v1", num_envs=int(sys.argv[1]))
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
env_id, n, seconds, repeats = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)
def act(masks):
    return (masks.astype(bool) & (rng.random(masks.shape) < 0.5)).astype(np.int8)
if n == 0:
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
run(max(seconds / 5, 0.2))
rates = [run(seconds) for _ in range(repeats)]
print(statistics.median(rates), min(rates), max(rates))
"""


def rate(checkout: Path, env_id: str, n: int, seconds: float, repeats: int) -> Rate:
    """Steps/s of ``checkout``'s env in a fresh process (``n`` = 0: the single env)."""
    out = run_checkout(checkout, ["-c", _RATE_PROBE, env_id, str(n), str(seconds), str(repeats)])
    median, low, high = (float(x) for x in out.split())
    return median, low, high


def compare(baseline: Path, ids: Sequence[str], seconds: float, repeats: int) -> list[dict[str, Any]]:
    """Ours against ``baseline``: each id's single env and N = 256 vector env, back to back in fresh processes."""
    ours = Path(__file__).resolve().parent.parent
    rows: list[dict[str, Any]] = []
    for env_id in ids:
        for n in (0, 256):
            base = rate(baseline, env_id, n, seconds, repeats)
            mine = rate(ours, env_id, n, seconds, repeats)
            label = "single" if n == 0 else f"N={n}"
            rows.append({"id": env_id, "mode": label, "baseline": base, "ours": mine, "ratio": mine[0] / base[0]})
    return rows


def memory(n: int) -> tuple[float, float]:
    """Resident MB of a fresh process after imports, and with an ``n``-game Duel vector env reset and stepped."""
    done = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(n)], capture_output=True, text=True, check=True)
    before, after = (float(x) for x in done.stdout.split())
    return before, after


def _spread(r: Rate, unit: float) -> str:
    return f"{r[0]:,.0f}/s [{r[1]:,.0f}-{r[2]:,.0f}] = {r[0] * unit:.3f}u"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of a timed window (default 2 s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed windows per figure (default 3)")
    parser.add_argument("--ids", nargs="+", default=list(env.IDS), choices=list(env.IDS))
    parser.add_argument("--shards", type=int, default=1, help="also the N = 256 env over K processes (1: not)")
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default benchmarks/results)")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to compare with, same run")
    args = parser.parse_args(argv)
    u = cartpole_unit()
    unit = u.median
    cart = {
        n: measure(
            _stepper(gym.make_vec("CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point"), n),
            args.seconds,
            args.repeats,
        )
        for n in SIZES
    }
    figures: dict[str, dict[str, Rate]] = {}
    for env_id in args.ids:
        per = {"single": measure(_single(env_id), args.seconds, args.repeats)}
        for n in SIZES:
            vec = gym.make_vec(env_id, num_envs=n)
            try:
                per[f"N={n}"] = measure(_stepper(vec, n), args.seconds, args.repeats)
            finally:
                vec.close()
        if args.shards > 1:
            sharded = gym.make_vec(env_id, num_envs=256, shards=args.shards)
            try:
                per[f"N=256, {args.shards} processes"] = measure(_stepper(sharded, 256), args.seconds, args.repeats)
            finally:
                sharded.close()
        figures[env_id] = per
    modes = ["single", *(f"N={n}" for n in SIZES)]
    if args.shards > 1:
        modes.append(f"N=256, {args.shards} processes")
    print(f"u = {unit * 1e6:.2f} µs (one CartPole-v1 step, this run; {u.show()})\n")
    print("## Env steps per second (aggregate over the sub-envs; = steps per u)\n")
    rows = [
        ["CartPoleVectorEnv", "-", *(_spread(cart[n], unit) for n in SIZES), *["-"] * (len(modes) - 1 - len(SIZES))]
    ]
    rows += [[env_id, *(_spread(per[m], unit) for m in modes)] for env_id, per in figures.items()]
    print(markdown_table(["id", *modes], rows))

    before, after = memory(MEMORY_GAMES)
    config = EnvConfig.build("duel")
    arrays_mb = Engine(config, AgentConfig.build(config), MEMORY_GAMES).nbytes / 2**20
    print(f"\n## Memory: {MEMORY_GAMES:,} Duel-v1 games\n")
    print(
        f"{after:,.0f} MB resident after reset and 5 steps ({before:,.0f} MB after imports; target at most "
        f"{MEMORY_TARGET_MB} MB); their arrays {arrays_mb:.1f} MB"
    )

    print("\n## Targets (issue 28, steps per u)\n")
    target_rows = []
    for (env_id, mode), target in TARGETS.items():
        if env_id in figures:
            got = figures[env_id][mode][0] * unit
            target_rows.append(
                [env_id, mode, f"at least {target}", f"{got:.3f}", "met" if got >= target else "NOT met"]
            )
    met = "met" if after <= MEMORY_TARGET_MB else "NOT met"
    target_rows.append(["memory", f"{MEMORY_GAMES:,} Duel", f"at most {MEMORY_TARGET_MB} MB", f"{after:,.0f} MB", met])
    print(markdown_table(["id", "mode", "target", "measured", ""], target_rows))

    extra: dict[str, Any] = {}
    if args.baseline is not None:
        against = compare(args.baseline, args.ids, args.seconds, args.repeats)
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
            "u_s": unit,
            "cartpole_vector": {f"N={n}": cart[n] for n in SIZES},
            "steps_per_s": figures,
            "memory_mb": {"games": MEMORY_GAMES, "after_imports": before, "resident": after, "arrays": arrays_mb},
            "targets_per_u": {f"{i} {m}": t for (i, m), t in TARGETS.items()},
            **extra,
        },
        args.json,
    )
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
