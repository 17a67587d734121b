"""The messages of ``proliferate-jsonl/1``: typed request shapes, their validation, and reply builders.

Validation happens here, once, so the session only ever sees well-formed requests and every
error names the offending field by its path inside the request (``evaluate[1].rounds[0]``),
in the same path style as the board loader's problems.  Unknown fields are ignored on
purpose: that is what lets a minor protocol version add fields without breaking old engines.
Board *contents* are not checked here -- the board loader does that, in the worker.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from solver import jsoncodec
from solver.decision import JSON_FIELDS
from solver.errors import Problem
from solver.policy import Policy, PolicyError
from solver.rules import Choice, Round
from solver.validation import (
    Problems,
    choice_round,
    int_between,
    json_type,
    lone_surrogate_path,
    rerooted,
    unique_ids,
)

__all__ = [
    "ERROR_CODES",
    "GRACE_MS",
    "ID_INT_MAX",
    "ID_STR_MAX",
    "KNOWN_TYPES",
    "MAJOR",
    "PARSERS",
    "PROTOCOL",
    "RESULT_FIELDS",
    "TIME_MS_MAX",
    "TOP_K_MAX",
    "Cancel",
    "Configure",
    "ErrorCode",
    "EvaluateItem",
    "Hello",
    "Ping",
    "ProtocolError",
    "Quit",
    "Request",
    "RequestId",
    "Solve",
    "encode",
    "error_reply",
    "evaluate_item",
    "parse_request",
]

PROTOCOL: Final = "proliferate-jsonl/1"
MAJOR: Final = 1
_VERSION = re.compile(r"proliferate-jsonl/(\d+)(?:\.(\d+))?")

#: Largest ``top_k``: beyond a few dozen every further alternative is one more CP-SAT solve.
TOP_K_MAX: Final = 100
#: Longest accepted ``time_ms`` (one hour); longer is almost certainly a unit mistake.
TIME_MS_MAX: Final = 3_600_000
#: How far past ``time_ms`` the engine may be before it answers ``timeout`` instead.
GRACE_MS: Final = 250
#: Bounds on the configurable input limits: small enough to refuse nothing sensible, large enough to guard memory.
LINE_BYTES_RANGE: Final = (1_024, 1_073_741_824)
OBJECTS_RANGE: Final = (2, 10_000_000)
#: Largest integer id magnitude: 2**53 - 1, the integers every JSON parser (JavaScript's too) keeps exact.
ID_INT_MAX: Final = 2**53 - 1
#: Longest string id, in characters.
ID_STR_MAX: Final = 256
#: What a solve's ``fields`` may name: the decision's JSON keys, then the protocol's own.
RESULT_FIELDS: Final = (*JSON_FIELDS, "evaluated", "timing")

ErrorCode = Literal[
    "parse_error",
    "unknown_type",
    "invalid_request",
    "invalid_board",
    "unsupported_version",
    "too_large",
    "timeout",
    "cancelled",
    "internal",
]
ERROR_CODES: Final[tuple[ErrorCode, ...]] = get_args(ErrorCode)

RequestId = str | int


class ProtocolError(Exception):
    """An ``error`` reply as an exception: raised by request parsing and by the client on error replies.

    ``data`` is the structured part (for ``invalid_request`` / ``invalid_board``:
    ``{"problems": [{"path", "message"}, ...]}``); ``message`` is for humans.
    """

    def __init__(self, code: ErrorCode, message: str, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data: dict[str, Any] = dict(data or {})


def invalid(problems: Sequence[Problem], message: str = "invalid request") -> ProtocolError:
    """An ``invalid_request`` error listing every problem, the first one in the message."""
    first = problems[0]
    text = f"{message}: {first}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
    return ProtocolError("invalid_request", text, {"problems": [_problem_json(p) for p in problems]})


def _problem_json(problem: Problem) -> dict[str, str]:
    return {"path": problem.path, "message": problem.message}


def problems_json(problems: Sequence[Problem], prefix: str) -> list[dict[str, str]]:
    """Problems from a nested loader, re-rooted at ``prefix`` so paths are relative to the request."""
    return [_problem_json(p) for p in rerooted(problems, prefix)]


# ---------------------------------------------------------------------------- requests
@dataclass(frozen=True)
class Hello:
    id: RequestId
    protocol: str
    minor: int


@dataclass(frozen=True)
class Ping:
    id: RequestId


@dataclass(frozen=True)
class Configure:
    """Settings to change, keyed by :class:`solver.protocol.engine.Settings` field name."""

    id: RequestId
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class EvaluateItem:
    """A choice to score, as given: per-round ``(chosen, poison_recipients)``.

    ``repeat`` marks the one-round forms (a bare id list or ``{"chosen": ...}``), which mean
    the same choice in every proliferate of the board -- the board is needed to expand them.
    """

    rounds: tuple[tuple[tuple[str, ...], Mapping[str, str]], ...]
    repeat: bool

    def choice(self, rounds: int) -> Choice:
        """The choice on a board of ``rounds`` proliferates; the legality check happens when it is scored."""
        if self.repeat:
            chosen, recipients = self.rounds[0]
            return Choice.of(chosen, recipients, rounds=rounds)
        return Choice(tuple(Round(chosen, recipients) for chosen, recipients in self.rounds))


@dataclass(frozen=True)
class Solve:
    """``fields``: the result keys to send (None: all of :data:`RESULT_FIELDS`)."""

    id: RequestId
    board: Mapping[str, Any]
    top_k: int | None
    evaluate: tuple[EvaluateItem, ...]
    time_ms: int | None
    fields: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Cancel:
    id: RequestId
    target: RequestId


@dataclass(frozen=True)
class Quit:
    """``id`` may be left out, as UCI's ``quit`` has none; the reply then has ``"id": null``."""

    id: RequestId | None


Request = Hello | Ping | Configure | Solve | Cancel | Quit


def request_id(message: Mapping[str, Any]) -> RequestId | None:
    """The id to echo, or None when it is missing, not a string/integer, or out of bounds."""
    value = message.get("id")
    if isinstance(value, str):
        return value if len(value) <= ID_STR_MAX else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value if -ID_INT_MAX <= value <= ID_INT_MAX else None
    return None


def _id_problem(raw: object, path: str = "id") -> Problem:
    if raw is None:
        return Problem(path, "missing (every request has an id)")
    return Problem(
        path,
        f"must be a string of at most {ID_STR_MAX} characters or an integer from -(2^53-1) to 2^53-1"
        + ("" if isinstance(raw, str | int) and not isinstance(raw, bool) else f", not {json_type(raw)}"),
    )


#: JSON escapes of UTF-16 surrogates; only a line holding one needs the full surrogate check.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def decode(line: bytes) -> dict[str, Any]:
    """One line as a JSON object; ``parse_error`` for anything that is not JSON at all.

    This is the one place where text becomes values, so it also refuses what no later stage
    could handle: a lone UTF-16 surrogate (``"\\ud800"``, valid JSON syntax but not a
    character, so it could be neither used nor echoed) anywhere in the message, and numbers
    too long to convert; both are ``invalid_request`` naming the field.
    """
    try:
        value = jsoncodec.loads(line)
    except UnicodeDecodeError as exc:
        raise ProtocolError("parse_error", f"line is not UTF-8 (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ProtocolError("parse_error", f"not JSON: {exc.msg} at column {exc.colno}", {"column": exc.colno}) from exc
    except RecursionError as exc:
        raise ProtocolError("too_large", "JSON nested too deeply") from exc
    except ValueError:  # an integer with more digits than Python converts (sys.get_int_max_str_digits)
        value = json.loads(line.decode("utf-8"), parse_int=_bounded_int)
    if not isinstance(value, dict):
        raise invalid([Problem("", f"a message must be a JSON object, not {json_type(value)}")])
    if _SURROGATE_ESCAPE.search(line):
        bad = lone_surrogate_path(value)
        if bad is not None:
            raise invalid([Problem(bad, "contains a lone UTF-16 surrogate escape, which is not a character")])
    return value


def _bounded_int(text: str) -> int | float:
    """An integer literal, or an infinity for one too long to convert: every validator refuses it by field."""
    if len(text) <= 100:
        return int(text)
    return -math.inf if text.startswith("-") else math.inf


def parse_request(message: Mapping[str, Any], max_objects: int) -> Request:
    """Validate one decoded message; raises :class:`ProtocolError` naming the offending field."""
    kind = message.get("type")
    if kind is None:
        raise invalid([Problem("type", "missing (every message has a type)")])
    if not isinstance(kind, str):
        raise invalid([Problem("type", f"must be a string, not {json_type(kind)}")])
    parser = PARSERS.get(kind)
    if parser is None:
        raise ProtocolError(
            "unknown_type", f"unknown message type {kind!r}", {"type": kind, "known": list(KNOWN_TYPES)}
        )
    rid = request_id(message)
    if rid is None and not (kind == "quit" and "id" not in message):
        raise invalid([_id_problem(message.get("id"))])
    return parser(rid, message, max_objects)


def _cancel(rid: RequestId | None, message: Mapping[str, Any], max_objects: int) -> Cancel:
    assert rid is not None
    target = request_id({"id": message.get("target")})
    if target is None:
        raise invalid([Problem("target", "must be the id (string or integer) of a pending solve")])
    return Cancel(rid, target)


def _ping(rid: RequestId | None, message: Mapping[str, Any], max_objects: int) -> Ping:
    assert rid is not None
    return Ping(rid)


def _quit(rid: RequestId | None, message: Mapping[str, Any], max_objects: int) -> Quit:
    return Quit(rid)


def _hello(rid: RequestId | None, message: Mapping[str, Any], max_objects: int) -> Hello:
    assert rid is not None
    protocol = message.get("protocol")
    if not isinstance(protocol, str):
        raise invalid([Problem("protocol", f'must be a string such as "{PROTOCOL}"')])
    match = _VERSION.fullmatch(protocol)
    if match is None or int(match.group(1)) != MAJOR:
        raise ProtocolError(
            "unsupported_version",
            f"this engine speaks {PROTOCOL} (any 1.x); got {protocol!r}",
            {"requested": protocol, "supported": [PROTOCOL]},
        )
    return Hello(rid, protocol, int(match.group(2) or 0))


def _configure(rid: RequestId | None, message: Mapping[str, Any], max_objects: int) -> Configure:
    assert rid is not None
    problems = Problems()
    changes: dict[str, Any] = {}
    if "policy" in message:
        raw = message["policy"]
        if raw is None:
            changes["policy"] = Policy()
        elif not isinstance(raw, Mapping):
            problems.add("policy", "must be an object with tables game, values, weights (or null)")
        else:
            try:
                changes["policy"] = Policy.from_dict(raw)
            except PolicyError as exc:
                problems.extend(rerooted(exc.problems, "policy"))
    if "time_ms" in message:
        if message["time_ms"] is None:
            changes["time_ms"] = None
        else:
            changes["time_ms"] = int_between(message["time_ms"], "time_ms", 1, TIME_MS_MAX, problems)
    bounded = {"top_k": (1, TOP_K_MAX), "max_line_bytes": LINE_BYTES_RANGE, "max_objects": OBJECTS_RANGE}
    for key, (low, high) in bounded.items():
        if key in message:
            changes[key] = int_between(message[key], key, low, high, problems)
    if problems:
        raise invalid(problems.list())
    return Configure(rid, changes)


def _solve(rid: RequestId | None, message: Mapping[str, Any], max_objects: int) -> Solve:
    assert rid is not None
    problems = Problems()
    board = message.get("board")
    if not isinstance(board, Mapping):
        why = "missing" if board is None else f"must be an object (board JSON v1), not {json_type(board)}"
        problems.add("board", why)
    else:
        _check_size(board, max_objects)
    top_k = _optional_int(message, "top_k", TOP_K_MAX, problems)
    time_ms = _optional_int(message, "time_ms", TIME_MS_MAX, problems)
    evaluate: list[EvaluateItem] = []
    raw_eval = message.get("evaluate")
    if raw_eval is not None:
        if not isinstance(raw_eval, list):
            problems.add("evaluate", "must be a list of choices")
        else:
            for i, item in enumerate(raw_eval):
                parsed = evaluate_item(item, f"evaluate[{i}]", problems)
                if parsed is not None:
                    evaluate.append(parsed)
    fields = _fields(message.get("fields"), problems)
    if problems:
        raise invalid(problems.list())
    assert isinstance(board, Mapping)
    return Solve(rid, board, top_k, tuple(evaluate), time_ms, fields)


def _optional_int(message: Mapping[str, Any], key: str, high: int, problems: Problems) -> int | None:
    """A setting from 1 to ``high``; absent or null leaves the session's setting in force."""
    value = message.get(key)
    return None if value is None else int_between(value, key, 1, high, problems)


def _fields(raw: object, problems: Problems) -> tuple[str, ...] | None:
    """The result keys a solve asks for; every one must be a known key (a typo would silently drop data)."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        problems.add("fields", f"must be a list of result keys ({', '.join(RESULT_FIELDS)})")
        return None
    for i, name in enumerate(raw):
        if name not in RESULT_FIELDS:
            problems.add(f"fields[{i}]", f"unknown result key {name!r} (one of {', '.join(RESULT_FIELDS)})")
    return tuple(raw)


#: Every request type and its parser: the one list of what the protocol accepts (the session
#: has one handler per request class, checked against this table by the tests).
PARSERS: Final[Mapping[str, Callable[[RequestId | None, Mapping[str, Any], int], Request]]] = {
    "hello": _hello,
    "ping": _ping,
    "configure": _configure,
    "solve": _solve,
    "cancel": _cancel,
    "quit": _quit,
}
KNOWN_TYPES: Final = tuple(PARSERS)


def _check_size(board: Mapping[str, Any], max_objects: int) -> None:
    """Refuse boards over the object limit before the loader spends time (and memory) on them."""
    size = sum(len(v) for key in ("players", "permanents") if isinstance(v := board.get(key), list))
    if size > max_objects:
        raise ProtocolError(
            "too_large",
            f"board has {size} players and permanents; the limit is {max_objects}",
            {"path": "board", "limit": max_objects, "size": size},
        )


def evaluate_item(item: object, path: str, problems: Problems) -> EvaluateItem | None:
    """One choice to score, checked as the record reader checks a record's choice (solver.validation).

    The protocol's ``evaluate`` entries and ``proliferate score --choice`` read this shape.
    """
    if isinstance(item, list):
        before = len(problems)
        ids = unique_ids(item, path, problems)
        return None if ids is None or len(problems) > before else EvaluateItem(((ids, {}),), repeat=True)
    if not isinstance(item, Mapping):
        problems.add(path, 'must be a list of ids, {"chosen": [...]} or {"rounds": [...]}')
        return None
    if "rounds" not in item:
        one = choice_round(item, path, problems)
        return None if one is None else EvaluateItem((one,), repeat=True)
    rounds = item["rounds"]
    if not isinstance(rounds, list) or not rounds:
        problems.add(f"{path}.rounds", "must be a non-empty list of rounds")
        return None
    parsed = []
    for r, rnd in enumerate(rounds):
        if not isinstance(rnd, Mapping):
            problems.add(f"{path}.rounds[{r}]", 'must be an object {"chosen": [...]}')
            continue
        one = choice_round(rnd, f"{path}.rounds[{r}]", problems)
        if one is not None:
            parsed.append(one)
    return EvaluateItem(tuple(parsed), repeat=False) if len(parsed) == len(rounds) else None


# ---------------------------------------------------------------------------- replies
def error_reply(rid: RequestId | None, error: ProtocolError) -> dict[str, Any]:
    """The ``error`` message for ``error`` in reply to request ``rid`` (None when it had no usable id)."""
    reply: dict[str, Any] = {"type": "error", "id": rid, "code": error.code, "message": error.message}
    if error.data:
        reply["data"] = error.data
    return reply


def encode(reply: Mapping[str, Any]) -> bytes:
    """One reply as a compact UTF-8 line; NaN/Infinity are refused since other languages' parsers reject them."""
    return json.dumps(reply, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode() + b"\n"
