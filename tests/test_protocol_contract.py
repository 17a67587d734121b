"""The protocol's contract with callers: hostile text, bounded ids, ``fields``, an exhaustive dispatcher,
time limits and cancellation that stop the work, and clients that go away."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any, get_args

import pytest
from contract_helpers import AFTER_CANCEL, BIG, MARGIN
from protocol_helpers import slow_board
from timing_helpers import retried_on_overrun, within

import solver
from benchmarks.boards import generate
from solver.protocol import engine as engine_module
from solver.protocol.client import EngineClient
from solver.protocol.engine import Session, Settings
from solver.protocol.messages import KNOWN_TYPES, PARSERS, RESULT_FIELDS, ProtocolError, Request, decode, parse_request

SERVE = [sys.executable, "-m", "solver", "serve"]
CLASSIC: dict[str, Any] = json.loads(files("solver.examples").joinpath("classic.json").read_text())


class Replies:
    """The session's replies, parsed (the session replies synchronously for everything but solves)."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def __call__(self, line: bytes) -> None:
        self.lines.append(json.loads(line))


def session_replies(*lines: bytes) -> list[dict[str, Any]]:
    out = Replies()
    session = Session(out, Settings())
    for line in lines:
        session.handle_line(line)
    session.finish()
    session.join(30)
    return out.lines


# ---------------------------------------------------------------------------- hostile text (issue 10.2, 10.7)
SURROGATES = {
    "id": rb'{"type":"ping","id":"\ud800"}',
    "type": rb'{"type":"pi\udfffng","id":1}',
    "hello.protocol": rb'{"type":"hello","id":1,"protocol":"proliferate-jsonl/1\ud800"}',
    "policy key": rb'{"type":"configure","id":1,"policy":{"weights":{"loy\udc00alty":1}}}',
    "board id": b'{"type":"solve","id":1,"board":'
    + json.dumps(CLASSIC).replace('"bears"', '"be\\udfffars"').encode()
    + b"}",
    "solve id": b'{"type":"solve","id":"\\udfff","board":' + json.dumps(CLASSIC).encode() + b"}",
}


@pytest.mark.parametrize("where", list(SURROGATES))
def test_a_lone_surrogate_anywhere_is_one_invalid_request_and_the_session_goes_on(where: str) -> None:
    replies = session_replies(SURROGATES[where], b'{"type":"ping","id":2}', b'{"type":"solve","id":3,"board":'
                              + json.dumps(CLASSIC).encode() + b"}")  # fmt: skip
    assert [(r["id"], r.get("code", r["type"])) for r in replies] == [
        (None, "invalid_request"),
        (2, "pong"),
        (3, "result"),
    ]
    assert "surrogate" in replies[0]["message"]


def test_a_surrogate_pair_is_a_character_and_accepted() -> None:
    (reply,) = session_replies(rb'{"type":"ping","id":"\ud83d\ude00"}')
    assert reply == {"type": "pong", "id": "\N{GRINNING FACE}"}


def test_the_stdio_server_survives_a_surrogate_and_exits_at_end_of_input() -> None:
    """The reproducer of issue 10.2, through a real process."""
    lines = b'{"type":"ping","id":"\\ud800"}\n{"type":"ping","id":2}\n'
    done = subprocess.run(SERVE, input=lines, capture_output=True, timeout=30, check=False)
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["id"], r.get("code", r["type"])) for r in replies] == [(None, "invalid_request"), (2, "pong")]


OUT_OF_BOUNDS = {"5000 digits": "1" * 5000, "2^53": str(2**53), "-2^53": str(-(2**53)), "long": '"' + "x" * 257 + '"'}


@pytest.mark.parametrize("rid", list(OUT_OF_BOUNDS.values()), ids=list(OUT_OF_BOUNDS))
def test_ids_out_of_bounds_are_invalid_requests(rid: str) -> None:
    (reply,) = session_replies(b'{"type":"ping","id":' + rid.encode() + b"}")
    assert (reply["id"], reply["code"]) == (None, "invalid_request")
    assert reply["data"]["problems"][0]["path"] == "id"


def test_ids_at_the_bounds_are_echoed() -> None:
    for rid in (2**53 - 1, -(2**53 - 1), "x" * 256):
        (reply,) = session_replies(json.dumps({"type": "ping", "id": rid}).encode())
        assert reply == {"type": "pong", "id": rid}


def test_a_huge_number_in_a_board_names_its_field() -> None:
    board = json.dumps(CLASSIC).replace('"+1/+1": 1', '"+1/+1": ' + "7" * 5000, 1)
    (reply,) = session_replies(b'{"type":"solve","id":1,"board":' + board.encode() + b"}")
    assert reply["code"] == "invalid_board"
    assert any("counters" in p["path"] for p in reply["data"]["problems"])


def test_decode_checks_surrogates_only_when_an_escape_could_hold_one() -> None:
    assert decode(rb'{"a":"\\ud800 is text, not an escape"}') == {"a": "\\ud800 is text, not an escape"}


# ---------------------------------------------------------------------------- quit, dispatcher
def test_quit_without_an_id_is_accepted() -> None:
    out = Replies()
    session = Session(out, Settings())
    assert session.handle_line(b'{"type":"quit"}') is False
    assert out.lines == [{"type": "result", "id": None, "quit": True}]


def test_every_request_type_has_one_parser_and_one_handler() -> None:
    """The parser table lists the types; each parses to a request class the session has a handler for."""
    classes = set(get_args(Request))
    assert set(engine_module._HANDLERS) == classes
    assert tuple(PARSERS) == KNOWN_TYPES
    minimal: dict[str, dict[str, Any]] = {
        "hello": {"protocol": "proliferate-jsonl/1"},
        "solve": {"board": CLASSIC},
        "cancel": {"target": 1},
    }
    parsed = {type(parse_request({"type": t, "id": 1, **minimal.get(t, {})}, 2000)) for t in KNOWN_TYPES}
    assert parsed == classes


# ---------------------------------------------------------------------------- fields
def test_fields_leave_out_the_rest_and_skip_its_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def explain_nothing(*args: object) -> None:
        raise AssertionError("the explanation was computed although not asked for")

    monkeypatch.setattr(sys.modules["solver.solve"], "explain", explain_nothing)
    fields = ["chosen", "poison_recipients", "value", "status"]
    (reply,) = session_replies(json.dumps({"type": "solve", "id": 1, "board": CLASSIC, "fields": fields}).encode())
    assert reply == {"type": "result", "id": 1, "chosen": ["bob", "bears", "tamiyo", "courser"],
                     "poison_recipients": {}, "value": 4.0, "status": "OPTIMAL"}  # fmt: skip


def test_every_field_can_be_asked_for_alone() -> None:
    for name in RESULT_FIELDS:
        request = {"type": "solve", "id": 1, "board": CLASSIC, "fields": [name]}
        (reply,) = session_replies(json.dumps(request).encode())
        assert set(reply) == {"type", "id", name}


@pytest.mark.parametrize(("fields", "path"), [(["chosen", "explain"], "fields[1]"), ("chosen", "fields")])
def test_bad_fields_name_the_entry(fields: object, path: str) -> None:
    (reply,) = session_replies(json.dumps({"type": "solve", "id": 1, "board": CLASSIC, "fields": fields}).encode())
    assert reply["code"] == "invalid_request"
    assert reply["data"]["problems"][0]["path"] == path


# ---------------------------------------------------------------------------- time and cancellation
@pytest.fixture(scope="module")
def engine() -> Iterator[EngineClient]:
    with EngineClient(SERVE, args=["--max-objects", "20000", "--max-line-bytes", "4000000"]) as client:
        client.ping()
        yield client


@retried_on_overrun
def test_time_ms_bounds_the_whole_request(engine: EngineClient) -> None:
    board = generate(BIG)
    engine.submit_solve(CLASSIC, top_k=2).result()  # OR-Tools imported: the timed request measures the solve
    started = time.perf_counter()
    reply = engine.submit_solve(board, top_k=5, time_ms=500, fields=["value", "status", "alternatives"]).result()
    within(time.perf_counter() - started, 0.5 + MARGIN)
    assert reply["value"] == solver.solve(board).value
    assert reply["status"] in ("OPTIMAL", "FEASIBLE") and len(reply["alternatives"]) >= 1


@retried_on_overrun
def test_a_cancelled_solve_stops_so_the_next_is_answered_at_once(engine: EngineClient) -> None:
    board = generate(BIG)
    board["proliferates"] = 1
    running = engine.submit("solve", board=board, top_k=50)  # dozens of CP-SAT runs: many seconds
    time.sleep(0.3)
    engine.cancel(running)
    with pytest.raises(ProtocolError, match="cancelled"):
        running.result()
    started = time.perf_counter()
    assert engine.submit_solve(CLASSIC, fields=["value"]).result()["value"] == 4.0
    within(time.perf_counter() - started, AFTER_CANCEL)


def test_the_typed_client_rebuilds_the_decision(engine: EngineClient) -> None:
    result = engine.solve(CLASSIC, top_k=2, evaluate=[["bears"]])
    assert result.decision.chosen == solver.solve(CLASSIC).chosen
    assert result.decision.status is solver.Status.OPTIMAL
    assert [a.rank for a in result.decision.alternatives] == [1, 2]
    assert result.evaluated[0].regret == 3.0 and result.evaluated[0].choice.rounds[0].chosen == ("bears",)
    assert set(result.timing) == {"queued_ms", "load_ms", "solve_ms", "total_ms"}
    quick = engine.solve(CLASSIC, fields=["chosen"])
    assert set(quick.raw) == {"type", "id", "rounds", "value", "status", "bound", "method", "chosen"}
    assert quick.decision.explanation == result.decision.explanation  # derived locally, by the same rules


def test_the_typed_client_uses_the_configured_policy(engine: EngineClient) -> None:
    try:
        engine.configure(policy={"weights": {"loyalty": -3}})
        result = engine.solve(CLASSIC, fields=["chosen"])
        expected = solver.solve(CLASSIC, {"weights": {"loyalty": -3}})
        assert result.decision.explanation == expected.explanation
    finally:
        engine.configure(policy=None)


# ---------------------------------------------------------------------------- clients that go away (issue 10.7)
def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads through /proc")
@retried_on_overrun
def test_connection_resets_mid_request_leak_no_threads() -> None:
    process = subprocess.Popen([*SERVE, "--tcp", "127.0.0.1:0"], stderr=subprocess.PIPE)
    try:
        assert process.stderr is not None
        match = re.search(rb"listening on 127\.0\.0\.1:(\d+)", process.stderr.readline())
        assert match
        port = int(match.group(1))
        with EngineClient.connect("127.0.0.1", port) as warm:  # OR-Tools loaded, with its own lasting threads
            warm.submit_solve(slow_board(40), top_k=2, fields=["value"]).result()
        time.sleep(0.2)
        baseline = _threads(process.pid)
        half = b'{"type":"solve","id":1,"board":' + json.dumps(slow_board(2000)).encode()[:50_000]
        whole = json.dumps({"type": "solve", "id": 1, "board": generate(BIG), "top_k": 50}).encode() + b"\n"
        for line in [half] * 20 + [whole]:  # resets in the middle of a request, then one while its solve runs
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(line)
            if line is whole:
                time.sleep(0.5)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.close()  # linger 0: the connection is reset
        deadline = time.monotonic() + 10
        while _threads(process.pid) > baseline and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _threads(process.pid) <= baseline
        with EngineClient.connect("127.0.0.1", port, timeout=5) as after:
            started = time.perf_counter()
            assert after.submit_solve(CLASSIC, fields=["value"]).result()["value"] == 4.0
            within(time.perf_counter() - started, AFTER_CANCEL, "the abandoned solve was stopped, not left running")
    finally:
        process.kill()
        process.wait()


@retried_on_overrun
def test_a_client_that_cannot_be_written_to_stops_the_session_s_solves() -> None:
    """Replies that cannot be written (the client closed its end) cancel what is still being worked on."""
    board = generate(BIG)
    board["proliferates"] = 1
    sent: list[bytes] = []

    def send(line: bytes) -> None:
        if len(sent) >= 1:
            raise BrokenPipeError("the client is gone")
        sent.append(line)

    session = Session(send, Settings(max_objects=20000))
    session.handle_line(b'{"type":"ping","id":1}')
    session.handle_line(json.dumps({"type": "solve", "id": 2, "board": board, "top_k": 50}).encode())
    time.sleep(0.3)
    started = time.perf_counter()
    session.handle_line(b'{"type":"ping","id":3}')  # cannot be written: the session gives up its work
    session.handle_line(json.dumps({"type": "solve", "id": 4, "board": CLASSIC}).encode())  # not started
    session.finish()
    session.join(AFTER_CANCEL)
    within(time.perf_counter() - started, AFTER_CANCEL)
    assert [json.loads(line)["id"] for line in sent] == [1]


BAD_EVALUATE = [
    ([["bob", "bob"]], "evaluate[0][1]"),
    ([[""]], "evaluate[0][0]"),
    ([{"chosen": ["bob"], "poison_recipients": {"B": 3}}], 'evaluate[0].poison_recipients["B"]'),
]


@pytest.mark.parametrize(("evaluate", "path"), BAD_EVALUATE)
def test_evaluate_ids_follow_the_shared_validation_rules(evaluate: list[Any], path: str) -> None:
    """Duplicate or empty ids are refused as the board loader and the record reader refuse them."""
    (reply,) = session_replies(json.dumps({"type": "solve", "id": 1, "board": CLASSIC, "evaluate": evaluate}).encode())
    assert reply["code"] == "invalid_request"
    assert [p["path"] for p in reply["data"]["problems"]] == [path]
