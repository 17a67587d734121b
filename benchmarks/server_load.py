"""``proliferate serve --tcp`` under load: memory, threads, latency beside busy sessions, connection bursts.

Starts one TCP server (a child process, loopback) per measure and drives it with raw socket
clients, reading the server's resident memory and thread count from ``/proc`` (Linux):

- **growth**: one connection sends a slow top-k solve, then pipelines ``--pipelined`` solves
  of a ``--objects``-object board behind it (``fields: ["value"]``); the server's peak RSS over
  its start, and its RSS 5 s after the client resets the connection (it leaves as a killed
  process does; a graceful close is seen once the server reads up to it).
- **threads**: one connection sends a slow solve, then ``--timed`` solves with ``time_ms``;
  the server's most threads while they are pending.
- **latency**: ``--busy`` sessions each keep a top-k solve (CP-SAT) running, back to back,
  while another session sends ``--probes`` solves of a 5-object board one after another;
  their round trips' p50 / p90 / p99 (and the same probes on the idle server, for scale).
- **burst**: ``--connections`` clients connect at once and each sends one solve; how many are
  answered within 15 s.

The yardstick ``u`` (one CartPole-v1 step, :func:`benchmarks.common.cartpole_unit`) is timed
in the same run and the latencies are also given in it.

    python -m benchmarks.server_load [--pipelined 400] [--timed 2000] [--busy 8] [--connections 200] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from benchmarks.boards import BoardSpec, generate, slow_board
from benchmarks.common import cartpole_unit, in_units, markdown_table, write_json

__all__ = ["Client", "five_object_board", "percentile", "process_rss_mb", "process_threads", "server", "slow_board"]

SERVE = [sys.executable, "-m", "solver", "serve"]
#: A 5-object duel (2 players, 3 permanents): the well-behaved client's solve.
_FIVE = {
    "format": 1,
    "variant": "duel",
    "proliferator": "alice",
    "players": [{"id": "alice"}, {"id": "bob", "counters": {"poison": 3}}],
    "permanents": [
        {"id": "bears", "controller": "alice", "types": ["creature"], "power": 2, "toughness": 2,
         "counters": {"+1/+1": 1}},
        {"id": "courser", "controller": "bob", "types": ["creature"], "power": 3, "toughness": 3,
         "counters": {"+1/+1": 1}},
        {"id": "tamiyo", "controller": "alice", "types": ["planeswalker"], "counters": {"loyalty": 4}},
    ],
}  # fmt: skip


def five_object_board() -> dict[str, Any]:
    return json.loads(json.dumps(_FIVE))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- the server and its process
@contextmanager
def server(*args: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``proliferate serve --tcp 127.0.0.1:0 ARGS``, its port once it listens; killed on the way out."""
    process = subprocess.Popen([*SERVE, "--tcp", "127.0.0.1:0", *args], stderr=subprocess.PIPE)
    try:
        assert process.stderr is not None
        line = process.stderr.readline().decode()
        match = re.search(r"listening on .*:(\d+)", line)
        if match is None:
            raise RuntimeError(f"the server did not start: {line!r}")
        threading.Thread(target=process.stderr.read, daemon=True).start()  # keep its stderr drained
        yield process, int(match.group(1))
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def _status(pid: int, key: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"^{key}:\s+(\d+)", text, re.MULTILINE)
    assert match is not None
    return int(match.group(1))


def process_rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB (``VmRSS``)."""
    return _status(pid, "VmRSS") / 1024


def process_threads(pid: int) -> int:
    return _status(pid, "Threads")


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


class Client:
    """One raw TCP connection: lines out, replies read on a thread and kept by id with their arrival time."""

    def __init__(self, port: int, timeout: float = 60.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.settimeout(None)
        self.replies: dict[Any, tuple[float, dict[str, Any]]] = {}
        self.unmatched: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stream = self.sock.makefile("rb")
        try:
            for line in stream:
                reply = json.loads(line)
                with self._changed:
                    if reply.get("id") is None:
                        self.unmatched.append(reply)
                    else:
                        self.replies[reply["id"]] = (time.perf_counter(), reply)
                    self._changed.notify_all()
        except (OSError, ValueError):
            pass

    def send(self, message: dict[str, Any]) -> float:
        """Send one request; the time it was sent."""
        sent = time.perf_counter()
        self.sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return sent

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def wait(self, rid: Any, timeout: float = 60.0) -> tuple[float, dict[str, Any]] | None:
        with self._changed:
            self._changed.wait_for(lambda: rid in self.replies, timeout)
            return self.replies.get(rid)

    def call(self, message: dict[str, Any], timeout: float = 60.0) -> tuple[float, dict[str, Any]]:
        """Send and wait for the reply: (round trip in seconds, reply)."""
        sent = self.send(message)
        got = self.wait(message["id"], timeout)
        if got is None:
            raise TimeoutError(f"no reply to {message['id']!r} within {timeout} s")
        return got[0] - sent, got[1]

    def close(self, abort: bool = False) -> None:
        """Close the connection; ``abort`` resets it (as when a client process dies), so the server sees it at once.

        A graceful close queues the FIN behind whatever the server has not read yet: a server
        that stops reading a client with a full queue sees that client leave only when it
        reads up to the FIN.
        """
        with suppress(OSError):
            if abort:  # closing with a zero linger time resets; the shutdown wakes a thread blocked sending
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


# ---------------------------------------------------------------------------- the measures
def growth(pipelined: int, objects: int) -> dict[str, float]:
    """Server RSS: at start, peak while ``pipelined`` big solves queue behind a slow one, 5 s after the client left."""
    line = json.dumps(
        {"type": "solve", "id": 0, "board": generate(BoardSpec(objects)), "fields": ["value"]}, separators=(",", ":")
    ).encode()
    with server("--max-objects", str(max(objects, 2000))) as (process, port):
        client = Client(port)
        client.call({"type": "ping", "id": "warm"})
        start = process_rss_mb(process.pid)
        client.send({"type": "solve", "id": "slow", "board": slow_board(200), "top_k": 100, "fields": ["value"]})

        def flood() -> None:
            try:
                for i in range(pipelined):
                    client.send_raw(line.replace(b'"id":0', f'"id":{i + 1}'.encode(), 1) + b"\n")
            except OSError:
                pass

        sender = threading.Thread(target=flood, daemon=True)
        sender.start()
        peak = start
        deadline = time.perf_counter() + 20.0
        while sender.is_alive() and time.perf_counter() < deadline:
            peak = max(peak, process_rss_mb(process.pid))
            time.sleep(0.05)
        for _ in range(20):  # a second more, for what is still being parsed
            peak = max(peak, process_rss_mb(process.pid))
            time.sleep(0.05)
        client.close(abort=True)
        sender.join(5)
        time.sleep(5.0)
        after = process_rss_mb(process.pid)
    return {"start": start, "peak": peak, "after": after}


def threads(timed: int) -> dict[str, float]:
    """Most server threads while ``timed`` solves with ``time_ms`` are pending behind a slow one."""
    with server() as (process, port):
        client = Client(port)
        client.call({"type": "ping", "id": "warm"})
        before = process_threads(process.pid)
        client.send({"type": "solve", "id": "slow", "board": slow_board(200), "top_k": 100, "time_ms": 60_000})
        board = five_object_board()

        def flood() -> None:
            try:
                for i in range(timed):
                    client.send({"type": "solve", "id": i, "board": board, "time_ms": 60_000, "fields": ["value"]})
            except OSError:
                pass

        sender = threading.Thread(target=flood, daemon=True)
        sender.start()
        most = before
        end = time.perf_counter() + 3.0
        while time.perf_counter() < end:
            most = max(most, process_threads(process.pid))
            time.sleep(0.02)
        client.close()
        sender.join(5)
    return {"before": before, "most": most}


def latency(busy: int, probes: int) -> dict[str, float]:
    """Round trips of a 5-object solve on an idle server, then beside ``busy`` sessions running top-k back to back."""
    board = five_object_board()
    with server() as (_, port):
        probe = Client(port)
        for i in range(20):
            probe.call({"type": "solve", "id": f"w{i}", "board": board})
        idle = [probe.call({"type": "solve", "id": f"i{i}", "board": board})[0] for i in range(probes)]
        stop = threading.Event()
        workers: list[Client] = [Client(port) for _ in range(busy)]
        solved = [0] * busy

        def keep_busy(n: int) -> None:
            heavy = slow_board(40)
            i = 0
            while not stop.is_set():
                try:
                    workers[n].call({"type": "solve", "id": i, "board": heavy, "top_k": 20, "fields": ["value"]})
                except (OSError, TimeoutError):
                    return
                solved[n] += 1
                i += 1

        loaders = [threading.Thread(target=keep_busy, args=(n,), daemon=True) for n in range(busy)]
        for thread in loaders:
            thread.start()
        time.sleep(1.0)
        loaded = []
        for i in range(probes):
            loaded.append(probe.call({"type": "solve", "id": f"p{i}", "board": board})[0])
            time.sleep(0.01)
        stop.set()
        for client in workers:
            client.close()
    return {
        "idle_p50": percentile(idle, 50),
        "idle_p90": percentile(idle, 90),
        "p50": percentile(loaded, 50),
        "p90": percentile(loaded, 90),
        "p99": percentile(loaded, 99),
        "busy_solves": sum(solved),
    }


def burst(connections: int, within: float = 15.0) -> dict[str, float]:
    """Clients that connect at once and each send one solve: how many are answered within ``within`` seconds."""
    board = five_object_board()
    answered = [False] * connections
    with server() as (_, port):
        barrier = threading.Barrier(connections)
        start = time.perf_counter() + 60.0

        def one(n: int) -> None:
            barrier.wait()
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=within)
                with sock, sock.makefile("rb") as stream:
                    sock.sendall(json.dumps({"type": "solve", "id": n, "board": board, "fields": ["value"]}).encode())
                    sock.sendall(b"\n")
                    reply = json.loads(stream.readline())
                    answered[n] = reply.get("type") == "result" and time.perf_counter() - start <= within
            except (OSError, ValueError):
                pass

        clients = [threading.Thread(target=one, args=(n,), daemon=True) for n in range(connections)]
        for thread in clients:
            thread.start()
        start = time.perf_counter()
        for thread in clients:
            thread.join(within + 5)
    return {"answered": sum(answered), "of": connections}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipelined", type=int, default=400, help="big solves pipelined behind a slow one (400)")
    parser.add_argument("--objects", type=int, default=2000, help="objects of each pipelined board (2000)")
    parser.add_argument("--timed", type=int, default=2000, help="pending solves with time_ms (2000)")
    parser.add_argument("--busy", type=int, default=8, help="sessions running top-k beside the probe (8)")
    parser.add_argument("--probes", type=int, default=200, help="5-object solves timed (200)")
    parser.add_argument("--connections", type=int, default=200, help="simultaneous connections (200)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="where to write the JSON (benchmarks/results/)")
    args = parser.parse_args(argv)
    unit = cartpole_unit()
    u = unit.median
    print(f"yardstick u (one CartPole-v1 step): {u * 1e6:.1f} µs", flush=True)
    grown = growth(args.pipelined, args.objects)
    print(f"growth: {grown}", flush=True)
    counted = threads(args.timed)
    print(f"threads: {counted}", flush=True)
    timed = latency(args.busy, args.probes)
    print(f"latency: {timed}", flush=True)
    connected = burst(args.connections)
    print(f"burst: {connected}", flush=True)
    ms = 1000
    rows = [
        (
            f"server growth, {args.pipelined} pipelined {args.objects:,}-object requests behind a slow one",
            "+734 MB",
            "at most +400 MB, and back near the start when the client leaves",
            f"+{grown['peak'] - grown['start']:.0f} MB (start {grown['start']:.0f} MB, peak {grown['peak']:.0f} MB); "
            f"{grown['after'] - grown['start']:+.0f} MB 5 s after the client left",
        ),
        (
            f"server threads with {args.timed:,} pending timed solves",
            "2,006",
            "at most 64",
            f"{counted['most']:.0f} (before: {counted['before']:.0f})",
        ),
        (
            f"5-object solve p90 with {args.busy} sessions busy on top-k",
            "169 ms",
            "at most 50 ms",
            f"{timed['p90'] * ms:.1f} ms = {in_units(timed['p90'], unit)} (p50 {timed['p50'] * ms:.1f} ms, "
            f"p99 {timed['p99'] * ms:.1f} ms; idle p50 {timed['idle_p50'] * ms:.1f} ms = "
            f"{in_units(timed['idle_p50'], unit)}, p90 {timed['idle_p90'] * ms:.1f} ms; "
            f"{timed['busy_solves']:.0f} top-k solves meanwhile)",
        ),
        (
            f"{args.connections} simultaneous connections, answered within 15 s",
            "168-200 of 200",
            str(args.connections),
            f"{connected['answered']:.0f} of {connected['of']:.0f}",
        ),
    ]
    print()
    print(markdown_table(["measure", "main", "target", "this run"], rows))
    payload = {"u_s": u, "u_samples": list(unit.samples), "args": {k: str(v) for k, v in vars(args).items()}}
    payload["growth_mb"] = grown
    payload |= {"threads": counted, "latency_s": timed, "burst": connected}
    print(f"\nwrote {write_json('server_load', payload, args.json)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
