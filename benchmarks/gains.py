"""A first ``solve()`` of distinct loaded boards, and their gains (616.1): ``python -m benchmarks.gains [--boards N]``.

Each board of 20 objects with thresholds and effects (:mod:`benchmarks.boards`, ``extras``) is
loaded, then solved once: that first ``solve()`` works out the board's gains under its
replacement effects (:func:`solver.effects.gains`, cached with the board afterwards).  The gains
alone are timed on freshly loaded copies of the same boards.  Figures are medians per board,
also as multiples of u (one ``gym.make("CartPole-v1")`` step timed in the same run,
:func:`benchmarks.common.cartpole_unit`).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from solver import load_board, solve
from solver.effects import gains

from .boards import BoardSpec, generate
from .common import cartpole_unit, in_units


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gains", description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=300, help="distinct boards of 20 objects")
    args = parser.parse_args(argv)
    docs = [generate(BoardSpec(20, extras=True, seed=s)) for s in range(args.boards)]
    solve(load_board(docs[0]))  # the process's first decision (numba's set-up) is not a board's
    first: list[float] = []
    for board in [load_board(d) for d in docs]:
        start = time.perf_counter()
        solve(board)
        first.append(time.perf_counter() - start)
    alone: list[float] = []
    for board in [load_board(d) for d in docs]:
        start = time.perf_counter()
        gains(board)
        alone.append(time.perf_counter() - start)
    unit = cartpole_unit()
    print(f"| measure ({args.boards} boards of 20 objects, thresholds and effects) | median | in u |")
    print("|---|---|---|")
    for label, samples in (("first `solve()` of a loaded board", first), ("`solver.effects.gains`", alone)):
        median = statistics.median(samples)
        print(f"| {label} | {median * 1e6:.1f} us | {in_units(median, unit)} |")
    print(f"| u (CartPole-v1 step) | {unit.median * 1e6:.1f} us | 1u |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
