"""Timing, memory, table and JSON helpers shared by the benchmark scripts.

The benchmark machine is small and shared (2 cores, other jobs running), so single timings
mean little: every figure is the median of repeated runs with its spread (min and max),
and comparisons are ratios against the fastest path measured in the same run.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "RESULTS",
    "Timing",
    "cartpole_unit",
    "fmt_time",
    "in_units",
    "machine",
    "markdown_table",
    "peak_memory",
    "ratio",
    "time_it",
    "write_json",
]

T = TypeVar("T")

#: Where every benchmark writes its machine-readable results.
RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Timing:
    """Wall-clock samples of one measurement, in seconds."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)

    def show(self) -> str:
        """Median with the min-max spread when there is more than one sample: ``1.23 ms [1.20-1.31]``."""
        if len(self.samples) == 1:
            return fmt_time(self.median)
        low, high = fmt_time(self.low), fmt_time(self.high)
        if low.split()[-1] == high.split()[-1]:  # the median's unit serves both ends when they share it
            low, high = fmt_time(self.low, unit=False), fmt_time(self.high, unit=False)
        return f"{fmt_time(self.median)} [{low}-{high}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "median_s": self.median,
            "min_s": self.low,
            "max_s": self.high,
            "samples_s": list(self.samples),
        }


def time_it(
    fn: Callable[[], T], repeats: int, warmup: int = 0, budget: float | None = None, *, collect: bool = True
) -> tuple[Timing, T]:
    """Run ``fn`` ``warmup + repeats`` times; time the last ``repeats``; return the timing and the last result.

    With ``budget`` (seconds), stop repeating once the timed runs have used it up (at least
    one run always happens), so slow paths on big boards keep the whole benchmark short.

    With ``collect`` (the default), a full collection before each run keeps garbage left by
    the previous run from being charged to the next one; the collector stays on during the
    run, as it is for real callers.  A full collection also empties CPython's free lists and
    the CPU caches, so a run of a few milliseconds or less starts cold, as no caller's loop
    does (a ping through the server: 75 us back to back, 430 us after a collection each):
    ``collect=False`` times such calls back to back, in the steady state callers see.
    """
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    for _ in range(warmup):
        fn()
    samples: list[float] = []
    run = _timed if collect else _timed_warm
    result = run(fn, samples)
    for _ in range(repeats - 1):
        if budget is not None and sum(samples) > budget:
            break
        result = run(fn, samples)
    return Timing(tuple(samples)), result


def time_round_robin(
    fns: Mapping[str, Callable[[], Any]], repeats: int, warmup: int = 0
) -> dict[str, tuple[Timing, Any]]:
    """Time several calls taking turns, one sample each per round, back to back (no forced collection).

    On a shared machine the load drifts within seconds; timing each call in its own block of
    ``repeats`` would give the calls different loads, so their ratios would measure the drift.
    Taking turns gives every call the same share of it.  Returns each call's timing and last result.
    """
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    results: dict[str, Any] = {}
    for _ in range(repeats):
        for name, fn in fns.items():
            results[name] = _timed_warm(fn, samples[name])
    return {name: (Timing(tuple(samples[name])), results[name]) for name in fns}


def _timed(fn: Callable[[], T], samples: list[float]) -> T:
    gc.collect()
    return _timed_warm(fn, samples)


def _timed_warm(fn: Callable[[], T], samples: list[float]) -> T:
    start = time.perf_counter()
    result = fn()
    samples.append(time.perf_counter() - start)
    return result


def cartpole_unit(
    chunks: int = 7, steps: int = 500, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> Timing:
    """The yardstick ``u``: one ``env.step(env.action_space.sample())`` of ``gym.make("CartPole-v1")``.

    Timed in ``chunks`` chunks of ``steps`` steps each (resetting when an episode ends), in the
    same run as the figure it is compared with; each sample is one chunk's time per step, so
    ``.median`` is ``u``.  Every table states its figures as multiples of ``u`` (:func:`in_units`).
    ``clock``: wall-clock time by default; ``time.process_time`` for a script whose figures are CPU time.
    """
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    env.reset(seed=seed)
    env.action_space.seed(seed)
    samples: list[float] = []
    for _ in range(chunks):
        start = clock()
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()
        samples.append((clock() - start) / steps)
    env.close()
    return Timing(tuple(samples))


def in_units(seconds: float, unit: Timing) -> str:
    """A duration as a multiple of the yardstick ``u`` timed in the same run: ``3.2u``."""
    u = unit.median
    value = seconds / u if u > 0 else float("nan")
    return f"{value:.2g}u" if value < 10 else f"{value:.0f}u"


def peak_memory(fn: Callable[[], T]) -> tuple[int, T]:
    """Peak Python-heap bytes allocated while ``fn`` runs (tracemalloc; numpy buffers included)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result


def fmt_time(seconds: float, unit: bool = True) -> str:
    """A duration with three significant digits in a unit that keeps it readable (µs, ms or s)."""
    for scale, name in ((1e-3, "µs"), (1.0, "ms"), (1e3, "s")):
        value = seconds * 1e3 / scale
        if value < 1000 or name == "s":
            text = f"{value:.3g}" if value < 100 else f"{value:.0f}"
            return f"{text} {name}" if unit else text
    raise AssertionError("unreachable")


def ratio(value: float, fastest: float) -> str:
    return f"{value / fastest:.1f}×" if fastest > 0 else "n/a"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-markdown table, padded so it also reads well in a terminal."""
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    """What the numbers were measured on, for the JSON next to every table."""
    import numpy

    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numpy": numpy.__version__,
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if hasattr(os, "getloadavg"):
        info["load_average"] = list(os.getloadavg())
    for package in ("ortools", "scipy"):
        try:
            info[package] = version(package)
        except PackageNotFoundError:  # optional packages may be absent
            info[package] = None
    return info


def run_checkout(checkout: Path, args: Sequence[str], *also: Path) -> str:
    """The standard output of ``python ARGS`` in a fresh process importing ``checkout``'s packages (and ``also``'s
    after them), run in ``checkout``: how the ``--baseline`` options time another checkout beside this one."""
    path = os.pathsep.join(str(p.resolve()) for p in (checkout, *also))
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run([sys.executable, *args], cwd=checkout, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def checkout_commit(checkout: Path) -> str:
    """The short commit of ``checkout``'s HEAD, or "" when it is no git checkout: what a ``--baseline`` table names."""
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


def write_json(name: str, payload: dict[str, Any], path: Path | None = None) -> Path:
    """Write ``payload`` (plus the machine description) to ``benchmarks/results/<name>.json`` or ``path``."""
    target = path or RESULTS / f"{name}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"benchmark": name, "machine": machine(), **payload}, indent=1) + "\n")
    return target
