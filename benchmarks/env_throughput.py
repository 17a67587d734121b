"""Steps per second of every env id, next to CartPole-v1 in the same run: ``python -m benchmarks.env_throughput``.

For each id: the default reward (``"delta"``, oracle off), ``"terminal"`` (no objective is
built at all), and ``"regret"`` (the optimum every decision), each as a single env made
with ``gym.make`` (all default wrappers) and as ``gym.make_vec(..., "sync")`` with 4
copies.  Actions are random legal subsets drawn from ``info["action_mask"]``.  Each figure
is the median of ``--repeats`` timed windows with its min-max spread; the ratio column is
against CartPole-v1 (random actions, ``gym.make``) in this same run.  A profile of the
default duel then splits a step's time between the solver functions and the env itself.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import env
from benchmarks.common import markdown_table, write_json

REWARDS = ("delta", "terminal", "regret")


def _single(env_id: str, kwargs: dict[str, Any]) -> Callable[[float], float]:
    made = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    _, info = made.reset(seed=0)
    masked = "action_mask" in info
    state = {"info": info}

    def run(seconds: float) -> float:
        start = time.perf_counter()
        steps = 0
        while time.perf_counter() - start < seconds:
            steps += 1
            if masked:
                mask = state["info"]["action_mask"].astype(bool)
                action: Any = (mask & (rng.random(mask.shape) < 0.5)).astype(np.int8)
            else:
                action = made.action_space.sample()
            _, _, term, trunc, state["info"] = made.step(action)
            if term or trunc:
                _, state["info"] = made.reset()
        return steps / (time.perf_counter() - start)

    return run


def _vector(env_id: str, kwargs: dict[str, Any], n: int) -> Callable[[float], float]:
    vec = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync", **kwargs)
    rng = np.random.default_rng(0)
    _, info = vec.reset(seed=0)
    state = {"info": info}

    def run(seconds: float) -> float:
        start = time.perf_counter()
        steps = 0
        while time.perf_counter() - start < seconds:
            steps += 1
            mask = state["info"]["action_mask"].astype(bool)
            _, _, _, _, state["info"] = vec.step((mask & (rng.random(mask.shape) < 0.5)).astype(np.int8))
        return steps * n / (time.perf_counter() - start)

    return run


def measure(run: Callable[[float], float], seconds: float, repeats: int) -> tuple[float, float, float]:
    run(seconds / 5)  # warm-up
    rates = [run(seconds) for _ in range(repeats)]
    return statistics.median(rates), min(rates), max(rates)


#: Solver functions whose cumulative time the profile reports (module path fragment, function name).
_SOLVER_FUNCTIONS = (
    ("solver/objective.py", "value_of", "Objective.value_of (delta reward, on the settled resolution)"),
    ("solver/objective.py", "baseline", "  of which Objective.baseline (settles every round count)"),
    ("solver/objective.py", "units", "  of which Objective.units (per-unit tables, via game_weight)"),
    ("solver/objective.py", "__init__", "Objective.__init__"),
    ("solver/fast.py", "solve_fast", "solve_fast (optimum)"),
    ("solver/rules.py", "apply_matrix", "apply_matrix (decisions)"),
    ("solver/rules.py", "settle", "settle (all calls: SBAs, objective)"),
    ("solver/effects.py", "gains", "effects.gains (Board.gain, per new board)"),
    ("solver/board.py", "__post_init__", "Board.__post_init__ (every new board)"),
    ("solver/board.py", "build", "Board.build (permanents entering)"),
    ("env/events.py", "turn_events", "env: turn_events (event model)"),
    ("env/boardops.py", "enter", "  of which env: boardops.enter (a permanent enters)"),
    ("env/spaces.py", "build", "env: View.build (observation layout)"),
)


def profile(env_id: str, seconds: float) -> tuple[float, list[tuple[str, float, float]]]:
    """Seconds per step and, per function of interest, (label, µs per step, share of the step)."""
    run = _single(env_id, {})
    run(seconds / 5)
    profiler = cProfile.Profile()
    profiler.enable()
    start = time.perf_counter()
    rate = run(seconds)
    steps = max(int(rate * (time.perf_counter() - start)), 1)
    profiler.disable()
    stats = pstats.Stats(profiler)
    raw: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    total = max(v[3] for k, v in raw.items() if k[2] == "run")
    rows = []
    for fragment, name, label in _SOLVER_FUNCTIONS:
        cum = sum(v[3] for (path, _, fn), v in raw.items() if fn == name and path.endswith(fragment))
        rows.append((label, 1e6 * cum / steps, cum / total))
    return total / steps, rows


def seconds_per_step(result: dict[str, Any]) -> float:
    """Seconds per step of a measured result (the inverse of its median rate)."""
    return 1.0 / float(result["steps_per_s"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of a timed window (default 1 s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed windows per figure (default 3)")
    parser.add_argument("--vector", type=int, default=4, help="copies in the make_vec sync env (default 4)")
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default benchmarks/results)")
    args = parser.parse_args(argv)

    cart = measure(_single("CartPole-v1", {}), args.seconds, args.repeats)
    results: list[dict[str, Any]] = [
        {
            "id": "CartPole-v1",
            "reward_mode": "-",
            "mode": "single",
            "steps_per_s": cart[0],
            "min": cart[1],
            "max": cart[2],
        }
    ]
    for env_id in env.IDS:
        for reward in REWARDS:
            kwargs = {"reward_mode": reward}
            for mode in ("single", f"make_vec sync x{args.vector}"):
                factory = _single(env_id, kwargs) if mode == "single" else _vector(env_id, kwargs, args.vector)
                median, low, high = measure(factory, args.seconds, args.repeats)
                results.append(
                    {"id": env_id, "reward_mode": reward, "mode": mode, "steps_per_s": median, "min": low, "max": high}
                )
    table = [
        [
            r["id"],
            r["reward_mode"],
            r["mode"],
            f"{r['steps_per_s']:,.0f} [{r['min']:,.0f}-{r['max']:,.0f}]",
            f"{r['steps_per_s'] / cart[0]:.4f}",
        ]
        for r in results
    ]
    print("## Env throughput (env steps/s; ratio = / CartPole-v1 in this run)\n")
    print(markdown_table(["id", "reward", "mode", "steps/s [min-max]", "x CartPole"], table))

    per_step, rows = profile("proliferate/Duel-v0", 2 * args.seconds)
    print(f"\n## Where a step of proliferate/Duel-v0 (delta) goes: {1e6 * per_step:,.0f} µs per step under cProfile\n")
    print(
        markdown_table(
            ["function (cumulative)", "µs / step", "share"], [[n, f"{u:,.0f}", f"{s:.0%}"] for n, u, s in rows]
        )
    )
    target = next(
        r for r in results if r["id"] == "proliferate/Duel-v0" and r["reward_mode"] == "delta" and r["mode"] == "single"
    )
    print(
        f"\nTarget: >= 20,000 steps/s single env, oracle off, 32-slot duel: measured {target['steps_per_s']:,.0f} "
        f"({'met' if target['steps_per_s'] >= 20000 else 'NOT met'})."
    )
    settle_us = next(u for n, u, _ in rows if n.startswith("settle"))
    print(
        f"The target allows 50 µs per step; one agent step runs several whole-board solver passes (the decision, "
        f"each turn's state-based actions, the opponents' decisions, the reward's objective): settle alone takes "
        f"{settle_us:,.0f} µs of a step under cProfile ({1e6 * seconds_per_step(target):,.0f} µs per step unprofiled)."
    )
    path = write_json(
        "env_throughput",
        {
            "results": results,
            "profile_duel_delta": {"us_per_step": 1e6 * per_step, "rows": [list(r) for r in rows]},
        },
        args.json,
    )
    print(f"\nJSON: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
