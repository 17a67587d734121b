"""The server bounds every client (issue 25, findings 1, 2, 3, 5, 6 and 8): one regression test per finding.

Each test is bounded to a few seconds and runs on loopback or in process.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import pytest
from protocol_helpers import slow_board

import solver
from solver.protocol.engine import QUEUE_MAX, Deadlines, Scheduler, Session, Settings

SERVE = [sys.executable, "-m", "solver", "serve"]
CLASSIC: dict[str, Any] = json.loads(files("solver.examples").joinpath("classic.json").read_text())


class Recorder:
    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.changed = threading.Condition()

    def __call__(self, line: bytes) -> None:
        with self.changed:
            self.replies.append(json.loads(line))
            self.changed.notify_all()

    def wait(self, rid: object, timeout: float = 10.0) -> dict[str, Any]:
        with self.changed:
            assert self.changed.wait_for(lambda: any(r["id"] == rid for r in self.replies), timeout), rid
            return next(r for r in self.replies if r["id"] == rid)


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """Hold every solve of a board with over 20 permanents until ``state["gate"]`` is set; counts them running."""
    gate = threading.Event()
    state: dict[str, Any] = {"gate": gate, "running": 0, "most": 0, "lock": threading.Lock()}
    real = solver.solve

    def solve(board: solver.Board, *args: Any, **kwargs: Any) -> solver.Decision:
        if board.n_objects - board.n_players > 20:
            with state["lock"]:
                state["running"] += 1
                state["most"] = max(state["most"], state["running"])
            try:
                assert gate.wait(timeout=30), "the test never released the held solve"
            finally:
                with state["lock"]:
                    state["running"] -= 1
        return real(board, *args, **kwargs)

    monkeypatch.setattr(solver, "solve", solve)
    yield state
    gate.set()


# ---------------------------------------------------------------------------- finding 1: a bounded queue per client
def test_a_full_queue_stops_reading_the_client(held: dict[str, Any]) -> None:
    """Behind a slow solve, a client's pipelined solves are taken only while its queue has room (backpressure)."""
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": "slow", "board": slow_board()}))
    taken = [0]

    def feed() -> None:
        for i in range(QUEUE_MAX + 40):
            session.handle_line(line({"type": "solve", "id": i, "board": CLASSIC, "fields": ["value"]}))
            taken[0] += 1

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    feeder.join(1.0)
    assert feeder.is_alive(), "every pipelined solve was taken: nothing bounds the client"
    assert taken[0] <= QUEUE_MAX
    held["gate"].set()
    feeder.join(30)
    session.finish()
    assert {r["id"] for r in out.replies if r["type"] == "result"} == {"slow", *range(QUEUE_MAX + 40)}


def test_a_client_leaving_drops_its_queued_solves(held: dict[str, Any]) -> None:
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": "slow", "board": slow_board()}))
    for i in range(10):
        session.handle_line(line({"type": "solve", "id": i, "board": CLASSIC}))
    end = time.monotonic() + 5
    while session.queued > 10 and time.monotonic() < end:  # until a worker has taken the slow solve
        time.sleep(0.01)
    assert session.queued == 10
    session.abandon()
    assert session.queued == 0  # the boards are freed now, not when the slow solve ends
    held["gate"].set()
    assert session.join(10)
    assert out.replies == []


# ---------------------------------------------------------------------------- finding 2: limits are ceilings
def test_configure_cannot_raise_the_operator_s_limits() -> None:
    out = Recorder()
    session = Session(out, Settings(max_line_bytes=4096, max_objects=10))
    session.handle_line(line({"type": "configure", "id": 1, "max_line_bytes": 2**30, "max_objects": 10**7}))
    reply = out.wait(1)
    assert reply["code"] == "invalid_request"
    assert [p["path"] for p in reply["data"]["problems"]] == ["max_line_bytes", "max_objects"]
    assert "4096" in reply["data"]["problems"][0]["message"]
    assert (session.settings.max_line_bytes, session.settings.max_objects) == (4096, 10)
    session.handle_line(line({"type": "configure", "id": 2, "max_line_bytes": 2048, "max_objects": 10}))
    assert out.wait(2)["options"]["max_line_bytes"] == 2048  # lowering is allowed
    session.handle_line(line({"type": "configure", "id": 3, "max_line_bytes": 4096}))
    assert out.wait(3)["options"]["max_line_bytes"] == 4096  # and back up to the ceiling
    session.handle_line(line({"type": "hello", "id": 4, "protocol": "proliferate-jsonl/1"}))
    options = {o["name"]: o for o in out.wait(4)["options"]}
    assert (options["max_line_bytes"]["max"], options["max_objects"]["max"]) == (4096, 10)


def test_a_served_client_cannot_send_a_line_past_the_operator_s_limit() -> None:
    requests = (
        line({"type": "configure", "id": 1, "max_line_bytes": 2**30})
        + b"\n"
        + line({"type": "ping", "id": "x" * 200, "pad": "y" * 8000})
        + b"\n"
    )
    done = subprocess.run(
        [*SERVE, "--max-line-bytes", "4096"], input=requests, capture_output=True, timeout=60, check=False
    )
    first, second = (json.loads(reply) for reply in done.stdout.splitlines())
    assert first["code"] == "invalid_request"
    assert (second["code"], second["data"]["limit"]) == ("too_large", 4096)


# ---------------------------------------------------------------------------- finding 3: no thread per request
def test_timed_solves_start_no_thread_each(held: dict[str, Any]) -> None:
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": "slow", "board": slow_board(), "time_ms": 60_000}))
    time.sleep(0.2)
    before = threading.active_count()
    for i in range(QUEUE_MAX - 2):
        session.handle_line(line({"type": "solve", "id": i, "board": CLASSIC, "time_ms": 60_000}))
    assert threading.active_count() - before <= 3
    held["gate"].set()
    session.finish()
    assert len(out.replies) == QUEUE_MAX - 1


def test_a_thread_that_cannot_start_leaves_nothing_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh pool and deadline thread that cannot start: the solve is refused, and ``quit`` still replies."""
    out = Recorder()
    session = Session(out, Settings(), scheduler=Scheduler(), deadlines=Deadlines())

    def cannot(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", cannot)
    session.handle_line(line({"type": "solve", "id": 1, "board": CLASSIC, "time_ms": 1000}))
    session.handle_line(line({"type": "solve", "id": 2, "board": CLASSIC}))
    quitter = threading.Thread(target=session.handle_line, args=(line({"type": "quit", "id": 3}),), daemon=True)
    monkeypatch.undo()
    quitter.start()
    quitter.join(5)
    assert not quitter.is_alive(), "quit got no reply: a solve stayed pending"
    assert [(r["id"], r.get("code", r["type"])) for r in out.replies] == [
        (1, "internal"),
        (2, "internal"),
        (3, "result"),
    ]


def test_quit_is_answered_whatever_thread_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same through the default pool: whatever cannot start, quit is answered within seconds."""
    out = Recorder()
    session = Session(out, Settings())

    def cannot(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", cannot)
    session.handle_line(line({"type": "solve", "id": 1, "board": CLASSIC, "time_ms": 1000}))
    monkeypatch.undo()
    quitter = threading.Thread(target=session.handle_line, args=(line({"type": "quit", "id": 2}),), daemon=True)
    quitter.start()
    quitter.join(5)
    assert not quitter.is_alive(), "quit got no reply: a solve stayed pending"
    assert out.replies[-1] == {"type": "result", "id": 2, "quit": True}


# ---------------------------------------------------------------------------- finding 5: fair scheduling
def test_short_solves_run_beside_sessions_busy_on_top_k(held: dict[str, Any]) -> None:
    """Eight sessions' top-k solves run at most one per core; a ninth session's short solve runs meanwhile."""
    outs = [Recorder() for _ in range(8)]
    sessions = [Session(out, Settings()) for out in outs]
    for session in sessions:
        for i in range(3):
            session.handle_line(
                line({"type": "solve", "id": i, "board": slow_board(), "top_k": 5, "fields": ["value"]})
            )
    probe = Recorder()
    quick = Session(probe, Settings())
    time.sleep(0.3)
    quick.handle_line(line({"type": "solve", "id": "q", "board": CLASSIC}))
    assert probe.wait("q", timeout=10)["type"] == "result"  # answered while every top-k solve is held
    assert held["most"] <= min(7, os.cpu_count() or 2)  # one per core, not one per session
    held["gate"].set()
    for session in sessions:
        session.finish()
    assert all(sorted(r["id"] for r in out.replies) == [0, 1, 2] for out in outs)


def test_sessions_take_turns_on_a_single_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Round robin: a session's new solve waits behind at most one solve of the session that was there first."""
    order: list[str] = []
    real = solver.solve

    def solve(board: solver.Board, *args: Any, **kwargs: Any) -> solver.Decision:
        time.sleep(0.02)
        return real(board, *args, **kwargs)

    monkeypatch.setattr(solver, "solve", solve)
    scheduler = Scheduler(workers=1, heavy=1)

    def recorder(name: str) -> Any:
        def send(data: bytes) -> None:
            order.append(f"{name}{json.loads(data)['id']}")

        return send

    first = Session(recorder("a"), Settings(), scheduler=scheduler)
    second = Session(recorder("b"), Settings(), scheduler=scheduler)
    for i in range(6):
        first.handle_line(line({"type": "solve", "id": i, "board": CLASSIC, "fields": ["value"]}))
    second.handle_line(line({"type": "solve", "id": 0, "board": CLASSIC, "fields": ["value"]}))
    first.finish()
    second.finish()
    assert order.index("b0") <= 2  # behind a0 (running) and at most a1


# ---------------------------------------------------------------------------- finding 6: the listen backlog
@pytest.mark.skipif(sys.platform != "linux", reason="SIGSTOP and the kernel's accept queue")
def test_a_burst_of_connections_waits_in_the_backlog() -> None:
    """200 connections while the server accepts none (stopped): the kernel holds them all, then all are answered."""
    process = subprocess.Popen([*SERVE, "--tcp", "127.0.0.1:0"], stderr=subprocess.PIPE)
    socks: list[socket.socket] = []
    try:
        assert process.stderr is not None
        match = re.search(r":(\d+)$", process.stderr.readline().decode().strip())
        assert match
        port = int(match.group(1))
        process.send_signal(signal.SIGSTOP)
        selector = selectors.DefaultSelector()
        for _ in range(200):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            socks.append(sock)
            selector.register(sock, selectors.EVENT_WRITE)
        connected = 0
        end = time.monotonic() + 2.0
        while time.monotonic() < end and len(selector.get_map()):
            for key, _ in selector.select(0.1):
                ready = key.fileobj
                assert isinstance(ready, socket.socket)
                connected += ready.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                selector.unregister(ready)
        assert connected == 200
        process.send_signal(signal.SIGCONT)
        for n, sock in enumerate(socks):
            sock.setblocking(True)
            sock.settimeout(15)
            sock.sendall(line({"type": "ping", "id": n}) + b"\n")
        for n, sock in enumerate(socks):
            assert json.loads(sock.makefile("rb").readline()) == {"type": "pong", "id": n}
    finally:
        for sock in socks:
            sock.close()
        process.send_signal(signal.SIGCONT)
        process.kill()
        process.wait()


# ---------------------------------------------------------------------------- finding 8: a stopped solve stops scoring
@pytest.mark.parametrize("how", ["timeout", "cancel"])
def test_a_stopped_solve_stops_scoring_its_evaluate_list(how: str) -> None:
    board = slow_board(2000)
    board["proliferates"] = 1
    ids = [p["id"] for p in board["permanents"]]
    evaluate = [[ids[i % len(ids)], ids[(i * 7 + 1) % len(ids)]] for i in range(20_000)]
    out = Recorder()
    session = Session(out, Settings(max_objects=5000))
    request: dict[str, Any] = {"type": "solve", "id": "big", "board": board, "evaluate": evaluate}
    request["fields"] = ["value", "evaluated"]  # scoring 20,000 choices takes seconds here
    if how == "timeout":
        request["time_ms"] = 300
    session.handle_line(line(request))
    if how == "cancel":
        time.sleep(0.5)
        session.handle_line(line({"type": "cancel", "id": "c", "target": "big"}))
    assert out.wait("big", timeout=10)["code"] == ("timeout" if how == "timeout" else "cancelled")
    sent = time.perf_counter()
    session.handle_line(line({"type": "solve", "id": "tiny", "board": CLASSIC, "time_ms": 3000}))
    tiny = out.wait("tiny", timeout=10)
    assert tiny["type"] == "result", tiny
    assert time.perf_counter() - sent < 2.0  # not after the rest of the 20,000 scores
    session.finish()
