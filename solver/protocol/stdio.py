"""``proliferate serve`` on stdin/stdout, the UCI-style transport: one engine process per client.

Replies go through an :class:`~.outbox.Outbox`, as on TCP: the solve workers and the deadline thread
hand a reply over and go on, and one writer thread writes it to stdout, so a client that stops
reading its replies stalls no solve and no stop (its requests stop being read instead:
:class:`~.outbox.Paced`).  At the end of input every reply is written before the process exits;
after SIGINT or SIGTERM the replies already handed over get :data:`DRAIN_ON_STOP` seconds at most.
"""

from __future__ import annotations

import logging
import os
import sys

from .engine import QUEUE_MAX, Settings, run_session
from .outbox import Outbox, Paced
from .signals import STOP_SECONDS, Interrupted, stopping

__all__ = ["serve_stdio"]

log = logging.getLogger("solver.protocol")

#: Seconds an interrupted server gives the replies already handed over to reach the client.
DRAIN_ON_STOP = 1.0


def serve_stdio(settings: Settings, *, queue_max: int = QUEUE_MAX) -> int:
    """Serve one session until ``quit``, end of input, SIGINT or SIGTERM; the exit status (130 / 143 after them).

    File descriptor 1 is reserved for replies: anything else that writes to stdout -- a stray
    ``print`` or a native library's log -- is sent to stderr instead, since one foreign line
    would desynchronise the client.
    """
    sys.stdout.flush()
    reply_fd = os.dup(1)
    os.dup2(2, 1)

    def write(line: bytes) -> None:
        view = memoryview(line)
        while view:  # a pipe takes a long line in pieces
            view = view[os.write(reply_fd, view) :]

    def gone() -> None:  # the client closed its end: the session's later replies fail, and it stops its solves
        log.warning("cannot write replies: the client closed its end")

    outbox = Outbox(write, gone, name="proliferate-stdout")
    status, written = 0, False
    try:
        with stopping():
            run_session(Paced(sys.stdin.buffer, outbox), outbox.put, settings, queue_max=queue_max,
                        join_timeout=STOP_SECONDS)  # fmt: skip
            written = outbox.drain()  # every reply reaches a client that reads them (``cat requests | serve``)
    except Interrupted as exc:
        status = exc.status
        written = outbox.drain(DRAIN_ON_STOP)  # not waiting on a client that no longer reads
    finally:
        outbox.close()
        os.dup2(reply_fd, 1)
        if written:  # else the writer may still be in a write to it: the descriptor goes with the process
            os.close(reply_fd)
    return status
