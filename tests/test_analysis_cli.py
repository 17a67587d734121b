"""``proliferate analyze`` and ``proliferate import-arena`` end to end, in a subprocess as a user runs them."""

from __future__ import annotations

import gzip
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from analysis_helpers import (
    ARENA_2020,
    ARENA_NEW,
    ARENA_NEW_GZ,
    ARENA_POISON_TRIGGERS,
    ARENA_SHOWN,
    NATIVE,
    ROOT,
    run_cli,
)


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


# ---------------------------------------------------------------------------- exit codes and counts (docs/analysis.md)
def test_import_arena_on_random_bytes_or_a_corrupt_gzip_exits_2(tmp_path: Path) -> None:
    noise = tmp_path / "noise.log"
    noise.write_bytes(random.Random(1).randbytes(4000))
    corrupt = tmp_path / "corrupt.log.gz"
    corrupt.write_bytes(b"\x1f\x8b" + random.Random(2).randbytes(4000))
    for path, reason in ((noise, "no MTG Arena game state"), (corrupt, "cannot read further")):
        done = run_cli("import-arena", str(path), "-o", str(tmp_path / "out.jsonl"))
        assert done.returncode == 2, done.stderr
        assert f"proliferate: error: {path}: {reason}" in done.stderr
        assert "Traceback" not in done.stderr


def test_counters_going_up_without_a_proliferate_in_the_log_are_not_analysed(tmp_path: Path) -> None:
    """Issue 24: two poison triggers (0 -> 2 -> 4) were imported as a proliferate and graded."""
    done = run_cli("import-arena", str(ARENA_POISON_TRIGGERS), "-o", str(tmp_path / "out.jsonl"))
    assert done.returncode == 2, done.stderr
    assert "shows no proliferate" in done.stderr and "no proliferate decision found" in done.stderr
    analysed = run_cli("analyze", str(ARENA_POISON_TRIGGERS), "--json")
    assert analysed.returncode == 2 and "no decision" in analysed.stderr
    shown = run_cli("analyze", str(ARENA_SHOWN), "--json")
    assert shown.returncode == 0, shown.stderr
    assert [d["chosen"]["chosen"] for d in json.loads(shown.stdout)["decisions"]] == [["seat2"], []]


def test_a_log_without_a_proliferate_exits_2_and_client_messages_are_not_warnings(tmp_path: Path) -> None:
    log = tmp_path / "Player.log"
    lines = ARENA_NEW.read_text().splitlines()
    # The prose, the first full state (counters, but no resolution) and the client message block (lines 8-11).
    log.write_text("\n".join(lines[:3] + lines[6:11]) + "\n")
    done = run_cli("import-arena", str(log))
    assert done.returncode == 2
    assert "1 client messages" in done.stderr
    assert "warning" not in done.stderr
    assert f"proliferate: error: {log}: no proliferate decision found" in done.stderr
    ok = run_cli("import-arena", str(ARENA_NEW))
    assert ok.returncode == 0 and "warning: " + str(ARENA_NEW) + ": 1 × skipped line that is not valid" in ok.stderr
    assert "client message" not in ok.stderr.split("warning")[-1]


def test_analyze_on_an_empty_file_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    blank = tmp_path / "blank.jsonl.gz"
    blank.write_bytes(gzip.compress(b"\n\n  \n"))
    for path in (empty, blank):
        done = run_cli("analyze", str(path), "--json")
        assert done.returncode == 2
        assert "proliferate: error: no decision to analyse" in done.stderr
        assert json.loads(done.stdout)["counts"] == {"lines": 0, "decisions": 0, "skipped_lines": 0, "problems": 0}


def test_lines_in_are_decisions_plus_skipped_lines_and_problems_are_counted_apart(tmp_path: Path) -> None:
    many = tmp_path / "many.jsonl"
    good = NATIVE.read_text().splitlines()[0]
    bad = json.dumps({"game": True, "turn": -1, "decider": 5, "board": [], "chosen": "x"})  # five problems, one line
    many.write_text("\n".join([good, bad] * 1500 + ["", "{"]) + "\n")
    done = run_cli("analyze", str(many), "--json", "--workers", "2")
    assert done.returncode == 0, done.stderr[-500:]
    doc = json.loads(done.stdout)
    counts = doc["counts"]
    assert counts == {"lines": 3001, "decisions": 1500, "skipped_lines": 1501, "problems": 1500 * 5 + 1}
    assert counts["lines"] == counts["decisions"] + counts["skipped_lines"]
    assert doc["skipped"]["count"] == counts["problems"] and doc["skipped"]["lines"] == counts["skipped_lines"]
    assert len(doc["skipped"]["problems"]) == 1000  # listed ones are capped; counts never are
    # stderr shows the first 20 problems and counts the rest in one line (a flood of bad lines is summarised)
    assert done.stderr.count("proliferate: warning:") == 20 + 1
    assert f"... and {counts['problems'] - 20} more problem(s)" in done.stderr
    text = run_cli("analyze", str(many), "--workers", "1")
    assert "Skipped 1501 of 3001 line(s) for 7501 input problem(s)" in text.stdout


# ---------------------------------------------------------------------------- many inputs
def test_directories_globs_and_both_formats_in_one_run(tmp_path: Path) -> None:
    (tmp_path / "day1").mkdir()
    shutil.copy(NATIVE, tmp_path / "day1" / "a.jsonl")
    (tmp_path / "day1" / "b.jsonl.gz").write_bytes(gzip.compress(NATIVE.read_bytes()))
    (tmp_path / "day1" / "notes.md").write_text("not an input")
    shutil.copy(ARENA_NEW_GZ, tmp_path / "Player.log.gz")
    missing = tmp_path / "gone.jsonl"
    done = run_cli("analyze", str(tmp_path / "day1"), str(tmp_path / "*.log.gz"), str(missing), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    locations = [d["location"].rsplit(":", 1)[0] for d in doc["decisions"]]
    a, b, log = (
        str(tmp_path / "day1" / "a.jsonl"),
        str(tmp_path / "day1" / "b.jsonl.gz"),
        str(tmp_path / "Player.log.gz"),
    )
    # directory sorted, then the glob; arena told by its content (its one proliferate shown by a request)
    assert locations == [a] * 3 + [b] * 3 + [log]
    assert f"proliferate: warning: {missing}: cannot read" in done.stderr  # reported, and the rest analysed
    assert f"{missing}: cannot read" in " ".join(doc["skipped"]["problems"])
    nothing = run_cli("analyze", str(tmp_path / "nothing-*.jsonl"))
    assert nothing.returncode == 2 and "nothing-*.jsonl: matches no file" in nothing.stderr


def test_ray_without_the_extra_is_a_clear_exit_2(tmp_path: Path) -> None:
    fake = tmp_path / "ray"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "solver", "analyze", str(NATIVE), "--ray"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "proliferate: error: --ray: needs Ray: pip install 'proliferate[ray]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_throughput_benchmark_measures_against_a_baseline_checkout(tmp_path: Path) -> None:
    """``--baseline`` runs another checkout's code path (here this one) on the same input, first."""
    out = tmp_path / "throughput.json"
    command = [sys.executable, "-m", "benchmarks.analysis_throughput", "--decisions", "20", "--workers", "1"]
    command += ["--baseline", str(ROOT), "--json", str(out)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    runs = json.loads(out.read_text())["runs"]
    assert [r["backend"] for r in runs] == ["baseline", "local"]
    assert runs[0]["digest"] == runs[1]["digest"]
    assert "vs baseline 1" in done.stdout


def test_nothing_analysed_prints_no_empty_tables_and_exits_2(tmp_path: Path) -> None:
    """A missing file or a file of bad lines: the reason on stderr, one summary line on stdout, exit 2."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n{}\n")
    for path, skipped in ((tmp_path / "missing.jsonl", "0 of 0 line(s) for 1 "), (bad, "2 of 2 line(s) for ")):
        done = run_cli("analyze", str(path), "--workers", "1")
        assert done.returncode == 2, done.stderr
        first, second = done.stdout.splitlines()
        assert first == "No decisions to analyse."
        assert second.startswith(f"Skipped {skipped}") and second.endswith("input problem(s); see the messages above.")
        assert "proliferate: error: no decision could be analysed" in done.stderr
        assert "Traceback" not in done.stderr
