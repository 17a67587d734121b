"""``proliferate serve --tcp HOST:PORT``: the same protocol on a socket, one independent session per connection.

Loopback by default: the engine has no authentication, so exposing it beyond the machine is
a decision the operator makes by naming another host.  ``quit`` ends that client's session
only; the server runs until SIGINT.  A client that closes its connection, or whose connection
is reset, is gone: its pending solves are stopped and its session's threads end.
"""

from __future__ import annotations

import logging
import socket
import socketserver
import sys
import threading

from .engine import Settings, run_session

__all__ = ["DEFAULT_HOST", "parse_address", "serve_tcp"]

log = logging.getLogger("solver.protocol")

DEFAULT_HOST = "127.0.0.1"


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

    def __init__(self, address: tuple[str, int], settings: Settings) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.settings = settings
        super().__init__(address, _Handler)


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        lock = threading.Lock()
        gone = threading.Event()

        def send(line: bytes) -> None:
            with lock:
                if gone.is_set():
                    raise ConnectionError("the client is gone")
                try:
                    self.wfile.write(line)
                except OSError:
                    gone.set()
                    raise

        peer = f"{self.client_address[0]}:{self.client_address[1]}"
        log.info("client %s connected", peer)
        try:
            run_session(self.rfile, send, self.server.settings, answer_at_end=False)
        except OSError as exc:
            log.info("client %s: %s", peer, exc)
        log.info("client %s done", peer)


def serve_tcp(host: str, port: int, settings: Settings) -> int:
    """Listen until SIGINT; the bound address is announced on stderr (useful with port 0)."""
    try:
        server = _Server((host, port), settings)
    except OSError as exc:
        print(f"proliferate serve: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    with server:
        bound_host, bound_port = server.server_address[:2]
        print(f"proliferate serve: listening on {bound_host!s}:{bound_port}", file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            return 130
    return 0
