"""Warm round trips through ``proliferate serve``, in units of ``u``, and where the time goes.

One server process (stdio, as engines run it), a handshake and warm-up solves, then, per board,
the median round trip of: a ``solve`` with ``"fields": ["chosen", "poison_recipients", "value",
"status"]`` (the row of issue 27's targets), a ``solve`` with the full reply, and a ``ping`` (the
transport's floor).  Between the round trips, in this process, the four stages the server runs
for the short solve are timed one by one on the same request line: **decode** (the request line
to its Structs, :func:`solver.protocol.messages.read_request`: msgspec's parse and type checks,
the board included), **load** (the checks a type cannot state and the Board,
:func:`solver.load_board` of the decoded ``BoardStruct``), **solve** (:func:`solver.solve` and the
decision's JSON for those fields, on a Board loaded fresh for each sample, as the server's is:
a Board keeps what its first solve works out) and **encode** (the ``Result`` Struct to its line,
:func:`~solver.protocol.messages.encode`).  The **hand-over** from the server's reading thread to
a pooled worker is the server's own ``timing.queued_ms``, read from the replies of one more call
taking turns with the others (the short solve asking for ``timing`` too).  What the round trip
adds to the sum of those five is the pipe both ways and the client's own encoding and decoding.

Every figure is also a multiple of ``u``, one ``env.step`` of ``gymnasium.make("CartPole-v1")``
timed in the same run (:func:`benchmarks.common.cartpole_unit`), since the machine is shared.
Calls are timed back to back, taking turns (one sample of each per round,
:func:`~benchmarks.common.time_round_robin`), so every row sees the same drift of the load.

    python -m benchmarks.protocol_latency [--sizes 20 200 2000] [--repeats 200]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import solver
from benchmarks.boards import BoardSpec, generate
from benchmarks.common import Timing, cartpole_unit, in_units, markdown_table, time_round_robin, write_json
from solver import jsoncodec
from solver.protocol.client import EngineClient
from solver.protocol.messages import Result, Solve, encode, read_request

ANSWER_ONLY = ("chosen", "poison_recipients", "value", "status")
#: Issue 27's targets for the round trip with ``fields``, in u, by board size.
TARGET_U = {20: 20, 200: 50}
_STAGES = ("decode", "load", "solve", "encode", "handover")


def measure(sizes: Sequence[int], repeats: int) -> tuple[list[dict[str, Any]], Timing]:
    rows: list[dict[str, Any]] = []
    unit = cartpole_unit()
    with EngineClient() as engine:
        engine.hello()
        for size in sizes:
            data = generate(BoardSpec(size=size, extras=True, seed=1))
            line = jsoncodec.dumps({"type": "solve", "id": 1, "board": data, "fields": list(ANSWER_ONLY)})
            request = read_request(line, 10**7)
            assert isinstance(request, Solve)
            board = solver.load_board(request.board)
            decision = solver.solve(board)
            reply = Result(1, **decision.to_json(ANSWER_ONLY))
            fresh = [solver.load_board(request.board) for _ in range(repeats + 5)]  # one per sample and warm-up
            handovers: list[float] = []

            def answer(data: dict[str, Any] = data) -> dict[str, Any]:
                return engine.submit_solve(data, fields=ANSWER_ONLY).result()

            def full(data: dict[str, Any] = data) -> dict[str, Any]:
                return engine.submit_solve(data).result()

            def decode(line: bytes = line) -> Any:
                return read_request(line, 10**7)

            def load(request: Solve = request) -> solver.Board:
                return solver.load_board(request.board)

            def solve(boards: list[solver.Board] = fresh) -> dict[str, Any]:
                return solver.solve(boards.pop()).to_json(ANSWER_ONLY)

            def timed(data: dict[str, Any] = data, handovers: list[float] = handovers) -> dict[str, Any]:
                result = engine.submit_solve(data, fields=[*ANSWER_ONLY, "timing"]).result()
                handovers.append(result["timing"]["queued_ms"] / 1000)
                return result

            def encoded(reply: Result = reply) -> bytes:
                return encode(reply)

            calls: dict[str, Callable[[], Any]] = {"answer": answer, "full": full, "ping": engine.ping, "timed": timed}
            stages: dict[str, Callable[[], Any]] = {"decode": decode, "load": load, "solve": solve, "encode": encoded}
            measured = time_round_robin({**calls, **stages}, repeats, warmup=5)
            if measured["answer"][1]["value"] != decision.value:
                raise AssertionError("the reply and the in-process solve disagree")
            row = {"size": size, "line_bytes": len(line)} | {name: timing for name, (timing, _) in measured.items()}
            rows.append(row | {"handover": Timing(tuple(handovers[5:]))})
        unit = min(unit, cartpole_unit(), key=lambda t: t.median)  # the quieter of two moments
    return rows, unit


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def table(rows: list[dict[str, Any]], unit: Timing) -> str:
    out = []
    for row in rows:
        answer: Timing = row["answer"]
        staged = sum(row[s].median for s in _STAGES)
        labels = {
            "answer": f"solve, fields={list(ANSWER_ONLY)}",
            "full": "solve, full reply",
            "ping": "ping",
            "decode": "  decode: line to Structs (read_request)",
            "load": "  load: the board's cross-field checks (load_board of the Struct)",
            "solve": "  solve: solver.solve + to_json(fields)",
            "encode": "  encode: the Result Struct to its line",
            "handover": "  hand-over to a worker (the server's timing.queued_ms)",
        }
        for what, label in labels.items():
            timing: Timing = row[what]
            share = f"{timing.median / answer.median:.0%}" if what in _STAGES else ""
            out.append([row["size"], label, _ms(timing.median), in_units(timing.median, unit), share])
        rest = answer.median - staged
        out.append([row["size"], "  the rest: pipe both ways, the client", _ms(rest), in_units(rest, unit),
                    f"{rest / answer.median:.0%}"])  # fmt: skip
    return markdown_table(["objects", "round trip / stage", "median", "in u", "share of the short solve"], out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.protocol_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200, 2000])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--json", type=Path, help="where to write the results (default benchmarks/results/)")
    args = parser.parse_args(argv)
    rows, unit = measure(args.sizes, args.repeats)
    print(f"## Protocol round trips (stdio, warm), u = {unit.median * 1e6:.1f} µs (one CartPole-v1 step)\n")
    print(table(rows, unit))
    print()
    for row in rows:
        target = TARGET_U.get(row["size"])
        if target is not None:
            value = row["answer"].median / unit.median
            verdict = "met" if value <= target else "missed"
            print(f"- target, {row['size']} objects with fields: at most {target}u: {value:.0f}u, {verdict}")
    payload = {
        "u_s": unit.median,
        "rows": [{k: (v.to_json() if isinstance(v, Timing) else v) for k, v in row.items()} for row in rows],
        "fields": list(ANSWER_ONLY),
    }
    write_json("protocol_latency", payload, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
