"""SIGINT and SIGTERM stop a command: raised where Python can raise them, never dropped where it cannot.

A command stops on Ctrl-C (exit 130) or SIGTERM (exit 143) by raising :class:`Interrupted` in the main
thread, so every ``finally`` and ``with`` on the way out runs (:func:`raising`).  CPython runs a signal's
Python handler on the main thread between two bytecodes, wherever they are.  When they are inside a
finaliser -- a weak reference's callback, a ``__del__``, a generator the collector closes -- the exception
is printed as "Exception ignored in ..." and dropped, and the command would go on as if no signal had come:
an interrupted ``analyze`` would finish and replace the outputs it was told to leave alone.  So the handler
also records the signal, and :func:`check` raises it again: the commands' long loops call it, an output is
never committed after it (:func:`solver.files.safe_output`), and the command's exit status reads it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["STOP_SIGNALS", "Interrupted", "arrived", "check", "raising"]

#: The signals that stop a command (exit 128 + the signal's number), handled on the main thread.
STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})

#: The stop signal that arrived while :func:`raising` was in force, if one did.
_arrived: int | None = None


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``status`` is the command's exit status for it (128 + the signal's number).

    A :class:`KeyboardInterrupt`, so that code written for Ctrl-C treats SIGTERM alike.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.status = 128 + signum


def _raise(signum: int, frame: FrameType | None) -> None:
    global _arrived
    _arrived = signum
    raise Interrupted(signum)


def arrived() -> int | None:
    """The stop signal that arrived under :func:`raising` (raised, or dropped by a finaliser), else ``None``."""
    return _arrived


def check() -> None:
    """Raise :class:`Interrupted` again if a stop signal has arrived: its first raise may have been dropped.

    For the loops of a long command and before a step that cannot be undone; never in code that runs on
    the way out of an interruption (it would raise a second time in the middle of the clean-up).  On the
    main thread only, where the handler raises; elsewhere it does nothing.
    """
    if _arrived is not None and threading.current_thread() is threading.main_thread():
        raise Interrupted(_arrived)


@contextmanager
def raising() -> Iterator[None]:
    """In the block, SIGINT and SIGTERM raise :class:`Interrupted` in the main thread and are recorded.

    Outside the main thread (tests calling a command's code directly) the handlers are left alone.
    Entering forgets a signal recorded by an earlier block (not by an enclosing one: ``serve`` runs in the
    command's block); leaving restores the previous handlers.
    """
    global _arrived
    previous = {}
    if threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGTERM) is not _raise:
            _arrived = None
        for signum in sorted(STOP_SIGNALS):
            previous[signum] = signal.signal(signum, _raise)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
