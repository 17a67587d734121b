"""Smoke test: the protocol latency benchmark runs as documented and writes its JSON (speed is not asserted)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_protocol_latency_prints_its_table_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "protocol_latency.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.protocol_latency",
            "--sizes",
            "20",
            "200",
            "--repeats",
            "2",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "solve, full reply" in done.stdout
    assert "target, 200 objects with fields: at most 50u" in done.stdout
    payload = json.loads(out.read_text())
    rows = payload["rows"]
    assert payload["u_s"] > 0
    assert [row["size"] for row in rows] == [20, 200]
    for row in rows:  # the round trip, and the server's stages of it
        assert all(
            row[what]["median_s"] > 0
            for what in ("answer", "full", "ping", "timed", "decode", "load", "solve", "encode", "handover")
        )
    assert "hand-over to a worker (the server's timing.queued_ms)" in done.stdout


def test_time_it_collects_before_each_run_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.common import time_it

    collections: list[int] = []

    def counted(*args: int) -> int:
        collections.append(1)
        return 0

    monkeypatch.setattr(gc, "collect", counted)
    timing, result = time_it(lambda: 7, 4, warmup=2, collect=False)
    assert (len(timing.samples), result, collections) == (4, 7, [])
    timing, _ = time_it(lambda: 7, 4, warmup=2)
    assert len(timing.samples) == 4 and len(collections) == 4


def test_time_round_robin_takes_turns() -> None:
    from benchmarks.common import time_round_robin

    order: list[str] = []

    def call(name: str, result: int) -> Callable[[], int]:
        def run() -> int:
            order.append(name)
            return result

        return run

    timed = time_round_robin({"a": call("a", 1), "b": call("b", 2)}, 3, warmup=1)
    assert order == ["a", "b", "a", "b", "a", "b", "a", "b"]  # the warm-ups, then one of each per round
    assert {name: (len(t.samples), r) for name, (t, r) in timed.items()} == {"a": (3, 1), "b": (3, 2)}
