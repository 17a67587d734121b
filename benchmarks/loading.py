"""Board loading speed: ``solver.load_board`` on generated boards, this checkout against a baseline checkout.

Loading is half the cost of a small decision (``proliferate analyze``, the protocol), so it
is measured on its own: boards of 20 to 100,000 objects from :mod:`benchmarks.boards`
(plain, and with thresholds and replacement effects), as JSON text (the form files, lines
and requests arrive in) and as parsed JSON (a mapping), and the mix of 8-24-object boards
that :mod:`benchmarks.analysis_throughput` analyses; then ``proliferate analyze``'s work
per decision on one worker (:func:`solver.analysis.analyze.analyze_chunk` over chunks of
20-object record lines), and the part of it that is decoding the line and loading its board.
Each side runs in its own fresh process (the two checkouts both define the ``solver``
package), the sides alternate for ``--rounds`` rounds, and each figure is the fastest
sample of all rounds: on a shared machine the minimum is the best estimate of the intrinsic
cost.  Every figure is also given in ``u``, one ``gym.make("CartPole-v1")`` step timed in the
same process (:func:`benchmarks.common.cartpole_unit`; the lowest ``u`` of the rounds, as
the figures are the lowest samples).  The ``same`` column confirms both sides built
identical boards (a digest of every dumped board and its counter-kind columns).

    git worktree add /tmp/loader-base main
    python -m benchmarks.loading --baseline /tmp/loader-base
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZES = (20, 200, 2000, 100_000)
#: Records of this many objects for the analyze rows (the target is stated for 20-object records).
RECORD_OBJECTS = 20
ANALYZE_KEYS = ("decision_s", "decode_load_s")
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


#: The clocks a run can time with: wall-clock time, or the process's CPU time (what other processes on a shared
#: machine disturb least: ``--clock cpu``).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _per_item(
    fn: Any, items: Sequence[Any], samples: int, sample_seconds: float, clock: Any = time.perf_counter
) -> list[float]:
    """Samples of the time ``fn`` takes per item, each sample ~``sample_seconds`` long (at least one pass)."""
    start = clock()
    for item in items:
        fn(item)
    once = clock() - start
    loops = max(1, int(sample_seconds / max(once, 1e-9)))
    times = []
    for _ in range(samples):
        start = clock()
        for _ in range(loops):
            for item in items:
                fn(item)
        times.append((clock() - start) / (loops * len(items)))
    return times


def measure(
    path: Path, samples: int, sample_seconds: float, n_records: int, clock_name: str = "wall"
) -> dict[str, Any]:
    """Per case, per-board load samples (text and mapping) and a digest of the boards built; the analyze samples
    and the yardstick u, all on ``clock_name``'s clock (child process)."""
    from benchmarks.common import cartpole_unit
    from solver import load_board

    clock = CLOCKS[clock_name]
    unit = cartpole_unit(clock=clock)
    out: dict[str, Any] = {"cases": {}}
    written = json.loads(path.read_text())
    for case in written["cases"]:
        boards = case["boards"]
        texts = [json.dumps(data) for data in boards]
        digest = hashlib.sha256()
        for text in texts:
            board = load_board(text)
            digest.update(json.dumps([board.to_dict(), board.kinds], sort_keys=True).encode())
        out["cases"][case["label"]] = {
            "samples_s": _per_item(load_board, texts, samples, sample_seconds, clock),
            "mapping_samples_s": _per_item(load_board, boards, samples, sample_seconds, clock),
            "digest": digest.hexdigest(),
        }
    out["analyze"] = analyze_samples(written["records"][:n_records], samples, clock)
    again = cartpole_unit(clock=clock).median
    out["u_s"] = again if unit.median <= 0 else min(unit.median, again)
    return out


def analyze_samples(lines: list[str], samples: int, clock: Any = time.perf_counter) -> dict[str, list[float]]:
    """Per decision: ``analyze_chunk`` over chunks of 20-object record lines, and decoding + loading alone."""
    from solver.analysis.analyze import CHUNK_SIZE, Job, analyze_chunk
    from solver.analysis.grading import Thresholds
    from solver.analysis.records import parse_line, resolve_matrices

    chunks = [
        Job([("bench", i + j, line) for j, line in enumerate(lines[i : i + CHUNK_SIZE])], None, Thresholds())
        for i in range(0, len(lines), CHUNK_SIZE)
    ]
    analyze_chunk(chunks[0])  # warm: the first chunk compiles and caches what every later one reuses
    total, loading = [], []
    for _ in range(samples):
        start = clock()
        for job in chunks:
            analyze_chunk(job)
        total.append((clock() - start) / len(lines))
        start = clock()
        for line in lines:
            resolve_matrices(parse_line(line))
        loading.append((clock() - start) / len(lines))
    return {"decision_s": total, "decode_load_s": loading}


def run_side(
    checkout: Path, path: Path, samples: int, sample_seconds: float, n_records: int, clock: str = "wall"
) -> dict[str, Any]:
    """:func:`measure` in a fresh process importing ``solver`` from ``checkout`` (benchmarks from this one)."""
    from benchmarks.common import run_checkout

    command = [str(Path(__file__).resolve()), "--measure", str(path)]
    command += ["--samples", str(samples), "--sample-seconds", str(sample_seconds), "--records", str(n_records)]
    command += ["--clock", clock]
    result: dict[str, Any] = json.loads(run_checkout(checkout, command, ROOT))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT", help="the checkout to compare with")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="board sizes (objects)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per side (default 2)")
    parser.add_argument("--samples", type=int, default=5, help="samples per case per round (default 5)")
    parser.add_argument("--sample-seconds", type=float, default=0.05, help="target length of one sample")
    parser.add_argument("--records", type=int, default=1024, help="20-object records the analyze rows judge")
    parser.add_argument("--json", type=Path, default=None, help="where to write the JSON (default results/)")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="wall-clock (default) or CPU time, for u too"
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.samples, args.sample_seconds, args.records, args.clock)))
        return 0

    from benchmarks.common import Timing, checkout_commit, fmt_time, in_units, markdown_table, write_json

    sides = {"new": ROOT} | ({} if args.baseline is None else {"baseline": args.baseline.resolve()})
    all_cases = cases(args.sizes)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.json"
        # The records are made here, once, so both sides judge the same lines (written by this checkout).
        from benchmarks.analysis_throughput import records

        lines = [json.dumps(r) for r in records(args.records, seed=0, size=RECORD_OBJECTS)]
        path.write_text(json.dumps({"cases": all_cases, "records": lines}))
        runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        order = list(sides)
        for round_ in range(args.rounds):
            random.Random(round_).shuffle(order)
            for side in order:
                runs[side].append(
                    run_side(sides[side], path, args.samples, args.sample_seconds, args.records, args.clock)
                )

    units = {side: min(run["u_s"] for run in runs[side]) for side in sides}
    unit = {side: Timing((units[side],)) for side in sides}

    def shown(seconds: float, side: str) -> str:
        return f"{fmt_time(seconds)} ({in_units(seconds, unit[side])})"

    table = []
    results = []
    for case in all_cases:
        label = case["label"]
        best = {side: min(t for run in runs[side] for t in run["cases"][label]["samples_s"]) for side in sides}
        mapping = {
            side: min(t for run in runs[side] for t in run["cases"][label]["mapping_samples_s"]) for side in sides
        }
        digests = {run["cases"][label]["digest"] for side in sides for run in runs[side]}
        row: list[object] = [label, case["objects"], shown(best["new"], "new"), shown(mapping["new"], "new")]
        if "baseline" in sides:
            row = [label, case["objects"], shown(best["baseline"], "baseline"), *row[2:]]
            row += [f"{best['baseline'] / best['new']:.2f}x", "yes" if len(digests) == 1 else "NO"]
        table.append(row)
        results.append(
            {
                "label": label,
                "objects": case["objects"],
                "best_s": best,
                "best_mapping_s": mapping,
                "same": len(digests) == 1,
            }
        )
    headers = ["board", "objects", "text (new)", "mapping (new)"]
    if "baseline" in sides:
        headers = ["board", "objects", "text (baseline)", "text (new)", "mapping (new)", "speed-up (text)", "same"]
    print("## Board loading, per board (fastest sample; JSON text and parsed JSON)\n")
    print(markdown_table(headers, table))
    shown_units = ", ".join(f"{side} {fmt_time(units[side])}" for side in sides)
    print(f"\nclock: {args.clock}; u (one CartPole-v1 step, this run, on the same clock): {shown_units}")
    analyze = {
        side: {key: min(t for run in runs[side] for t in run["analyze"][key]) for key in ANALYZE_KEYS} for side in sides
    }
    print(f"\n## proliferate analyze, one worker, {RECORD_OBJECTS}-object records (per decision, fastest sample)\n")
    rows = [
        [side, shown(analyze[side]["decision_s"], side), f"{1 / analyze[side]['decision_s']:,.0f}",
         shown(analyze[side]["decode_load_s"], side)]
        for side in sides
    ]  # fmt: skip
    print(markdown_table(["checkout", "per decision", "decisions/s", "of which decode + load"], rows))
    big = [r for r in results if r["objects"] >= 100_000]
    small = {r["objects"]: r["best_s"]["new"] for r in results if r["label"].endswith("plain")}
    print(
        "\nTargets (issue 27): load_board of JSON text at most 3u / 20u for 20 / 200 objects, 0.2 s for 100,000; "
        "analyze at most 5u per decision."
    )
    for objects, limit in ((20, 3), (200, 20)):
        if objects in small:
            print(f"- {objects} objects: {in_units(small[objects], unit['new'])} (target {limit}u)")
    for r in big:
        print(f"- {r['label']}: {fmt_time(r['best_s']['new'])} (target 0.2 s)")
    print(f"- analyze: {in_units(analyze['new']['decision_s'], unit['new'])} per decision (target 5u)")
    commit = None
    if args.baseline is not None:
        commit = checkout_commit(args.baseline)
    payload = {"baseline_commit": commit, "clock": args.clock, "u_s": units, "cases": results, "analyze": analyze}
    target = write_json("loading", payload, args.json)
    print(f"\nwrote {target}")
    return 0 if all(r["same"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
