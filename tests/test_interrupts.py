"""A stop signal is never lost (solver.interrupts): one a finaliser dropped is raised again, and stops the command.

CPython runs a signal's Python handler between two bytecodes of the main thread; inside a finaliser (here a
weak reference's callback) the exception it raises is reported as unraisable and dropped.  These tests drop
one on purpose: :func:`_drop_in_a_finaliser` sends the signal from a weak reference's callback and stays there
until the handler has run.  The end-to-end check with real processes is in tests/test_files_safety.py (an
interrupted ``analyze`` leaves its previous outputs intact and exits 130 / 143).
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest

from solver import cli, interrupts
from solver.files import safe_output

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="sends itself POSIX signals")

EXAMPLE = Path(cli.__file__).parent / "examples" / "classic.json"


class _Thing:
    pass


def _drop_in_a_finaliser(signum: int, monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    """Send ``signum`` to this process from inside a finaliser; the exceptions the finaliser dropped."""
    dropped: list[BaseException] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_value))

    def callback(gone: weakref.ref[_Thing]) -> None:
        os.kill(os.getpid(), signum)
        for _ in range(1_000_000):  # the handler runs at the next check between bytecodes, in here
            if interrupts.arrived() is not None:
                return

    thing = _Thing()
    ref = weakref.ref(thing, callback)
    del thing
    gc.collect()
    assert ref() is None
    return dropped


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_raises_interrupted_with_its_status_and_is_recorded(signum: int, status: int) -> None:
    with pytest.raises(interrupts.Interrupted) as raised, interrupts.raising():
        os.kill(os.getpid(), signum)
        for _ in range(1_000_000):
            pass
    assert raised.value.status == status and raised.value.signum == signum
    assert isinstance(raised.value, KeyboardInterrupt)  # code written for Ctrl-C treats SIGTERM alike
    assert interrupts.arrived() == signum


def test_a_signal_a_finaliser_dropped_is_raised_again_by_check(monkeypatch: pytest.MonkeyPatch) -> None:
    with interrupts.raising():
        dropped = _drop_in_a_finaliser(signal.SIGTERM, monkeypatch)
        assert [type(e) for e in dropped] == [interrupts.Interrupted]  # what CPython does with it
        assert interrupts.arrived() == signal.SIGTERM
        with pytest.raises(interrupts.Interrupted) as raised:
            interrupts.check()
        assert raised.value.status == 143


def test_check_does_nothing_before_a_signal_or_off_the_main_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    with interrupts.raising():
        interrupts.check()  # nothing arrived
        _drop_in_a_finaliser(signal.SIGINT, monkeypatch)
        failures: list[BaseException] = []

        def elsewhere() -> None:
            try:
                interrupts.check()
            except BaseException as exc:
                failures.append(exc)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        assert failures == []  # the main thread stops the command; a helper thread goes on
    with interrupts.raising():
        interrupts.check()  # a new block forgets the earlier signal
        _drop_in_a_finaliser(signal.SIGTERM, monkeypatch)
        with interrupts.raising(), pytest.raises(interrupts.Interrupted):
            interrupts.check()  # a block inside it does not


def test_raising_restores_the_previous_handlers() -> None:
    before = {s: signal.getsignal(s) for s in interrupts.STOP_SIGNALS}
    with interrupts.raising():
        assert all(signal.getsignal(s) is not before[s] for s in interrupts.STOP_SIGNALS)
    assert {s: signal.getsignal(s) for s in interrupts.STOP_SIGNALS} == before


def test_an_output_is_not_committed_after_a_dropped_signal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.txt"
    target.write_text("before\n")
    with pytest.raises(interrupts.Interrupted), interrupts.raising(), safe_output(target) as out:
        out.text.write("after\n")
        _drop_in_a_finaliser(signal.SIGTERM, monkeypatch)
    assert target.read_text() == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary file left


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_command_exits_with_the_signals_status_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int, status: int
) -> None:
    """``proliferate solve --svg``, the signal dropped while the command runs: no drawing, exit 128 + signal."""
    real = cli.build_parser

    def build_parser() -> argparse.ArgumentParser:  # runs inside the command, under its handlers
        _drop_in_a_finaliser(signum, monkeypatch)
        return real()

    monkeypatch.setattr(cli, "build_parser", build_parser)
    drawing = tmp_path / "board.svg"
    assert cli.main(["solve", str(EXAMPLE), "--svg", str(drawing)]) == status
    assert not drawing.exists() and list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert cli.main(["solve", str(EXAMPLE), "--svg", str(drawing)]) == 0  # and the next run is not stopped
    assert drawing.exists()


def test_solve_without_a_signal_is_unchanged(capsys: Any) -> None:
    assert cli.main(["solve", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out
