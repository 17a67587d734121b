"""The messages of ``proliferate-jsonl/1``: typed request shapes, their validation, and reply builders.

Validation happens here, once, so the session only ever sees well-formed requests and every
error names the offending field by its path inside the request (``evaluate[1].rounds[0]``),
in the same path style as the board loader's problems.  Unknown fields are ignored on
purpose: that is what lets a minor protocol version add fields without breaking old engines.
Board *contents* are not checked here -- the board loader does that, in the worker.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from solver.errors import Problem
from solver.policy import Policy, PolicyError

__all__ = [
    "ERROR_CODES",
    "GRACE_MS",
    "KNOWN_TYPES",
    "MAJOR",
    "PROTOCOL",
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
    out = []
    for p in problems:
        path = prefix if not p.path else f"{prefix}{p.path}" if p.path.startswith("[") else f"{prefix}.{p.path}"
        out.append({"path": path, "message": p.message})
    return out


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


@dataclass(frozen=True)
class Solve:
    id: RequestId
    board: Mapping[str, Any]
    top_k: int | None
    evaluate: tuple[EvaluateItem, ...]
    time_ms: int | None


@dataclass(frozen=True)
class Cancel:
    id: RequestId
    target: RequestId


@dataclass(frozen=True)
class Quit:
    id: RequestId


Request = Hello | Ping | Configure | Solve | Cancel | Quit
KNOWN_TYPES: Final = ("hello", "ping", "configure", "solve", "cancel", "quit")


def request_id(message: Mapping[str, Any]) -> RequestId | None:
    """The id to echo, or None when it is missing or not a string/integer."""
    value = message.get("id")
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def decode(line: bytes) -> dict[str, Any]:
    """One line as a JSON object; ``parse_error`` for anything that is not JSON at all."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError("parse_error", f"line is not UTF-8 (byte {exc.start})") from exc
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError("parse_error", f"not JSON: {exc.msg} at column {exc.colno}", {"column": exc.colno}) from exc
    except RecursionError as exc:
        raise ProtocolError("too_large", "JSON nested too deeply") from exc
    if not isinstance(value, dict):
        raise invalid([Problem("", f"a message must be a JSON object, not {_kind(value)}")])
    return value


def parse_request(message: Mapping[str, Any], max_objects: int) -> Request:
    """Validate one decoded message; raises :class:`ProtocolError` naming the offending field."""
    kind = message.get("type")
    if kind is None:
        raise invalid([Problem("type", "missing (every message has a type)")])
    if not isinstance(kind, str):
        raise invalid([Problem("type", f"must be a string, not {_kind(kind)}")])
    if kind not in KNOWN_TYPES:
        raise ProtocolError(
            "unknown_type", f"unknown message type {kind!r}", {"type": kind, "known": list(KNOWN_TYPES)}
        )
    rid = request_id(message)
    if rid is None:
        raw = message.get("id")
        why = "missing (every request has an id)" if raw is None else f"must be a string or integer, not {_kind(raw)}"
        raise invalid([Problem("id", why)])
    if kind == "hello":
        return _hello(rid, message)
    if kind == "ping":
        return Ping(rid)
    if kind == "configure":
        return _configure(rid, message)
    if kind == "solve":
        return _solve(rid, message, max_objects)
    if kind == "cancel":
        target = request_id({"id": message.get("target")})
        if target is None:
            raise invalid([Problem("target", "must be the id (string or integer) of a pending solve")])
        return Cancel(rid, target)
    return Quit(rid)


def _hello(rid: RequestId, message: Mapping[str, Any]) -> Hello:
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


def _configure(rid: RequestId, message: Mapping[str, Any]) -> Configure:
    problems: list[Problem] = []
    changes: dict[str, Any] = {}
    if "policy" in message:
        raw = message["policy"]
        if raw is None:
            changes["policy"] = Policy()
        elif not isinstance(raw, Mapping):
            problems.append(Problem("policy", "must be an object with tables game, values, weights (or null)"))
        else:
            try:
                changes["policy"] = Policy.from_dict(raw)
            except PolicyError as exc:
                problems.extend(Problem(p["path"], p["message"]) for p in problems_json(exc.problems, "policy"))
    if "time_ms" in message:
        if message["time_ms"] is None:
            changes["time_ms"] = None
        else:
            changes["time_ms"] = _int(message, "time_ms", 1, TIME_MS_MAX, problems)
    bounded = {"top_k": (1, TOP_K_MAX), "max_line_bytes": LINE_BYTES_RANGE, "max_objects": OBJECTS_RANGE}
    for key, (low, high) in bounded.items():
        if key in message:
            changes[key] = _int(message, key, low, high, problems)
    if problems:
        raise invalid(problems)
    return Configure(rid, changes)


def _solve(rid: RequestId, message: Mapping[str, Any], max_objects: int) -> Solve:
    problems: list[Problem] = []
    board = message.get("board")
    if not isinstance(board, Mapping):
        why = "missing" if board is None else f"must be an object (board JSON v1), not {_kind(board)}"
        problems.append(Problem("board", why))
    else:
        _check_size(board, max_objects)
    top_k = _int(message, "top_k", 1, TOP_K_MAX, problems) if message.get("top_k") is not None else None
    time_ms = _int(message, "time_ms", 1, TIME_MS_MAX, problems) if message.get("time_ms") is not None else None
    evaluate: list[EvaluateItem] = []
    raw_eval = message.get("evaluate")
    if raw_eval is not None:
        if not isinstance(raw_eval, list):
            problems.append(Problem("evaluate", "must be a list of choices"))
        else:
            for i, item in enumerate(raw_eval):
                parsed = _evaluate_item(item, f"evaluate[{i}]", problems)
                if parsed is not None:
                    evaluate.append(parsed)
    if problems:
        raise invalid(problems)
    assert isinstance(board, Mapping)
    return Solve(rid, board, top_k, tuple(evaluate), time_ms)


def _check_size(board: Mapping[str, Any], max_objects: int) -> None:
    """Refuse boards over the object limit before the loader spends time (and memory) on them."""
    size = sum(len(v) for key in ("players", "permanents") if isinstance(v := board.get(key), list))
    if size > max_objects:
        raise ProtocolError(
            "too_large",
            f"board has {size} players and permanents; the limit is {max_objects}",
            {"path": "board", "limit": max_objects, "size": size},
        )


def _evaluate_item(item: object, path: str, problems: list[Problem]) -> EvaluateItem | None:
    if isinstance(item, list):
        ids = _ids(item, path, problems)
        return None if ids is None else EvaluateItem(((ids, {}),), repeat=True)
    if not isinstance(item, Mapping):
        problems.append(Problem(path, 'must be a list of ids, {"chosen": [...]} or {"rounds": [...]}'))
        return None
    if "rounds" in item:
        rounds = item["rounds"]
        if not isinstance(rounds, list) or not rounds:
            problems.append(Problem(f"{path}.rounds", "must be a non-empty list of rounds"))
            return None
        parsed = []
        for r, rnd in enumerate(rounds):
            if not isinstance(rnd, Mapping):
                problems.append(Problem(f"{path}.rounds[{r}]", 'must be an object {"chosen": [...]}'))
                continue
            one = _round(rnd, f"{path}.rounds[{r}]", problems)
            if one is not None:
                parsed.append(one)
        return EvaluateItem(tuple(parsed), repeat=False) if len(parsed) == len(rounds) else None
    one = _round(item, path, problems)
    return None if one is None else EvaluateItem((one,), repeat=True)


def _round(
    raw: Mapping[str, Any], path: str, problems: list[Problem]
) -> tuple[tuple[str, ...], Mapping[str, str]] | None:
    if "chosen" not in raw:
        problems.append(Problem(f"{path}.chosen", "missing"))
        return None
    ids = _ids(raw["chosen"], f"{path}.chosen", problems)
    recipients = raw.get("poison_recipients") or {}
    ok = isinstance(recipients, Mapping) and all(isinstance(v, str) for v in recipients.values())
    if not ok:
        problems.append(Problem(f"{path}.poison_recipients", "must map team names to chosen player ids"))
        return None
    return None if ids is None else (ids, dict(recipients))


def _ids(raw: object, path: str, problems: list[Problem]) -> tuple[str, ...] | None:
    if not isinstance(raw, list):
        problems.append(Problem(path, "must be a list of object ids"))
        return None
    bad = [i for i, v in enumerate(raw) if not isinstance(v, str)]
    for i in bad:
        problems.append(Problem(f"{path}[{i}]", f"must be an object id (string), not {_kind(raw[i])}"))
    return None if bad else tuple(raw)


def _int(message: Mapping[str, Any], key: str, low: int, high: int, problems: list[Problem]) -> int:
    value = message.get(key)
    if type(value) is not int or not low <= value <= high:
        problems.append(Problem(key, f"must be an integer from {low} to {high}"))
        return low
    return value


def _kind(value: object) -> str:
    """The JSON name of a value's type, for messages that a non-Python caller understands."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


# ---------------------------------------------------------------------------- replies
def error_reply(rid: RequestId | None, error: ProtocolError) -> dict[str, Any]:
    reply: dict[str, Any] = {"type": "error", "id": rid, "code": error.code, "message": error.message}
    if error.data:
        reply["data"] = error.data
    return reply


def encode(reply: Mapping[str, Any]) -> bytes:
    """One reply as a compact UTF-8 line; NaN/Infinity are refused since other languages' parsers reject them."""
    return json.dumps(reply, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode() + b"\n"
