"""Many small decisions: ``solve_many`` / ``decide_many`` against a loop of ``solve``: ``python -m benchmarks.batch``.

Boards of ``--size`` objects (default 20, a real game's proliferate) in every variant,
1-2 proliferates, half with thresholds and replacement effects, drawn by
:mod:`benchmarks.boards` and loaded once (loading is not timed; each board's cached
replacement-effect gains are warmed first, for every path alike).  Reported per path:
decisions per second (median of repeats, with min-max) and the ratio to the baseline, a
Python loop of ``solver.solve`` timed in the same run on a sample of the same boards.  Then
``solver.solve`` p50 on one board of 50 and one of 200 objects against its targets, and the
p50 of the first solve of freshly loaded boards (what a caller with a new board each time pays).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import solver
from solver.batch import decide_many, solve_many
from solver.board import Board

from .boards import VARIANTS, BoardSpec, generate
from .common import Timing, machine, markdown_table, time_it, write_json

__all__ = ["main", "measure"]

#: Targets of issue 12 (decisions per second; seconds per solve).
TARGET_RATE = 50_000
TARGET_SOLVE = {50: 100e-6, 200: 200e-6}


def boards(n: int, size: int, seed: int = 0) -> list[Board]:
    specs = itertools.cycle(itertools.product(VARIANTS, (1, 2), (False, True)))
    out = []
    for i, (variant, proliferates, extras) in zip(range(n), specs, strict=False):
        board = solver.load_board(generate(BoardSpec(size, variant, proliferates, extras, seed + i)))
        _ = board.gain, board.rounds, board.is_ally  # cached per board, as a caller reusing boards has them
        out.append(board)
    return out


def measure(n: int, size: int, repeats: int, loop_sample: int) -> dict[str, Any]:
    items = boards(n, size)
    sample = items[:loop_sample]
    loop, _ = time_it(lambda: [solver.solve(b) for b in sample], repeats=max(1, repeats // 2))
    many, _ = time_it(lambda: decide_many(items), repeats=repeats)
    worst, _ = time_it(lambda: decide_many(items, sense=-1), repeats=repeats)
    decisions, _ = time_it(lambda: solve_many(items), repeats=max(1, repeats // 2))
    rows = [
        ("loop of solve() (baseline)", loop, len(sample)),
        ("decide_many (arrays)", many, n),
        ("decide_many sense=-1 (worst)", worst, n),
        ("solve_many (Decision objects)", decisions, n),
    ]
    base = len(sample) / loop.median
    out = []
    for what, timing, count in rows:
        rate = count / timing.median
        out.append(
            {
                "what": what,
                "boards": count,
                "rate": rate,
                "rate_low": count / timing.high,
                "rate_high": count / timing.low,
                "ratio": rate / base,
                **timing.to_json(),
            }
        )
    return {"size": size, "rows": out}


def solve_p50(size: int, runs: int) -> dict[str, Any]:
    """``solver.solve`` on one loaded board: p50 over ``runs`` calls, and p50 of the first solve of fresh boards.

    The repeated calls (after a warm-up call) reuse what the board derives on first use
    (state-based-action masks, seat sides); a caller with a new board each time, such as the
    protocol server, pays for those once per board, which the second figure includes.
    """
    samples = []
    firsts = []
    for variant in VARIANTS:
        data = generate(BoardSpec(size, variant, 1, True, 0))
        board = solver.load_board(data)
        solver.solve(board)
        for _ in range(runs):
            start = time.perf_counter()
            solver.solve(board)
            samples.append(time.perf_counter() - start)
        for fresh in [solver.load_board(data) for _ in range(runs)]:
            start = time.perf_counter()
            solver.solve(fresh)
            firsts.append(time.perf_counter() - start)
    timing = Timing(tuple(samples))
    return {
        "size": size,
        "p50_s": statistics.median(samples),
        "timing": timing,
        "first": Timing(tuple(firsts)),
        "target_s": TARGET_SOLVE[size],
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.batch", description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--loop-sample", type=int, default=1_000, help="boards in the solve() loop baseline")
    parser.add_argument("--solve-runs", type=int, default=100, help="solve() calls per variant for the p50")
    return parser.parse_args(argv)


def report(args: argparse.Namespace) -> dict[str, Any]:
    result = measure(args.boards, args.size, args.repeats, args.loop_sample)
    singles = [solve_p50(size, args.solve_runs) for size in (50, 200)]
    info = machine()
    where = f"{info['processor']}, {info['cpus']} CPUs, load {info.get('load_average', ['?'])[0]}"
    print(f"\n## Batched decisions, {args.boards} boards of {args.size} objects ({where})\n")
    print(
        markdown_table(
            ["path", "boards", "decisions/s (median [min-max])", "ratio to the loop", "target"],
            [
                [
                    r["what"],
                    r["boards"],
                    f"{r['rate']:,.0f} [{r['rate_low']:,.0f}-{r['rate_high']:,.0f}]",
                    f"{r['ratio']:.1f}×",
                    f"≥ {TARGET_RATE:,}/s" if r["what"].startswith("decide_many (") else "",
                ]
                for r in result["rows"]
            ],
        )
    )
    print("\n## solve() on one loaded board, no explanation asked (p50 over the three variants)\n")
    print(
        markdown_table(
            ["objects", "p50 [min-max]", "target", "met", "first solve of a fresh board, p50 [min-max]"],
            [
                [s["size"], s["timing"].show(), f"{s['target_s'] * 1e6:.0f} µs", _met(s["p50_s"], s["target_s"]),
                 s["first"].show()]
                for s in singles
            ],
        )
    )  # fmt: skip
    return {
        "machine": info,
        "batch": result,
        "solve": [
            {"size": s["size"], "target_s": s["target_s"], **s["timing"].to_json(), "first": s["first"].to_json()}
            for s in singles
        ],
    }


def _met(measured: float, target: float) -> str:
    return "yes" if measured <= target else "no"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    payload = report(args)
    path = write_json("batch", {"arguments": vars(args), **payload})
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
