"""``proliferate analyze --ray``: the same analysis, its chunks judged by Ray tasks on a cluster.

The driver reads the inputs exactly as a local run does (:class:`~solver.analysis.inputs.Reader`),
cuts them into the same chunks and hands each to a Ray task running the same
:func:`~solver.analysis.analyze.analyze_chunk`; results are collected oldest chunk first
with a bounded window of chunks in flight (:func:`~solver.analysis.analyze.windowed`), so
the outputs are the local run's, byte for byte, and memory stays bounded.  Plain tasks,
not Ray Data: ordering and exact equality come for free, and a chunk is the unit of work
either way.  A chunk whose task fails (a worker lost, an out-of-memory kill) is reported
as a problem of each of its lines and the run goes on.

Ray is the optional extra ``ray`` and is imported only here, when a run asks for it.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import socket
from collections.abc import Iterator, Sequence
from typing import Any

from ..policy import Policy
from .analyze import CHUNK_SIZE, DecisionResult, Job, analyze_chunk, analyze_items
from .arena import ImportStats
from .grading import Thresholds
from .inputs import Reader, expand
from .records import LineProblem

__all__ = ["INSTALL_HINT", "RayRunner", "RayStartError", "analyze_ray", "ray_missing", "ray_runner"]

INSTALL_HINT = "needs Ray: pip install 'proliferate[ray]'"
#: Seconds to wait for a cluster's port before giving up (Ray itself retries for minutes).
CONNECT_TIMEOUT = 5.0


class RayStartError(RuntimeError):
    """Ray could not be started or joined: an address that does not answer, a version mismatch, ..."""


def ray_missing() -> str | None:
    """Why Ray cannot be used here (not installed), or None."""
    try:
        importlib.import_module("ray")
    except ImportError:
        return INSTALL_HINT
    return None


class _RayPending:
    """One chunk's task; a failed task becomes a problem for each of the chunk's lines."""

    def __init__(self, ray: Any, ref: Any, job: Job) -> None:
        self.ray, self.ref, self.job = ray, ref, job

    def result(self) -> list[DecisionResult | LineProblem]:
        try:
            out: list[DecisionResult | LineProblem] = self.ray.get(self.ref)
        except self.ray.exceptions.RayError as exc:
            reason = f"worker failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip()
            return [LineProblem(source, line, "", reason) for source, line, _ in self.job.items]
        return out


class RayRunner:
    """Submits chunks as Ray tasks of one CPU each; ``workers`` tasks run at once."""

    def __init__(self, ray: Any, workers: int) -> None:
        self.ray = ray
        self.workers = workers
        self.task = ray.remote(num_cpus=1)(analyze_chunk)

    def submit(self, job: Job) -> _RayPending:
        return _RayPending(self.ray, self.task.remote(job), job)


@contextlib.contextmanager
def ray_runner(address: str | None = None, *, workers: int | None = None) -> Iterator[RayRunner]:
    """A :class:`RayRunner` on the cluster at ``address`` (else ``RAY_ADDRESS``, else a local Ray of ``workers`` CPUs).

    A Ray already initialised in this process is used as it is and left running; one
    started here is shut down on exit.  When joining a cluster the ``solver`` package is
    shipped with the job (``runtime_env`` ``py_modules``), so workers run the driver's code;
    the cluster needs the dependencies (numpy, ortools) installed.
    """
    ray: Any = importlib.import_module("ray")  # the optional extra: imported only when a run asks for it
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
        target = address or os.environ.get("RAY_ADDRESS") or None
        try:
            if target:
                _check_reachable(target)
                package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
                ray.init(address=target, runtime_env={"py_modules": [package]}, **options)
            else:
                ray.init(num_cpus=workers, **options)
        except RayStartError:
            raise
        except Exception as exc:  # Ray raises ConnectionError, ValueError, RuntimeError... with a readable message
            where = f"cannot join the Ray cluster at {target}" if target else "cannot start a local Ray"
            raise RayStartError(f"{where}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from exc
        started = True
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        yield RayRunner(ray, workers or max(1, cpus))
    finally:
        if started:
            ray.shutdown()


def _check_reachable(address: str) -> None:
    """Fail in seconds, not minutes, when a ``host:port`` or ``ray://host:port`` address does not answer."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not (host and port.isdigit()) or "/" in host:
        return  # "auto", "local" and other forms Ray resolves itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise RayStartError(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None


def analyze_ray(
    inputs: Sequence[str],
    address: str | None = None,
    *,
    policy: Policy | None = None,
    thresholds: Thresholds | None = None,
    source_format: str = "auto",
    workers: int | None = None,
    chunk_size: int = CHUNK_SIZE,
    stats: dict[str, ImportStats] | None = None,
) -> Iterator[DecisionResult | LineProblem]:
    """Analyze files, directories and globs on Ray: what :func:`~solver.analysis.analyze.analyze_items` yields locally.

    Results come in input order, decisions numbered from 0; every problem (a bad line, an
    input that cannot be read, a failed task) comes in its place.  ``stats``, if given,
    collects each Arena log's import statistics by path.  Example::

        from solver.analysis.analyze import Summary
        from solver.analysis.distributed import analyze_ray

        summary = Summary()
        for result in analyze_ray(["uploads/", "archive/*.jsonl.gz"]):
            if isinstance(result, DecisionResult):
                summary.add(result)
    """
    found, unmatched = expand(inputs, source_format)

    def note(path: str, arena: ImportStats) -> None:
        if stats is not None:
            stats[path] = arena

    reader = Reader(found, unmatched, on_arena=note)
    with ray_runner(address, workers=workers) as runner:
        yield from analyze_items(reader, policy=policy, thresholds=thresholds, chunk_size=chunk_size, runner=runner)
