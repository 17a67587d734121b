"""One protocol session, independent of the transport: requests in as lines, replies out through a callback.

Quick requests (``hello``, ``ping``, ``configure``, ``cancel``) are answered on the reading
thread; solves go to one worker thread per session, in arrival order, so ``ping`` and
``cancel`` are answered at once even while a solve runs (the UCI ``isready`` lesson).  Every
request owes exactly one final reply; a solve's reply can come from the worker, from a
``cancel``, from its deadline or from ``quit``, so each pending solve is *claimed* by whichever
answers first and the others stay silent.  Claiming a solve that is still running also sets
its cancel token, which stops the search (CP-SAT from a watcher thread, the fast path between
stages), so the next request does not wait for an answer nobody will read.  A session whose
client is gone (a reset connection, replies that cannot be written) cancels everything it
still owes and stops its worker.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import solver
from solver.errors import Problem
from solver.policy import Policy

from .messages import (
    GRACE_MS,
    LINE_BYTES_RANGE,
    OBJECTS_RANGE,
    PROTOCOL,
    TIME_MS_MAX,
    TOP_K_MAX,
    Cancel,
    Configure,
    EvaluateItem,
    Hello,
    Ping,
    ProtocolError,
    Quit,
    Request,
    RequestId,
    Solve,
    decode,
    encode,
    error_reply,
    invalid,
    parse_request,
    problems_json,
    request_id,
)

__all__ = ["Session", "Settings"]

log = logging.getLogger("solver.protocol")


class LineSource(Protocol):
    """Where request lines come from: a binary file, ``sys.stdin.buffer`` or a socket's reader."""

    def readline(self, size: int = -1, /) -> bytes: ...


#: Writes one encoded reply line; the transport makes it atomic and flushes it, and raises
#: OSError once the client can no longer be written to (the session then stops its solves).
Send = Callable[[bytes], None]


@dataclass(frozen=True)
class Settings:
    """What ``configure`` (and the ``serve`` flags) can change; one immutable value per session state."""

    policy: Policy = field(default_factory=Policy)
    time_ms: int | None = None
    top_k: int = 1
    max_line_bytes: int = 1_000_000
    max_objects: int = 2_000

    def options(self) -> list[dict[str, Any]]:
        """The option schema for ``hello_ok``, with these settings as the defaults."""
        return [
            {"name": "policy", "type": "object", "default": self.policy.to_dict()},
            {"name": "time_ms", "type": "integer", "default": self.time_ms, "min": 1, "max": TIME_MS_MAX},
            {"name": "top_k", "type": "integer", "default": self.top_k, "min": 1, "max": TOP_K_MAX},
            {"name": "max_line_bytes", "type": "integer", "default": self.max_line_bytes, "min": LINE_BYTES_RANGE[0],
             "max": LINE_BYTES_RANGE[1]},
            {"name": "max_objects", "type": "integer", "default": self.max_objects, "min": OBJECTS_RANGE[0],
             "max": OBJECTS_RANGE[1]},
        ]  # fmt: skip

    def values(self) -> dict[str, Any]:
        return {
            "policy": self.policy.to_dict(),
            "time_ms": self.time_ms,
            "top_k": self.top_k,
            "max_line_bytes": self.max_line_bytes,
            "max_objects": self.max_objects,
        }


@dataclass(eq=False)
class _Job:
    """A solve that still owes its reply; ``claim`` hands the right to reply to exactly one thread.

    ``stop`` is the solve's cancel token: set when anyone but the worker claims the reply.
    """

    request: Solve
    settings: Settings
    received: float
    timer: threading.Timer | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    _answered: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def answered(self) -> bool:
        return self._answered

    def claim(self, stop: bool = True) -> bool:
        """The right to send this solve's reply, once; ``stop`` also stops its search."""
        with self._lock:
            if self._answered:
                return False
            self._answered = True
        if stop:
            self.stop.set()
        if self.timer is not None:
            self.timer.cancel()
        return True


class Session:
    """The state of one client connection: its settings and its pending solves."""

    def __init__(self, send: Send, settings: Settings | None = None) -> None:
        self._send = send
        self.settings = settings or Settings()
        self._pending: dict[RequestId, _Job] = {}
        self._pending_changed = threading.Condition()
        self._gone = False  # set once the client is gone: nothing more is solved
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._work, name="proliferate-solve", daemon=True)
        self._worker.start()

    # -------------------------------------------------------------- reading side
    def handle_line(self, line: bytes) -> bool:
        """Handle one request line (without its newline); False once the session should end (``quit``)."""
        if not line.strip():
            return True
        rid: RequestId | None = None
        try:
            message = decode(line)
            rid = request_id(message)
            request = parse_request(message, self.settings.max_objects)
            return _HANDLERS[type(request)](self, request)
        except ProtocolError as exc:
            self._reply(error_reply(rid, exc))
        except Exception as exc:  # a bug must cost one request, never the session
            log.exception("internal error handling request %r", rid)
            self._reply(error_reply(rid, ProtocolError("internal", f"{type(exc).__name__}: {exc}")))
        return True

    def line_too_long(self, size: int) -> None:
        """Report a line the transport dropped for exceeding ``max_line_bytes``."""
        limit = self.settings.max_line_bytes
        data = {"limit": limit, "size": size}
        self._reply(error_reply(None, ProtocolError("too_large", f"line of {size} bytes exceeds {limit}", data)))

    def finish(self) -> None:
        """Wait until every pending solve has been answered (end of input or ``quit``), then stop the worker."""
        with self._pending_changed:
            self._pending_changed.wait_for(lambda: not self._pending)
        self._queue.put(None)

    def abandon(self) -> None:
        """The client is gone: stop every pending solve without replying, and stop the worker."""
        with self._pending_changed:
            if self._gone:
                return
            self._gone = True
            jobs = list(self._pending.values())
            self._pending.clear()
            self._pending_changed.notify_all()
        for job in jobs:
            job.claim()
        self._queue.put(None)

    def join(self, timeout: float | None = None) -> None:
        """Wait for the worker thread to end (after :meth:`finish` or :meth:`abandon`)."""
        self._worker.join(timeout)

    # -------------------------------------------------------------- handlers, one per request type
    def _on_solve(self, request: Solve) -> bool:
        self._submit(request)
        return True

    def _on_ping(self, request: Ping) -> bool:
        self._reply({"type": "pong", "id": request.id})
        return True

    def _on_hello(self, request: Hello) -> bool:
        self._reply(self._hello_ok(request))
        return True

    def _on_configure(self, request: Configure) -> bool:
        self.settings = replace(self.settings, **request.changes)
        self._reply({"type": "result", "id": request.id, "options": self.settings.values()})
        return True

    def _on_cancel(self, request: Cancel) -> bool:
        self._cancel(request)
        return True

    def _on_quit(self, request: Quit) -> bool:
        self.finish()
        self._reply({"type": "result", "id": request.id, "quit": True})
        return False

    def _hello_ok(self, request: Hello) -> dict[str, Any]:
        return {
            "type": "hello_ok",
            "id": request.id,
            "protocol": PROTOCOL,
            "engine": {"name": "proliferate", "version": solver.__version__},
            "capabilities": {
                "top_k": True,
                "evaluate": True,
                "cancel": True,
                "time_ms": True,
                "fields": True,
                "stream": False,
                "max_objects": self.settings.max_objects,
                "max_line_bytes": self.settings.max_line_bytes,
            },
            "options": self.settings.options(),
        }

    def _submit(self, request: Solve) -> None:
        job = _Job(request, self.settings, time.perf_counter())
        with self._pending_changed:
            if self._gone:
                return
            if request.id in self._pending:
                raise invalid([Problem("id", f"{request.id!r} is already the id of a pending solve")])
            self._pending[request.id] = job
        time_ms = request.time_ms or job.settings.time_ms
        if time_ms is not None:
            job.timer = threading.Timer((time_ms + GRACE_MS) / 1000, self._expire, (job, time_ms))
            job.timer.daemon = True
            job.timer.start()
        self._queue.put(job)

    def _cancel(self, request: Cancel) -> None:
        with self._pending_changed:
            job = self._pending.get(request.target)
        if job is None or not job.claim():
            why = f"no pending solve has id {request.target!r} (it may have been answered already)"
            raise invalid([Problem("target", why)])
        self._answer(job, error_reply(job.request.id, ProtocolError("cancelled", "cancelled by request")))
        self._reply({"type": "result", "id": request.id, "cancelled": request.target})

    def _expire(self, job: _Job, time_ms: int) -> None:
        if job.claim():
            error = ProtocolError("timeout", f"no answer within time_ms={time_ms} (+{GRACE_MS} ms grace)")
            self._answer(job, error_reply(job.request.id, error))

    # -------------------------------------------------------------- worker side
    def _work(self) -> None:
        """Solve queued jobs in order; nothing a job does can end this loop before the session does."""
        while (job := self._queue.get()) is not None:
            if job.answered:
                continue  # cancelled or expired while queued: do not spend time on it
            try:
                reply = self._solve(job)
            except ProtocolError as exc:
                reply = error_reply(job.request.id, exc)
            except Exception as exc:
                log.exception("internal error in solve %r", job.request.id)
                reply = error_reply(job.request.id, ProtocolError("internal", f"{type(exc).__name__}: {exc}"))
            if reply is not None and job.claim(stop=False):
                self._answer(job, reply)

    def _solve(self, job: _Job) -> dict[str, Any] | None:
        """The result for a job, or None when it was answered (cancelled, expired) while it ran."""
        request, settings = job.request, job.settings
        started = time.perf_counter()
        try:
            board = solver.load_board(request.board)
        except solver.BoardError as exc:
            data = {"problems": problems_json(exc.problems, "board")}
            raise ProtocolError("invalid_board", f"board: {exc.problems[0]}", data) from exc
        if job.answered:  # cancelled or expired while the board loaded
            return None
        choices = [_choice(item, board, f"evaluate[{i}]") for i, item in enumerate(request.evaluate)]
        top_k = request.top_k or settings.top_k
        time_ms = request.time_ms or settings.time_ms
        solved = time.perf_counter()
        # The limit bounds the whole request, from its arrival: what is left of it goes to the solve.
        time_limit = None if time_ms is None else max(time_ms / 1000 - (solved - job.received), 1e-3)
        decision = solver.solve(board, settings.policy, top_k=top_k, time_limit=time_limit, cancel=job.stop)
        if job.answered:
            return None
        fields = request.fields
        reply: dict[str, Any] = {"type": "result", "id": request.id, **decision.to_json(fields)}
        if fields is None or "evaluated" in fields:
            reply["evaluated"] = _evaluate(board, settings.policy, decision.value, choices)
        done = time.perf_counter()
        if fields is None or "timing" in fields:
            reply["timing"] = {
                "queued_ms": _ms(started - job.received),
                "load_ms": _ms(solved - started),
                "solve_ms": _ms(done - solved),
                "total_ms": _ms(done - job.received),
            }
        return reply

    # -------------------------------------------------------------- output
    def _answer(self, job: _Job, reply: Mapping[str, Any]) -> None:
        """Forget a solve and send its one reply, atomically: once the client sees the reply it may reuse the id."""
        with self._pending_changed:
            self._pending.pop(job.request.id, None)
            self._reply(reply)
            self._pending_changed.notify_all()

    def _reply(self, reply: Mapping[str, Any]) -> None:
        try:
            line = encode(reply)
        except ValueError as exc:  # NaN, infinity or a surrogate: a bug, but the caller still gets its one reply
            log.exception("cannot encode reply to %r", reply.get("id"))
            error = ProtocolError("internal", f"unencodable reply: {type(exc).__name__}")
            try:
                line = encode(error_reply(reply.get("id"), error))
            except ValueError:
                line = encode(error_reply(None, error))
        try:
            self._send(line)
        except OSError as exc:  # the client is gone: nobody will read what is still being worked on
            log.info("cannot reply (%s): stopping this session's solves", exc)
            self.abandon()


#: The handler of each request type: a request class without one fails the tests (and the type check).
_HANDLERS: Mapping[type[Request], Callable[[Session, Any], bool]] = {
    Hello: Session._on_hello,
    Ping: Session._on_ping,
    Configure: Session._on_configure,
    Solve: Session._on_solve,
    Cancel: Session._on_cancel,
    Quit: Session._on_quit,
}


def _choice(item: EvaluateItem, board: solver.Board, path: str) -> tuple[str, solver.Choice]:
    """An ``evaluate`` entry as a Choice on ``board``; the legality check happens when it is scored."""
    return path, item.choice(board.rounds)


def _evaluate(
    board: solver.Board, policy: Policy, best: float, choices: list[tuple[str, solver.Choice]]
) -> list[dict[str, Any]]:
    """Value and regret (against the decision) of each choice the caller asked about."""
    if not choices:
        return []
    from solver.decision import choice_to_json
    from solver.objective import MILLI, Objective
    from solver.rules import choice_matrix

    objective = Objective(board, policy)
    out = []
    for path, choice in choices:
        try:
            chosen, recipients = choice_matrix(board, choice)
        except solver.IllegalChoice as exc:
            raise ProtocolError(
                "invalid_request",
                f"{path}: {exc}",
                {"problems": [{"path": path, "message": str(exc)}]},
            ) from exc
        value = objective.score_matrix(chosen, recipients)
        out.append({**choice_to_json(choice), "value": value / MILLI, "regret": (round(best * MILLI) - value) / MILLI})
    return out


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def run_session(stream: LineSource, send: Send, settings: Settings, *, answer_at_end: bool = True) -> None:
    """Serve one client: read request lines from ``stream`` until ``quit`` or end of input.

    Lines are read with a length bound so a huge line costs ``max_line_bytes`` of memory, not
    its size; the rest of it is skipped and reported as ``too_large``.  At end of input the
    pending solves are still answered when ``answer_at_end`` (stdio: ``cat requests.jsonl |
    proliferate serve`` works), else cancelled (TCP: a client that closes is gone).  A read
    error (a reset connection) cancels them too.  Either way the session's worker thread has
    ended when this returns.
    """
    session = Session(send, settings)
    try:
        while True:
            limit = session.settings.max_line_bytes
            line = stream.readline(limit + 1)
            if not line:
                break
            if len(line) > limit and not line.endswith(b"\n"):
                session.line_too_long(len(line) + _skip_line(stream))
                continue
            if not session.handle_line(line.rstrip(b"\r\n")):
                return
        if answer_at_end:
            session.finish()
        else:
            session.abandon()
    except BaseException:
        session.abandon()
        raise
    finally:
        session.join()


def _skip_line(stream: LineSource) -> int:
    """Discard the rest of an over-long line; the number of bytes skipped (without the newline)."""
    skipped = 0
    while chunk := stream.readline(1 << 16):
        if chunk.endswith(b"\n"):
            return skipped + len(chunk) - 1
        skipped += len(chunk)
    return skipped
