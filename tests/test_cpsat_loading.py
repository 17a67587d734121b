"""OR-Tools loads once, on a helper thread, and its first-use cost stays inside time limits (issue 24, item 6).

The first constrained or top-k solves used to miss their limit: ``max_chosen=3,
time_limit=0.05`` on a 20-object board took 307-453 ms on its second call (the module was in
``sys.modules`` while still being imported, so the call went ahead and waited for the rest of
the import), and a fresh ``serve`` answered its first ``top_k=3, time_ms=50`` after 405 ms.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from typing import Any

from timing_helpers import retried_on_overrun, within

from solver.protocol.client import EngineClient

SERVE = [sys.executable, "-m", "solver", "serve"]


def twenty_objects() -> dict[str, Any]:
    """A duel with 18 creatures: choosing the best 3 needs CP-SAT (a pick limit couples every object)."""
    return {
        "format": 1,
        "variant": "duel",
        "proliferator": "alice",
        "players": [{"id": "alice"}, {"id": "bob", "counters": {"poison": 3}}],
        "permanents": [
            {
                "id": f"c{i}",
                "controller": "alice" if i % 3 else "bob",
                "types": ["creature"],
                "power": 2,
                "toughness": 2 + i % 4,
                "counters": {"+1/+1": 1 + i % 2},
            }
            for i in range(18)
        ],
    }


def run_fresh(code: str) -> Any:
    """Run ``code`` in a fresh interpreter (OR-Tools not loaded yet); its last stdout line, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@retried_on_overrun
def test_the_first_constrained_solves_keep_their_time_limit() -> None:
    """While OR-Tools loads, each call answers within its limit (no call waits for the rest of the import)."""
    elapsed = run_fresh(
        f"""
        import json, time, solver
        board = solver.load_board({json.dumps(twenty_objects())!r})
        out = []
        for _ in range(4):
            start = time.perf_counter()
            solver.solve(board, max_chosen=3, time_limit=0.05)
            out.append(time.perf_counter() - start)
        print(json.dumps(out))
        """
    )
    within(max(elapsed), 0.2, "0.05 s and scheduling noise, not the 0.3-0.6 s of the import")


@retried_on_overrun
def test_once_loaded_the_first_constrained_solve_is_optimal_within_its_limit() -> None:
    result = run_fresh(
        f"""
        import json, time, solver
        from solver.cpsat import preload
        assert preload(timeout=60)
        board = solver.load_board({json.dumps(twenty_objects())!r})
        start = time.perf_counter()
        first = solver.solve(board, max_chosen=3, time_limit=0.05)
        elapsed = time.perf_counter() - start
        best = solver.solve(board, max_chosen=3)
        print(json.dumps([elapsed, first.value, first.status.value, best.value]))
        """
    )
    elapsed, value, status, best = result
    assert (value, status) == (best, "OPTIMAL")
    within(elapsed, 0.2)


@retried_on_overrun
def test_a_fresh_server_answers_its_first_top_k_within_time_ms() -> None:
    """``serve`` loads OR-Tools before it reads requests: the first top-k solve is not the one that pays for it."""
    with EngineClient(SERVE) as engine:
        engine.hello()
        started = time.perf_counter()
        reply = engine.submit_solve(twenty_objects(), top_k=3, time_ms=200, fields=["status", "alternatives"]).result()
        elapsed = time.perf_counter() - started
    assert reply["type"] == "result"
    assert len(reply["alternatives"]) == 3  # a warm CP-SAT finds them in milliseconds; main found 1
    within(elapsed, 0.45, "time_ms + the 250 ms grace, at the latest")


@retried_on_overrun
def test_a_cold_first_constrained_solve_is_the_proven_optimum_within_its_limit() -> None:
    """Where no object couples seats, a pick limit and forced objects are solved exactly without CP-SAT.

    On main the very first ``max_chosen=3, time_limit=0.05`` call of a process waited for
    OR-Tools (whose import stalls the interpreter) and answered "choose nothing" FEASIBLE
    after 50-110 ms; the same call later is OPTIMAL 3.0.
    """
    first, later = run_fresh(
        f"""
        import json, time, solver
        board = solver.load_board({json.dumps(twenty_objects())!r})
        start = time.perf_counter()
        first = solver.solve(board, max_chosen=3, must_exclude=["c1"], time_limit=0.05)
        elapsed = time.perf_counter() - start
        best = solver.solve(board, max_chosen=3, must_exclude=["c1"], method="cpsat")
        print(json.dumps([[elapsed, first.value, first.status.value], [best.value, best.status.value]]))
        """
    )
    elapsed, value, status = first
    assert [value, status] == later == [later[0], "OPTIMAL"]
    within(elapsed, 0.05, "within its limit: milliseconds, not the import's 50-110 ms")
