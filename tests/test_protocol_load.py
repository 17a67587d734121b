"""Load and faults (issue 25): misbehaving clients beside a well-behaved one, on loopback.

Beside the well-behaved client run: pipelining floods of 2,000-object solves behind a slow
top-k (never reading a reply, then resetting the connection), slowloris clients (a line a
byte at a time, never finished), huge lines (over ``max_line_bytes``), abrupt disconnects
mid-solve, idle connections and sessions busy on top-k.  The well-behaved client's answers
must equal the library's, its latency stay bounded (a generous bound: the machine is
shared), and the server's memory grow by at most the issue's 400 MB and come back near its
start once the misbehaving clients are gone.

The default run is bounded in count and time (about 10 s); ``pytest --load-long`` runs the
longer version (ten times the connections, 4,000 well-behaved requests; about 45 s).
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

import solver
from benchmarks.boards import BoardSpec, generate
from benchmarks.server_load import Client, percentile, process_rss_mb, process_threads, server, slow_board


@dataclass(frozen=True)
class Load:
    flooders: int
    flood: int  # 2,000-object solves each flooder pipelines
    slowloris: int
    huge: int
    disconnects: int
    idle: int
    busy: int
    requests: int  # the well-behaved client's solves


SHORT = Load(flooders=2, flood=150, slowloris=5, huge=2, disconnects=30, idle=50, busy=2, requests=120)
LONG = Load(flooders=4, flood=400, slowloris=20, huge=4, disconnects=300, idle=300, busy=6, requests=4000)
#: Growth of the server's resident memory allowed while the load runs (the issue's target).
GROWTH_MB = 400
#: How far above its start the server may stay once the misbehaving clients have left.
AFTER_MB = 150


def examples() -> list[dict[str, Any]]:
    root = files("solver.examples")
    return [json.loads(p.read_text()) for p in sorted(root.iterdir(), key=lambda p: p.name) if p.name.endswith(".json")]


def expected(board: dict[str, Any]) -> dict[str, Any]:
    data = solver.solve(solver.load_board(board)).to_json()
    del data["elapsed_ms"]
    parsed: dict[str, Any] = json.loads(json.dumps(data))
    return parsed


def reset(sock: socket.socket) -> None:
    """Close abruptly (RST), as a killed client does; a thread blocked sending on it wakes up with an error."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


@pytest.fixture
def load(request: pytest.FixtureRequest) -> Load:
    return LONG if request.config.getoption("--load-long") else SHORT


def test_misbehaving_clients_do_not_hurt_a_well_behaved_one(load: Load) -> None:
    boards = examples()
    answers = [expected(board) for board in boards]
    big = json.dumps({"type": "solve", "id": 0, "board": generate(BoardSpec(2000)), "fields": ["value"]}).encode()
    with server() as (process, port):
        stop = threading.Event()
        errors: list[str] = []
        threads: list[threading.Thread] = []

        def spawn(target: Callable[..., None], *args: Any) -> None:
            def guarded() -> None:
                try:
                    target(*args)
                except OSError:
                    pass  # the server dropping a misbehaving client is fine
                except Exception as exc:  # a failure of the test's own code
                    errors.append(f"{target.__name__}: {type(exc).__name__}: {exc}")

            thread = threading.Thread(target=guarded, daemon=True)
            thread.start()
            threads.append(thread)

        flooding: list[socket.socket] = []

        def flooder() -> None:
            """Pipelines big solves behind a slow one and reads nothing; blocked by backpressure until reset."""
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.settimeout(None)
            flooding.append(sock)
            slow = {"type": "solve", "id": "slow", "board": slow_board(200), "top_k": 100}
            sock.sendall(json.dumps(slow).encode() + b"\n")
            for i in range(load.flood):
                if stop.is_set():
                    break
                sock.sendall(big.replace(b'"id": 0', f'"id": {i + 1}'.encode(), 1) + b"\n")

        def slowloris() -> None:
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            try:
                sock.sendall(b'{"type":"solve","id":"never","board":{"players":[')
                while not stop.wait(0.1):
                    sock.sendall(b" ")
            finally:
                sock.close()

        def huge() -> None:
            client = Client(port)
            try:
                for i in range(2):
                    client.send_raw(b'{"type":"ping","id":"huge","pad":"' + b"x" * 5_000_000 + b'"}\n')
                    client.call({"type": "ping", "id": f"after{i}"}, timeout=60)
                assert sum(r["code"] == "too_large" for r in client.unmatched) == 2
            finally:
                client.close()

        def disconnect(n: int) -> None:
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            request = {"type": "solve", "id": n, "board": slow_board(40), "top_k": 20}
            sock.sendall(json.dumps(request).encode() + b"\n")
            time.sleep(0.05 * (n % 10))
            reset(sock)

        idle = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(load.idle)]

        def busy() -> None:
            client = Client(port)
            try:
                i = 0
                while not stop.is_set():
                    request = {"type": "solve", "id": i, "board": slow_board(40), "top_k": 10, "fields": ["value"]}
                    client.call(request, timeout=60)
                    i += 1
            finally:
                client.close()

        good = Client(port)
        good.call({"type": "ping", "id": "warm"})
        start = process_rss_mb(process.pid)
        for _ in range(load.flooders):
            spawn(flooder)
        for _ in range(load.slowloris):
            spawn(slowloris)
        for _ in range(load.huge):
            spawn(huge)
        for n in range(load.disconnects):
            spawn(disconnect, n)
        for _ in range(load.busy):
            spawn(busy)
        peak, most_threads = start, 0
        latencies: list[float] = []
        for i in range(load.requests):
            board = boards[i % len(boards)]
            elapsed, reply = good.call({"type": "solve", "id": i, "board": board}, timeout=60)
            latencies.append(elapsed)
            got = {k: v for k, v in reply.items() if k not in {"type", "id", "evaluated", "timing", "elapsed_ms"}}
            assert got == answers[i % len(boards)], f"request {i}"
            peak = max(peak, process_rss_mb(process.pid))
            most_threads = max(most_threads, process_threads(process.pid))
        stop.set()
        for sock in flooding:
            reset(sock)
        for thread in threads:
            thread.join(30)
        for sock in idle:
            sock.close()
        time.sleep(2.0)
        after = process_rss_mb(process.pid)
        assert good.call({"type": "ping", "id": "end"})[1]["type"] == "pong"
        good.close()
        assert process.poll() is None
    p90 = percentile(latencies, 90)
    memory = f"{start:.0f} MB, peak {peak:.0f} MB, then {after:.0f} MB"
    print(f"\nload: {memory}; p90 {p90 * 1000:.0f} ms; {most_threads} threads")
    assert not errors, errors
    assert peak - start <= GROWTH_MB, (start, peak)
    assert after - start <= AFTER_MB, (start, peak, after)
    assert p90 < 1.0, sorted(latencies)[-10:]
    assert max(latencies) < 10.0
    # Threads: one reader per connection and the fixed pool, never one per request.
    connections = load.flooders + load.slowloris + load.huge + load.disconnects + load.idle + load.busy + 1
    assert most_threads <= connections + 32


def test_the_server_load_benchmark_prints_the_target_table(tmp_path: Path) -> None:
    """``benchmarks.server_load`` at a small size: the issue's four measures, in a table, and its JSON."""
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "server_load.json"
    small = ["--pipelined", "5", "--objects", "100", "--timed", "20", "--busy", "1", "--probes", "5"]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.server_load", *small, "--connections", "5", "--json", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for measure in ("server growth", "server threads", "5-object solve p90", "5 simultaneous connections"):
        assert measure in done.stdout
    assert "yardstick u" in done.stdout
    assert "| 5 simultaneous connections, answered within 15 s | 168-200 of 200 | 5 " in " ".join(done.stdout.split())
    data = json.loads(out.read_text())
    assert data["burst"] == {"answered": 5, "of": 5}
    assert data["threads"]["most"] <= 64
