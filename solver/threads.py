"""Our threads leave SIGINT and SIGTERM to the main thread, the only one that runs Python's signal handlers.

The kernel delivers a signal sent to the process to any one of its threads that does not block it.  Python's
C handler, run on whichever thread that is, only marks the signal; the Python handler runs later, on the main
thread, between bytecodes.  When the signal lands on a helper thread while the main thread waits in a system
call (``proliferate serve`` reading its next request from stdin), nothing interrupts that wait, and a
``kill -TERM`` is never acted on.  So every thread we start has both signals blocked (:func:`start`): the
kernel then always picks the main thread, whose wait it interrupts.  Threads a library starts from one of ours
(CP-SAT's workers) inherit the mask.
"""

from __future__ import annotations

import signal
import threading

from .interrupts import STOP_SIGNALS

__all__ = ["STOP_SIGNALS", "start"]


def start(thread: threading.Thread) -> None:
    """``thread.start()``, the new thread with :data:`STOP_SIGNALS` blocked (it inherits the starter's mask).

    The starter's own mask is restored at once; a signal that arrives meanwhile stays pending and is delivered
    then.  Where there are no thread signal masks (Windows), it is a plain start.
    """
    if not hasattr(signal, "pthread_sigmask"):
        thread.start()
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
