"""``proliferate analyze --ray``: the distributed run gives the local run's outputs, byte for byte (``ray`` extra)."""

from __future__ import annotations

import gzip
import json
import random
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_helpers import ARENA_NEW_GZ, NATIVE, ROOT

from benchmarks.analysis_throughput import records
from solver.analysis.analyze import DecisionResult, Job, analyze_chunk, analyze_items
from solver.analysis.distributed import RayRunner, _RayPending, analyze_ray
from solver.analysis.grading import Thresholds
from solver.analysis.inputs import Reader, expand
from solver.analysis.records import LineProblem

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """One local Ray of 2 CPUs for the module; yields its address so a subprocess can join it."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few hundred decisions over two records files (one gzipped), an Arena log and a bad line."""
    root = tmp_path_factory.mktemp("inputs")
    lines = [json.dumps(r, separators=(",", ":")) for r in records(300, seed=5)]
    (root / "a.jsonl").write_text("\n".join(lines[:180]) + '\n{"game": 1}\n')
    (root / "b.jsonl.gz").write_bytes(gzip.compress(("\n".join(lines[180:]) + "\n").encode()))
    shutil.copy(ARENA_NEW_GZ, root / "Player.log.gz")
    return root


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solver", "analyze", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )


def test_the_ray_run_prints_and_writes_exactly_what_the_local_run_does(
    cluster: str, inputs: Path, tmp_path: Path
) -> None:
    local_report, ray_report = tmp_path / "local", tmp_path / "ray"
    spec = [str(inputs), "--report", str(local_report)]
    local_json = _cli(*spec, "--json", "--workers", "1")
    distributed_json = _cli(str(inputs), "--report", str(ray_report), "--json", "--ray", cluster)
    assert local_json.returncode == 0, local_json.stderr[-800:]
    assert distributed_json.returncode == 0, distributed_json.stderr[-800:]
    assert distributed_json.stdout == local_json.stdout
    doc = json.loads(local_json.stdout)
    # 300 records and the Arena log's one proliferate shown by its request (docs/analysis.md)
    assert doc["counts"]["decisions"] == 301 and doc["counts"]["skipped_lines"] == 1
    for name in ("index.html", "game-001.html"):
        assert (ray_report / name).read_bytes() == (local_report / name).read_bytes()
    local_text = _cli(str(inputs), "--workers", "2")
    distributed_text = _cli(str(inputs), "--ray", cluster)
    assert distributed_text.returncode == local_text.returncode == 0
    assert distributed_text.stdout == local_text.stdout
    assert distributed_text.stderr == local_text.stderr  # the same warnings, in the same order


def _local(paths: list[str]) -> list[DecisionResult | LineProblem]:
    found, unmatched = expand(paths)
    return list(analyze_items(Reader(found, unmatched), thresholds=Thresholds()))


def test_a_corrupt_input_among_good_ones_is_reported_and_the_rest_judged(
    cluster: str, inputs: Path, tmp_path: Path
) -> None:
    corrupt = tmp_path / "corrupt.jsonl.gz"
    corrupt.write_bytes(gzip.compress(NATIVE.read_bytes())[:-30] + random.Random(4).randbytes(30))
    noise = tmp_path / "noise.log"
    noise.write_bytes(b"[UnityCrossThreadLogger]" + random.Random(5).randbytes(3000))
    paths = [str(corrupt), str(inputs / "a.jsonl"), str(noise), str(tmp_path / "missing.jsonl")]
    results = list(analyze_ray(paths, chunk_size=16))
    assert results == _local(paths)
    problems = [str(r) for r in results if isinstance(r, LineProblem)]
    assert any(p.startswith(f"{corrupt}: cannot read further") for p in problems)
    assert any(p.startswith(f"{noise}: no MTG Arena game state") for p in problems)
    assert any(p.startswith(f"{tmp_path / 'missing.jsonl'}: cannot read") for p in problems)
    decisions = [r for r in results if isinstance(r, DecisionResult)]
    assert sum(r.location.startswith(str(inputs / "a.jsonl")) for r in decisions) == 180
    assert [r.index for r in decisions] == list(range(len(decisions)))


def _crash() -> None:
    raise MemoryError("killed")


def test_a_failed_task_costs_its_own_lines_only(cluster: str) -> None:
    job = Job([("f.jsonl", 7, "{}"), ("f.jsonl", 8, "{}")], None, Thresholds())
    crash: Any = ray.remote(_crash)
    lost = _RayPending(ray, crash.remote(), job).result()
    assert [(p.source, p.line) for p in lost if isinstance(p, LineProblem)] == [("f.jsonl", 7), ("f.jsonl", 8)]
    assert all(isinstance(p, LineProblem) and p.message.startswith("worker failed: ") for p in lost)
    assert RayRunner(ray, workers=2).submit(job).result() == analyze_chunk(job)  # the same chunk, judged


def test_an_address_that_does_not_answer_exits_2_in_seconds(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        done = _cli(str(NATIVE), "--json", "--report", str(tmp_path / "r"), "--ray", address)
        assert done.returncode == 2
        assert f"proliferate: error: --ray: cannot reach the Ray cluster at {address}" in done.stderr
        assert done.stdout == "" and not (tmp_path / "r").exists()  # nothing half-written
        assert "Traceback" not in done.stderr
