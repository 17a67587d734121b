"""Many small decisions: ``solve_many`` / ``decide_many`` against a loop of ``solve``: ``python -m benchmarks.batch``.

Boards of ``--size`` objects (default 20, a real game's proliferate) in every variant,
1-2 proliferates, half with thresholds and replacement effects, drawn by
:mod:`benchmarks.boards` and loaded once (loading is not timed; each board's cached
replacement-effect gains are warmed first, for every path alike).  Reported per path:
decisions per second (median of repeats, with min-max) and the ratio to the baseline, a
Python loop of ``solver.solve`` timed in the same run on a sample of the same boards.  Then
``solver.solve`` p50 on one board of 50 and one of 200 objects against its targets, and the
p50 of the first solve of freshly loaded boards (what a caller with a new board each time pays).
Then where ``decide_many``'s time goes per board (:func:`stages`): laying the boards out
(``solver.kernels.stack``), the compiled decision (``solver.kernels.decide_layout``) and the
Python around them.  Last, the given-choice calls the environments and the analysis make
(:func:`given`): ``score_many`` (each board's best choice valued) and ``settle_many`` (the
counters after it settled), per board, with the share of laying the boards out; every
per-board figure also as a multiple of u (one CartPole-v1 step, timed in the same run).

With ``--baseline CHECKOUT`` it instead compares this checkout's code with another's on the
same boards (generated here, written to a file, loaded by each side): ``decide_many`` and
``solve`` at 50 and 200 objects run in fresh processes, one per side, the sides alternating
for ``--rounds`` rounds, and each figure is the fastest sample (on a shared machine the
minimum is the best estimate of the intrinsic cost); its last line says whether both sides
decided every board alike (a digest of values, chosen rows and recipients; exit status 1 if not).

    git worktree add /tmp/batch-base main
    python -m benchmarks.batch --baseline /tmp/batch-base --boards 4000
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import solver
from solver import kernels
from solver.batch import chunk_bounds, decide_many, score_many, settle_many, solve_many
from solver.board import Board
from solver.effects import gain
from solver.policy import DEFAULT_POLICY
from solver.rules import counters_after

from .boards import VARIANTS, BoardSpec, generate, players_of
from .common import (
    Timing,
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

__all__ = ["main", "measure"]

#: Targets of issue 12 (decisions per second; seconds per solve).
TARGET_RATE = 50_000
TARGET_SOLVE = {50: 100e-6, 200: 200e-6}


ROOT = Path(__file__).resolve().parent.parent


def board_data(n: int, size: int, seed: int = 0) -> list[dict[str, Any]]:
    """The board-JSON dicts of the batch: every variant, 1-2 proliferates, plain and with extras, in turn."""
    specs = itertools.cycle(itertools.product(VARIANTS, (1, 2), (False, True)))
    return [
        generate(BoardSpec(size, variant, proliferates, extras, seed + i))
        for i, (variant, proliferates, extras) in zip(range(n), specs, strict=False)
    ]


def loaded(data: Sequence[dict[str, Any]]) -> list[Board]:
    out = []
    for item in data:
        board = solver.load_board(item)
        _ = gain(board), board.rounds, board.is_ally  # cached per board, as a caller reusing boards has them
        out.append(board)
    return out


def boards(n: int, size: int, seed: int = 0) -> list[Board]:
    return loaded(board_data(n, size, seed))


def measure(items: Sequence[Board], size: int, repeats: int, loop_sample: int) -> dict[str, Any]:
    n = len(items)
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


def _clock(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def stages(items: Sequence[Board], repeats: int) -> dict[str, Any]:
    """Where ``decide_many``'s time goes: the layout, the compiled decision and the rest, per board (medians).

    The boards are cut into the chunks ``decide_many`` decides (:func:`~solver.batch.chunk_bounds`,
    in input order) and each stage is timed over all the chunks, the stages taking
    turns within each repeat so they share the machine's drift: the whole call,
    ``solver.kernels.stack`` alone (the layout), and ``solver.kernels.decide_layout`` on the
    chunks' layouts built beforehand (the compiled call).  The rest (the Python around them:
    checking the inputs, the arrays of :class:`~solver.batch.BatchDecisions`) is what remains.
    """
    chunks = [items[i:j] for i, j in chunk_bounds(items)]
    layouts = [kernels.stack(chunk, DEFAULT_POLICY) for chunk in chunks]
    samples: dict[str, list[float]] = {"whole": [], "layout": [], "decision": []}
    for _ in range(repeats):
        samples["whole"].append(_clock(lambda: [decide_many(chunk) for chunk in chunks]))
        samples["layout"].append(_clock(lambda: [kernels.stack(chunk, DEFAULT_POLICY) for chunk in chunks]))
        samples["decision"].append(_clock(lambda: [kernels.decide_layout(layout) for layout in layouts]))
    median = {stage: statistics.median(times) for stage, times in samples.items()}
    median["rest"] = median["whole"] - median["layout"] - median["decision"]
    return {
        "boards": len(items),
        "per_board_s": {stage: median[stage] / len(items) for stage in ("layout", "decision", "rest", "whole")},
        "rate_without_layout": len(items) / (median["whole"] - median["layout"]),
        "samples_s": samples,
    }


def given(items: Sequence[Board], repeats: int) -> dict[str, Any]:
    """``score_many`` and ``settle_many`` on the boards, per board, and the share of laying them out (medians).

    Each board's choice is its best (``decide_many``, worked out once beforehand), scored by
    ``score_many``; ``settle_many`` settles the counters after it (``counters_after``, also
    beforehand).  Both lay the boards out in chunks (:func:`~solver.batch.chunk_bounds`) and make one
    compiled call per chunk; ``solver.kernels.stack`` over the same chunks is timed alone, the
    three taking turns within each repeat.
    """
    best = decide_many(items)
    choices = [best.matrices(b) for b in range(len(items))]
    counts = [counters_after(board, *choice) for board, choice in zip(items, choices, strict=True)]
    chunks = [items[i:j] for i, j in chunk_bounds(items)]
    score_many(items[:10], choices[:10])  # the kernels loaded before anything is timed
    settle_many(items[:10], counts[:10])
    samples: dict[str, list[float]] = {"score_many": [], "settle_many": [], "layout": []}
    for _ in range(repeats):
        samples["score_many"].append(_clock(lambda: score_many(items, choices)))
        samples["settle_many"].append(_clock(lambda: settle_many(items, counts)))
        samples["layout"].append(_clock(lambda: [kernels.stack(chunk, DEFAULT_POLICY) for chunk in chunks]))
    per = {stage: statistics.median(times) / len(items) for stage, times in samples.items()}
    return {"boards": len(items), "per_board_s": per, "samples_s": samples}


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


#: One side of ``--baseline``, run in a fresh process whose ``solver`` is that side's checkout:
#: the fastest ``decide_many`` of the batch, the median ``solve()`` of each single board (the
#: median of those per size), and a digest of every decision (both sides must decide alike).
_SIDE_PROBE = """
import hashlib, json, statistics, sys, time
import solver
from solver.batch import decide_many
try:
    from solver.effects import gain as _gain
except ImportError:  # a baseline from before the gains moved out of Board (issue 26 #7)
    def _gain(board): return board.gain
cases, samples = json.load(open(sys.argv[1])), int(sys.argv[2])
def loaded(data):
    boards = [solver.load_board(item) for item in data]
    for board in boards:
        _ = _gain(board), board.rounds, board.is_ally  # as the default run warms them
    return boards
items = loaded(cases["batch"])
batch = decide_many(items)
digest = hashlib.sha256(b"".join(a.tobytes() for a in (batch.values, batch.chosen, batch.recipients)))
many = []
for _ in range(samples):
    start = time.perf_counter()
    decide_many(items)
    many.append(time.perf_counter() - start)
out = {"decide_many_s": min(many), "digest": digest.hexdigest()}
for size, data in cases["single"].items():
    medians = []
    for board in loaded(data):
        solver.solve(board)
        times = []
        for _ in range(20 * samples):
            start = time.perf_counter()
            solver.solve(board)
            times.append(time.perf_counter() - start)
        medians.append(statistics.median(times))
    out[f"solve_{size}_s"] = statistics.median(medians)
print(json.dumps(out))
"""


def run_side(checkout: Path, path: Path, samples: int) -> dict[str, Any]:
    """:data:`_SIDE_PROBE` in a fresh process importing ``solver`` from ``checkout``."""
    result: dict[str, Any] = json.loads(run_checkout(checkout, ["-c", _SIDE_PROBE, str(path), str(samples)]))
    return result


def compare(args: argparse.Namespace) -> int:
    """This checkout against ``args.baseline`` on the same boards, sides alternating (see the module docstring)."""
    sides = {"baseline": args.baseline.resolve(), "new": ROOT}
    cases = {
        "batch": board_data(args.boards, args.size),
        "single": {size: [generate(BoardSpec(size, v, 1, True, 0)) for v in VARIANTS] for size in (50, 200)},
    }
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "boards.json"
        path.write_text(json.dumps(cases))
        order = list(sides)
        for round_ in range(args.rounds):
            random.Random(round_).shuffle(order)
            for side in order:
                runs[side].append(run_side(sides[side], path, args.repeats))
    same = len({run["digest"] for side in sides for run in runs[side]}) == 1
    best = {
        side: {key: min(run[key] for run in runs[side]) for key in runs[side][0] if key.endswith("_s")}
        for side in sides
    }
    old, new = best["baseline"]["decide_many_s"], best["new"]["decide_many_s"]
    rows = [[f"decide_many, {args.boards:,} boards of {args.size} objects", f"{args.boards / old:,.0f}/s",
             f"{args.boards / new:,.0f}/s", f"{old / new:.2f}×"]]  # fmt: skip
    for size in (50, 200):
        old, new = best["baseline"][f"solve_{size}_s"], best["new"][f"solve_{size}_s"]
        rows.append([f"solve(), {size} objects (p50)", fmt_time(old), fmt_time(new), f"{old / new:.2f}×"])
    commit = checkout_commit(args.baseline)
    print(f"\n## Batched decisions against {commit or args.baseline} (fastest of {args.rounds} rounds per side)\n")
    print(markdown_table(["measure", "baseline", "new", "speed-up"], rows))
    print(f"\nsame decisions on both sides: {'yes' if same else 'NO'}")
    arguments = {**vars(args), "baseline": str(args.baseline), "json": None}
    payload = {"arguments": arguments, "machine": machine(), "baseline_commit": commit, "best_s": best, "runs": runs}
    path = write_json("batch_baseline", {**payload, "same": same}, args.json)
    print(f"\nwrote {path}")
    return 0 if same else 1


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.batch", description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--loop-sample", type=int, default=1_000, help="boards in the solve() loop baseline")
    parser.add_argument("--solve-runs", type=int, default=100, help="solve() calls per variant for the p50")
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT", help="compare with another checkout's code")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per side with --baseline")
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default results/)")
    args = parser.parse_args(argv)
    for name in ("boards", "repeats", "loop_sample", "solve_runs", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    players = max(len(players_of(variant)) for variant in VARIANTS)
    if args.size <= players:
        parser.error(f"--size must exceed the {players} players of the largest variant")
    return args


def report(args: argparse.Namespace) -> dict[str, Any]:
    items = boards(args.boards, args.size)
    result = measure(items, args.size, args.repeats, args.loop_sample)
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
    unit = cartpole_unit()
    split = stages(items, args.repeats)
    whole = split["per_board_s"]["whole"]
    what = {
        "layout": "layout (`solver.kernels.stack`: every board's arrays joined, the policy's tables)",
        "decision": "compiled decision (`solver.kernels.decide_layout`: tables, units, DP, tie-break)",
        "rest": "the rest (inputs checked, the result's arrays)",
        "whole": "whole `decide_many`",
    }
    first = next(chunk_bounds(items), (0, 0))
    per_chunk = first[1] - first[0]  # boards of the first chunk
    print(f"\n## Where `decide_many`'s time goes, per board (chunks of {per_chunk}, median of {args.repeats})\n")
    print(
        markdown_table(
            ["stage", "per board", "in u", "share"],
            [
                [what[stage], fmt_time(t), in_units(t, unit), f"{t / whole:.0%}"]
                for stage, t in split["per_board_s"].items()
            ],
        )
    )
    print(f"\nwith the layout free: {split['rate_without_layout']:,.0f} decisions/s (target {TARGET_RATE:,}/s)")
    calls = given(items, args.repeats)
    per = calls["per_board_s"]
    u_text = fmt_time(unit.median)
    print(f"\n## Given choices, per board (chunks of {per_chunk}, median of {args.repeats}; u = {u_text})\n")
    print(
        markdown_table(
            ["call", "per board", "in u", "of which laying out"],
            [
                ["`score_many` (each board's best choice)", fmt_time(per["score_many"]),
                 in_units(per["score_many"], unit), f"{per['layout'] / per['score_many']:.0%}"],
                ["`settle_many` (the counters after it)", fmt_time(per["settle_many"]),
                 in_units(per["settle_many"], unit), f"{per['layout'] / per['settle_many']:.0%}"],
            ],
        )
    )  # fmt: skip
    return {
        "machine": info,
        "unit": unit.to_json(),
        "batch": result,
        "stages": split,
        "given": calls,
        "solve": [
            {"size": s["size"], "target_s": s["target_s"], **s["timing"].to_json(), "first": s["first"].to_json()}
            for s in singles
        ],
    }


def _met(measured: float, target: float) -> str:
    return "yes" if measured <= target else "no"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.baseline is not None:
        return compare(args)
    payload = report(args)
    path = write_json("batch", {"arguments": {**vars(args), "json": None}, **payload}, args.json)
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
