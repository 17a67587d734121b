"""Request validation and the session, in process: every error names its field by path."""

from __future__ import annotations

import io
import json
import threading
from importlib.resources import files
from typing import Any

import pytest
from protocol_helpers import slow_board

import solver
from solver.protocol.engine import Session, Settings, run_session
from solver.protocol.messages import (
    PROTOCOL,
    Cancel,
    Configure,
    EvaluateItem,
    Hello,
    ProtocolError,
    Solve,
    decode,
    encode,
    parse_request,
)

CLASSIC = json.loads(files("solver.examples").joinpath("classic.json").read_text())


def parse(message: dict[str, Any], max_objects: int = 2000) -> Any:
    return parse_request(message, max_objects)


def error_of(message: dict[str, Any], max_objects: int = 2000) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse(message, max_objects)
    return info.value


def paths(error: ProtocolError) -> list[str]:
    return [p["path"] for p in error.data["problems"]]


# ---------------------------------------------------------------------------- decoding
@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"garbage", "parse_error"),
        (b'{"type": "ping", "id": 1', "parse_error"),
        (b"\xff\xfe{}", "parse_error"),
        (b"[1, 2]", "invalid_request"),
        (b'"ping"', "invalid_request"),
        (b"[" * 100_000 + b"]" * 100_000, "too_large"),
    ],
)
def test_decode_errors(line: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode(line)
    assert info.value.code == code


def test_encode_is_one_compact_line_and_refuses_nan() -> None:
    line = encode({"type": "pong", "id": "é"})
    assert line == '{"type":"pong","id":"é"}\n'.encode()
    with pytest.raises(ValueError):
        encode({"value": float("nan")})


# ---------------------------------------------------------------------------- envelope
@pytest.mark.parametrize(
    ("message", "code", "path"),
    [
        ({"id": 1}, "invalid_request", "type"),
        ({"type": 5, "id": 1}, "invalid_request", "type"),
        ({"type": "ping"}, "invalid_request", "id"),
        ({"type": "ping", "id": True}, "invalid_request", "id"),
        ({"type": "ping", "id": 1.5}, "invalid_request", "id"),
        ({"type": "ping", "id": [1]}, "invalid_request", "id"),
        ({"type": "cancel", "id": 1}, "invalid_request", "target"),
        ({"type": "hello", "id": 1}, "invalid_request", "protocol"),
    ],
)
def test_envelope_errors_name_the_field(message: dict[str, Any], code: str, path: str) -> None:
    error = error_of(message)
    assert error.code == code
    assert paths(error) == [path]


def test_unknown_type_lists_the_known_ones() -> None:
    error = error_of({"type": "go", "id": 1})
    assert error.code == "unknown_type"
    assert error.data["type"] == "go"
    assert "solve" in error.data["known"]


def test_unknown_fields_are_ignored() -> None:
    assert parse({"type": "ping", "id": "a", "future_field": {"x": 1}}).id == "a"


def test_hello_accepts_minor_versions_and_refuses_other_majors() -> None:
    assert parse({"type": "hello", "id": 1, "protocol": PROTOCOL}) == Hello(1, PROTOCOL)
    assert parse({"type": "hello", "id": 1, "protocol": "proliferate-jsonl/1.4"}).minor == 4
    for other in ("proliferate-jsonl/2", "proliferate-jsonl/0.9", "uci", "proliferate-jsonl/1x"):
        error = error_of({"type": "hello", "id": 1, "protocol": other})
        assert error.code == "unsupported_version"
        assert error.data["supported"] == [PROTOCOL]


# ---------------------------------------------------------------------------- solve
def test_solve_parses_every_evaluate_form() -> None:
    request = parse(
        {
            "type": "solve",
            "id": "s",
            "board": CLASSIC,
            "top_k": 3,
            "time_ms": 500,
            "evaluate": [
                ["bob"],
                {"chosen": ["bob", "carol"], "poison_recipients": {"B": "bob"}},
                {"rounds": [{"chosen": ["bob"]}, {"chosen": []}]},
            ],
        }
    )
    assert isinstance(request, Solve)
    assert (request.top_k, request.time_ms) == (3, 500)
    assert request.evaluate == (
        EvaluateItem(((("bob",), {}),), repeat=True),
        EvaluateItem(((("bob", "carol"), {"B": "bob"}),), repeat=True),
        EvaluateItem(((("bob",), {}), ((), {})), repeat=False),
    )


def test_solve_reports_every_problem_at_its_path() -> None:
    error = error_of(
        {
            "type": "solve",
            "id": 1,
            "board": "classic.json",
            "top_k": 0,
            "time_ms": "fast",
            "evaluate": [["bob", 3], "bob", {"rounds": [{"chosen": ["x"]}, {"poison_recipients": {}}]}, {"rounds": []}],
        }
    )
    assert error.code == "invalid_request"
    assert paths(error) == [
        "board",
        "top_k",
        "time_ms",
        "evaluate[0][1]",
        "evaluate[1]",
        "evaluate[2].rounds[1].chosen",
        "evaluate[3].rounds",
    ]


def test_evaluate_choices_are_checked_as_records_check_them() -> None:
    """The record's words and rules (the Ids and Recipients types of solver.formats): these used to pass."""
    error = error_of(
        {
            "type": "solve",
            "id": 1,
            "board": CLASSIC,
            "evaluate": [
                {"chosen": ["bob"], "poison_recipients": []},  # once read as "no recipients"
                {"rounds": [{"poison_recipients": {}}]},
                ["bob", 7],
            ],
        }
    )
    assert error.data["problems"] == [
        {
            "path": "evaluate[0].poison_recipients",
            "message": "must be an object mapping a team name to the chosen head that gets its poison",
        },
        {"path": "evaluate[1].rounds[0].chosen", "message": "required"},
        {"path": "evaluate[2][1]", "message": "must be a non-empty string (an id of the board), not a number"},
    ]


def test_null_poison_recipients_mean_none() -> None:
    request = parse(
        {"type": "solve", "id": 1, "board": CLASSIC, "evaluate": [{"chosen": [], "poison_recipients": None}]}
    )
    assert request.evaluate == (EvaluateItem((((), {}),), repeat=True),)


@pytest.mark.parametrize("top_k", [True, 1.0, 101, -1])
def test_top_k_must_be_a_small_positive_integer(top_k: object) -> None:
    assert paths(error_of({"type": "solve", "id": 1, "board": CLASSIC, "top_k": top_k})) == ["top_k"]


def test_board_over_the_object_limit_is_too_large() -> None:
    error = error_of({"type": "solve", "id": 1, "board": CLASSIC}, max_objects=5)
    assert error.code == "too_large"
    assert error.data == {"path": "board", "limit": 5, "size": 6}


# ---------------------------------------------------------------------------- configure
def test_configure_builds_a_policy_and_bounds_limits() -> None:
    request = parse({"type": "configure", "id": 1, "policy": {"weights": {"poison": 3}}, "time_ms": None, "top_k": 2})
    assert isinstance(request, Configure)
    assert request.changes["policy"].weight("poison") == 3
    assert request.changes["time_ms"] is None
    assert request.changes["top_k"] == 2
    assert parse({"type": "configure", "id": 1, "policy": None}).changes["policy"] == solver.Policy()


def test_configure_errors_carry_policy_paths() -> None:
    error = error_of(
        {
            "type": "configure",
            "id": 1,
            "policy": {"weights": {"poison": "lots"}, "game": {"win": 1, "bogus": 2}},
            "max_line_bytes": 10,
        }
    )
    assert paths(error) == ['policy.weights["poison"]', "policy.game.bogus", "max_line_bytes"]
    assert paths(error_of({"type": "configure", "id": 1, "policy": [1]})) == ["policy"]


def test_cancel_target_may_be_string_or_integer() -> None:
    assert parse({"type": "cancel", "id": 2, "target": "s1"}) == Cancel(2, "s1")
    assert parse({"type": "cancel", "id": 2, "target": 7}) == Cancel(2, 7)


# ---------------------------------------------------------------------------- session
class Recorder:
    """Collects replies and lets a test wait for the one with a given id."""

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.changed = threading.Condition()

    def __call__(self, line: bytes) -> None:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        with self.changed:
            self.replies.append(json.loads(line))
            self.changed.notify_all()

    def wait(self, rid: object) -> dict[str, Any]:
        with self.changed:
            assert self.changed.wait_for(lambda: any(r["id"] == rid for r in self.replies), timeout=30)
            return next(r for r in self.replies if r["id"] == rid)


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def test_session_answers_each_request_once_and_survives_bad_lines() -> None:
    out = Recorder()
    session = Session(out, Settings())
    for bad in (b"{", b"nonsense", b'{"type":"solve","id":1}', b'{"type":"dance","id":2}'):
        assert session.handle_line(bad)
    assert session.handle_line(b"   ")  # blank lines are skipped, not answered
    assert session.handle_line(line({"type": "solve", "id": "s", "board": CLASSIC, "top_k": 2}))
    assert session.handle_line(line({"type": "ping", "id": 3}))
    assert out.wait("s")["type"] == "result"
    assert not session.handle_line(line({"type": "quit", "id": 4}))
    codes = [(r["id"], r.get("code", r["type"])) for r in out.replies]
    assert sorted(codes, key=str) == sorted(
        [
            (None, "parse_error"),
            (None, "parse_error"),
            (1, "invalid_request"),
            (2, "unknown_type"),
            ("s", "result"),
            (3, "pong"),
            (4, "result"),
        ],
        key=str,
    )
    assert codes[-1] == (4, "result")


@pytest.fixture
def release(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold every solve of a board with over 20 permanents until the test sets the returned event.

    Makes "a solve is still running" a fact of the test rather than a race with a slow board.
    """
    gate = threading.Event()
    real = solver.solve

    def held(board: solver.Board, *args: Any, **kwargs: Any) -> solver.Decision:
        if board.n_objects - board.n_players > 20:
            assert gate.wait(timeout=30), "the test never released the held solve"
        return real(board, *args, **kwargs)

    monkeypatch.setattr(solver, "solve", held)
    return gate


def test_session_refuses_a_second_pending_solve_with_the_same_id(release: threading.Event) -> None:
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": "dup", "board": slow_board()}))
    session.handle_line(line({"type": "solve", "id": "dup", "board": CLASSIC}))
    release.set()
    session.finish()
    replies = [r for r in out.replies if r["id"] == "dup"]
    assert sorted(r["type"] for r in replies) == ["error", "result"]
    error = next(r for r in replies if r["type"] == "error")
    assert error["data"]["problems"][0]["path"] == "id"


def test_cancel_of_an_unknown_id_is_an_error() -> None:
    out = Recorder()
    Session(out, Settings()).handle_line(line({"type": "cancel", "id": 1, "target": "nothing"}))
    reply = out.wait(1)
    assert reply["code"] == "invalid_request"
    assert reply["data"]["problems"][0]["path"] == "target"


def test_run_session_skips_over_long_lines_and_drains_at_end_of_input() -> None:
    out = Recorder()
    requests = b"\n".join(
        [
            line({"type": "ping", "id": 1}),
            b"x" * 5000,
            line({"type": "ping", "id": 2}) + b"\r",
            line({"type": "solve", "id": 3, "board": CLASSIC}),
        ]
    )
    run_session(io.BufferedReader(io.BytesIO(requests)), out, Settings(max_line_bytes=1024))
    too_large = out.replies[1]
    assert too_large["code"] == "too_large"
    assert too_large["id"] is None
    assert too_large["data"] == {"limit": 1024, "size": 5000}
    assert [r["id"] for r in out.replies] == [1, None, 2, 3]
    assert out.replies[3]["type"] == "result"  # the last line had no newline and was still answered


def test_evaluate_is_scored_against_the_decision() -> None:
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": 1, "board": CLASSIC, "evaluate": [[], ["liliana"]]}))
    reply = out.wait(1)
    empty, liliana = reply["evaluated"]
    assert empty["value"] == 0.0 and empty["regret"] == reply["value"]  # the empty choice scores 0
    board = solver.load_board(CLASSIC)
    expected = solver.score(board, solver.Choice.of(["liliana"]))
    assert (liliana["value"], liliana["regret"]) == (expected.value, expected.regret)


def test_illegal_evaluate_choice_names_its_index() -> None:
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": 1, "board": CLASSIC, "evaluate": [["bob"], ["alice"]]}))
    reply = out.wait(1)
    assert reply["code"] == "invalid_request"
    assert reply["data"]["problems"][0]["path"] == "evaluate[1]"
    assert "701.34a" in reply["message"]  # alice has no counters


def test_a_bug_in_the_solver_is_an_internal_error_and_the_session_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(solver, "solve", broken)
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": 1, "board": CLASSIC}))
    assert out.wait(1)["code"] == "internal"
    assert out.wait(1)["message"] == "ZeroDivisionError: boom"
    session.handle_line(line({"type": "ping", "id": 2}))
    assert out.wait(2)["type"] == "pong"


def test_a_solve_queued_past_its_deadline_times_out_without_running(release: threading.Event) -> None:
    out = Recorder()
    session = Session(out, Settings())
    session.handle_line(line({"type": "solve", "id": "busy", "board": slow_board()}))
    session.handle_line(line({"type": "solve", "id": "late", "board": CLASSIC, "time_ms": 1}))
    late = out.wait("late")
    assert late["code"] == "timeout"
    release.set()
    assert out.wait("busy")["type"] == "result"  # and "late" was skipped: no second reply
    session.finish()
    assert [r["id"] for r in out.replies] == ["late", "busy"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-objects", "1"], "--max-objects must be from 2 to"),
        (["--max-line-bytes", "10"], "--max-line-bytes must be from 1024"),
        (["--time-limit", "0"], "--time-limit must be from 0.001 to 3600 seconds"),
        (["--time-limit", "nan"], "--time-limit must be from 0.001"),
        (["--tcp", "localhost:http"], "expected HOST:PORT"),
        (["--workers", "0"], "--workers must be from 1 to 1024"),
        (["--max-queue", "5000"], "--max-queue must be from 1 to 1024"),
    ],
)
def test_bad_serve_flags_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from solver.protocol.cli import main

    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_810_10_per_head_board_gets_a_per_head_reply() -> None:
    # The protocol reply reports a per-head board's additions per head (the recipient alone, 701.34b).
    board = {
        "variant": "two_headed_giant",
        "proliferator": "a1",
        "team_poison": "per_head",
        "players": [
            {"id": "a1", "team": "A"},
            {"id": "a2", "team": "A"},
            {"id": "b1", "team": "B", "counters": {"poison": 3}},
            {"id": "b2", "team": "B", "counters": {"poison": 2}},
        ],
    }
    out = Recorder()
    run_session(io.BufferedReader(io.BytesIO(line({"type": "solve", "id": 7, "board": board}))), out, Settings())
    [reply] = out.replies
    assert reply["type"] == "result", reply
    assert reply["chosen"] == ["b1"]
    assert reply["outcome"]["added"] == {"b1": {"poison": 1}}
    assert {p["id"]: p["counters"] for p in reply["outcome"]["board"]["players"]}["b1"] == {"poison": 4}


# ---------------------------------------------------------------------------- the Structs (issue 27, item 4)
def test_a_request_line_decodes_into_its_struct_with_the_board_formats_own_struct() -> None:
    """One definition of the board: a solve's board is decoded by the board format's BoardStruct, in one pass."""
    from solver.formats import BoardStruct
    from solver.protocol.messages import read_request

    line = json.dumps({"type": "solve", "id": "s", "board": CLASSIC, "fields": ["chosen"], "later": 1}).encode()
    request = read_request(line, 2000)
    assert isinstance(request, Solve)
    assert isinstance(request.board, BoardStruct)
    assert request.fields == ["chosen"]
    assert solver.load_board(request.board) == solver.load_board(CLASSIC)


def test_a_refused_line_lists_every_problem_and_keeps_its_id() -> None:
    from solver.protocol.messages import read_request

    line = json.dumps({"type": "solve", "id": 9, "board": CLASSIC, "top_k": 0, "fields": ["chosen", "x"]}).encode()
    with pytest.raises(ProtocolError) as info:
        read_request(line, 2000)
    assert info.value.request_id == 9
    assert info.value.data["problems"] == [
        {"path": "top_k", "message": "must be an integer from 1 to 100"},
        {"path": "fields[1]", "message": "must be a result key (one of chosen, poison_recipients, rounds, value, "
         "status, bound, method, game_result, outcome, explanation, alternatives, elapsed_ms, evaluated, timing)"},
    ]  # fmt: skip
    bad_board = json.loads(json.dumps(CLASSIC))
    bad_board["permanents"][0]["counters"] = {"+1/+1": -1}
    bad_board["permanents"][1]["controller"] = "nobody"
    with pytest.raises(ProtocolError) as info:
        read_request(json.dumps({"type": "solve", "id": 10, "board": bad_board}).encode(), 2000)
    assert info.value.code == "invalid_board"
    assert [p["path"] for p in info.value.data["problems"]] == [
        'board.permanents[0].counters["+1/+1"]',
        "board.permanents[1].controller",
    ]


def test_an_id_longer_than_256_characters_is_refused_by_its_type() -> None:
    error = error_of({"type": "ping", "id": "x" * 257})
    assert paths(error) == ["id"]
    assert "at most 256 characters" in error.data["problems"][0]["message"]


def test_replies_are_structs_read_back_into_the_same_structs() -> None:
    from solver.protocol.messages import REPLY_DECODER, ErrorReply, Result, Timing, error_reply

    reply = Result("t", chosen=["bob"], value=1000.0, bound=None, timing=Timing(0.1, 0.2, 0.3, 0.6))
    line = encode(reply)
    timing = {"queued_ms": 0.1, "load_ms": 0.2, "solve_ms": 0.3, "total_ms": 0.6}
    assert json.loads(line) == {"type": "result", "id": "t", "chosen": ["bob"], "value": 1000.0, "bound": None,
                                "timing": timing}  # fmt: skip
    assert REPLY_DECODER.decode(line) == reply
    error = error_reply(None, ProtocolError("parse_error", "not JSON", {"column": 3}))
    assert REPLY_DECODER.decode(encode(error)) == error == ErrorReply(None, "parse_error", "not JSON", {"column": 3})
    with pytest.raises(ValueError):
        encode(Result(1, value=float("inf")))
