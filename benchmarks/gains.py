"""A first ``solve()`` of distinct loaded boards, and their gains (616.1): ``python -m benchmarks.gains [--boards N]``.

Each board of 20 objects with thresholds and effects (:mod:`benchmarks.boards`, ``extras``) is
loaded, then solved once: that first ``solve()`` works out the board's gains under its
replacement effects (:func:`solver.effects.gains`, cached with the board afterwards) and its
layout for the policy.  The gains alone are timed on freshly loaded copies of the same boards.
Figures are CPU time (``time.thread_time``, which leaves out the time the process waits for a core
on a loaded machine), medians per board, also as multiples of u (one ``gym.make("CartPole-v1")``
step timed in the same run, in CPU time too, :func:`benchmarks.common.cartpole_unit`).

The boards are timed in a fresh process (:data:`_PROBE`).  With ``--baseline CHECKOUT`` the same
process runs with another checkout's ``solver`` too, the sides alternating in fresh processes for
``--rounds`` rounds, each figure the fastest round's; both sides must decide and gain alike (a
digest of every decision and every gains table).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .common import cartpole_unit, checkout_commit, in_units, markdown_table, run_checkout

__all__ = ["main"]

#: One side's run: the median CPU time of a first ``solve()`` and of :func:`solver.effects.gains` per board, in
#: seconds, and a digest of the decisions and the gains.
_PROBE = """
import hashlib, json, statistics, sys, time
from solver import load_board, solve
from solver.effects import gains
from benchmarks.boards import BoardSpec, generate
docs = [generate(BoardSpec(20, extras=True, seed=s)) for s in range(int(sys.argv[1]))]
solve(load_board(docs[0]))  # the process's first decision (numba's set-up) is not a board's
digest = hashlib.sha256()
first = []
for board in [load_board(d) for d in docs]:
    start = time.thread_time()
    decision = solve(board)
    first.append(time.thread_time() - start)
    digest.update(repr((decision.chosen, decision.value)).encode())
alone = []
for board in [load_board(d) for d in docs]:
    start = time.thread_time()
    table = gains(board)
    alone.append(time.thread_time() - start)
    digest.update(table.tobytes())
figures = {"first": statistics.median(first), "gains": statistics.median(alone)}
print(json.dumps({"figures": figures, "digest": digest.hexdigest()}))
"""

_LABELS = {"first": "first `solve()` of a loaded board", "gains": "`solver.effects.gains`"}


def _side(checkout: Path, boards: int) -> dict[str, Any]:
    """:data:`_PROBE` in a fresh process importing ``solver`` (and ``benchmarks``) from ``checkout``."""
    result: dict[str, Any] = json.loads(run_checkout(checkout, ["-c", _PROBE, str(boards)]))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gains", description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=300, help="distinct boards of 20 objects")
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT", help="compare with another checkout's code")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per side with --baseline")
    args = parser.parse_args(argv)
    if args.boards < 1 or args.rounds < 1:
        parser.error("--boards and --rounds must be >= 1")
    root = Path(__file__).resolve().parent.parent
    unit = cartpole_unit(clock=time.thread_time)
    title = f"{args.boards} boards of 20 objects, thresholds and effects; CPU time"
    if args.baseline is None:
        run = _side(root, args.boards)
        rows = [[_LABELS[k], f"{v * 1e6:.1f} µs", in_units(v, unit)] for k, v in run["figures"].items()]
        print(markdown_table([f"measure ({title})", "median", "in u"], rows))
        print(f"u (CartPole-v1 step, CPU time) = {unit.median * 1e6:.2f} µs")
        return 0
    sides = {"baseline": args.baseline.resolve(), "new": root}
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    order = list(sides)
    for round_ in range(args.rounds):
        random.Random(round_).shuffle(order)
        for side in order:
            runs[side].append(_side(sides[side], args.boards))
    same = len({str(run["digest"]) for side in sides for run in runs[side]}) == 1
    best = {side: {k: min(float(r["figures"][k]) for r in runs[side]) for k in _LABELS} for side in sides}
    rows = [[_LABELS[k], f"{best['baseline'][k] * 1e6:.1f} µs ({in_units(best['baseline'][k], unit)})",
             f"{best['new'][k] * 1e6:.1f} µs ({in_units(best['new'][k], unit)})",
             f"{best['baseline'][k] / best['new'][k]:.2f}×"] for k in _LABELS]  # fmt: skip
    commit = checkout_commit(args.baseline)
    print(f"medians per board ({title}), fastest of {args.rounds} rounds per side, against {commit or args.baseline}")
    print(markdown_table(["measure", "baseline", "new", "speed-up"], rows))
    print(f"u (CartPole-v1 step, CPU time) = {unit.median * 1e6:.2f} µs")
    print(f"same decisions and gains on both sides: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
