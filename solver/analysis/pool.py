"""A local process pool for the analysis with no thread in this process: nothing is left to wait on at exit.

``concurrent.futures.ProcessPoolExecutor`` runs a feeder thread and a manager thread beside the caller, each
blocked on a pipe it shares with the workers, and the interpreter's exit joins them.  A worker terminated
part-way through a message left one of those waits with no end, so an interrupted ``analyze --workers N``
could hang at exit.  Here the caller's own thread does everything: it hands each worker up to
:data:`IN_FLIGHT` jobs (a worker's reader thread takes them off the pipe as they come, so a send never waits
on the worker's computing, and the next job is there when one ends), reads a result when
:func:`multiprocessing.connection.wait` says a worker's pipe is ready, and stops by terminating the workers
and closing the pipes.  There are no threads to join, and an interruption anywhere is safe.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

__all__ = ["LocalPool", "PoolBroken", "Ticket"]

J = TypeVar("J")
R = TypeVar("R")

#: How long :meth:`LocalPool.stop` waits for a terminated worker to be gone, in seconds.
STOP_SECONDS = 5.0
#: Jobs handed to one worker at a time: the one it works on, and the next.
IN_FLIGHT = 2


class PoolBroken(RuntimeError):
    """A worker ended without answering (killed from outside, or out of memory)."""


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    tickets: deque[int] = field(default_factory=deque)  # the jobs it holds, in the order it answers them


@dataclass
class Ticket(Generic[R]):
    """A job handed to the pool; :meth:`result` waits for it, running the pool meanwhile."""

    pool: LocalPool[Any, R]
    number: int

    def result(self) -> R:
        return self.pool.result_of(self.number)


def _serve(conn: Connection, work: Callable[[Any], Any], started: Callable[[int], None], parent: int) -> None:
    """A worker: jobs in, ``(True, result)`` or ``(False, error)`` out, in order, until ``None`` or end of file.

    A reader thread takes the jobs off the pipe as they come, so the pool's send of the next job never waits
    for this one to be worked out.
    """
    started(parent)
    jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def read() -> None:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                job = None
            jobs.put(job)
            if job is None:
                return

    threading.Thread(target=read, name="proliferate-analysis-reader", daemon=True).start()
    while (job := jobs.get()) is not None:
        try:
            reply: tuple[bool, Any] = (True, work(job))
        except Exception as exc:  # handed to the caller, who raises it where it waits
            reply = (False, exc)
        try:
            conn.send(reply)
        except Exception as exc:  # an unpicklable result or error: say what it was
            conn.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


@dataclass
class LocalPool(Generic[J, R]):
    """``workers`` processes running ``work`` on jobs, each started by ``started(os.getpid())`` first.

    :meth:`submit` queues a job and returns its :class:`Ticket`; results are read in any order and kept until
    asked for.  :meth:`close` ends idle workers politely, :meth:`stop` at once; both leave nothing behind.
    """

    work: Callable[[J], R]
    workers: int
    started: Callable[[int], None]
    _pool: list[_Worker] = field(default_factory=list, init=False)
    _queue: deque[tuple[int, J]] = field(default_factory=deque, init=False)
    _done: dict[int, tuple[bool, Any]] = field(default_factory=dict, init=False)
    _next: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        context = multiprocessing.get_context()
        parent = os.getpid()
        try:
            for _ in range(max(1, self.workers)):
                ours, theirs = context.Pipe(duplex=True)
                process = context.Process(
                    target=_serve, args=(theirs, self.work, self.started, parent), name="proliferate-analysis"
                )
                process.daemon = True  # never joined at exit if something is left: terminated
                process.start()
                theirs.close()
                self._pool.append(_Worker(process, ours))
        except BaseException:
            self.stop()
            raise

    def submit(self, job: J) -> Ticket[R]:
        """Queue ``job``; it starts at once if a worker is idle."""
        number = self._next
        self._next += 1
        self._queue.append((number, job))
        self._dispatch()
        return Ticket(self, number)

    def result_of(self, number: int) -> R:
        """The result of job ``number``, waiting for it (and running the other jobs meanwhile)."""
        while number not in self._done:
            self._dispatch()
            self._collect()
        ok, payload = self._done.pop(number)
        if not ok:
            raise payload
        result: R = payload
        return result

    def _dispatch(self) -> None:
        while self._queue:
            worker = min(self._pool, key=lambda w: len(w.tickets))
            if len(worker.tickets) >= IN_FLIGHT:
                return
            number, job = self._queue.popleft()
            worker.tickets.append(number)
            try:
                worker.conn.send(job)  # its reader takes it off the pipe: this does not wait on its work
            except OSError as exc:
                raise self._broken(worker) from exc

    def _collect(self) -> None:
        busy = {worker.conn: worker for worker in self._pool if worker.tickets}
        if not busy:
            raise PoolBroken("no worker holds the job waited for")  # cannot happen: every queued job is dispatched
        sentinels = {worker.process.sentinel: worker for worker in busy.values()}
        ready = wait([*busy, *sentinels])
        for key in ready:
            if key in busy:
                worker = busy[key]
                try:
                    reply = worker.conn.recv()
                except (EOFError, OSError) as exc:
                    raise self._broken(worker) from exc
                self._done[worker.tickets.popleft()] = reply
        for key in ready:
            if key in sentinels and sentinels[key].tickets and not sentinels[key].conn.poll():
                raise self._broken(sentinels[key])

    def _broken(self, worker: _Worker) -> PoolBroken:
        worker.process.join(timeout=STOP_SECONDS)
        return PoolBroken(f"an analysis worker ended without answering (exit code {worker.process.exitcode})")

    def close(self) -> None:
        """End the workers once they are idle (the normal end: every result has been read)."""
        for worker in self._pool:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        for worker in self._pool:
            worker.process.join(timeout=STOP_SECONDS)
        self.stop()

    def stop(self) -> None:
        """End the workers now: queued jobs dropped, running ones terminated, every pipe closed."""
        self._queue.clear()
        for worker in self._pool:
            if worker.process.is_alive():
                worker.process.terminate()
        for worker in self._pool:
            worker.process.join(timeout=STOP_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=STOP_SECONDS)
            worker.conn.close()
        self._pool.clear()
