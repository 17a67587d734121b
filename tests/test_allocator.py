"""The allocator set-up of our own processes (solver.allocator): a steady mmap threshold, and trimming."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import solver.cli
from solver import allocator


def test_the_command_line_fixes_the_mmap_threshold_once_per_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[int] = []

    def record() -> bool:
        calls.append(1)
        return True

    monkeypatch.setattr(solver.cli, "steady_mmap_threshold", record)
    assert solver.cli.main(["demo"]) == 0
    assert calls == [1]
    capsys.readouterr()


def test_importing_solver_leaves_a_host_programs_allocator_alone() -> None:
    """A library import changes nothing: only ``solver.cli.main`` sets the threshold."""
    probe = textwrap.dedent(
        """
        import solver.allocator as a
        calls = []
        a.steady_mmap_threshold = lambda *args: calls.append(args) or True
        import solver, solver.cli  # the package and the command line's module, not its main
        solver.solve(solver.cli.read_example("classic"))
        print(len(calls))
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == "0"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_on_glibc_the_threshold_is_set_and_the_heap_trimmed() -> None:
    if allocator._glibc() is None:
        pytest.skip("not glibc")
    assert allocator.steady_mmap_threshold(allocator.MMAP_THRESHOLD)
    allocator.release_memory()  # gc, then malloc_trim: returns nothing, raises nothing
