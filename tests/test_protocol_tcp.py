"""``proliferate serve --tcp``: the same protocol on a socket, several independent clients at once."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import pytest

import solver
from solver.protocol.client import EngineClient
from solver.protocol.messages import ProtocolError
from solver.protocol.tcp import parse_address

SERVE = [sys.executable, "-m", "solver", "serve"]
BOARD: dict[str, Any] = json.loads(files("solver.examples").joinpath("classic.json").read_text())


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    process = subprocess.Popen([*SERVE, "--tcp", "127.0.0.1:0"], stderr=subprocess.PIPE)
    assert process.stderr is not None
    announced = process.stderr.readline().decode()
    match = re.search(r"listening on 127\.0\.0\.1:(\d+)", announced)
    assert match, announced
    yield process, int(match.group(1))
    if process.poll() is None:
        process.kill()
        process.wait()


def expected(policy: solver.Policy | None = None) -> dict[str, Any]:
    data = solver.solve(solver.load_board(BOARD), policy).to_json()
    del data["elapsed_ms"]
    parsed: dict[str, Any] = json.loads(json.dumps(data))
    return parsed


def decision_json(reply: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in reply.items() if k not in {"type", "id", "evaluated", "timing", "elapsed_ms"}}


def test_two_concurrent_clients_have_independent_sessions(server: tuple[subprocess.Popen[bytes], int]) -> None:
    _, port = server
    policies = [None, solver.Policy.from_dict({"weights": {"loyalty": -2, "poison": 5}})]
    wanted = [expected(p) for p in policies]
    failures: list[str] = []
    barrier = threading.Barrier(2)

    def run(index: int) -> None:
        with EngineClient.connect("127.0.0.1", port) as client:
            if policies[index] is not None:
                client.configure(policy={"weights": {"loyalty": -2, "poison": 5}})
            barrier.wait(10)
            for i in range(100):
                pendings = [client.submit_solve(BOARD), client.submit("ping")]
                reply = pendings[0].result()
                if decision_json(reply) != wanted[index]:
                    failures.append(f"client {index} request {i}")
                pendings[1].result()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert wanted[0] != wanted[1]  # so that a shared session would show
    assert failures == []


def test_quit_ends_only_that_client(server: tuple[subprocess.Popen[bytes], int]) -> None:
    process, port = server
    with EngineClient.connect("127.0.0.1", port) as first, EngineClient.connect("127.0.0.1", port) as second:
        assert first.quit()["quit"] is True
        assert second.ping()["type"] == "pong"
        with pytest.raises(ProtocolError) as info:
            second.send_raw("not json").result()
        assert info.value.code == "parse_error"
        assert second.submit_solve(BOARD).result()["chosen"] == expected()["chosen"]
    assert process.poll() is None


def test_client_disconnect_mid_solve_does_not_hurt_the_server(server: tuple[subprocess.Popen[bytes], int]) -> None:
    process, port = server
    with socket.create_connection(("127.0.0.1", port)) as raw:  # send a solve, vanish without quit
        raw.sendall(json.dumps({"type": "solve", "id": 1, "board": BOARD, "top_k": 5}).encode() + b"\n")
    with EngineClient.connect("127.0.0.1", port) as other:
        assert other.ping()["type"] == "pong"
    assert process.poll() is None


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_stops_the_server(server: tuple[subprocess.Popen[bytes], int]) -> None:
    process, _ = server
    process.send_signal(signal.SIGINT)
    assert process.wait(10) == 130
    assert process.stderr is not None
    assert b"Traceback" not in process.stderr.read()


@pytest.mark.parametrize(
    ("text", "address"),
    [("127.0.0.1:9000", ("127.0.0.1", 9000)), (":9000", ("127.0.0.1", 9000)), ("9000", ("127.0.0.1", 9000)),
     ("[::1]:0", ("::1", 0)), ("0.0.0.0:1", ("0.0.0.0", 1))],
)  # fmt: skip
def test_parse_address(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize("text", ["host:", "host:http", "host:70000", ""])
def test_parse_address_refuses_bad_ports(text: str) -> None:
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_address(text)
