"""``proliferate serve --tcp HOST:PORT``: the same protocol on a socket, one independent session per connection.

Loopback by default: the engine has no authentication, so exposing it beyond the machine is
a decision the operator makes by naming another host (see docs/protocol.md, "Security").
``quit`` ends that client's session only; the server runs until SIGINT or SIGTERM.  A client
that closes its connection, or whose connection is reset, is gone: its pending solves are
stopped, its queue is dropped and the memory it used is handed back.  Each connection has a
reading thread; solves run on the process-wide worker pool (:class:`~.engine.Scheduler`).
Replies go through the connection's :class:`~.outbox.Outbox`: the workers and the deadline
thread only hand them over, and the connection's own writer thread writes them, so a client
that does not read stalls nobody else.  While more than :data:`~.outbox.LIMIT` bytes of its
replies wait, its requests are not read; a client that reads nothing for
:data:`SEND_TIMEOUT` seconds is dropped.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import socketserver
import struct
import sys

from .. import interrupts
from .engine import QUEUE_MAX, Settings, run_session
from .outbox import Outbox, Paced
from .signals import Interrupted, stopping

__all__ = ["BACKLOG", "DEFAULT_HOST", "SEND_TIMEOUT", "parse_address", "serve_tcp"]

log = logging.getLogger("solver.protocol")

DEFAULT_HOST = "127.0.0.1"
#: Connections the kernel holds while the server accepts: a burst of hundreds of clients is normal.
BACKLOG = max(1024, socket.SOMAXCONN)
#: Seconds a reply may wait for a client that does not read before that client is dropped.
SEND_TIMEOUT = 10
#: poll() events of a connection its client closed (POLLRDHUP: the peer shut down its side; Linux).
_CLOSED = select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT``, ``PORT`` or ``[IPv6]:PORT``; raises ValueError with a usable message."""
    host, sep, port_text = text.rpartition(":")
    host = host.strip("[]") if sep else ""
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"--tcp: expected HOST:PORT with PORT from 0 to 65535, got {text!r}")
    return host or DEFAULT_HOST, int(port_text)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = BACKLOG

    def __init__(self, address: tuple[str, int], settings: Settings, queue_max: int) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.settings = settings
        self.queue_max = queue_max
        super().__init__(address, _Handler)

    def service_actions(self) -> None:
        """Run by ``serve_forever`` between two polls: a stop signal a finaliser dropped stops the server too."""
        super().service_actions()
        interrupts.check()


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def setup(self) -> None:
        # A blocking send that cannot go on for SEND_TIMEOUT seconds fails (EAGAIN): the client is gone.
        self.request.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", SEND_TIMEOUT, 0))
        super().setup()

    def handle(self) -> None:
        peer = f"{self.client_address[0]}:{self.client_address[1]}"
        log.info("client %s connected", peer)
        # A failed write (reset, or SEND_TIMEOUT without reading) shuts the connection: its reader sees the end.
        outbox = Outbox(self.wfile.write, self._shut, name=f"proliferate-writer-{peer}")
        poller = select.poll()
        poller.register(self.request, select.POLLIN | _CLOSED)

        def client_gone() -> bool:
            """Whether the client closed or reset its connection, even with requests still unread."""
            return outbox.failed or any(events & _CLOSED for _, events in poller.poll(0))

        try:
            run_session(
                Paced(self.rfile, outbox),
                outbox.put,
                self.server.settings,
                answer_at_end=False,
                queue_max=self.server.queue_max,
                client_gone=client_gone,
            )
            outbox.drain()  # the replies already handed over (``quit``'s included) reach the client
        except OSError as exc:
            log.info("client %s: %s", peer, exc)
        finally:
            outbox.close()
        log.info("client %s done", peer)

    def _shut(self) -> None:
        with contextlib.suppress(OSError):  # already closed by the client
            self.request.shutdown(socket.SHUT_RDWR)


def serve_tcp(host: str, port: int, settings: Settings, *, queue_max: int = QUEUE_MAX) -> int:
    """Listen until SIGINT or SIGTERM (exit 130 / 143); the bound address is announced on stderr (port 0 picks one)."""
    try:
        server = _Server((host, port), settings, queue_max)
    except OSError as exc:
        print(f"proliferate serve: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    with server:
        bound_host, bound_port = server.server_address[:2]
        print(f"proliferate serve: listening on {bound_host!s}:{bound_port}", file=sys.stderr, flush=True)
        try:
            with stopping():
                server.serve_forever()
        except Interrupted as exc:
            return exc.status
    return 0
