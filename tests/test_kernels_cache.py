"""numba's on-disk cache of the compiled core works for an installed (non-editable) copy of the package.

The package is copied into a directory standing for site-packages, with ``NUMBA_CACHE_DIR``
pointing elsewhere, as a read-only site-packages makes numba do (it falls back to a user-wide
cache directory, which ``NUMBA_CACHE_DIR`` overrides).  The first process compiles and writes
the cache there, nothing beside the sources; the second loads every kernel from it, compiling
none: the decision, the state-based actions, the value of given choices and the counters after them on
every board of a layout (what ``python -m solver.kernels.warm`` warms).  (One compile of the kernels: the slowest
test here, by design.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import solver

_PROBE = """
from solver.kernels.warm import warm
from solver.kernels import after, exact, resolve, settle
warm()
kernels = (
    exact.decide_arrays, settle.settle_batch, resolve.score_batch, resolve.value_settled_batch,
    after.counters_after_boards,
)
print(sum(len(k.stats.cache_misses) for k in kernels), sum(len(k.stats.cache_hits) for k in kernels))
"""


def test_an_installed_copy_compiles_once_into_numba_cache_dir_and_then_loads(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    shutil.copytree(Path(solver.__file__).parent, site / "solver", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "numba-cache"
    env = {**os.environ, "PYTHONPATH": str(site), "NUMBA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_DISABLE_JIT", None)

    def run() -> tuple[int, int]:
        out = subprocess.run([sys.executable, "-c", _PROBE], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        misses, hits = out.stdout.split()[-2:]
        return int(misses), int(hits)

    first_misses, _ = run()
    assert first_misses >= 1  # compiled, the cache being empty
    assert list(cache.rglob("*.nbi")), "the cache index was not written to NUMBA_CACHE_DIR"
    assert not list((site / "solver").rglob("*.nbi")), "the cache was written beside the installed sources"
    misses, hits = run()
    assert (misses, hits) == (0, 5)  # every entry kernel loaded from the cache, nothing compiled


def test_the_warm_script_runs_without_a_runpy_warning() -> None:
    """``python -m solver.kernels.warm`` (the install step) prints its line and no warning: ``import solver`` loads
    the core through :mod:`solver.preload`, not through the script's own module."""
    out = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", "solver.kernels.warm"],
        capture_output=True,
        text=True,
        cwd=Path(solver.__file__).parent.parent,
    )
    assert out.returncode == 0, out.stderr
    assert "compiled core ready" in out.stdout
    assert "RuntimeWarning" not in out.stderr
