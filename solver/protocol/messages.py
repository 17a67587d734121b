"""The messages of ``proliferate-jsonl/1``, defined once as msgspec Structs: requests and replies.

Each request type is a Struct of a tagged union (tag field ``"type"``, docs/protocol.md); a
solve's ``board`` is the board format's own :class:`~solver.formats.BoardStruct`, so msgspec
decodes and validates a whole request line in C while parsing (:func:`read_request`), and the
board's cross-field checks run once, in the worker (:func:`solver.boardjson.load_struct`).
Unknown fields are ignored on purpose: that is what lets a minor protocol version add
fields without breaking old engines.  Replies are Structs too, written by msgspec
(:func:`encode`) and read back by the Python client into the same types (:data:`REPLY_DECODER`).

msgspec stops at the first problem.  When it refuses a line, the line is parsed as plain
JSON and walked against the same Structs (:func:`solver.formats.type_problems`), so every
problem is listed, each at its path inside the request (``evaluate[1].rounds[0].chosen``,
``board.permanents[0].counters["+1/+1"]``), in the board loader's path style.  What a type
cannot state (a hello's version, ids listed once, the board's object limit, a policy's
tables) is checked after decoding, over the decoded Structs or, on the error path, over the
parts of the JSON that decoded.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, get_args

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from solver import jsoncodec
from solver.boardjson import load_board
from solver.decision import JSON_FIELDS
from solver.errors import BoardError, Problem
from solver.formats import BoardStruct, Ids, Recipients, is_text, join, json_type, lone_surrogate_path, type_problems
from solver.policy import Policy, PolicyError
from solver.rules import Choice, Round

__all__ = [
    "ERROR_CODES",
    "GRACE_MS",
    "ID_INT_MAX",
    "ID_STR_MAX",
    "KNOWN_TYPES",
    "MAJOR",
    "PARSERS",
    "PROTOCOL",
    "REPLY_DECODER",
    "RESULT_FIELDS",
    "TIME_MS_MAX",
    "TOP_K_MAX",
    "Cancel",
    "Configure",
    "ErrorCode",
    "ErrorReply",
    "EvaluateItem",
    "Evaluated",
    "Hello",
    "HelloOk",
    "Ping",
    "Pong",
    "ProtocolError",
    "Quit",
    "Reply",
    "Request",
    "RequestId",
    "Result",
    "Solve",
    "Timing",
    "decode",
    "encode",
    "error_reply",
    "parse_request",
    "read_choice",
    "read_request",
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
    ``{"problems": [{"path", "message"}, ...]}``); ``message`` is for humans.  ``request_id``
    is the id of the request it answers, when the request was read far enough to have one.
    """

    def __init__(self, code: ErrorCode, message: str, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data: dict[str, Any] = dict(data or {})
        self.request_id: RequestId | None = None


def invalid(problems: Sequence[Problem], message: str = "invalid request") -> ProtocolError:
    """An ``invalid_request`` error listing every problem, the first one in the message."""
    first = problems[0]
    text = f"{message}: {first}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
    return ProtocolError("invalid_request", text, {"problems": [_problem_json(p) for p in problems]})


def _problem_json(problem: Problem) -> dict[str, str]:
    return {"path": problem.path, "message": problem.message}


def _under(prefix: str, path: str) -> str:
    return prefix if not path else f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


def problems_json(problems: Sequence[Problem], prefix: str) -> list[dict[str, str]]:
    """Problems from a nested loader, re-rooted at ``prefix`` so paths are relative to the request."""
    return [{"path": _under(prefix, p.path), "message": p.message} for p in problems]


def board_refused(exc: BoardError) -> ProtocolError:
    """The ``invalid_board`` error for what the board loader refused, its problems re-rooted under ``board``."""
    data = {"problems": problems_json(exc.problems, "board")}
    return ProtocolError("invalid_board", f"board: {exc.problems[0]}", data)


# ---------------------------------------------------------------------------- field types
_ID_TEXT = f"a string of at most {ID_STR_MAX} characters or an integer from -(2^53-1) to 2^53-1"
_AnyId = Annotated[str, Meta(max_length=ID_STR_MAX)] | Annotated[int, Meta(ge=-ID_INT_MAX, le=ID_INT_MAX)]
#: A request's id, echoed in its reply.
WireId = Annotated[_AnyId, Meta(extra={"expected": _ID_TEXT, "not": 1})]
_RANGE = {"whole_range": True}
TopK = Annotated[int, Meta(ge=1, le=TOP_K_MAX, extra=_RANGE)]
TimeMs = Annotated[int, Meta(ge=1, le=TIME_MS_MAX, extra=_RANGE)]
LineBytes = Annotated[int, Meta(ge=LINE_BYTES_RANGE[0], le=LINE_BYTES_RANGE[1], extra=_RANGE)]
Objects = Annotated[int, Meta(ge=OBJECTS_RANGE[0], le=OBJECTS_RANGE[1], extra=_RANGE)]
_FIELDS_TEXT = f"a result key (one of {', '.join(RESULT_FIELDS)})"
ResultKey = Annotated[Literal[RESULT_FIELDS], Meta(extra={"expected": _FIELDS_TEXT})]  # type: ignore[valid-type]


class EvaluateRound(Struct, frozen=True, gc=False):
    """One proliferate's choice in an ``evaluate`` entry (the record's round, unknown fields ignored)."""

    chosen: Ids
    poison_recipients: Recipients | None = None


class EvaluateChoice(Struct, frozen=True, gc=False):
    """An ``evaluate`` entry as an object: ``{"chosen", "poison_recipients"}`` or ``{"rounds": [...]}``."""

    chosen: Ids | UnsetType = UNSET
    poison_recipients: Recipients | None = None
    rounds: (
        Annotated[list[EvaluateRound], Meta(min_length=1, extra={"expected": "a non-empty list of rounds"})] | UnsetType
    ) = UNSET


_ENTRY_TEXT = 'a list of ids, {"chosen": [...]} or {"rounds": [...]}'
#: One choice to score: a list of ids (the same in every proliferate) or an object.
EvaluateEntry = Annotated[Ids | EvaluateChoice, Meta(extra={"expected": _ENTRY_TEXT})]


@dataclass(frozen=True)
class EvaluateItem:
    """A choice to score, as given: per-round ``(chosen, poison_recipients)``.

    ``repeat`` marks the one-round forms (a bare id list or ``{"chosen": ...}``), which mean
    the same choice in every proliferate of the board -- the board is needed to expand them.
    """

    rounds: tuple[tuple[tuple[str, ...], Mapping[str, str]], ...]
    repeat: bool

    @classmethod
    def of(cls, entry: list[str] | EvaluateChoice) -> EvaluateItem:
        """The item of a decoded entry (whose rules :func:`_choice_problems` has checked)."""
        if isinstance(entry, list):
            return cls(((tuple(entry), {}),), repeat=True)
        if isinstance(entry.rounds, UnsetType):
            assert not isinstance(entry.chosen, UnsetType)
            return cls(((tuple(entry.chosen), entry.poison_recipients or {}),), repeat=True)
        return cls(tuple((tuple(r.chosen), r.poison_recipients or {}) for r in entry.rounds), repeat=False)

    def choice(self, rounds: int) -> Choice:
        """The choice on a board of ``rounds`` proliferates; the legality check happens when it is scored."""
        if self.repeat:
            chosen, recipients = self.rounds[0]
            return Choice.of(chosen, recipients, rounds=rounds)
        return Choice(tuple(Round(chosen, recipients) for chosen, recipients in self.rounds))


# ---------------------------------------------------------------------------- requests
class _Request(Struct, tag_field="type", frozen=True, gc=False):
    """A request; unknown fields are ignored (forward compatibility within major version 1)."""


class Hello(_Request, tag="hello", frozen=True):
    id: WireId
    protocol: Annotated[str, Meta(extra={"expected": f'a string such as "{PROTOCOL}"'})]

    @property
    def minor(self) -> int:
        """The client's minor version (``proliferate-jsonl/1.4`` -> 4); checked by :func:`parse_request`."""
        match = _VERSION.fullmatch(self.protocol)
        return int(match.group(2) or 0) if match else 0


class Ping(_Request, tag="ping", frozen=True):
    id: WireId


_POLICY_TEXT = "an object with tables game, values, weights (or null)"


class Configure(_Request, tag="configure", frozen=True):
    """Settings to change; a field left out keeps the session's setting (``null``: the default / no limit)."""

    id: WireId
    policy: Annotated[dict[str, Any], Meta(extra={"expected": _POLICY_TEXT})] | UnsetType | None = UNSET
    time_ms: TimeMs | UnsetType | None = UNSET
    top_k: TopK | UnsetType = UNSET
    max_line_bytes: LineBytes | UnsetType = UNSET
    max_objects: Objects | UnsetType = UNSET

    @property
    def changes(self) -> dict[str, Any]:
        """The settings given, keyed by :class:`solver.protocol.engine.Settings` field; raises for a bad policy."""
        out: dict[str, Any] = {}
        for key in ("time_ms", "top_k", "max_line_bytes", "max_objects"):
            value = getattr(self, key)
            if value is not UNSET:
                out[key] = value
        if self.policy is None:
            out["policy"] = Policy()
        elif not isinstance(self.policy, UnsetType):
            try:
                out["policy"] = Policy.from_dict(self.policy)
            except PolicyError as exc:
                raise invalid([Problem(_under("policy", p.path), p.message) for p in exc.problems]) from exc
        return out


class Solve(_Request, tag="solve", frozen=True):
    """``fields``: the result keys to send (None: all of :data:`RESULT_FIELDS`)."""

    id: WireId
    board: Annotated[BoardStruct, Meta(extra={"expected": "an object (board JSON v1)", "not": 1})]
    top_k: TopK | None = None
    time_ms: TimeMs | None = None
    entries: list[EvaluateEntry] | None = msgspec.field(default=None, name="evaluate")
    fields: list[ResultKey] | None = None

    @property
    def evaluate(self) -> tuple[EvaluateItem, ...]:
        """The choices to score, in order."""
        return tuple(EvaluateItem.of(entry) for entry in self.entries or ())

    @property
    def objects(self) -> int:
        """Players + permanents: what ``max_objects`` bounds."""
        return len(self.board.players) + len(self.board.permanents)


class Cancel(_Request, tag="cancel", frozen=True):
    id: WireId
    target: Annotated[_AnyId, Meta(extra={"expected": "the id (string or integer) of a pending solve"})]


class Quit(_Request, tag="quit", frozen=True):
    """``id`` may be left out, as UCI's ``quit`` has none; the reply then has ``"id": null``."""

    id: WireId | UnsetType = UNSET

    @property
    def rid(self) -> RequestId | None:
        return None if isinstance(self.id, UnsetType) else self.id


Request = Hello | Ping | Configure | Solve | Cancel | Quit

#: Every request type and its Struct: the one list of what the protocol accepts (the session
#: has one handler per request class, checked against this table by the tests).
PARSERS: Final[Mapping[str, type[Request]]] = {
    "hello": Hello,
    "ping": Ping,
    "configure": Configure,
    "solve": Solve,
    "cancel": Cancel,
    "quit": Quit,
}
KNOWN_TYPES: Final = tuple(PARSERS)
_REQUEST_DECODER: Final = msgspec.json.Decoder(Request)


def request_id(message: Mapping[str, Any]) -> RequestId | None:
    """The id to echo, or None when it is missing, not a string/integer, or out of bounds."""
    value = message.get("id")
    if isinstance(value, str):
        return value if len(value) <= ID_STR_MAX else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value if -ID_INT_MAX <= value <= ID_INT_MAX else None
    return None


_SURROGATE_TEXT = "contains a lone UTF-16 surrogate escape, which is not a character"
#: JSON escapes of UTF-16 surrogates; only a line holding one needs the full surrogate check.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def read_request(line: bytes, max_objects: int) -> Request:
    """One request line, decoded and validated by msgspec; on any problem, the exact error of :func:`parse_request`.

    The raised :class:`ProtocolError` carries the request's id (``request_id``) when it has a usable one.
    """
    try:
        request = _REQUEST_DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass  # lone surrogates, bad JSON, bad fields: the error path lists every problem
    else:
        try:
            return _checked(request, max_objects)
        except ProtocolError as exc:
            exc.request_id = _rid(request)
            raise
    message = decode(line)
    try:
        return parse_request(message, max_objects)
    except ProtocolError as exc:
        exc.request_id = request_id(message)
        raise


def _rid(request: Request) -> RequestId | None:
    return request.rid if isinstance(request, Quit) else request.id


def decode(line: bytes) -> dict[str, Any]:
    """One line as a JSON object; ``parse_error`` for anything that is not JSON at all.

    The error path's reading of a line (and the one place where text becomes plain values),
    so it also refuses what no later stage could handle: a lone UTF-16 surrogate
    (``"\\ud800"``, valid JSON syntax but not a character, so it could be neither used nor
    echoed) anywhere in the message, and numbers too long to convert; both are
    ``invalid_request`` naming the field.
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
            raise invalid([Problem(bad, _SURROGATE_TEXT)])
    return value


def _bounded_int(text: str) -> int | float:
    """An integer literal, or an infinity for one too long to convert: every validator refuses it by field."""
    if len(text) <= 100:
        return int(text)
    return -math.inf if text.startswith("-") else math.inf


def parse_request(message: Mapping[str, Any], max_objects: int) -> Request:
    """Validate one decoded message into its request Struct; raises :class:`ProtocolError` naming every bad field."""
    kind = message.get("type")
    if kind is None:
        raise invalid([Problem("type", "missing (every message has a type)")])
    if not isinstance(kind, str):
        raise invalid([Problem("type", f"must be a string, not {json_type(kind)}")])
    struct = PARSERS.get(kind)
    if struct is None:
        raise ProtocolError(
            "unknown_type", f"unknown message type {kind!r}", {"type": kind, "known": list(KNOWN_TYPES)}
        )
    board = message.get("board")
    if struct is Solve and isinstance(board, Mapping):
        _check_size(_size(board), max_objects)  # before anything is spent on an over-large board
    try:
        request = msgspec.convert(message, struct)
    except (msgspec.ValidationError, UnicodeEncodeError) as exc:
        refused = _refusal(message, struct)
        raise refused or invalid([Problem("", f"invalid request: {exc}")]) from None  # else msgspec's own words
    if lone_surrogate_path(message) is not None:  # decoded JSON cannot hold one (decode refuses it); a mapping can
        refused = _refusal(message, struct)
        if refused is not None:  # in a field the Structs read (one they ignore is ignored)
            raise refused
    return _checked(request, max_objects)


def _refusal(message: Mapping[str, Any], struct: type[Request]) -> ProtocolError | None:
    """Every problem of a request msgspec refused at its first: the type walk, the rules, then the board's own
    (None if none is found)."""
    problems = type_problems(message, struct)
    policy = message.get("policy")
    if struct is Configure and isinstance(policy, Mapping):
        try:
            Policy.from_dict(policy)
        except PolicyError as refused_policy:
            problems[:0] = [Problem(_under("policy", p.path), p.message) for p in refused_policy.problems]
    entries = message.get("evaluate")
    if isinstance(entries, list):
        problems += [p for p in _choice_problems(entries) if p not in problems]
    outside = [p for p in problems if not p.path.startswith(("board.", "board["))]
    if outside:
        return invalid(outside)
    board = message.get("board")
    if struct is Solve and isinstance(board, Mapping):
        try:
            load_board(board)
        except BoardError as refused:
            return board_refused(refused)
    return None


def _checked(request: Request, max_objects: int) -> Request:
    """The rules of a decoded request that its types cannot state; raises :class:`ProtocolError`."""
    if isinstance(request, Solve):
        _check_size(request.objects, max_objects)
        if request.entries:
            problems = _choice_problems(request.entries)
            if problems:
                raise invalid(problems)
    elif isinstance(request, Hello):
        match = _VERSION.fullmatch(request.protocol)
        if match is None or int(match.group(1)) != MAJOR:
            raise ProtocolError(
                "unsupported_version",
                f"this engine speaks {PROTOCOL} (any 1.x); got {request.protocol!r}",
                {"requested": request.protocol, "supported": [PROTOCOL]},
            )
    elif isinstance(request, Configure):
        request.changes  # noqa: B018 -- a policy's tables are checked by the policy's own reader
    return request


def _size(board: Mapping[str, Any]) -> int:
    return sum(len(v) for key in ("players", "permanents") if isinstance(v := board.get(key), list))


def _check_size(size: int, max_objects: int) -> None:
    """Refuse boards over the object limit before the loader spends time (and memory) on them."""
    if size > max_objects:
        raise ProtocolError(
            "too_large",
            f"board has {size} players and permanents; the limit is {max_objects}",
            {"path": "board", "limit": max_objects, "size": size},
        )


def _field(entry: object, key: str) -> Any:
    """A field of an entry, decoded (a Struct) or not (a mapping); None when absent."""
    if isinstance(entry, Mapping):
        return entry.get(key)
    value = getattr(entry, key, None)
    return None if isinstance(value, UnsetType) else value


def _choice_problems(entries: Sequence[object]) -> list[Problem]:
    """What the ``evaluate`` entries' types cannot state (:func:`_entry_rules`), entry by entry."""
    return [p for i, entry in enumerate(entries) for p in _entry_rules(entry, f"evaluate[{i}]")]


def _entry_rules(entry: object, at: str) -> list[Problem]:
    """Ids listed once, and ``chosen`` when there are no ``rounds``: over a decoded entry (the fast path) or
    the JSON of a refused one (the error path) alike."""
    if isinstance(entry, list):
        return _duplicates(entry, at)
    if not isinstance(entry, Mapping | EvaluateChoice):
        return []
    rounds = _field(entry, "rounds")
    if rounds is None:
        chosen = _field(entry, "chosen")
        if chosen is None and not (isinstance(entry, Mapping) and "chosen" in entry):
            return [Problem(join(at, "chosen"), "required")]
        return _duplicates(chosen, join(at, "chosen")) if isinstance(chosen, list) else []
    out: list[Problem] = []
    if isinstance(rounds, list):
        for r, rnd in enumerate(rounds):
            chosen = _field(rnd, "chosen") if isinstance(rnd, Mapping | EvaluateRound) else None
            if isinstance(chosen, list):
                out += _duplicates(chosen, join(f"{join(at, 'rounds')}[{r}]", "chosen"))
    return out


def _duplicates(ids: list[Any], path: str) -> list[Problem]:
    seen: set[str] = set()
    out = []
    for i, item in enumerate(ids):
        if isinstance(item, str) and item:
            if item in seen:
                out.append(Problem(f"{path}[{i}]", f"duplicate id {item!r}"))
            elif is_text(item):  # text that is not valid is reported, once, by the type walk
                seen.add(item)
    return out


def read_choice(raw: object, path: str) -> tuple[EvaluateItem | None, list[Problem]]:
    """One choice to score in the shape of an ``evaluate`` entry at ``path``: the item, or None and every problem.

    The protocol's ``evaluate`` entries and ``proliferate score`` (``--choice``, the IDs) read this shape.
    """
    try:
        if lone_surrogate_path(raw) is not None:  # Python text can hold one; msgspec's conversion keeps it
            raise msgspec.ValidationError("lone surrogate")
        entry = msgspec.convert(raw, EvaluateEntry)
    except (msgspec.ValidationError, UnicodeEncodeError):
        found = type_problems({"evaluate": [raw]}, _EvaluateHolder)
        found += [p for p in _entry_rules(raw, "evaluate[0]") if p not in found]
        return None, [Problem(_under(path, p.path.removeprefix("evaluate[0]").removeprefix(".")), p.message)
                      for p in found]  # fmt: skip
    problems = _entry_rules(entry, path)
    return (None, problems) if problems else (EvaluateItem.of(entry), [])


class _EvaluateHolder(Struct):
    """One ``evaluate`` list, for walking a lone entry against its type."""

    evaluate: list[EvaluateEntry]


# ---------------------------------------------------------------------------- replies
class _Reply(Struct, tag_field="type", omit_defaults=True, gc=False):
    """A reply; fields left UNSET are not sent."""


class HelloOk(_Reply, tag="hello_ok"):
    id: RequestId
    protocol: str
    engine: dict[str, str]
    capabilities: dict[str, bool | int]
    options: list[dict[str, Any]]


class Pong(_Reply, tag="pong"):
    id: RequestId


class Evaluated(Struct, omit_defaults=True, gc=False):
    """An ``evaluate`` entry's answer: the choice in the ``alternatives`` shape, its value and regret."""

    chosen: list[str]
    poison_recipients: dict[str, str]
    rounds: list[dict[str, Any]]
    value: float
    regret: float


class Timing(Struct, gc=False):
    queued_ms: float
    load_ms: float
    solve_ms: float
    total_ms: float


class Result(_Reply, tag="result"):
    """The ``result`` of a configure (``options``), a cancel (``cancelled``), a quit (``quit``) or a solve
    (the decision's keys, :data:`solver.decision.JSON_FIELDS`, then ``evaluated`` and ``timing``)."""

    id: RequestId | None
    options: dict[str, Any] | UnsetType = UNSET
    cancelled: RequestId | UnsetType = UNSET
    quit: bool | UnsetType = UNSET
    chosen: list[str] | UnsetType = UNSET
    poison_recipients: dict[str, str] | UnsetType = UNSET
    rounds: list[dict[str, Any]] | UnsetType = UNSET
    value: float | UnsetType = UNSET
    status: str | UnsetType = UNSET
    bound: float | UnsetType | None = UNSET
    method: str | UnsetType = UNSET
    game_result: str | UnsetType | None = UNSET
    outcome: dict[str, Any] | UnsetType = UNSET
    explanation: list[dict[str, Any]] | UnsetType = UNSET
    alternatives: list[dict[str, Any]] | UnsetType = UNSET
    elapsed_ms: float | UnsetType = UNSET
    evaluated: list[Evaluated] | UnsetType = UNSET
    timing: Timing | UnsetType = UNSET


class ErrorReply(_Reply, tag="error"):
    id: RequestId | None
    code: ErrorCode
    message: str
    data: dict[str, Any] | UnsetType = UNSET


Reply = HelloOk | Pong | Result | ErrorReply
#: The client's reader of replies, into the same Structs the server writes.
REPLY_DECODER: Final = msgspec.json.Decoder(Reply)
_ENCODER: Final = msgspec.json.Encoder()


def error_reply(rid: RequestId | None, error: ProtocolError) -> ErrorReply:
    """The ``error`` message for ``error`` in reply to request ``rid`` (None when it had no usable id)."""
    return ErrorReply(rid, error.code, error.message, error.data if error.data else UNSET)


def encode(reply: Reply | Mapping[str, Any]) -> bytes:
    """One reply as a compact UTF-8 line; NaN/Infinity are refused (ValueError) since other languages' parsers
    reject them, as is text with a lone surrogate."""
    out = _ENCODER.encode(reply)
    if b"null" in out:  # msgspec writes NaN and the infinities as null: only such a line needs the full check
        json.dumps(msgspec.to_builtins(reply), allow_nan=False)
    return out + b"\n"
