"""The analysis's local process pool (solver.analysis.pool): results, errors, a worker killed, stopping at once.

The pool runs no thread in the caller's process, so an interrupted ``analyze --workers N`` has nothing left to
wait on at exit (tests/test_files_safety.py interrupts the command itself).
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from solver.analysis.pool import LocalPool, PoolBroken


def _square(n: int) -> int:
    if n < 0:
        raise ValueError(f"negative: {n}")
    if n == 999:
        os.kill(os.getpid(), signal.SIGKILL)  # a worker killed from outside, mid-job
    if n == 777:
        time.sleep(60)
    return n * n


def _started(parent: int) -> None:
    assert os.getppid() == parent


def test_results_come_back_for_every_ticket_whatever_order_they_are_asked_in() -> None:
    pool: LocalPool[int, int] = LocalPool(_square, 2, _started)
    try:
        tickets = [pool.submit(n) for n in range(40)]
        assert [t.result() for t in reversed(tickets)] == [n * n for n in reversed(range(40))]
    finally:
        pool.close()


def test_the_pool_runs_no_thread_in_the_callers_process() -> None:
    before = threading.active_count()
    pool: LocalPool[int, int] = LocalPool(_square, 2, _started)
    try:
        tickets = [pool.submit(n) for n in range(10)]
        assert threading.active_count() == before
        assert [t.result() for t in tickets] == [n * n for n in range(10)]
    finally:
        pool.close()
    assert threading.active_count() == before


def test_an_error_in_a_job_is_raised_where_its_result_is_asked_for_and_the_pool_goes_on() -> None:
    pool: LocalPool[int, int] = LocalPool(_square, 2, _started)
    try:
        bad, good = pool.submit(-3), pool.submit(5)
        with pytest.raises(ValueError, match="negative: -3"):
            bad.result()
        assert good.result() == 25
    finally:
        pool.close()


def test_a_worker_killed_mid_job_breaks_the_pool_with_a_clear_error() -> None:
    pool: LocalPool[int, int] = LocalPool(_square, 2, _started)
    try:
        ticket = pool.submit(999)
        with pytest.raises(PoolBroken, match="ended without answering"):
            ticket.result()
    finally:
        pool.stop()


def test_stop_ends_busy_workers_at_once_and_leaves_no_process() -> None:
    pool: LocalPool[int, int] = LocalPool(_square, 2, _started)
    processes = [w.process for w in pool._pool]
    pool.submit(777)
    pool.submit(777)
    pool.submit(1)  # queued behind the two sleeping jobs: dropped
    started = time.monotonic()
    pool.stop()
    assert time.monotonic() - started < 10
    assert all(not p.is_alive() for p in processes)
