"""Ctrl-C and SIGTERM during a CP-SAT search stop it and exit cleanly (issue 25, finding 7).

CP-SAT's own SIGINT handler used to replace Python's while it searched: ``serve`` aborted
(``std::bad_function_call``) or died by the signal, and ``proliferate solve --top 100`` ignored
Ctrl-C for as long as its alternatives took.  The documented exits are 130 (SIGINT) and 143
(SIGTERM), promptly and without a traceback.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
from protocol_helpers import slow_board

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SERVE = [sys.executable, "-m", "solver", "serve"]
#: Seconds from the signal to the exit: the search is stopped, not waited for.
PROMPT = 5.0


def top_k_request(rid: int = 1) -> bytes:
    return json.dumps({"type": "solve", "id": rid, "board": slow_board(60), "top_k": 100}).encode() + b"\n"


def assert_clean_exit(process: subprocess.Popen[bytes], signum: int, status: int) -> None:
    process.send_signal(signum)
    started = time.perf_counter()
    code = process.wait(30)
    elapsed = time.perf_counter() - started
    assert process.stderr is not None
    err = process.stderr.read()
    assert code == status, (code, err[-2000:])
    assert elapsed < PROMPT
    assert b"Traceback" not in err and b"bad_function_call" not in err


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_stdio_serve_stops_a_top_k_search_and_exits(signum: int, status: int) -> None:
    process = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b'{"type":"ping","id":0}\n' + top_k_request())
    process.stdin.flush()
    assert json.loads(process.stdout.readline()) == {"type": "pong", "id": 0}
    time.sleep(1.0)  # the top-k search is running (it takes far longer)
    assert process.poll() is None
    assert_clean_exit(process, signum, status)


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_tcp_serve_stops_every_session_s_search_and_exits(signum: int, status: int) -> None:
    process = subprocess.Popen([*SERVE, "--tcp", "127.0.0.1:0"], stderr=subprocess.PIPE)
    clients: list[socket.socket] = []
    try:
        assert process.stderr is not None
        match = re.search(r":(\d+)$", process.stderr.readline().decode().strip())
        assert match
        for rid in range(4):  # four sessions, each in a top-k search
            client = socket.create_connection(("127.0.0.1", int(match.group(1))), timeout=10)
            client.sendall(top_k_request(rid))
            clients.append(client)
        time.sleep(1.0)
        assert process.poll() is None
        assert_clean_exit(process, signum, status)
    finally:
        for client in clients:
            client.close()
        if process.poll() is None:
            process.kill()
            process.wait()


def test_solve_top_100_exits_130_promptly_on_ctrl_c() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "solver", "solve", "-", "--top", "1000"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    # The board, padded past a pipe's buffer with whitespace (still one JSON document): once it is all written,
    # the command has started and read it, however long its start took on a loaded machine.
    process.stdin.write(json.dumps(slow_board(60)).encode() + b" " * (1 << 20))
    process.stdin.close()
    time.sleep(1.0)  # searching its alternatives (which take far longer)
    assert process.poll() is None
    assert_clean_exit(process, signal.SIGINT, 130)
