"""The compiled core against issue 26's targets: ``python -m benchmarks.core [--boards N] [--huge N]``.

Prints one table, every figure also as a multiple of u (one ``gym.make("CartPole-v1")`` step,
timed in the same run, :func:`benchmarks.common.cartpole_unit`):

* ``solve()`` of a loaded board of 20 and of 200 objects with thresholds and effects, again (the board keeps
  its gains and its layout for the policy) and first (distinct boards, each solved once: the gains, the card
  rules, and the policy's layout are worked out in the call);
* :func:`solver.decide_many` over N boards of 20 objects (boards per second, and per u);
* stacking loaded boards into the kernels' layout (:func:`solver.kernels.stack`: the join of the
  boards' own arrays, then the policy's tables), per board, in :func:`solver.decide_many`'s chunks;
* deciding boards already in the kernels' layout (:func:`solver.kernels.decide_layout`), per board;
* ``solve()`` and the kernels on one huge board (100,000 objects by default);
* ``proliferate solve`` cold start with numba's cache warm and Python's bytecode written (a fresh process,
  wall clock), in this environment and as the default install runs it (without the ``bench`` extra's scipy,
  which numba imports when installed).

Boards come from :mod:`benchmarks.boards` with thresholds and effects (``extras``).

With ``--baseline CHECKOUT`` it instead compares this checkout's code with another's: each side in a fresh
process whose ``solver`` is that side's (:data:`_SIDE_PROBE`), sides alternating for ``--rounds`` rounds in
shuffled order, each figure the least CPU time of the process (``time.thread_time``, which leaves out the time
it waits for a core on a loaded machine) over repeated loops, the fastest of all rounds; both sides must decide
the same boards alike (a digest of every decision).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from solver import decide_many, load_board, solve
from solver.batch import chunk_bounds
from solver.kernels import decide_layout, stack
from solver.policy import DEFAULT_POLICY

from .boards import BoardSpec, generate
from .common import (
    cartpole_unit,
    checkout_commit,
    fmt_time,
    in_units,
    machine,
    markdown_table,
    run_checkout,
    time_it,
    write_json,
)

__all__ = ["main"]

_EXAMPLE = Path(__file__).resolve().parent.parent / "solver" / "examples" / "classic.json"


#: ``python -c`` of ``proliferate solve`` as the default install runs it: without the ``bench`` extra's scipy,
#: which numba imports at its own import when it is installed (``numba.np.linalg``, for its BLAS bindings).
_WITHOUT_SCIPY = (
    "import runpy, sys; sys.modules['scipy'] = None; sys.argv = ['proliferate', 'solve', sys.argv[1]]; "
    "runpy.run_module('solver', run_name='__main__')"
)


def _cold_start(repeats: int, default_install: bool = False) -> tuple[float, float]:
    """The median wall time and CPU time (user + system) of ``proliferate solve`` of the bundled example in a
    fresh process.

    The processes may write Python's bytecode cache (an installed package has it), so the
    first, untimed run writes whatever is missing; numba's cache is warm (``make`` warms it).
    ``default_install`` runs it as the default install would, without scipy (:data:`_WITHOUT_SCIPY`).
    The CPU time leaves out the waits for a core on a loaded machine, which the wall time has.
    """
    command = [sys.executable, "-c", _WITHOUT_SCIPY] if default_install else [sys.executable, "-m", "solver", "solve"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    walls, cpus = [], []
    for run in range(repeats + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([*command, str(_EXAMPLE)], check=True, capture_output=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if run:
            walls.append(wall)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return sorted(walls)[repeats // 2], sorted(cpus)[repeats // 2]


def _first_solves(size: int, n: int = 200) -> float:
    """The median of ``n`` first ``solve()`` calls, each on a distinct loaded board of ``size`` objects."""
    boards = [load_board(generate(BoardSpec(size, extras=True, seed=100 + s))) for s in range(n)]
    samples = []
    for board in boards:
        start = time.perf_counter()
        solve(board)
        samples.append(time.perf_counter() - start)
    samples.sort()
    return samples[len(samples) // 2]


#: One side of ``--baseline``: per figure, the least CPU time per operation in microseconds (``huge`` in
#: milliseconds), and a digest of the decisions (boards from :mod:`benchmarks.boards`, as the default run's).
_SIDE_PROBE = """
import hashlib, json, sys, time
from solver import decide_many, load_board, solve
from solver.kernels import decide_layout, stack
from solver.policy import DEFAULT_POLICY
from benchmarks.boards import BoardSpec, generate
n_boards, huge_size = int(sys.argv[1]), int(sys.argv[2])
variants = ("duel", "free_for_all", "two_headed_giant")
def least(fn, n, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time() - start) / n)
    return best * 1e6
out = {}
small = load_board(generate(BoardSpec(20, extras=True, seed=1)))
medium = load_board(generate(BoardSpec(200, extras=True, seed=1)))
digest = hashlib.sha256()
for board in (small, medium):
    digest.update(repr((solve(board).chosen, solve(board).value)).encode())
out["solve 20 again"] = least(lambda: solve(small), 300, 30)
out["solve 200 again"] = least(lambda: solve(medium), 100, 30)
fresh = iter([load_board(generate(BoardSpec(20, extras=True, seed=100 + s))) for s in range(1500)])
out["solve 20 first"] = least(lambda: solve(next(fresh)), 50, 30)
many = [load_board(generate(BoardSpec(20, variants[s % 3], extras=True, seed=s))) for s in range(n_boards)]
decided = decide_many(many)
for array in (decided.values, decided.chosen, decided.recipients):
    digest.update(array.tobytes())
out["decide_many per board"] = least(lambda: decide_many(many), 1, 7) / len(many)
chunks = [many[i : i + 256] for i in range(0, len(many), 256)]
def stack_each():
    for c in chunks:  # as decide_many does: each chunk's layout goes before the next is built
        stack(c, DEFAULT_POLICY)
out["stack per board"] = least(stack_each, 1, 7) / len(many)
layout = stack(many, DEFAULT_POLICY)
out["decide_layout per board"] = least(lambda: decide_layout(layout), 1, 7) / len(many)
huge = load_board(generate(BoardSpec(huge_size, extras=True, seed=1)))
digest.update(repr(solve(huge).value).encode())
out["solve huge (ms)"] = least(lambda: solve(huge), 1, 5) / 1000
print(json.dumps({"figures": out, "digest": digest.hexdigest()}))
"""


def _side(checkout: Path, n_boards: int, huge: int) -> dict[str, Any]:
    """:data:`_SIDE_PROBE` in a fresh process importing ``solver`` (and ``benchmarks``) from ``checkout``."""
    result: dict[str, Any] = json.loads(run_checkout(checkout, ["-c", _SIDE_PROBE, str(n_boards), str(huge)]))
    return result


def compare(baseline: Path, rounds: int, n_boards: int, huge: int) -> int:
    """This checkout against ``baseline`` (see the module docstring); exit 1 if the sides decide differently."""
    root = Path(__file__).resolve().parent.parent
    sides = {"baseline": baseline.resolve(), "new": root}
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    order = list(sides)
    for round_ in range(rounds):
        random.Random(round_).shuffle(order)
        for side in order:
            runs[side].append(_side(sides[side], n_boards, huge))
    same = len({str(run["digest"]) for side in sides for run in runs[side]}) == 1
    figures = {side: [run["figures"] for run in runs[side]] for side in sides}
    names = list(figures["new"][0])
    best = {side: {k: min(float(f[k]) for f in figures[side]) for k in names} for side in sides}
    rows = [[k, f"{best['baseline'][k]:.2f}", f"{best['new'][k]:.2f}", f"{best['baseline'][k] / best['new'][k]:.2f}×"]
            for k in names]  # fmt: skip
    commit = checkout_commit(baseline)
    print(f"CPU time in µs (ms for the huge board), fastest of {rounds} rounds per side, against {commit or baseline}")
    print(markdown_table(["measure", "baseline", "new", "speed-up"], rows))
    print(f"same decisions on both sides: {'yes' if same else 'NO'}")
    write_json("core_baseline", {"machine": machine(), "baseline_commit": commit, "best": best, "runs": runs})
    return 0 if same else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.core", description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=10_000, help="boards of 20 objects decided together")
    parser.add_argument("--huge", type=int, default=100_000, help="objects of the huge board")
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT", help="compare with another checkout's code")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per side with --baseline")
    args = parser.parse_args(argv)
    if args.boards < 1 or args.huge < 4 or args.rounds < 1:
        parser.error("--boards and --rounds must be >= 1 and --huge >= 4")
    if args.baseline is not None:
        return compare(args.baseline, args.rounds, args.boards, args.huge)

    unit = cartpole_unit()
    small = load_board(generate(BoardSpec(20, extras=True, seed=1)))
    medium = load_board(generate(BoardSpec(200, extras=True, seed=1)))
    variants = ("duel", "free_for_all", "two_headed_giant")
    many = [load_board(generate(BoardSpec(20, variants[s % 3], extras=True, seed=s))) for s in range(args.boards)]
    huge = load_board(generate(BoardSpec(args.huge, extras=True, seed=1)))
    decide_many(many[:10])  # load the kernels from numba's cache before timing

    rows: list[list[object]] = []

    def row(name: str, seconds: float, target: str) -> None:
        rows.append([name, fmt_time(seconds), in_units(seconds, unit), target])

    t, _ = time_it(lambda: solve(small), repeats=50, warmup=3, collect=False)
    row("solve(), 20 objects, loaded, again", t.median, "<= 2u")
    t, _ = time_it(lambda: solve(medium), repeats=30, warmup=3, collect=False)
    row("solve(), 200 objects, loaded, again", t.median, "<= 5u")
    for size, target in ((20, "<= 2u"), (200, "<= 5u")):
        row(f"solve(), {size} objects, loaded, first", _first_solves(size), target)
    t, _ = time_it(lambda: decide_many(many), repeats=3, warmup=1)
    per = t.median / len(many)
    rows.append([f"decide_many, {len(many):,} boards of 20", f"{1 / per:,.0f}/s", f"{unit.median / per:.2g} per u",
                 ">= 3 per u"])  # fmt: skip
    chunks = [many[i:j] for i, j in chunk_bounds(many)]

    def stack_each() -> None:
        for chunk in chunks:  # as decide_many does: each chunk's layout goes before the next is built
            stack(chunk, DEFAULT_POLICY)

    t, _ = time_it(stack_each, repeats=5, warmup=1)
    row(f"stack (join + policy), per 20-object board, chunks of {len(chunks[0])}", t.median / len(many), "")
    layout = stack(many, DEFAULT_POLICY)
    t, _ = time_it(lambda: decide_layout(layout), repeats=5, warmup=1)
    row("decide stacked arrays, per 20-object board", t.median / len(many), "<= 0.1u")
    t, _ = time_it(lambda: solve(huge), repeats=3, warmup=1, budget=10.0)
    row(f"solve(), {args.huge:,}-object board, loaded", t.median, "<= 1,500u")
    t, _ = time_it(lambda: decide_layout(stack([huge], DEFAULT_POLICY)), repeats=3, warmup=1, budget=10.0)
    row(f"kernels (stack + decide), {args.huge:,}-object board", t.median, "")
    for name, default_install in (("", False), (", default install (no scipy)", True)):
        wall, cpu = _cold_start(5, default_install)
        rows.append([f"`proliferate solve` cold start, warm cache{name}", f"{wall:.2f} s (CPU {cpu:.2f} s)", "",
                     "<= 0.8 s"])  # fmt: skip

    print(f"u = {fmt_time(unit.median)} (one CartPole-v1 step, this run)")
    headers = ["measure", "time", "in u", "target"]
    print(markdown_table(headers, rows))
    payload = {
        "machine": machine(),
        "u": unit.to_json(),
        "rows": [dict(zip(headers, map(str, r), strict=True)) for r in rows],
    }
    write_json("core", payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
