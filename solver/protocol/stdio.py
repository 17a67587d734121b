"""``proliferate serve`` on stdin/stdout, the UCI-style transport: one engine process per client."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading

from .engine import QUEUE_MAX, Settings, run_session
from .signals import STOP_SECONDS, Interrupted, stopping

__all__ = ["serve_stdio"]

log = logging.getLogger("solver.protocol")


def serve_stdio(settings: Settings, *, queue_max: int = QUEUE_MAX) -> int:
    """Serve one session until ``quit``, end of input, SIGINT or SIGTERM; the exit status (130 / 143 after them).

    File descriptor 1 is reserved for replies: anything else that writes to stdout -- a stray
    ``print`` or a native library's log -- is sent to stderr instead, since one foreign line
    would desynchronise the client.
    """
    sys.stdout.flush()
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(reply_fd, "wb")
    lock = threading.Lock()
    broken = threading.Event()

    def send(line: bytes) -> None:
        with lock:
            if broken.is_set():
                raise BrokenPipeError("replies can no longer be written")
            try:
                out.write(line)
                out.flush()
            except OSError as exc:  # the client closed its end: the session stops its solves
                broken.set()
                log.warning("cannot write replies: %s", exc)
                raise

    try:
        with stopping():
            run_session(sys.stdin.buffer, send, settings, queue_max=queue_max, join_timeout=STOP_SECONDS)
        return 0
    except Interrupted as exc:
        return exc.status
    finally:
        with lock:
            broken.set()
            os.dup2(reply_fd, 1)
            with contextlib.suppress(OSError):
                out.close()
