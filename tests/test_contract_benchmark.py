"""Smoke test: the protocol latency benchmark runs as documented and writes its JSON (speed is not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    assert "| 200 duel +thr/fx | solve, full reply (baseline)" in done.stdout
    assert "Target: a 200-object round trip" in done.stdout
    rows = json.loads(out.read_text())["rows"]
    assert [row["size"] for row in rows] == [20, 200]
    assert all(row["answer"]["median_s"] > 0 and row["answer_stdlib"]["median_s"] > 0 for row in rows)
    assert "standard library's JSON (no fast extra)" in done.stdout
