"""A connection's replies on their way out: handed over at once, written by that connection's own writer.

The solve workers and the deadline thread serve every session; none of them may wait on
one client's socket, or a client that stops reading would delay everybody's replies (and
their ``timeout``\\ s, which docs/protocol.md promises by ``time_ms`` + 250 ms).  So a
reply is only appended to the connection's :class:`Outbox`, which never blocks, and a
writer thread of that connection alone writes it.  The writer is started when there is
something to write and ends after :data:`LINGER` idle seconds, so an idle connection
holds no writer.

The outbox is bounded through the connection's reader: :meth:`Outbox.wait_room` holds it
while more than ``limit`` bytes wait to be written, so a client that does not read stops
being read (backpressure, like a full solve queue), and what can still arrive beyond the
bound is the replies of the solves already accepted.  When a write fails (the client reset
the connection, or did not read for the transport's send timeout) the outbox fails: its
lines are dropped, every later one is refused with ConnectionError, and ``on_failure`` is
called once (the transport shuts the connection, which ends its session).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from .. import threads

if TYPE_CHECKING:
    from .engine import LineSource

__all__ = ["LIMIT", "LINGER", "Outbox", "Paced"]

log = logging.getLogger("solver.protocol")

#: Bytes of replies waiting to be written past which the connection's reader stops reading.
LIMIT: Final = 1 << 20
#: Seconds an idle writer waits for another reply before it ends.
LINGER: Final = 1.0


class Outbox:
    """Replies waiting for one connection's writer thread (see the module docstring)."""

    def __init__(
        self,
        write: Callable[[bytes], object],
        on_failure: Callable[[], None] = lambda: None,
        *,
        limit: int = LIMIT,
        name: str = "proliferate-writer",
    ) -> None:
        self._write = write
        self._on_failure = on_failure
        self.limit = limit
        self._name = name
        self._cond = threading.Condition()
        self._lines: deque[bytes] = deque()
        self._bytes = 0
        self._writing = False  # a line is being written (it left the deque)
        self._writer: threading.Thread | None = None
        self._failed = False

    @property
    def failed(self) -> bool:
        return self._failed

    def put(self, line: bytes) -> None:
        """Queue one reply line; never waits for the client.  ConnectionError once a write has failed."""
        with self._cond:
            if self._failed:
                raise ConnectionError("the client is gone")
            self._lines.append(line)
            self._bytes += len(line)
            if self._writer is None:
                writer = threading.Thread(target=self._run, name=self._name, daemon=True)
                try:
                    threads.start(writer)
                except RuntimeError as exc:  # no thread to write with: this client cannot be answered
                    self._fail_locked()
                    raise ConnectionError(f"cannot start a writer: {exc}") from exc
                self._writer = writer
            self._cond.notify_all()

    def wait_room(self) -> None:
        """Wait (on the connection's own reader) while more than ``limit`` bytes wait to be written."""
        with self._cond:
            self._cond.wait_for(lambda: self._failed or self._bytes <= self.limit)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queued line is written (or the outbox failed); False at ``timeout``."""
        with self._cond:
            return self._cond.wait_for(lambda: self._failed or (not self._lines and not self._writing), timeout)

    def close(self) -> None:
        """Drop what is still queued and refuse more (the connection is over); the writer ends."""
        with self._cond:
            self._fail_locked()

    def _fail_locked(self) -> None:
        self._failed = True
        self._lines.clear()
        self._bytes = 0
        self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._lines and not self._failed:
                    self._cond.wait_for(lambda: self._failed or bool(self._lines), LINGER)
                if self._failed or not self._lines:
                    self._writer = None
                    return
                line = self._lines.popleft()
                self._writing = True
            try:
                self._write(line)
            except Exception as exc:  # OSError: reset, or not read for the send timeout
                log.info("cannot write a reply (%s): dropping the connection", exc)
                with self._cond:
                    self._writing = False
                    self._fail_locked()
                    self._writer = None
                self._on_failure()
                return
            with self._cond:
                self._writing = False
                if not self._failed:  # close() emptied the count already
                    self._bytes -= len(line)
                self._cond.notify_all()


class Paced:
    """A client's request reader that reads no further request while too many of its replies wait (backpressure)."""

    def __init__(self, stream: LineSource, outbox: Outbox) -> None:
        self._stream = stream
        self._outbox = outbox

    def readline(self, size: int = -1, /) -> bytes:
        self._outbox.wait_room()
        return self._stream.readline(size)
