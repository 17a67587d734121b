"""Fuzzing the protocol's input side: whatever a line holds, exactly one reply, never ``internal``, session alive.

Lines are valid requests with fields replaced by arbitrary JSON (huge integers, lone surrogates,
deep nesting), arbitrary bytes, and truncations.  Bounded by default (``max_examples`` below); a
longer run for release checks: ``PROLIFERATE_FUZZ_EXAMPLES=20000 pytest tests/test_protocol_fuzz.py``.
"""

from __future__ import annotations

import json
import os
import threading
from importlib.resources import files
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.protocol.engine import Session, Settings

EXAMPLES = int(os.environ.get("PROLIFERATE_FUZZ_EXAMPLES", "150"))
CLASSIC: dict[str, Any] = json.loads(files("solver.examples").joinpath("classic.json").read_text())

TEMPLATES: list[dict[str, Any]] = [
    {"type": "ping", "id": 1},
    {"type": "hello", "id": 2, "protocol": "proliferate-jsonl/1"},
    {"type": "configure", "id": 3, "policy": {"weights": {"loyalty": 2}}, "top_k": 2},
    {"type": "cancel", "id": 4, "target": 9},
    {"type": "solve", "id": 5, "board": CLASSIC, "top_k": 2, "evaluate": [["bears"]], "fields": ["chosen"]},
]

surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**30, max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.text(alphabet=surrogates, min_size=1, max_size=2)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, sub in value.items():
            out += _paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out += _paths(sub, (*prefix, i))
    return out


@st.composite
def mutated_requests(draw: st.DrawFn) -> bytes:
    message = json.loads(json.dumps(draw(st.sampled_from(TEMPLATES))))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(message)[1:]))
        parent = message
        for step in path[:-1]:
            parent = parent[step]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
            if not parent and parent is message:
                break
        else:
            parent[path[-1]] = draw(values)
    if isinstance(message, dict) and message.get("type") == "quit":
        message["type"] = "ping"  # quit ends the session: covered by its own tests
    return json.dumps(message).encode()


lines = (
    mutated_requests()
    | st.binary(max_size=64).filter(lambda b: b"\n" not in b and b"quit" not in b)
    | st.integers(1, 5000).map(lambda n: b"[" * n + b"]" * n)
    | st.integers(1, 200).map(lambda n: b'{"type":"ping","id":' + b"9" * n + b"}")
)


class Replies:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, line: bytes) -> None:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        with self.lock:
            self.lines.append(json.loads(line))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, min_size=1, max_size=4))
def test_every_line_gets_one_reply_and_no_internal_error(batch: list[bytes]) -> None:
    out = Replies()
    session = Session(out, Settings())
    for line in batch:
        assert session.handle_line(line)
    session.handle_line(b'{"type":"ping","id":"last"}')
    session.finish()
    session.join(30)
    expected = sum(1 for line in batch if line.strip()) + 1
    assert len(out.lines) == expected
    assert not [r for r in out.lines if r.get("code") == "internal"]
    assert {"type": "pong", "id": "last"} in out.lines  # the session still answers (solves may come later)
