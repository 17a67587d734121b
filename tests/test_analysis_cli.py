"""``proliferate analyze`` and ``proliferate import-arena`` end to end, in a subprocess as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from analysis_helpers import ARENA_2020, ARENA_NEW_GZ, NATIVE, ROOT, run_cli


def test_analyze_prints_the_table_and_warns_about_bad_lines() -> None:
    done = run_cli("analyze", str(NATIVE), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert "Blunder: missed lethal — also proliferate bob (poison 9 -> 10)" in done.stdout
    assert f"{NATIVE}:3: not valid JSON" in done.stderr
    assert f"{NATIVE}:4: chosen:" in done.stderr
    assert "Traceback" not in done.stderr


def test_two_workers_print_what_one_worker_prints() -> None:
    one = run_cli("analyze", str(NATIVE), str(NATIVE), "--json", "--workers", "1")
    two = run_cli("analyze", str(NATIVE), str(NATIVE), "--json", "--workers", "2")
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout
    assert len(json.loads(one.stdout)["decisions"]) == 6


def test_analyze_reads_an_arena_log_and_writes_a_report(tmp_path: Path) -> None:
    done = run_cli("analyze", "--from", "arena", str(ARENA_NEW_GZ), "--report", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["decisions"][0]["chosen"]["chosen"] == ["292"]
    assert (tmp_path / "index.html").exists() and (tmp_path / "game-001.html").exists()


def test_bad_input_exits_2_with_the_place_and_no_traceback(tmp_path: Path) -> None:
    missing = run_cli("analyze", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2
    assert f"{tmp_path / 'nope.jsonl'}: cannot read" in missing.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"game": 1}\n')
    done = run_cli("analyze", str(broken))
    assert done.returncode == 2
    assert f"{broken}:1: turn: required" in done.stderr
    thresholds = run_cli("analyze", str(NATIVE), "--thresholds", "mistake=2")
    assert thresholds.returncode == 2 and "thresholds.mistake" in thresholds.stderr
    for result in (missing, done, thresholds):
        assert "Traceback" not in result.stderr


def test_import_arena_writes_records_that_analyze_reads(tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    done = run_cli("import-arena", str(ARENA_2020), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "2 proliferate decision(s) in 1 game(s)" in done.stderr
    lines = out.read_text().splitlines()
    assert [json.loads(line)["chosen"] for line in lines] == [["292"], ["seat2", "310"]]
    analysed = run_cli("analyze", str(out), "--json")
    assert analysed.returncode == 0 and len(json.loads(analysed.stdout)["decisions"]) == 2


def test_a_policy_file_changes_the_values_and_a_bad_one_is_bad_input(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[weights]\n"+1/+1" = 5\n')
    default = json.loads(run_cli("analyze", str(NATIVE), "--json", "--workers", "1").stdout)
    weighted = json.loads(run_cli("analyze", str(NATIVE), "--json", "--workers", "2", "--policy", str(policy)).stdout)
    assert weighted["decisions"][0]["value_chosen"] != default["decisions"][0]["value_chosen"]
    policy.write_text("[weights]\npoison = 'lots'\n")
    bad = run_cli("analyze", str(NATIVE), "--policy", str(policy))
    assert bad.returncode == 2
    assert f'{policy}: weights["poison"]: must be a finite number' in bad.stderr


def test_the_throughput_benchmark_runs_and_agrees_across_workers(tmp_path: Path) -> None:
    out = tmp_path / "throughput.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.analysis_throughput",
            "--decisions",
            "30",
            "--workers",
            "1",
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
    assert "decisions/s" in done.stdout
    runs = json.loads(out.read_text())["runs"]
    assert [r["decisions"] for r in runs] == [30, 30]
    assert runs[0]["digest"] == runs[1]["digest"]
