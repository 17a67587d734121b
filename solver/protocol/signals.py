"""SIGINT and SIGTERM for ``proliferate serve``: stop every solve wherever it runs, then exit 130 or 143.

The handlers raise :class:`Interrupted` in the main thread (the reader on stdio, the
accepting loop on TCP).  Leaving :func:`stopping` then abandons every session -- which sets
each running solve's cancel token, so CP-SAT's search is stopped from its watcher thread --
and waits, briefly, until no worker runs a solve any more: the interpreter must not be torn
down under a running CP-SAT search (its callbacks would call into a dying interpreter and
abort with ``std::bad_function_call``).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from .engine import default_scheduler, stop_all

__all__ = ["STOP_SECONDS", "Interrupted", "stopping"]

#: How long an interrupted server waits for its stopped solves to return.
STOP_SECONDS = 5.0


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``status`` is the exit status for it (128 + the signal number)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.status = 128 + signum


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


@contextmanager
def stopping() -> Iterator[None]:
    """Turn SIGINT / SIGTERM into :class:`Interrupted` in the block; on the way out, stop and await every solve.

    Outside the main thread (tests calling the transports directly) the handlers are left alone.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = {}
    if main:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, _raise)
    try:
        yield
    except KeyboardInterrupt as exc:
        stop_all()
        default_scheduler().wait_idle(STOP_SECONDS)
        if isinstance(exc, Interrupted):
            raise
        raise Interrupted(signal.SIGINT) from None
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
