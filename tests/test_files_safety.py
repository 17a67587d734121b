"""Files written whole or not at all, inputs never truncated, readers bounded, terminals not commanded (issue 25).

The command line's outputs (``import-arena -o``, ``analyze -o``, ``--report DIR``, ``solve --svg``)
go through :func:`solver.files.safe_output` or the report's private build directory; its readers
through bounded reads (docs/limits.md); what it prints for a person through
:func:`solver.terminal.terminal_text`.  Signals are sent to real subprocesses, each bounded in time.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from analysis_helpers import ARENA_NEW, NATIVE, ROOT, creature, duel, record, run_cli

from solver.analysis.records import LineTooLong, iter_lines
from solver.files import TooLarge, UnsafeOutput, new_file_mode, read_bounded, safe_output
from solver.terminal import terminal_text

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\u202egnp.exe"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".") and p.name != ".gitignore")


# ---------------------------------------------------------------------------- finding 4: -o never destroys an input
def test_import_arena_refuses_to_write_over_its_own_log(tmp_path: Path) -> None:
    log = tmp_path / "Player.log"
    log.write_bytes(ARENA_NEW.read_bytes())
    before = _digest(log)
    done = run_cli("import-arena", str(log), "-o", str(log))
    assert done.returncode == 2
    assert "is the input" in done.stderr and "refusing to overwrite it" in done.stderr
    assert _digest(log) == before


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_import_arena_refuses_the_log_through_a_link(tmp_path: Path, link: str) -> None:
    log = tmp_path / "Player.log"
    log.write_bytes(ARENA_NEW.read_bytes())
    before = _digest(log)
    out = tmp_path / "out.jsonl"
    if link == "symlink":
        out.symlink_to(log)
    else:
        os.link(log, out)
    done = run_cli("import-arena", str(log), "-o", str(out))
    assert done.returncode == 2, done.stderr
    assert _digest(log) == before


def test_an_import_that_finds_nothing_leaves_an_existing_output_as_it_was(tmp_path: Path) -> None:
    """docs/analysis.md: exits 2, writing no record -- the old file is not emptied either."""
    empty = tmp_path / "empty.log"
    empty.write_text("no arena here\n")
    out = tmp_path / "out.jsonl"
    out.write_text("earlier records\n")
    done = run_cli("import-arena", str(empty), "-o", str(out))
    assert done.returncode == 2
    assert out.read_text() == "earlier records\n"
    assert _leftovers(tmp_path) == []


def test_a_symlink_planted_at_the_output_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "elsewhere" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("precious\n")
    out = tmp_path / "out.jsonl"
    out.symlink_to(victim)
    done = run_cli("import-arena", str(ARENA_NEW), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == "precious\n"
    assert not out.is_symlink() and out.read_text().count("\n") >= 1
    assert (out.stat().st_mode & 0o777) == new_file_mode()


def test_analyze_refuses_an_output_that_is_one_of_its_inputs(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    records.write_bytes(NATIVE.read_bytes())
    before = _digest(records)
    done = run_cli("analyze", str(tmp_path), "--json", "-o", str(records))
    assert done.returncode == 2 and "is the input" in done.stderr
    assert _digest(records) == before


def test_solve_refuses_to_draw_over_the_board(tmp_path: Path) -> None:
    board = tmp_path / "board.json"
    board.write_bytes((ROOT / "solver/examples/classic.json").read_bytes())
    before = _digest(board)
    done = run_cli("solve", str(board), "--svg", str(board))
    assert done.returncode == 2 and "is the input" in done.stderr
    assert _digest(board) == before


def test_safe_output_leaves_the_target_whole_when_the_writer_fails(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), safe_output(target) as out:
        out.text.write("half of the new")
        raise RuntimeError("writer died")
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []
    with safe_output(target) as out:
        out.text.write("new\n")
    assert target.read_text() == "new\n" and _leftovers(tmp_path) == []
    with safe_output(target) as out:
        out.text.write("discarded\n")
        out.discard()
    assert target.read_text() == "new\n" and _leftovers(tmp_path) == []


def test_safe_output_refuses_a_directory_and_writes_special_files_in_place(tmp_path: Path) -> None:
    with pytest.raises(UnsafeOutput, match="directory"), safe_output(tmp_path):
        pass
    with safe_output("/dev/null") as out:  # not replaced by a regular file
        out.text.write("x")
    assert Path("/dev/null").is_char_device()


# ---------------------------------------------------------------------------- finding 9: the report directory
def _many_games(path: Path, games: int) -> Path:
    board = duel("alice", {}, {}, [creature("bears", "alice", {"+1/+1": 1})])
    with path.open("w") as out:
        for g in range(games):
            out.write(json.dumps(record(board, ["bears"], game=f"g{g}")) + "\n")
    return path


def _pages(report: Path) -> list[str]:
    return sorted(p.name for p in report.iterdir() if p.name.startswith("game-"))


def test_a_report_directory_holds_exactly_the_current_report(tmp_path: Path) -> None:
    report = tmp_path / "report"
    done = run_cli("analyze", str(_many_games(tmp_path / "five.jsonl", 5)), "--report", str(report), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert _pages(report) == [f"game-{i:03d}.html" for i in range(1, 6)]
    (report / "notes.txt").write_text("mine\n")
    done = run_cli("analyze", str(_many_games(tmp_path / "two.jsonl", 2)), "--report", str(report), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert _pages(report) == ["game-001.html", "game-002.html"]  # the earlier report's game-003..005 are gone
    assert "removed 3 page(s) of an earlier report" in done.stderr
    assert (report / "notes.txt").read_text() == "mine\n"
    assert "left alone 1 file(s) the report did not write: notes.txt" in done.stderr
    assert _leftovers(report) == []


def test_a_report_never_overwrites_a_page_it_did_not_write(tmp_path: Path) -> None:
    report = tmp_path / "site"
    report.mkdir()
    (report / "index.html").write_text("<h1>someone's site</h1>\n")
    done = run_cli("analyze", str(NATIVE), "--report", str(report), "--workers", "1")
    assert done.returncode == 2
    assert "index.html was not written by proliferate" in done.stderr
    assert (report / "index.html").read_text() == "<h1>someone's site</h1>\n"
    assert sorted(p.name for p in report.iterdir()) == ["index.html"]


def test_a_report_follows_no_symlink_planted_in_its_directory(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    report = tmp_path / "report"
    report.mkdir()
    (report / ".sections.html.part").symlink_to(victim)  # the spool's name on main
    done = run_cli("analyze", str(NATIVE), "--report", str(report), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == "precious\n"
    (report / "index.html").unlink()
    (report / "index.html").symlink_to(victim)  # a link at a page's name is not the report's own page
    done = run_cli("analyze", str(NATIVE), "--report", str(report), "--workers", "1")
    assert done.returncode == 2 and "not written by proliferate" in done.stderr
    assert victim.read_text() == "precious\n"


def _analyze_until_busy(tmp_path: Path, *extra: str) -> subprocess.Popen[bytes]:
    """``analyze`` on a long input, returned once it has written part of its report (bounded: 60 s).

    Its standard error goes to ``tmp_path / "stderr.txt"`` (:func:`_said`), for the failure message.
    """
    big = tmp_path / "big.jsonl"
    lines = NATIVE.read_text()
    # Many games, so that writing their pages takes long enough to be interrupted in (one game per copy).
    big.write_text("".join(lines.replace('"game":"', f'"game":"copy{k}-') for k in range(8000)))
    with (tmp_path / "stderr.txt").open("wb") as said:
        process = subprocess.Popen(
            [sys.executable, "-m", "solver", "analyze", str(big), *extra],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=said,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        building = [p for p in (tmp_path / "report").glob(".proliferate-report-*") if list(p.glob("game-*"))]
        if building:
            return process
        assert process.poll() is None, f"analyze ended before it could be interrupted: {_said(tmp_path)}"
        time.sleep(0.05)
    process.kill()
    raise AssertionError("analyze wrote no page within 60 s")


def _said(tmp_path: Path) -> str:
    """What the process started by :func:`_analyze_until_busy` wrote to its standard error."""
    return (tmp_path / "stderr.txt").read_text(errors="replace")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_analysis_leaves_the_previous_outputs_intact(tmp_path: Path, signum: int, status: int) -> None:
    out, report = tmp_path / "out.json", tmp_path / "report"
    done = run_cli("analyze", str(NATIVE), "--json", "-o", str(out), "--report", str(report), "--workers", "1")
    assert done.returncode == 0, done.stderr
    before = {p.name: _digest(p) for p in [out, *report.iterdir()]}
    process = _analyze_until_busy(tmp_path, "--json", "-o", str(out), "--report", str(report), "--workers", "2")
    process.send_signal(signum)
    assert process.wait(timeout=30) == status, _said(tmp_path)
    assert {p.name: _digest(p) for p in [out, *report.iterdir()]} == before
    assert _leftovers(tmp_path) == [] and _leftovers(report) == []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_their_parent(tmp_path: Path) -> None:
    process = _analyze_until_busy(tmp_path, "--report", str(tmp_path / "report"), "--workers", "2")
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert children, "no worker processes"
    process.kill()  # SIGKILL: the parent runs no cleanup at all
    process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(_alive(int(c)) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(int(c)) for c in children)


# ---------------------------------------------------------------------------- finding 10: bounded readers
def test_analyze_stops_at_a_line_past_the_bound_naming_it(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_cli("analyze", "/dev/zero", "--max-line-bytes", "4096")
    assert done.returncode == 2
    assert "/dev/zero:1: line longer than 4096 bytes" in done.stderr
    assert time.monotonic() - started < 60


def test_import_arena_stops_at_a_line_past_the_bound(tmp_path: Path) -> None:
    bomb = tmp_path / "Player.log.gz"
    with gzip.open(bomb, "wb") as out:
        out.write(b"[UnityCrossThreadLogger]greToClientEvent\n")
        out.write(b"x" * (8 << 20) + b"\n")
    target = tmp_path / "out.jsonl"
    target.write_text("earlier\n")
    done = run_cli("import-arena", str(bomb), "-o", str(target), "--max-line-bytes", "1000000")
    assert done.returncode == 2
    assert f"{bomb}:2: line longer than 1000000 bytes" in done.stderr
    assert target.read_text() == "earlier\n"


def test_solve_reads_a_board_and_a_policy_up_to_their_bounds() -> None:
    for args in (["/dev/zero", "--max-board-bytes", "1000"], ["solver/examples/classic.json", "--policy", "/dev/zero"]):
        done = run_cli("solve", *args)
        assert done.returncode == 2 and "larger than" in done.stderr, done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "solver", "solve", "-", "--max-board-bytes", "1000"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    with (ROOT / "solver/examples/classic.json").open("rb") as board:
        done = subprocess.run(
            [sys.executable, "-m", "solver", "solve", "-", "--max-board-bytes", "100"],
            stdin=board,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2 and "standard input is larger than 100 bytes" in done.stderr


def test_iter_lines_bounds_the_line_not_its_line_end(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    path.write_bytes(b"a" * 10 + b"\r\n" + b"b" * 10 + b"\n" + b"c" * 11 + b"\n")
    items: list[tuple[int, str] | object] = []
    with pytest.raises(LineTooLong) as cut:
        items.extend(iter_lines(path, max_line_bytes=10))
    assert items == [(1, "a" * 10), (2, "b" * 10)]
    assert cut.value.line == 3 and cut.value.limit == 10


def test_read_bounded_reads_no_more_than_the_bound_plus_one() -> None:
    assert read_bounded("solver/examples/classic.json", 1 << 20).startswith(b"{")
    with pytest.raises(TooLarge, match="larger than 5 bytes"):
        read_bounded("/dev/zero", 5)


def test_a_flood_of_bad_lines_is_summarised_on_stderr(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl.gz"
    with gzip.open(bad, "wt") as out:
        out.write("{not json}\n" * 5000)
    done = run_cli("analyze", str(bad))
    assert done.returncode == 2
    assert done.stderr.count("proliferate: warning:") == 21
    assert "... and 4980 more problem(s) in 4980 more line(s), not shown" in done.stderr
    assert len(done.stderr) < 10_000


# ---------------------------------------------------------------------------- finding 12: terminal escapes
def test_terminal_text_escapes_as_repr_does() -> None:
    assert terminal_text(HOSTILE) == repr(HOSTILE)[1:-1]
    assert terminal_text("line 1\nline 2\tÆther 日本") == "line 1\nline 2\tÆther 日本"
    assert terminal_text("a\nb", lines=False) == "a\\nb"


def _hostile_board(tmp_path: Path) -> Path:
    board = json.loads((ROOT / "solver/examples/classic.json").read_text())
    board["permanents"][0]["id"] = "bears" + HOSTILE
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board))
    return path


def test_solve_prints_hostile_ids_escaped_and_json_exact(tmp_path: Path) -> None:
    board = _hostile_board(tmp_path)
    done = run_cli("solve", str(board))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout and "\x07" not in done.stdout
    assert "\\x1b]0;owned\\x07" in done.stdout
    exact = run_cli("solve", str(board), "--json")
    assert "bears" + HOSTILE in json.loads(exact.stdout)["chosen"]  # --json stays exact


def test_error_lines_print_hostile_field_names_escaped(tmp_path: Path) -> None:
    board = json.loads((ROOT / "solver/examples/classic.json").read_text())
    board[HOSTILE] = 1
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board))
    done = run_cli("solve", str(path))
    assert done.returncode == 2
    assert "\x1b" not in done.stderr and "\u202e" not in done.stderr
    assert "proliferate: error:" in done.stderr


def test_the_analysis_table_prints_hostile_ids_escaped(tmp_path: Path) -> None:
    board = duel("alice", {}, {}, [creature("bears", "alice", {"+1/+1": 1})])
    records = tmp_path / "evil.jsonl"
    records.write_text(json.dumps(record(board, ["bears"], game="g" + HOSTILE)) + "\n")
    done = run_cli("analyze", str(records), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
    exact = run_cli("analyze", str(records), "--workers", "1", "--json")
    assert json.loads(exact.stdout)["decisions"][0]["game"] == "g" + HOSTILE


def test_file_names_in_messages_are_escaped_too(tmp_path: Path) -> None:
    evil = tmp_path / ("Player\x1b]0;owned\x07.log")
    evil.write_bytes(ARENA_NEW.read_bytes())
    done = run_cli("import-arena", str(evil))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr and "\\x1b]0;owned\\x07" in done.stderr


def test_docs_limits_list_every_input_bound() -> None:
    """docs/limits.md, Input sizes: each reader's bound and the option that changes it."""
    from solver import limits

    doc = (ROOT / "docs/limits.md").read_text()
    for name in ("MAX_BOARD_BYTES", "MAX_POLICY_BYTES", "MAX_LINE_BYTES"):
        assert f"`{name}`" in doc, name
        assert getattr(limits, name) > 0
    for option in ("--max-board-bytes", "--max-line-bytes"):
        assert option in doc


def test_a_message_quoting_a_huge_field_name_is_cut(tmp_path: Path) -> None:
    board = duel("alice", {}, {}, [creature("bears", "alice", {"+1/+1": 1})])
    records = tmp_path / "long.jsonl"
    line = {**record(board, ["bears"]), "x" * 100_000: 1}
    records.write_text(json.dumps(line) + "\n")
    done = run_cli("analyze", str(records))
    assert done.returncode == 2
    assert max(len(line) for line in done.stderr.splitlines()) < 1100
    assert "more characters)" in done.stderr
    listed = json.loads(run_cli("analyze", str(records), "--json").stdout)["skipped"]["problems"]
    assert len(listed) == 1 and len(listed[0]) < 1100
