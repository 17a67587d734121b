"""``proliferate serve`` end to end, through a real child process and the Python client."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import pytest
from protocol_helpers import slow_board
from timing_helpers import retried_on_overrun, within

import solver
from solver.protocol.client import EngineClient, EngineTerminated
from solver.protocol.messages import PROTOCOL, ProtocolError

SERVE = [sys.executable, "-m", "solver", "serve"]
EXAMPLES = sorted(p.name.removesuffix(".json") for p in files("solver.examples").iterdir() if p.name.endswith(".json"))


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(files("solver.examples").joinpath(f"{name}.json").read_text())
    return data


def decision_json(reply: dict[str, Any]) -> dict[str, Any]:
    """The ``Decision.to_json()`` part of a result, without what differs run to run (timings)."""
    drop = {"type", "id", "evaluated", "timing", "elapsed_ms"}
    return {k: v for k, v in reply.items() if k not in drop}


def in_process(board: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    data = solver.solve(solver.load_board(board), **kwargs).to_json()
    del data["elapsed_ms"]
    parsed: dict[str, Any] = json.loads(json.dumps(data))
    return parsed


@pytest.fixture(scope="module")
def engine() -> Iterator[EngineClient]:
    with EngineClient(SERVE, args=["--max-objects", "20000", "--max-line-bytes", "4000000"]) as client:
        yield client


def assert_alive(engine: EngineClient) -> None:
    assert engine.ping()["type"] == "pong"


# ---------------------------------------------------------------------------- handshake
def test_hello_describes_engine_and_options(engine: EngineClient) -> None:
    reply = engine.hello()
    assert reply["type"] == "hello_ok"
    assert reply["protocol"] == PROTOCOL
    assert reply["engine"] == {"name": "proliferate", "version": solver.__version__}
    assert reply["capabilities"]["top_k"] and reply["capabilities"]["evaluate"]
    options = {o["name"]: o for o in reply["options"]}
    assert options["top_k"] == {"name": "top_k", "type": "integer", "default": 1, "min": 1, "max": 100}
    assert options["max_objects"]["default"] == 20000  # from --max-objects
    assert options["time_ms"]["default"] is None
    assert options["policy"]["default"] == solver.Policy().to_dict()


def test_other_major_version_is_refused_and_session_continues(engine: EngineClient) -> None:
    with pytest.raises(ProtocolError) as info:
        engine.request("hello", protocol="proliferate-jsonl/2")
    assert info.value.code == "unsupported_version"
    assert_alive(engine)


def test_ping(engine: EngineClient) -> None:
    pending = engine.submit("ping")
    assert pending.result() == {"type": "pong", "id": pending.id}


# ---------------------------------------------------------------------------- solve
@pytest.mark.parametrize("name", EXAMPLES)
def test_solve_matches_the_in_process_api(engine: EngineClient, name: str) -> None:
    reply = engine.submit_solve(example(name), top_k=3).result()
    assert reply["type"] == "result"
    assert decision_json(reply) == in_process(example(name), top_k=3)
    assert set(reply["timing"]) == {"queued_ms", "load_ms", "solve_ms", "total_ms"}


def test_top_k_alternatives_are_ranked_by_regret(engine: EngineClient) -> None:
    reply = engine.submit_solve(example("classic"), top_k=4).result()
    alternatives = reply["alternatives"]
    assert [a["rank"] for a in alternatives] == [1, 2, 3, 4]
    assert alternatives[0]["chosen"] == reply["chosen"] and alternatives[0]["regret"] == 0
    regrets = [a["regret"] for a in alternatives]
    assert regrets == sorted(regrets)
    assert all(a["regret"] == reply["value"] - a["value"] for a in alternatives)


def test_evaluate_scores_each_choice_form(engine: EngineClient) -> None:
    """A bare id list, {"chosen", "poison_recipients"} (2HG, 701.34b) and {"rounds"} (two proliferates)."""
    thg = example("two_headed_giant_lethal")
    reply = engine.submit_solve(
        thg, evaluate=[["nissa"], {"chosen": ["bob", "carol"], "poison_recipients": {"B": "carol"}}]
    ).result()
    board = solver.load_board(thg)
    for got, choice in zip(
        reply["evaluated"],
        [solver.Choice.of(["nissa"]), solver.Choice.of(["bob", "carol"], {"B": "carol"})],
        strict=True,
    ):
        expected = solver.score(board, choice)
        assert (got["value"], got["regret"]) == (expected.value, expected.regret)
    assert reply["evaluated"][1]["poison_recipients"] == {"B": "carol"}

    twice = example("proliferate_twice")
    rounds = [{"chosen": ["rhino", "bob"]}, {"chosen": ["saga"]}]
    reply = engine.submit_solve(twice, evaluate=[{"rounds": rounds}, ["bob"]]).result()
    board = solver.load_board(twice)
    by_round = solver.Choice((solver.Round(("rhino", "bob")), solver.Round(("saga",))))
    assert reply["evaluated"][0]["value"] == solver.score(board, by_round).value
    assert [r["chosen"] for r in reply["evaluated"][1]["rounds"]] == [["bob"], ["bob"]]  # same choice each round


def test_invalid_board_lists_the_loader_problems_by_path(engine: EngineClient) -> None:
    board = example("classic")
    board["permanents"][1]["counters"] = {"loyalty": -2}
    board["variant"] = "chess"
    with pytest.raises(ProtocolError) as info:
        engine.submit_solve(board).result()
    assert info.value.code == "invalid_board"
    problems = info.value.data["problems"]
    expected = {p.path for p in _loader_problems(board)}
    assert {p["path"] for p in problems} == {f"board.{path}" for path in expected}
    assert "board.variant" in {p["path"] for p in problems}
    assert_alive(engine)


def _loader_problems(board: dict[str, Any]) -> tuple[solver.Problem, ...]:
    with pytest.raises(solver.BoardError) as info:
        solver.load_board(board)
    return info.value.problems


def test_configure_changes_policy_and_defaults_per_session(engine: EngineClient) -> None:
    board = example("classic")
    try:
        reply = engine.configure(policy={"weights": {"loyalty": -3}}, top_k=2)
        assert reply["options"]["policy"]["weights"] == {"loyalty": -3.0}
        solved = engine.submit_solve(board).result()
        policy = solver.Policy.from_dict({"weights": {"loyalty": -3}})
        assert decision_json(solved) == in_process(board, policy=policy, top_k=2)
    finally:
        engine.configure(policy=None, top_k=1)
    assert decision_json(engine.submit_solve(board).result()) == in_process(board)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("line", "code", "rid"),
    [
        ("garbage", "parse_error", None),
        ('{"type":"solve","id":9,"board":{"format":1', "parse_error", None),
        ("[1,2,3]", "invalid_request", None),
        ('{"type":"solve","id":"w1","board":[]}', "invalid_request", "w1"),
        ('{"type":"solve","id":"w2","board":{},"top_k":"3"}', "invalid_request", "w2"),
        ('{"type":"ping","id":{"n":1}}', "invalid_request", None),
        ('{"type":"go","id":"u1"}', "unknown_type", "u1"),
        ('{"type":null,"id":"u2"}', "invalid_request", "u2"),
    ],
)
def test_bad_lines_get_the_right_error_and_the_session_goes_on(
    engine: EngineClient, line: str, code: str, rid: str | None
) -> None:
    with pytest.raises(ProtocolError) as info:
        engine.send_raw(line, rid).result()
    assert info.value.code == code
    assert_alive(engine)


def test_huge_lines_are_too_large_and_skipped(engine: EngineClient) -> None:
    engine.configure(max_line_bytes=2048)
    try:
        huge = json.dumps({"type": "solve", "id": "h", "board": {"players": ["x" * 100] * 100}})
        with pytest.raises(ProtocolError) as info:
            engine.send_raw(huge, None).result()
        assert info.value.code == "too_large"
        assert info.value.data == {"limit": 2048, "size": len(huge)}
        assert_alive(engine)
    finally:
        engine.configure(max_line_bytes=4_000_000)


def test_board_over_max_objects_is_too_large(engine: EngineClient) -> None:
    engine.configure(max_objects=5)
    try:
        with pytest.raises(ProtocolError) as info:
            engine.submit_solve(example("classic")).result()
        assert info.value.code == "too_large"
        assert info.value.data["size"] == 6
    finally:
        engine.configure(max_objects=20000)
    assert_alive(engine)


# ---------------------------------------------------------------------------- concurrency
@retried_on_overrun
def test_ping_is_answered_while_solving_and_cancel_ends_the_solve(engine: EngineClient) -> None:
    running = engine.submit_solve(slow_board(40), top_k=20)
    started = time.perf_counter()
    assert_alive(engine)
    assert not running.done()  # the pong overtook the running solve
    cancelled = engine.cancel(running)
    assert (cancelled["type"], cancelled["cancelled"]) == ("result", running.id)
    with pytest.raises(ProtocolError) as info:
        running.result()
    assert info.value.code == "cancelled"
    within(time.perf_counter() - started, 1.5, "answered at once, not when the solve would have ended")
    with pytest.raises(ProtocolError) as again:
        engine.cancel(running)
    assert again.value.code == "invalid_request"
    assert again.value.data["problems"][0]["path"] == "target"


@retried_on_overrun
def test_time_limit_overrun_is_answered_in_time(engine: EngineClient) -> None:
    """Loading 10,000 objects cannot stop early and takes longer than ``time_ms``: the engine still
    answers within time_ms + grace, with what the solve found (FEASIBLE) if it was ready, else ``timeout``."""
    board = slow_board(10_000)
    board["proliferates"] = 1
    started = time.perf_counter()
    try:
        reply = engine.submit_solve(board, time_ms=1, top_k=3, fields=["status", "alternatives"]).result()
    except ProtocolError as exc:
        assert exc.code == "timeout"
    else:
        assert reply["status"] == "FEASIBLE" and 1 <= len(reply["alternatives"]) < 3
    within(time.perf_counter() - started, 2.0)
    assert_alive(engine)


def test_a_thousand_requests_match_the_in_process_api(engine: EngineClient) -> None:
    boards = [example(name) for name in EXAMPLES]
    expected = [in_process(board) for board in boards]
    for i in range(1000):
        reply = engine.submit_solve(boards[i % len(boards)]).result()
        assert decision_json(reply) == expected[i % len(boards)], f"request {i}"


# ---------------------------------------------------------------------------- exit
def test_quit_answers_pending_solves_then_exits_cleanly() -> None:
    client = EngineClient(SERVE, stderr=subprocess.PIPE)
    pending = client.submit_solve(example("classic"), top_k=3)
    assert client.quit()["quit"] is True
    assert pending.result()["type"] == "result"
    assert client.close() == 0
    assert client.process is not None and client.process.stderr is not None
    assert client.process.stderr.read() == b""
    with pytest.raises(EngineTerminated):
        client.ping()


def test_end_of_input_answers_pending_solves_then_exits_cleanly() -> None:
    board = json.dumps(example("vorinclex_lethal"))
    requests = f'{{"type":"solve","id":1,"board":{board}}}\n{{"type":"ping","id":2}}\n'
    done = subprocess.run(SERVE, input=requests.encode(), capture_output=True, timeout=30, check=False)
    assert done.returncode == 0
    assert done.stderr == b""
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted((r["id"], r["type"]) for r in replies) == [(1, "result"), (2, "pong")]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_exits_without_a_traceback() -> None:
    client = EngineClient(SERVE, stderr=subprocess.PIPE)
    assert_alive(client)
    assert client.process is not None and client.process.stderr is not None
    client.process.send_signal(signal.SIGINT)
    assert client.process.wait(10) == 130
    assert b"Traceback" not in client.process.stderr.read()
