"""Peak memory of one request at the board limits (docs/limits.md): load a JSON file and solve it.

Each board is written to a file first, then loaded and solved in a fresh process, whose
peak resident set size is its ``VmHWM`` (Linux; ``getrusage`` would also count the memory
of the parent it was forked from), its allocator set up as ``proliferate`` sets it up
(:func:`solver.allocator.steady_mmap_threshold`); the baseline is the same process on the classic example
board, measured in the same run.  Usage::

    python -m benchmarks.memory_limits            # every board (about a minute)
    python -m benchmarks.memory_limits --quick    # the smaller ones
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from solver import limits


def _wide(objects: int, kinds: int, per_object: int) -> dict[str, Any]:
    """``objects`` objects with ``per_object`` counters each, spread over ``kinds`` distinct arena kinds."""
    permanents = [
        {
            "id": f"p{i}",
            "controller": "alice" if i % 2 else "bob",
            "types": ["artifact"],
            "counters": {f"arena:{(i * per_object + k) % kinds}": 1 for k in range(per_object)},
        }
        for i in range(objects - 2)
    ]
    return {"variant": "duel", "proliferator": "alice", "players": [{"id": "alice"}, {"id": "bob"}],
            "permanents": permanents}  # fmt: skip


def _boards(quick: bool) -> list[tuple[str, Any]]:
    classic = json.loads(resources.files("solver.examples").joinpath("classic.json").read_text("utf-8"))
    out: list[tuple[str, Any]] = [("classic example (baseline)", classic)]
    out.append(("2,000 objects x 1,000 kinds, 30 each (protocol defaults)", _wide(2_000, 1_000, 30)))
    out.append((f"20,000 objects x 200 kinds = {limits.MAX_CELLS:,} cells", _wide(20_000, 200, 10)))
    if not quick:
        from benchmarks.boards import BoardSpec, generate

        out.append(("100,000-object benchmark board (20 kinds)", generate(BoardSpec(100_000))))
        kinds = limits.MAX_CELLS // limits.MAX_OBJECTS
        out.append(
            (f"{limits.MAX_OBJECTS:,} objects x {kinds} kinds (both limits)", _wide(limits.MAX_OBJECTS, kinds, 2))
        )
    return out


def _measure(path: str) -> None:
    import solver
    from solver.allocator import steady_mmap_threshold

    steady_mmap_threshold()  # the process as ``proliferate`` sets it up (solver.cli.main)

    started = time.perf_counter()
    board = solver.load_board(path)
    solver.solve(board)
    elapsed = time.perf_counter() - started
    status = Path("/proc/self/status").read_text("ascii")
    peak_mb = int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1]) / 1024
    print(json.dumps({"peak_mb": peak_mb, "seconds": elapsed, "cells": board.counts.size}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the two largest boards")
    parser.add_argument("--measure", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.measure)
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, board in _boards(args.quick):
            path = Path(tmp) / "board.json"
            path.write_text(json.dumps(board), "utf-8")
            size_mb = path.stat().st_size / 1e6
            del board
            result = subprocess.run(
                [sys.executable, "-m", "benchmarks.memory_limits", "--measure", str(path)],
                check=True,
                capture_output=True,
                text=True,
                env=os.environ,
            )
            rows.append((label, size_mb, json.loads(result.stdout)))
    base = rows[0][2]["peak_mb"]
    print(f"{'board':58} {'JSON MB':>8} {'cells':>10} {'peak MB':>8} {'- base':>8} {'x base':>7} {'s':>6}")
    for label, size_mb, r in rows:
        print(
            f"{label:58} {size_mb:8.1f} {r['cells']:10,} {r['peak_mb']:8.0f} {r['peak_mb'] - base:8.0f} "
            f"{r['peak_mb'] / base:7.1f} {r['seconds']:6.2f}"
        )


if __name__ == "__main__":
    main()
