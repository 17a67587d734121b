"""A small Python client for ``proliferate serve``: for tests, and for callers who want process isolation.

>>> with EngineClient() as engine:  # doctest: +SKIP
...     result = engine.solve(board, top_k=3)  # starts ``python -m solver serve``; a SolveResult
...     result.decision.chosen, result.decision.alternatives

:meth:`EngineClient.solve` returns typed results (a :class:`solver.Decision` rebuilt by
:func:`solver.decision_from_json`, the ``evaluated`` choices, the timings); the
lower-level :meth:`EngineClient.submit_solve` returns a :class:`Pending` whose ``result()`` is
the reply as a dict.  Replies are matched to requests by id on a reader thread, so requests
can overlap: a :class:`Pending` is how a solve is cancelled while it runs.  Error replies
raise :class:`ProtocolError` with the server's ``code``, ``message`` and ``data``.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from types import MappingProxyType, TracebackType
from typing import IO, Any

import msgspec

import solver
from solver import jsoncodec, threads
from solver.decision import choice_from_json
from solver.inputs import BoardLike, as_board

from .messages import PROTOCOL, REPLY_DECODER, ErrorReply, ProtocolError, Reply, RequestId, Result

__all__ = ["EngineClient", "EngineTerminated", "Evaluated", "Pending", "ProtocolError", "SolveResult"]

#: Result keys :func:`solver.decision_from_json` needs; added to any ``fields`` the caller asks for.
_DECISION_KEYS = ("rounds", "value", "status", "bound", "method")


@dataclass(frozen=True)
class Evaluated:
    """One ``evaluate`` entry's answer: the choice as the engine read it, its value and regret."""

    choice: solver.Choice
    value: float
    regret: float


@dataclass(frozen=True)
class SolveResult:
    """A solve's reply, typed: the decision, the evaluated choices, the timings, and the raw message."""

    decision: solver.Decision
    evaluated: tuple[Evaluated, ...]
    timing: Mapping[str, float]
    raw: Mapping[str, Any]


DEFAULT_TIMEOUT = 60.0


class EngineTerminated(ConnectionError):
    """The server closed the connection (or exited) while replies were still owed."""


class Pending:
    """A request that has been sent; :meth:`result` waits for its one final reply."""

    def __init__(self, rid: RequestId | None, future: Future[Reply], timeout: float) -> None:
        self.id = rid
        self._future = future
        self._timeout = timeout

    def done(self) -> bool:
        return self._future.done()

    def reply(self, timeout: float | None = None) -> Reply:
        """The reply, typed (the Structs the server wrote it from); raises ProtocolError for an ``error`` reply,
        TimeoutError if none comes in time."""
        reply = self._future.result(self._timeout if timeout is None else timeout)
        if isinstance(reply, ErrorReply):
            data = None if isinstance(reply.data, msgspec.UnsetType) else reply.data
            raise ProtocolError(reply.code, reply.message, data)
        return reply

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        """The reply message as a dict; raises as :meth:`reply` does."""
        built: dict[str, Any] = msgspec.to_builtins(self.reply(timeout))
        return built


class EngineClient:
    """One session with a server: a child process by default, or a TCP connection (:meth:`connect`)."""

    def __init__(
        self,
        command: Sequence[str] | None = None,
        *,
        args: Sequence[str] = (),
        stderr: int | IO[Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        """Start ``command`` (default ``python -m solver serve`` plus ``args``); ``stderr`` as for subprocess."""
        argv = list(command) if command is not None else [sys.executable, "-m", "solver", "serve"]
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [*argv, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._init(self.process.stdout, self.process.stdin, None, timeout)

    @classmethod
    def connect(cls, host: str, port: int, *, timeout: float = DEFAULT_TIMEOUT) -> EngineClient:
        """A session over TCP with a running ``proliferate serve --tcp``."""
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.settimeout(None)
        client = cls.__new__(cls)
        client.process = None
        client._init(sock.makefile("rb"), sock.makefile("wb"), sock, timeout)
        return client

    def _init(self, reader: IO[bytes], writer: IO[bytes], sock: socket.socket | None, timeout: float) -> None:
        self._reader, self._writer, self._socket = reader, writer, sock
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._policy: solver.Policy | None = None  # the session's, as last configured: decisions are rebuilt with it
        self._lock = threading.Lock()
        self._waiting: dict[RequestId | None, collections.deque[Future[Reply]]] = {}
        self._closed = False
        self._ended = False  # the server's side is closed: nothing more will be answered
        self._thread = threading.Thread(target=self._read_replies, name="proliferate-client", daemon=True)
        threads.start(self._thread)

    # -------------------------------------------------------------- context
    def __enter__(self) -> EngineClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self, timeout: float = 10.0) -> int | None:
        """End the session (``quit`` if still open) and, for a child process, wait and return its exit status."""
        if not self._closed:
            with contextlib.suppress(ProtocolError, OSError, TimeoutError):
                self.quit()
        self._shutdown_writer()
        if self._socket is not None:
            self._socket.close()
        if self.process is None:
            return None
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def _shutdown_writer(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):  # the server may already be gone
            self._writer.close()
            if self._socket is not None:
                self._socket.shutdown(socket.SHUT_WR)

    # -------------------------------------------------------------- requests
    def submit(self, type_: str, **fields: Any) -> Pending:
        """Send a request with a fresh integer id; does not wait for the reply."""
        rid = next(self._ids)
        message = {"type": type_, "id": rid, **fields}
        return self.send_raw(jsoncodec.dumps(message), rid)

    def request(self, type_: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        return self.submit(type_, **fields).result(timeout)

    def send_raw(self, line: bytes | str, expect_id: RequestId | None = None) -> Pending:
        """Send one line as is (a newline is added) and wait-able for the reply with ``expect_id``.

        For error-path tests and for callers that build their own JSON; replies with ``"id":
        null`` (unparseable lines) are matched in the order they were sent.
        """
        data = line.encode() if isinstance(line, str) else line
        future: Future[Reply] = Future()
        with self._lock:
            if self._closed or self._ended:
                raise EngineTerminated("the session is closed")
            self._waiting.setdefault(expect_id, collections.deque()).append(future)
            try:
                self._writer.write(data + b"\n")
                self._writer.flush()
            except OSError as exc:
                self._waiting[expect_id].remove(future)
                raise EngineTerminated(f"cannot send to the engine: {exc}") from exc
        return Pending(expect_id, future, self.timeout)

    def hello(self) -> dict[str, Any]:
        """The handshake: the engine's ``hello_ok`` (name, version, capabilities, options)."""
        return self.request("hello", protocol=PROTOCOL, client={"name": "solver.protocol.client"})

    def ping(self) -> dict[str, Any]:
        return self.request("ping")

    def configure(self, **options: Any) -> dict[str, Any]:
        """Change session options (``policy``, ``time_ms``, ``top_k``, ``max_line_bytes``, ``max_objects``)."""
        reply = self.request("configure", **options)
        if "policy" in options:
            self._policy = None if options["policy"] is None else solver.Policy.from_dict(options["policy"])
        return reply

    def submit_solve(
        self,
        board: BoardLike,
        *,
        top_k: int | None = None,
        evaluate: Sequence[Any] | None = None,
        time_ms: int | None = None,
        fields: Sequence[str] | None = None,
    ) -> Pending:
        """Send a solve without waiting; ``result()`` of the Pending is the reply as a dict."""
        request: dict[str, Any] = {"board": _board_json(board)}
        if top_k is not None:
            request["top_k"] = top_k
        if evaluate is not None:
            request["evaluate"] = list(evaluate)
        if time_ms is not None:
            request["time_ms"] = time_ms
        if fields is not None:
            request["fields"] = list(fields)
        return self.submit("solve", **request)

    def solve(
        self,
        board: BoardLike,
        *,
        top_k: int | None = None,
        evaluate: Sequence[Any] | None = None,
        time_ms: int | None = None,
        fields: Sequence[str] | None = None,
    ) -> SolveResult:
        """The engine's decision for ``board``, typed.

        ``fields`` asks for fewer result keys (docs/protocol.md); the keys a
        :class:`~solver.Decision` needs are always asked for, and what is left out (the
        outcome, the explanation) is derived again locally, on first access, by the same
        rules.  Raises :class:`ProtocolError` for an error reply.
        """
        loaded = as_board(board)
        if fields is not None:
            fields = [*dict.fromkeys([*_DECISION_KEYS, *fields])]
        sent = board if isinstance(board, Mapping) else loaded
        typed = self.submit_solve(sent, top_k=top_k, evaluate=evaluate, time_ms=time_ms, fields=fields).reply()
        if not isinstance(typed, Result):
            raise ProtocolError("internal", f"a solve was answered by {type(typed).__name__}")
        reply: dict[str, Any] = msgspec.to_builtins(typed)
        evaluated = tuple(
            Evaluated(choice_from_json(msgspec.to_builtins(item), loaded.rounds), item.value, item.regret)
            for item in (() if isinstance(typed.evaluated, msgspec.UnsetType) else typed.evaluated)
        )
        timing = {} if isinstance(typed.timing, msgspec.UnsetType) else msgspec.structs.asdict(typed.timing)
        return SolveResult(
            decision=solver.decision_from_json(reply, loaded, self._policy),
            evaluated=evaluated,
            timing=MappingProxyType(timing),
            raw=MappingProxyType(reply),
        )

    def cancel(self, target: RequestId | Pending) -> dict[str, Any]:
        """Cancel a pending solve, given as its id or its Pending (its own reply becomes the error ``cancelled``)."""
        return self.request("cancel", target=target.id if isinstance(target, Pending) else target)

    def quit(self) -> dict[str, Any]:
        """Ask the server to end the session once pending solves are answered; closes our end."""
        reply = self.request("quit")
        self._shutdown_writer()
        return reply

    # -------------------------------------------------------------- replies
    def _read_replies(self) -> None:
        try:
            for line in self._reader:
                reply = _reply(line)
                with self._lock:
                    queue = self._waiting.get(reply.id)
                    future = queue.popleft() if queue else None
                if future is not None:
                    future.set_result(reply)
        except (OSError, ValueError):
            pass
        with self._lock:
            self._ended = True
            owed = [f for queue in self._waiting.values() for f in queue]
            self._waiting.clear()
        for future in owed:
            future.set_exception(EngineTerminated("the engine closed the connection before replying"))


def _reply(line: bytes) -> Reply:
    """One reply line as its Struct; a line that is not a reply this client knows becomes an ``internal`` error."""
    try:
        return REPLY_DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        message = jsoncodec.loads(line)  # not JSON at all: ValueError, the connection is unusable
        rid = message.get("id") if isinstance(message, dict) else None
        return ErrorReply(rid if isinstance(rid, str | int) else None, "internal", f"unreadable reply: {exc}")


def _board_json(board: BoardLike) -> Any:
    """The board as JSON data to send: a Board dumped, a mapping as is, text or a file read."""
    if isinstance(board, solver.Board):
        return solver.dump_board(board)
    if isinstance(board, Mapping):
        return board
    return solver.dump_board(as_board(board))
