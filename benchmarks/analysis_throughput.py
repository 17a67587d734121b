"""Throughput of ``proliferate analyze``: decisions per second for 1, 2, ... workers on one generated file.

The input is a JSON Lines file of generated records (realistic mid-game boards from
:mod:`benchmarks.boards`, a random legal choice each) written once, then analysed through
the same pipeline the CLI runs (read lines, chunk, pool, aggregate; no printing), once per
worker count.  Figures are ratios against one worker measured in the same run; the check
column confirms every worker count produced the same results.  Peak RSS of the main
process shows that memory does not grow with the input (compare ``--decisions`` sizes).

    python -m benchmarks.analysis_throughput                 # 20,000 decisions, 1 and 2 workers
    python -m benchmarks.analysis_throughput --large         # 100,000 decisions
    python -m benchmarks.analysis_throughput --ray           # also on a local Ray of 1 and 2 CPUs (ray extra)

With ``--ray`` the table adds Ray's start-up (``ray.init`` of a local Ray, paid once per run)
and its throughput on the same input; the digests confirm the Ray runs judged exactly what
the local runs judged.

With ``--baseline CHECKOUT`` the same benchmark is first run, one worker, from another
checkout (e.g. ``git worktree add /tmp/base main`` before a change) as a subprocess on the
same generated input; ratios are then against that code path measured in the same run, and
the results column confirms it judged every record exactly alike.

    python -m benchmarks.analysis_throughput --workers 1 --baseline /tmp/base
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import resource
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.boards import BoardSpec, generate
from benchmarks.common import checkout_commit, markdown_table, run_checkout, write_json
from solver.analysis.analyze import ChunkRunner, DecisionResult, Item, Summary, analyze_items
from solver.analysis.records import LineProblem, iter_lines

DISTINCT_BOARDS = 400


def records(n: int, seed: int, size: int | None = None) -> Iterator[dict[str, Any]]:
    """``n`` records over :data:`DISTINCT_BOARDS` boards (8 to 24 objects, or ``size``; all variants), random legal
    choices."""
    rng = random.Random(seed)
    boards = []
    for i in range(min(n, DISTINCT_BOARDS)):
        variant = rng.choices(("duel", "free_for_all", "two_headed_giant"), weights=(6, 2, 2))[0]
        objects = rng.randint(8, 24) if size is None else size
        spec = BoardSpec(objects, variant, proliferates=rng.choice((1, 1, 1, 2)), extras=i % 3 == 0, seed=i)
        boards.append(generate(spec))
    for i in range(n):
        board = boards[i % len(boards)]
        chosen, heads = [], set()
        teams = {p["id"]: p.get("team", p["id"]) for p in board["players"]}
        for obj in board["players"] + board["permanents"]:
            if not any(obj["counters"].values()) or obj.get("phased_out") or rng.random() < 0.4:
                continue
            team = teams.get(obj["id"])
            if team is not None:  # one head per 2HG team, so no poison recipient has to be named (701.34b)
                if team in heads:
                    continue
                heads.add(team)
            chosen.append(obj["id"])
        yield {
            "game": f"g{i // 12}",
            "turn": i % 12 + 1,
            "decider": board["proliferator"],
            "board": board,
            "chosen": chosen,
        }


def items(path: Path) -> Iterator[Item | LineProblem]:
    for item in iter_lines(path):
        if isinstance(item, LineProblem):
            yield item
        else:
            yield str(path), item[0], item[1]


def run(path: Path, workers: int, runner: ChunkRunner | None = None) -> tuple[float, int, int, str]:
    """Seconds, decisions, problems, and a digest of the results (to check every worker count agrees)."""
    digest = hashlib.sha256()
    summary, problems = Summary(), 0
    start = time.perf_counter()
    for result in analyze_items(items(path), workers=workers, runner=runner):
        if isinstance(result, DecisionResult):
            summary.add(result)
            digest.update(f"{result.index}:{result.regret}:{result.grade}:{result.comment}".encode())
        else:
            problems += 1
    return time.perf_counter() - start, summary.decisions, problems, digest.hexdigest()[:12]


def run_ray(path: Path, workers: int) -> tuple[float, float, int, int, str]:
    """Like :func:`run` on a local Ray of ``workers`` CPUs started for it; also returns Ray's start-up seconds."""
    from solver.analysis.distributed import ray_runner

    start = time.perf_counter()
    with ray_runner(workers=workers) as runner:
        startup = time.perf_counter() - start
        seconds, decisions, problems, digest = run(path, workers, runner)
    return startup, seconds, decisions, problems, digest


def run_baseline(checkout: Path, n: int, seed: int) -> dict[str, Any]:
    """This benchmark's one-worker run from ``checkout`` (its own code, same input), in a subprocess."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "baseline.json"
        command = ["-m", "benchmarks.analysis_throughput", "--workers", "1"]
        command += ["--decisions", str(n), "--seed", str(seed), "--json", str(out)]
        run_checkout(checkout, command)
        first: dict[str, Any] = json.loads(out.read_text())["runs"][0]
    commit = checkout_commit(checkout)
    return {**first, "backend": "baseline", "commit": commit or None}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--decisions", type=int, default=20_000, help="records to analyse (default 20,000)")
    parser.add_argument("--large", action="store_true", help="100,000 decisions (overrides --decisions)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    parser.add_argument(
        "--ray", type=int, nargs="*", default=None, metavar="N", help="also on a local Ray of N CPUs (default: 1 2)"
    )
    parser.add_argument(
        "--baseline", type=Path, metavar="CHECKOUT", help="also run one worker from this checkout; ratios against it"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write the results here instead of benchmarks/results/")
    args = parser.parse_args(argv)
    n = 100_000 if args.large else args.decisions
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for rec in records(n, args.seed):
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
        size_mb = path.stat().st_size / 1e6
        results = [] if args.baseline is None else [run_baseline(args.baseline.resolve(), n, args.seed)]
        plan = [("local", w) for w in args.workers]
        plan += [("ray", w) for w in ([1, 2] if args.ray == [] else args.ray or [])]
        for backend, workers in plan:
            startup = 0.0
            if backend == "ray":
                startup, seconds, decisions, problems, digest = run_ray(path, workers)
            else:
                seconds, decisions, problems, digest = run(path, workers)
            rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            results.append(
                {
                    "backend": backend,
                    "workers": workers,
                    "startup_s": startup,
                    "seconds": seconds,
                    "decisions": decisions,
                    "problems": problems,
                    "decisions_per_s": decisions / seconds,
                    "digest": digest,
                    "peak_rss_main_mb": rss_mb,
                }
            )
    base = results[0]["decisions_per_s"]
    rows = [
        [
            r["backend"],
            r["workers"],
            r["decisions"],
            f"{r['startup_s']:.1f} s" if r["backend"] == "ray" else "-",
            f"{r['seconds']:.1f} s",
            f"{r['decisions_per_s']:,.0f}",
            f"{r['decisions_per_s'] / base:.2f}x",
            f"{r['peak_rss_main_mb']:.0f} MB",
            "same" if r["digest"] == results[0]["digest"] else "DIFFERENT",
        ]
        for r in results
    ]
    print(f"## analyze throughput: {n:,} decisions ({size_mb:.1f} MB of JSON Lines)\n")
    baseline = f"vs {results[0]['backend']} {results[0]['workers']}"
    headers = ["backend", "workers", "decisions", "start-up", "time", "decisions/s", baseline, "peak RSS", "results"]
    print(markdown_table(headers, rows))
    target = write_json("analysis_throughput", {"decisions": n, "input_mb": size_mb, "runs": results}, args.json)
    print(f"\nwrote {target}")
    return 0 if all(r["digest"] == results[0]["digest"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
