"""Warm round trips through ``proliferate serve``: the whole reply against a reply with only the answer.

One server process (stdio, as engines run it), a handshake and warm-up solves, then, per board,
the median round trip of: a ``solve`` with the full reply (the baseline, as before ``fields``),
a ``solve`` with ``"fields": ["chosen", "poison_recipients", "value", "status"]``, and a ``ping``
(the transport's floor); the same short solve with msgspec's JSON turned off (a second server, and
this client, with ``solver.jsoncodec.FAST`` off: the standard library's JSON on both sides); plus,
in process for reference, loading and solving (what the server must do per request) and
solving a loaded board.  Ratios are against the full reply measured in the same run, since the
machine is shared.

Calls are timed back to back, as an engine's loop makes them, and taking turns (one sample
of each per round, :func:`~benchmarks.common.time_round_robin`), so that every row sees the
same drift of the machine's load (the in-process rows too: they run between round trips, so
they start with caches as cold as the server's, and read higher than a loop of ``solve``
alone, as in ``benchmarks.batch``).  A full collection before each call, as the benchmarks do
for large boards, empties CPython's free lists and the caches of this (client) process,
which adds a few tenths of a millisecond to every round trip that no engine pays; the short
solve is also timed that way, in its own block, for comparison with the figures measured so
before 2026-12-01.

    python -m benchmarks.protocol_latency [--sizes 50 200 2000] [--repeats 200]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import solver
from benchmarks.boards import BoardSpec, generate
from benchmarks.common import Timing, markdown_table, ratio, time_it, time_round_robin, write_json
from solver import jsoncodec
from solver.protocol.client import EngineClient

ANSWER_ONLY = ("chosen", "poison_recipients", "value", "status")
#: The target of issue 11: a 200-object round trip with only the answer.
TARGET_S = 0.003
#: ``proliferate serve`` with the standard library's JSON (``solver.jsoncodec.FAST`` off).
STDLIB_SERVE = [
    sys.executable,
    "-c",
    "from solver import jsoncodec; jsoncodec.FAST = False; from solver.cli import main; "
    "raise SystemExit(main(['serve']))",
]


@contextmanager
def stdlib_json() -> Iterator[None]:
    """This process's JSON as the standard library's (what :data:`STDLIB_SERVE` is for the server)."""
    jsoncodec.FAST = False
    try:
        yield
    finally:
        jsoncodec.FAST = True


def measure(sizes: Sequence[int], repeats: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with EngineClient() as engine, EngineClient(STDLIB_SERVE) as plain:
        engine.hello()
        plain.hello()
        for size in sizes:
            data = generate(BoardSpec(size=size, extras=True, seed=1))
            board = solver.load_board(data)

            def full(data: dict[str, Any] = data) -> dict[str, Any]:
                return engine.submit_solve(data).result()

            def answer(data: dict[str, Any] = data) -> dict[str, Any]:
                return engine.submit_solve(data, fields=ANSWER_ONLY).result()

            def answer_stdlib(data: dict[str, Any] = data) -> dict[str, Any]:
                with stdlib_json():
                    return plain.submit_solve(data, fields=ANSWER_ONLY).result()

            def local(board: solver.Board = board) -> solver.Decision:
                return solver.solve(board)

            def loaded(data: dict[str, Any] = data) -> solver.Decision:
                return solver.solve(solver.load_board(data))

            calls = {"full": full, "answer": answer, "answer_stdlib": answer_stdlib, "ping": engine.ping}
            timed = time_round_robin({**calls, "in_process": local, "load_solve": loaded}, repeats, warmup=5)
            collected, _ = time_it(answer, repeats, warmup=5)  # the old method, in its own block
            reply, short_reply, stdlib_reply = (timed[name][1] for name in ("full", "answer", "answer_stdlib"))
            decision = timed["in_process"][1]
            if not reply["value"] == short_reply["value"] == stdlib_reply["value"] == decision.value:
                raise AssertionError("the replies and the in-process solve disagree")
            rows.append(
                {"size": size, "answer_collected": collected} | {name: timing for name, (timing, _) in timed.items()}
            )
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    out = []
    for row in rows:
        full: Timing = row["full"]
        for what in ("full", "answer", "answer_collected", "answer_stdlib", "ping", "load_solve", "in_process"):
            timing: Timing = row[what]
            label = {
                "full": "solve, full reply (baseline)",
                "answer": f"solve, fields={list(ANSWER_ONLY)}",
                "answer_collected": "the same, a full collection forced before each (as timed before 2026-12-01)",
                "answer_stdlib": "the same, standard library's JSON (msgspec's off)",
                "ping": "ping",
                "load_solve": "load_board + solve in process (the server's floor)",
                "in_process": "solver.solve in process, board loaded",
            }[what]
            out.append([f"{row['size']} duel +thr/fx", label, timing.show(), ratio(timing.median, full.median)])
    return markdown_table(["board", "round trip", "median [min-max]", "vs full reply"], out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.protocol_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 2000])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--json", type=Path, help="where to write the results (default benchmarks/results/)")
    args = parser.parse_args(argv)
    rows = measure(args.sizes, args.repeats)
    print(f"## Protocol round trips (stdio, warm; JSON: {jsoncodec.name()})\n")
    print(table(rows))
    at_200 = [row for row in rows if row["size"] == 200]
    if at_200:
        for what, how in (("answer", jsoncodec.name()), ("answer_stdlib", "json (stdlib)")):
            median = at_200[0][what].median
            verdict = "met" if median <= TARGET_S else "missed"
            ms = median * 1000
            print(f"\nTarget: a 200-object round trip, only the answer, <= 3 ms ({how}): {ms:.2f} ms, {verdict}.")
    payload = {
        "rows": [{k: (v.to_json() if isinstance(v, Timing) else v) for k, v in row.items()} for row in rows],
        "fields": list(ANSWER_ONLY),
        "json": jsoncodec.name(),
    }
    write_json("protocol_latency", payload, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
