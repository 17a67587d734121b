"""SIGINT and SIGTERM for ``proliferate serve``: stop every solve wherever it runs, then exit 130 or 143.

The handlers raise :class:`~solver.interrupts.Interrupted` in the main thread (the reader on stdio, the
accepting loop on TCP).  Leaving :func:`stopping` then abandons every session -- which sets
each running solve's cancel token, so CP-SAT's search is stopped from its watcher thread --
and waits, briefly, until no worker runs a solve any more: the interpreter must not be torn
down under a running CP-SAT search (its callbacks would call into a dying interpreter and
abort with ``std::bad_function_call``).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

from ..interrupts import Interrupted, raising
from .engine import default_scheduler, stop_all

__all__ = ["STOP_SECONDS", "Interrupted", "stopping"]

#: How long an interrupted server waits for its stopped solves to return.
STOP_SECONDS = 5.0


@contextmanager
def stopping() -> Iterator[None]:
    """SIGINT / SIGTERM raise :class:`~solver.interrupts.Interrupted` in the block (:func:`~solver.interrupts.raising`);
    on the way out, every solve is stopped and awaited.

    Outside the main thread (tests calling the transports directly) the handlers are left alone.
    """
    try:
        with raising():
            yield
    except KeyboardInterrupt as exc:
        stop_all()
        default_scheduler().wait_idle(STOP_SECONDS)
        if isinstance(exc, Interrupted):
            raise
        raise Interrupted(signal.SIGINT) from None
