"""One protocol session, independent of the transport: requests in as lines, replies out through a callback.

Quick requests (``hello``, ``ping``, ``configure``, ``cancel``) are answered on the reading
thread (the UCI ``isready`` lesson).  Solves wait in the session's queue, which is bounded:
once it holds :data:`QUEUE_MAX` solves, :meth:`Session.handle_line` blocks, so the transport
stops reading that client (backpressure) and its unread requests wait in the client's own
socket or pipe, not in the server's memory.  Every session's solves run, one at a time and
in arrival order, on one process-wide :class:`Scheduler`: a fixed pool of worker threads
that takes the sessions in turn (round robin), so a solve never waits behind more than one
solve of each other session.  Time limits are kept by one deadline thread for the whole
process (:class:`Deadlines`), not a timer per request.

Every request owes exactly one final reply; a solve's reply can come from the worker, from a
``cancel``, from its deadline or from ``quit``, so each pending solve is *claimed* by whichever
answers first and the others stay silent.  Claiming a solve that is still running also sets
its cancel token, which stops the search (CP-SAT from a watcher thread, the fast path between
stages, the scoring of ``evaluate`` every few entries), so the next request does not wait
for an answer nobody will read.  A session whose client is gone (a reset connection,
replies that cannot be written) cancels everything it still owes and drops its queue.

The operator's limits (``serve --max-line-bytes``, ``--max-objects``) are ceilings: a
client's ``configure`` can lower them for its session, never raise them.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Final, Protocol

import solver
from solver import interrupts, threads
from solver.allocator import release_memory
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
    Evaluated,
    EvaluateItem,
    Hello,
    HelloOk,
    Ping,
    Pong,
    ProtocolError,
    Quit,
    Reply,
    Request,
    RequestId,
    Result,
    Solve,
    Timing,
    board_refused,
    encode,
    error_reply,
    invalid,
    read_request,
)

__all__ = [
    "HEAVY_OBJECTS",
    "QUEUE_MAX",
    "WORKERS",
    "Deadlines",
    "Scheduler",
    "Session",
    "Settings",
    "run_session",
    "stop_all",
]

log = logging.getLogger("solver.protocol")

#: Solves one session may have waiting (received, not yet running) before its reader stops reading.
QUEUE_MAX: Final = 32
#: Worker threads of the default scheduler: enough that a few long solves never hold up a short one.
WORKERS: Final = 16
#: Boards with more players + permanents than this are heavy solves (:class:`Scheduler`).
HEAVY_OBJECTS: Final = 500
#: A session that received this many bytes hands its memory back to the system when it ends.
_RELEASE_BYTES: Final = 1 << 20
#: Seconds between two looks at whether the client left, while its queue is full.
_GONE_POLL: Final = 0.2
#: ``evaluate`` entries scored between two looks at the solve's cancel token.
_EVALUATE_CHECK: Final = 64


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

    def options(self, ceiling: Settings | None = None) -> list[dict[str, Any]]:
        """The option schema for ``hello_ok``: these settings as defaults, ``ceiling``'s limits as maxima."""
        top = ceiling or Settings(max_line_bytes=LINE_BYTES_RANGE[1], max_objects=OBJECTS_RANGE[1])
        return [
            {"name": "policy", "type": "object", "default": self.policy.to_dict()},
            {"name": "time_ms", "type": "integer", "default": self.time_ms, "min": 1, "max": TIME_MS_MAX},
            {"name": "top_k", "type": "integer", "default": self.top_k, "min": 1, "max": TOP_K_MAX},
            {"name": "max_line_bytes", "type": "integer", "default": self.max_line_bytes, "min": LINE_BYTES_RANGE[0],
             "max": top.max_line_bytes},
            {"name": "max_objects", "type": "integer", "default": self.max_objects, "min": OBJECTS_RANGE[0],
             "max": top.max_objects},
        ]  # fmt: skip

    def values(self) -> dict[str, Any]:
        return {
            "policy": self.policy.to_dict(),
            "time_ms": self.time_ms,
            "top_k": self.top_k,
            "max_line_bytes": self.max_line_bytes,
            "max_objects": self.max_objects,
        }


#: The settings that are ceilings: the operator's value bounds what ``configure`` may set.
_CEILINGS: Final = ("max_line_bytes", "max_objects")


@dataclass(eq=False)
class _Job:
    """A solve that still owes its reply; ``claim`` hands the right to reply to exactly one thread.

    ``stop`` is the solve's cancel token: set when anyone but the worker claims the reply.
    """

    request: Solve
    settings: Settings
    received: float
    session: Session
    time_ms: int | None = None
    heavy: bool = False
    stop: threading.Event = field(default_factory=threading.Event)
    _answered: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def answered(self) -> bool:
        return self._answered

    def claim(self, stop: bool = True) -> bool:
        """The right to send this solve's reply, once; ``stop`` also stops its search (and drops it from the queue)."""
        with self._lock:
            if self._answered:
                return False
            self._answered = True
        if stop:
            self.stop.set()
            self.session._dequeue(self)
        return True


# ------------------------------------------------------------------------------ the worker pool
class Scheduler:
    """A fixed pool of solve workers shared by every session, taking the sessions in turn.

    A session with queued solves and none running waits in a ring; a free worker takes the
    first session of the ring whose next solve may start, runs that solve, and puts the
    session back at the end of the ring if it has more.  So each session runs one solve at
    a time, in its arrival order, and a newly queued solve waits behind at most one solve of
    each other session (plus those already running).

    Heavy solves (top-k, which runs CP-SAT once per alternative, or a board of more than
    :data:`HEAVY_OBJECTS` objects) run at most ``heavy`` at a time, one per core by default:
    more of them would not finish sooner on the cores there are, and every extra one holding
    the interpreter lock while it builds a model would delay the short solves, which always
    find a worker.  Workers are started when there is work and none is free, up to
    ``workers``; they are daemon threads and live as long as the process.
    """

    def __init__(self, workers: int = WORKERS, heavy: int | None = None) -> None:
        if workers < 1:
            raise ValueError(f"a scheduler needs at least one worker, not {workers}")
        self.workers = workers
        self.heavy = max(1, heavy if heavy is not None else min(workers - 1, os.cpu_count() or 2))
        self.cond = threading.Condition()
        self._ring: deque[Session] = deque()
        self._threads: list[threading.Thread] = []
        self._free = 0  # workers waiting for work, or starting
        self._heavy_running = 0

    @property
    def threads(self) -> int:
        """Worker threads started so far."""
        return len(self._threads)

    def ready(self, session: Session) -> None:
        """Put a session with queued solves in the ring (the caller holds ``cond``); starts a worker if none is free.

        Raises RuntimeError when no worker exists and none can be started: then nothing
        would ever run the solve.
        """
        if not session._in_ring and session._running is None:
            session._in_ring = True
            self._ring.append(session)
        self.cond.notify_all()
        if self._free == 0 and len(self._threads) < self.workers:
            thread = threading.Thread(target=self._work, name=f"proliferate-solve-{len(self._threads)}", daemon=True)
            self._free += 1
            try:
                threads.start(thread)
            except RuntimeError:
                self._free -= 1
                if not self._threads:
                    raise
                log.warning("cannot start another solve worker; %d run the queue", len(self._threads))
            else:
                self._threads.append(thread)

    def _next(self) -> Session | None:
        """The first session in the ring whose next solve may start now (the caller holds ``cond``)."""
        room = self._heavy_running < self.heavy
        for session in self._ring:
            if room or not session._jobs[0].heavy:
                return session
        return None

    def drop(self, session: Session) -> None:
        """Take a session whose queue emptied (its solves were cancelled) out of the ring; the caller holds ``cond``."""
        if session._in_ring and not session._jobs:
            session._in_ring = False
            self._ring.remove(session)
        self.cond.notify_all()

    def _work(self) -> None:
        while True:
            with self.cond:
                while (session := self._next()) is None:
                    self.cond.wait()
                self._free -= 1
                self._ring.remove(session)
                session._in_ring = False
                job = session._jobs.popleft()
                session._running = job
                self._heavy_running += job.heavy
                self.cond.notify_all()  # a place in that session's queue is free
            try:
                session._run(job)
            finally:
                with self.cond:
                    session._running = None
                    self._free += 1
                    self._heavy_running -= job.heavy
                    if session._jobs:
                        session._in_ring = True
                        self._ring.append(session)
                    self.cond.notify_all()

    def busy(self) -> int:
        """Workers running a solve now."""
        with self.cond:
            return len(self._threads) - self._free

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no worker runs a solve (after :func:`stop_all`); False if some still do at ``timeout``."""
        with self.cond:
            return self.cond.wait_for(lambda: len(self._threads) == self._free, timeout)


class Deadlines:
    """One thread that answers ``timeout`` for every solve past its ``time_ms`` + grace.

    Entries hold their solve weakly, so an answered solve (and its board) is freed at once
    rather than when its deadline passes; the heap is compacted as answered entries pile up.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, weakref.ref[_Job]]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._compact_at = 1024

    def add(self, when: float, job: _Job) -> None:
        """Watch ``job`` until ``when`` (on :func:`time.perf_counter`); RuntimeError if the thread cannot start."""
        with self._cond:
            if self._thread is None:
                thread = threading.Thread(target=self._watch, name="proliferate-deadlines", daemon=True)
                threads.start(thread)  # raises RuntimeError before anything is registered
                self._thread = thread
            heapq.heappush(self._heap, (when, next(self._order), weakref.ref(job)))
            if len(self._heap) >= self._compact_at:
                self._heap = [entry for entry in self._heap if _live(entry[2])]
                heapq.heapify(self._heap)
                self._compact_at = max(1024, 2 * len(self._heap))
            self._cond.notify()

    def __len__(self) -> int:
        with self._cond:
            return len(self._heap)

    def _watch(self) -> None:
        while True:
            with self._cond:
                if not self._heap:
                    self._cond.wait()
                    continue
                when = self._heap[0][0]
                now = time.perf_counter()
                if when > now:
                    self._cond.wait(when - now)
                    continue
                job = heapq.heappop(self._heap)[2]()
            if job is not None and not job.answered:
                try:
                    job.session._expire(job)
                except Exception:  # a failing reply must not end the one deadline thread
                    log.exception("cannot answer the timeout of %r", job.request.id)


def _live(ref: weakref.ref[_Job]) -> bool:
    job = ref()
    return job is not None and not job.answered


@cache
def default_scheduler() -> Scheduler:
    """The process-wide scheduler every session uses unless given another."""
    return Scheduler(_default_workers)


@cache
def default_deadlines() -> Deadlines:
    return Deadlines()


_default_workers = WORKERS


def set_workers(workers: int) -> None:
    """The size of the default scheduler's pool (``serve --workers``); only before its first solve."""
    global _default_workers
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}")
    _default_workers = workers
    if default_scheduler.cache_info().currsize:
        default_scheduler().workers = max(workers, default_scheduler().threads)


#: Every session not yet ended, so that SIGINT / SIGTERM can stop them all (:func:`stop_all`).
_SESSIONS: weakref.WeakSet[Session] = weakref.WeakSet()
_SESSIONS_LOCK = threading.Lock()


def stop_all() -> None:
    """Abandon every live session: stop their solves (CP-SAT included) and drop their queues."""
    with _SESSIONS_LOCK:
        sessions = list(_SESSIONS)
    for session in sessions:
        session.abandon()


class Session:
    """The state of one client connection: its settings, its queue and its pending solves.

    ``settings`` are the operator's: their limits are this session's ceilings.  ``queue_max``
    bounds the solves waiting to run; the scheduler and the deadline thread default to the
    process-wide ones.  ``client_gone``, when given, tells whether the client has left; it
    is asked while the reader waits for room in a full queue, since the transport cannot
    see the client leave while it is not reading.
    """

    def __init__(
        self,
        send: Send,
        settings: Settings | None = None,
        *,
        queue_max: int = QUEUE_MAX,
        scheduler: Scheduler | None = None,
        deadlines: Deadlines | None = None,
        client_gone: Callable[[], bool] | None = None,
    ) -> None:
        if queue_max < 1:
            raise ValueError(f"queue_max must be at least 1, not {queue_max}")
        self._send = send
        self.settings = settings or Settings()
        self.ceiling = self.settings
        self.queue_max = queue_max
        self._scheduler = scheduler or default_scheduler()
        self._deadlines = deadlines or default_deadlines()
        self._client_gone = client_gone
        self._pending: dict[RequestId, _Job] = {}
        self._pending_changed = threading.Condition()
        self._gone = False  # set once the client is gone: nothing more is solved
        # Guarded by the scheduler's condition: the solves waiting to run, the one running.
        self._jobs: deque[_Job] = deque()
        self._running: _Job | None = None
        self._in_ring = False
        with _SESSIONS_LOCK:
            _SESSIONS.add(self)

    # -------------------------------------------------------------- reading side
    def handle_line(self, line: bytes) -> bool:
        """Handle one request line (without its newline); False once the session should end (``quit``).

        Blocks while the session's queue is full (backpressure), until a queued solve starts
        or the session is abandoned.
        """
        if not line.strip():
            return True
        rid: RequestId | None = None
        try:
            request = read_request(line, self.settings.max_objects)
            rid = request.rid if isinstance(request, Quit) else request.id
            return _HANDLERS[type(request)](self, request)
        except ProtocolError as exc:
            self._reply(error_reply(rid if rid is not None else exc.request_id, exc))
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
        """Wait until every pending solve has been answered (end of input or ``quit``)."""
        with self._pending_changed:
            self._pending_changed.wait_for(lambda: not self._pending)

    def abandon(self) -> None:
        """The client is gone: stop every pending solve without replying, and drop the queue."""
        with self._pending_changed:
            if self._gone:
                return
            self._gone = True
            jobs = list(self._pending.values())
            self._pending.clear()
            self._pending_changed.notify_all()
        for job in jobs:
            job.claim()
        with self._scheduler.cond:
            self._jobs.clear()
            self._scheduler.drop(self)  # and a reader blocked on a full queue wakes up and sees the session gone

    def join(self, timeout: float | None = None) -> bool:
        """Wait until no solve of this session runs (after :meth:`finish` or :meth:`abandon`); False at ``timeout``."""
        with self._scheduler.cond:
            done = self._scheduler.cond.wait_for(lambda: self._running is None and not self._jobs, timeout)
        if done:
            with _SESSIONS_LOCK:
                _SESSIONS.discard(self)
        return done

    @property
    def queued(self) -> int:
        """Solves waiting to run (not counting the one running)."""
        with self._scheduler.cond:
            return len(self._jobs)

    # -------------------------------------------------------------- handlers, one per request type
    def _on_solve(self, request: Solve) -> bool:
        self._submit(request)
        return True

    def _on_ping(self, request: Ping) -> bool:
        self._reply(Pong(request.id))
        return True

    def _on_hello(self, request: Hello) -> bool:
        self._reply(self._hello_ok(request))
        return True

    def _on_configure(self, request: Configure) -> bool:
        changes = request.changes
        problems = [
            Problem(
                key, f"must be at most {getattr(self.ceiling, key)}, this server's limit (configure can only lower it)"
            )
            for key in _CEILINGS
            if key in changes and changes[key] > getattr(self.ceiling, key)
        ]
        if problems:
            raise invalid(problems)
        self.settings = replace(self.settings, **changes)
        self._reply(Result(request.id, options=self.settings.values()))
        return True

    def _on_cancel(self, request: Cancel) -> bool:
        self._cancel(request)
        return True

    def _on_quit(self, request: Quit) -> bool:
        self.finish()
        self._reply(Result(request.rid, quit=True))
        return False

    def _hello_ok(self, request: Hello) -> HelloOk:
        return HelloOk(
            id=request.id,
            protocol=PROTOCOL,
            engine={"name": "proliferate", "version": solver.__version__},
            capabilities={
                "top_k": True,
                "evaluate": True,
                "cancel": True,
                "time_ms": True,
                "fields": True,
                "stream": False,
                "max_objects": self.settings.max_objects,
                "max_line_bytes": self.settings.max_line_bytes,
            },
            options=self.settings.options(self.ceiling),
        )

    def _submit(self, request: Solve) -> None:
        """Queue a solve, waiting for room in the queue; nothing stays registered if it cannot be run or timed."""
        cond = self._scheduler.cond
        left = False
        with cond:
            while not (self._gone or len(self._jobs) < self.queue_max):
                if self._client_gone is None:
                    cond.wait()
                elif not cond.wait(_GONE_POLL) and self._client_gone():
                    left = True  # closed while its queue was full: nobody will read these replies
                    break
        if left:
            self.abandon()
        time_ms = request.time_ms or self.settings.time_ms
        heavy = (request.top_k or self.settings.top_k) > 1 or request.objects > HEAVY_OBJECTS
        job = _Job(request, self.settings, time.perf_counter(), self, time_ms, heavy)
        with self._pending_changed:
            if self._gone:
                return
            if request.id in self._pending:
                raise invalid([Problem("id", f"{request.id!r} is already the id of a pending solve")])
            self._pending[request.id] = job
        try:
            if time_ms is not None:
                self._deadlines.add(job.received + (time_ms + GRACE_MS) / 1000, job)
            with cond:
                self._jobs.append(job)
                self._scheduler.ready(self)
        except RuntimeError as exc:  # no thread can be started: the solve is refused, never left pending
            log.error("cannot queue solve %r: %s", request.id, exc)
            job.claim()
            with self._pending_changed:
                self._pending.pop(request.id, None)
                self._pending_changed.notify_all()
            raise ProtocolError("internal", f"cannot run the solve now: {exc}") from exc

    def _dequeue(self, job: _Job) -> None:
        """Drop an answered solve from the queue at once: its board is freed and its place is free."""
        with self._scheduler.cond:
            try:
                self._jobs.remove(job)
            except ValueError:
                return  # running, or already taken
            self._scheduler.drop(self)

    def _cancel(self, request: Cancel) -> None:
        with self._pending_changed:
            job = self._pending.get(request.target)
        if job is None or not job.claim():
            why = f"no pending solve has id {request.target!r} (it may have been answered already)"
            raise invalid([Problem("target", why)])
        self._answer(job, error_reply(job.request.id, ProtocolError("cancelled", "cancelled by request")))
        self._reply(Result(request.id, cancelled=request.target))

    def _expire(self, job: _Job) -> None:
        if job.claim():
            error = ProtocolError("timeout", f"no answer within time_ms={job.time_ms} (+{GRACE_MS} ms grace)")
            self._answer(job, error_reply(job.request.id, error))

    # -------------------------------------------------------------- worker side
    def _run(self, job: _Job) -> None:
        """Solve one job on a scheduler worker; nothing a job does escapes to the worker."""
        if job.answered:
            return  # cancelled or expired while queued: do not spend time on it
        reply: Reply | None
        try:
            reply = self._solve(job)
        except ProtocolError as exc:
            reply = error_reply(job.request.id, exc)
        except Exception as exc:
            log.exception("internal error in solve %r", job.request.id)
            reply = error_reply(job.request.id, ProtocolError("internal", f"{type(exc).__name__}: {exc}"))
        if reply is not None and job.claim(stop=False):
            self._answer(job, reply)

    def _solve(self, job: _Job) -> Result | None:
        """The result for a job, or None when it was answered (cancelled, expired) while it ran."""
        request, settings = job.request, job.settings
        started = time.perf_counter()
        try:
            board = solver.load_board(request.board)
        except solver.BoardError as exc:
            raise board_refused(exc) from exc
        if job.answered:  # cancelled or expired while the board loaded
            return None
        choices = _choices(request.evaluate, board, job.stop)
        if choices is None:
            return None
        top_k = request.top_k or settings.top_k
        time_ms = job.time_ms
        solved = time.perf_counter()
        # The limit bounds the whole request, from its arrival: what is left of it goes to the solve.
        time_limit = None if time_ms is None else max(time_ms / 1000 - (solved - job.received), 1e-3)
        decision = solver.solve(board, settings.policy, top_k=top_k, time_limit=time_limit, cancel=job.stop)
        if job.answered:
            return None
        fields = request.fields
        reply = Result(request.id, **decision.to_json(fields))
        if fields is None or "evaluated" in fields:
            evaluated = _evaluate(board, settings.policy, decision.value, choices, job.stop)
            if evaluated is None:
                return None
            reply.evaluated = evaluated
        done = time.perf_counter()
        if fields is None or "timing" in fields:
            reply.timing = Timing(
                _ms(started - job.received), _ms(solved - started), _ms(done - solved), _ms(done - job.received)
            )
        return reply

    # -------------------------------------------------------------- output
    def _answer(self, job: _Job, reply: Reply) -> None:
        """Forget a solve and send its one reply, atomically: once the client sees the reply it may reuse the id."""
        with self._pending_changed:
            self._pending.pop(job.request.id, None)
            self._reply(reply)
            self._pending_changed.notify_all()

    def _reply(self, reply: Reply) -> None:
        try:
            line = encode(reply)
        except ValueError as exc:  # NaN, infinity or a surrogate: a bug, but the caller still gets its one reply
            log.exception("cannot encode reply to %r", reply.id)
            error = ProtocolError("internal", f"unencodable reply: {type(exc).__name__}")
            try:
                line = encode(error_reply(reply.id, error))
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


def _choice(item: EvaluateItem, board: solver.Board) -> solver.Choice:
    """An ``evaluate`` entry as a Choice on ``board``; the legality check happens when it is scored."""
    return item.choice(board.rounds)


def _choices(
    items: Iterable[EvaluateItem], board: solver.Board, stop: threading.Event
) -> list[tuple[str, solver.Choice]] | None:
    """Every ``evaluate`` entry as a Choice, with its path; None once ``stop`` is set (checked every few entries)."""
    out = []
    for i, item in enumerate(items):
        if i % _EVALUATE_CHECK == 0 and stop.is_set():
            return None
        out.append((f"evaluate[{i}]", _choice(item, board)))
    return out


def _evaluate(
    board: solver.Board,
    policy: Policy,
    best: float,
    choices: list[tuple[str, solver.Choice]],
    stop: threading.Event,
) -> list[Evaluated] | None:
    """Value and regret (against the decision) of each choice the caller asked about.

    None once ``stop`` is set (cancelled or timed out): a list of 20,000 choices on a large
    board takes seconds, and nobody will read its scores.
    """
    if not choices:
        return []
    from solver.decision import choice_to_json
    from solver.objective import MILLI, Objective
    from solver.rules import choice_matrix

    objective = Objective(board, policy)
    out = []
    for i, (path, choice) in enumerate(choices):
        if i % _EVALUATE_CHECK == 0 and stop.is_set():
            return None
        try:
            chosen, recipients = choice_matrix(board, choice)
        except solver.IllegalChoice as exc:
            raise ProtocolError(
                "invalid_request",
                f"{path}: {exc}",
                {"problems": [{"path": path, "message": str(exc)}]},
            ) from exc
        value = objective.score_matrix(chosen, recipients)
        regret = (round(best * MILLI) - value) / MILLI
        out.append(Evaluated(**choice_to_json(choice), value=value / MILLI, regret=regret))
    return out


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def run_session(
    stream: LineSource,
    send: Send,
    settings: Settings,
    *,
    answer_at_end: bool = True,
    queue_max: int = QUEUE_MAX,
    join_timeout: float | None = None,
    client_gone: Callable[[], bool] | None = None,
) -> None:
    """Serve one client: read request lines from ``stream`` until ``quit`` or end of input.

    Lines are read with a length bound so a huge line costs ``max_line_bytes`` of memory, not
    its size; the rest of it is skipped and reported as ``too_large``.  While the session's
    queue is full no line is read (backpressure).  At end of input the pending solves are
    still answered when ``answer_at_end`` (stdio: ``cat requests.jsonl | proliferate serve``
    works), else cancelled (TCP: a client that closes is gone).  A read error (a reset
    connection) cancels them too.  Either way no solve of the session runs when this returns
    (waiting at most ``join_timeout`` seconds for a stopped one to notice), and the memory
    the session freed is handed back to the system (after sessions of a megabyte or more).
    """
    session = Session(send, settings, queue_max=queue_max, client_gone=client_gone)
    received = 0
    try:
        while True:
            interrupts.check()  # a stop signal a finaliser dropped: stdio's reader is the main thread
            limit = session.settings.max_line_bytes
            line = stream.readline(limit + 1)
            if not line:
                break
            received += len(line)
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
        session.join(join_timeout)
        if received >= _RELEASE_BYTES:
            release_memory()


def _skip_line(stream: LineSource) -> int:
    """Discard the rest of an over-long line; the number of bytes skipped (without the newline)."""
    skipped = 0
    while chunk := stream.readline(1 << 16):
        if chunk.endswith(b"\n"):
            return skipped + len(chunk) - 1
        skipped += len(chunk)
    return skipped
