"""Board loading speed: ``solver.load_board`` on generated boards, this checkout against a baseline checkout.

Loading is half the cost of a small decision (``proliferate analyze``, the protocol), so it
is measured on its own: boards of 20 to 2,000 objects from :mod:`benchmarks.boards`
(plain, and with thresholds and replacement effects), and the mix of 8-24-object boards
that :mod:`benchmarks.analysis_throughput` analyses.  Each side runs in its own fresh
process (the two checkouts both define the ``solver`` package), the sides alternate for
``--rounds`` rounds, and each figure is the fastest sample of all rounds: on a shared
machine the minimum is the best estimate of the intrinsic cost.  The ``same`` column
confirms both sides built identical boards (a digest of every dumped board and its
counter-kind columns).

    git worktree add /tmp/loader-base main
    python -m benchmarks.loading --baseline /tmp/loader-base
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZES = (20, 60, 200, 2000)
#: Boards in the analysis mix (as many distinct boards as analysis_throughput uses).
MIX_BOARDS = 400


def cases(sizes: Sequence[int]) -> list[dict[str, Any]]:
    """Every case: a label and the boards (JSON dicts) one sample loads."""
    from benchmarks.analysis_throughput import records
    from benchmarks.boards import BoardSpec, generate

    out = []
    for size in sizes:
        for extras in (False, True):
            spec = BoardSpec(size, "duel", extras=extras)
            out.append({"label": spec.label, "objects": size, "boards": [generate(spec)]})
    mix = []
    seen: set[int] = set()
    for record in records(MIX_BOARDS, seed=0):
        board = record["board"]
        if id(board) not in seen:
            seen.add(id(board))
            mix.append(board)
    objects = sum(len(b["players"]) + len(b["permanents"]) for b in mix) / len(mix)
    out.append({"label": f"analysis mix ({len(mix)} boards)", "objects": round(objects, 1), "boards": mix})
    return out


def measure(path: Path, samples: int, sample_seconds: float) -> dict[str, Any]:
    """Per case, the fastest and median per-board load time, and a digest of the boards built (child process)."""
    from solver import load_board

    out: dict[str, Any] = {}
    for case in json.loads(path.read_text()):
        boards = case["boards"]
        digest = hashlib.sha256()
        for data in boards:
            board = load_board(data)
            digest.update(json.dumps([board.to_dict(), board.kinds], sort_keys=True).encode())
        start = time.perf_counter()
        for data in boards:
            load_board(data)
        once = time.perf_counter() - start
        loops = max(1, int(sample_seconds / max(once, 1e-9)))
        times = []
        for _ in range(samples):
            start = time.perf_counter()
            for _ in range(loops):
                for data in boards:
                    load_board(data)
            times.append((time.perf_counter() - start) / (loops * len(boards)))
        out[case["label"]] = {"samples_s": times, "digest": digest.hexdigest()}
    return out


def run_side(checkout: Path, path: Path, samples: int, sample_seconds: float) -> dict[str, Any]:
    """:func:`measure` in a fresh process importing ``solver`` from ``checkout``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", str(path)]
    command += ["--samples", str(samples), "--sample-seconds", str(sample_seconds)]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(command, cwd=checkout, env=env, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT", help="the checkout to compare with")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="board sizes (objects)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per side (default 2)")
    parser.add_argument("--samples", type=int, default=5, help="samples per case per round (default 5)")
    parser.add_argument("--sample-seconds", type=float, default=0.05, help="target length of one sample")
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default results/)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.samples, args.sample_seconds)))
        return 0

    from benchmarks.common import fmt_time, markdown_table, write_json

    sides = {"new": ROOT} | ({} if args.baseline is None else {"baseline": args.baseline.resolve()})
    all_cases = cases(args.sizes)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.json"
        path.write_text(json.dumps(all_cases))
        runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        order = list(sides)
        for round_ in range(args.rounds):
            random.Random(round_).shuffle(order)
            for side in order:
                runs[side].append(run_side(sides[side], path, args.samples, args.sample_seconds))

    table = []
    results = []
    for case in all_cases:
        label = case["label"]
        best = {side: min(t for run in runs[side] for t in run[label]["samples_s"]) for side in sides}
        digests = {run[label]["digest"] for side in sides for run in runs[side]}
        row: list[object] = [label, case["objects"], fmt_time(best["new"])]
        if "baseline" in sides:
            row = [label, case["objects"], fmt_time(best["baseline"]), fmt_time(best["new"])]
            row += [f"{best['baseline'] / best['new']:.2f}x", "yes" if len(digests) == 1 else "NO"]
        table.append(row)
        results.append({"label": label, "objects": case["objects"], "best_s": best, "same": len(digests) == 1})
    headers = ["board", "objects", "load (new)"]
    if "baseline" in sides:
        headers = ["board", "objects", "load (baseline)", "load (new)", "speed-up", "same"]
    print("## Board loading, per board (fastest sample)\n")
    print(markdown_table(headers, table))
    commit = None
    if args.baseline is not None:
        commit = subprocess.run(
            ["git", "-C", str(args.baseline), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    target = write_json("loading", {"baseline_commit": commit, "cases": results}, args.json)
    print(f"\nwrote {target}")
    return 0 if all(r["same"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
