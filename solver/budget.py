"""The time and cancellation budget of one call, shared by every stage of a solve.

A caller gives a time limit for the *whole* call (top-k included) and, optionally, a cancel
token: any object with an ``is_set()`` method, typically a :class:`threading.Event` that
another thread sets.  Stages ask the budget how much time is left and whether to stop; the
CP-SAT search, which runs in native code, is stopped from a small watcher thread
(:func:`watch`) as soon as the token is set or the deadline passes, since CP-SAT's own time
limit is not checked during every part of its presolve.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from . import threads

__all__ = ["Budget", "CancelToken", "watch"]

#: How often the watcher looks at the cancel token and the clock, in seconds.
POLL_SECONDS = 0.005
#: A time limit at least this large (an integer past every float) is no deadline.
_FOREVER = sys.float_info.max


@runtime_checkable
class CancelToken(Protocol):
    """Anything with ``is_set()``: :class:`threading.Event`, :class:`multiprocessing.Event`, your own flag."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class Budget:
    """A deadline on :func:`time.perf_counter` (None: none) and an optional cancel token."""

    deadline: float | None = None
    cancel: CancelToken | None = None

    @classmethod
    def start(cls, time_limit: float | None, cancel: CancelToken | None = None) -> Budget:
        """A budget of ``time_limit`` seconds from now; raises ValueError for a limit that is not > 0."""
        if time_limit is None and cancel is None:
            return _UNBOUNDED  # the default call's (a loaded board's solve() takes microseconds)
        if time_limit is not None and (
            isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or not time_limit > 0
        ):
            raise ValueError(f"time_limit must be a number of seconds > 0, not {time_limit!r}")
        if cancel is not None and not isinstance(cancel, CancelToken):
            raise TypeError(f"cancel must have an is_set() method (a threading.Event), not {type(cancel).__name__}")
        # An integer past every float (10**400 seconds) is no deadline, as math.inf is; never float()'s OverflowError.
        finite = time_limit is not None and time_limit < _FOREVER and math.isfinite(time_limit)
        return cls(time.perf_counter() + time_limit if finite and time_limit is not None else None, cancel)

    @property
    def bounded(self) -> bool:
        return self.deadline is not None or self.cancel is not None

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    @property
    def stopped(self) -> bool:
        """True once the deadline has passed or the token is set: stages must answer with what they have."""
        return self.cancelled or (self.deadline is not None and time.perf_counter() >= self.deadline)

    def remaining(self) -> float | None:
        """Seconds left (0 once stopped), or None when there is no deadline."""
        if self.cancelled:
            return 0.0
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())


@contextmanager
def watch(budget: Budget, stop: Callable[[], None]) -> Iterator[None]:
    """Call ``stop`` once from a helper thread if the budget runs out while the block runs."""
    if not budget.bounded:
        yield
        return
    done = threading.Event()

    def watcher() -> None:
        while not done.wait(POLL_SECONDS):
            if budget.stopped:
                stop()
                return

    thread = threading.Thread(target=watcher, name="proliferate-budget", daemon=True)
    threads.start(thread)
    try:
        yield
    finally:
        done.set()
        thread.join()


#: No deadline and no token: what :meth:`Budget.start` gives for neither (a frozen value, so one will do).
_UNBOUNDED = Budget()
