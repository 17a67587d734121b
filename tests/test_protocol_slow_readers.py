"""A client that never reads its replies stalls only itself (issue 25: no shared thread blocks on one socket).

On main the one deadline thread wrote every ``timeout`` reply itself, so a TCP client whose
socket buffers were full held it for up to ``SEND_TIMEOUT`` (10 s) before that client was
dropped, and every other client's timeout waited behind it.  docs/protocol.md promises a
``timeout`` by ``time_ms`` + 250 ms.  Loopback only; a few seconds.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

from benchmarks.boards import slow_board
from benchmarks.server_load import server

TINY: dict[str, Any] = {
    "format": 1,
    "variant": "duel",
    "proliferator": "alice",
    "players": [{"id": "alice"}, {"id": "bob", "counters": {"poison": 3}}],
    "permanents": [],
}
#: Measured at the client, on a shared machine: the wire, the reader and the scheduling of a few threads.
SLACK_MS = 150


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


#: The non-readers' timed solves: due well after their buffers are full (that takes a second or two).
BEHIND_MS = 4500


def non_reader(port: int, blocked: threading.Event) -> socket.socket:
    """A client with a slow solve, a timed solve behind it, then hellos until the server stops reading it.

    Its receive buffer is tiny and it reads nothing, so the replies fill the server's send
    buffer; the timed solve's ``timeout`` is then due on a socket nobody drains.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    slow = {"type": "solve", "id": "slow", "board": slow_board(200), "top_k": 100, "time_ms": 7000}
    sock.sendall(line(slow) + line({"type": "solve", "id": "behind", "board": TINY, "time_ms": BEHIND_MS}))
    hellos = b"".join(line({"type": "hello", "id": i, "protocol": 1}) for i in range(2000))

    def flood() -> None:
        sock.settimeout(0.5)
        try:
            while True:
                sock.sendall(hellos)
        except OSError:  # the server stopped reading this client: its buffers are full
            blocked.set()

    threading.Thread(target=flood, daemon=True).start()
    return sock


def test_clients_that_never_read_do_not_delay_another_clients_timeout() -> None:
    # Two workers: one heavy solve at a time, so one core searches and the rest waits its turn.
    with server("--workers", "2") as (_, port):
        events = [threading.Event() for _ in range(3)]
        started = time.perf_counter()
        stuck = [non_reader(port, event) for event in events]
        for event in events:
            assert event.wait(20), "a non-reading client was never blocked"
        their_deadline = started + (BEHIND_MS + 250) / 1000
        assert time.perf_counter() < their_deadline - 0.5, "the non-readers' buffers filled too late to test anything"
        with socket.create_connection(("127.0.0.1", port)) as good:
            reader = good.makefile("rb")
            # Queued behind a solve that waits for the busy CP-SAT slot: only its deadline can answer it.
            good.sendall(line({"type": "solve", "id": "g1", "board": slow_board(200), "top_k": 100, "time_ms": 7000}))
            # Due half a second after the non-readers' timeouts, which the deadline thread meets first.
            sent = time.perf_counter()
            time_ms = round((their_deadline + 0.5 - sent) * 1000)
            good.sendall(line({"type": "solve", "id": "g2", "board": TINY, "time_ms": time_ms}))
            good.settimeout(time_ms / 1000 + 3)
            try:
                reply: dict[str, Any] | None = json.loads(reader.readline())
            except TimeoutError:  # main: the deadline thread sat on a non-reader's socket for seconds
                reply = None
            elapsed_ms = (time.perf_counter() - sent) * 1000
        for sock in stuck:
            sock.close()
    assert reply is not None, f"no reply within time_ms + 3 s ({elapsed_ms:.0f} ms)"
    assert (reply["id"], reply.get("code")) == ("g2", "timeout"), reply
    assert elapsed_ms <= time_ms + 250 + SLACK_MS, (elapsed_ms, time_ms)
