"""Native game records: JSON Lines, one proliferate decision per line.

A record holds the board *as it stood when the decision was made* (board JSON v1) and the
choice the decider actually made, so analysis needs nothing but the record itself and
a game is simply the lines that share a ``game``.  Reading is streaming and forgiving:
a bad line becomes a :class:`LineProblem` naming its file, line and JSON path, and the
lines after it are still read, because one corrupt line in a 100,000-decision file must
not cost the other 99,999.  Field checks here are the ones a line can fail on its own;
:func:`resolve` adds the checks that need the board (loadable, decider, legal choice).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, BinaryIO, TextIO, cast

import msgspec

from ..board import Board, BoolArray, IntArray
from ..boardjson import load_board
from ..errors import BoardError, IllegalChoice, Problem
from ..formats import (
    RECORD_DECODER,
    BoardStruct,
    RecordStruct,
    free_form_problem,
    is_text,
    lone_surrogate_path,
    type_problems,
)
from ..limits import MAX_LINE_BYTES
from ..rules import Choice, Round, choice_matrix

__all__ = [
    "LineProblem",
    "LineTooLong",
    "Record",
    "RecordError",
    "iter_lines",
    "parse_record",
    "read_records",
    "resolve",
    "resolve_matrices",
    "write_records",
]

_GZIP_MAGIC = b"\x1f\x8b"


class RecordError(ValueError):
    """A record that cannot be analysed; ``problems`` lists each with its JSON path inside the record."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class LineProblem:
    """Why one input line was skipped: ``source:line: path: message`` (line 0 = the whole file)."""

    source: str
    line: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


@dataclass(frozen=True)
class Record:
    """One decision.  ``rounds`` is None when ``chosen`` is meant for every proliferate of the resolution."""

    game: str | int
    turn: int
    decider: str
    #: Decoded board Structs when the record decoded whole; the parsed JSON when its board did not (the board
    #: loader reports why, at :func:`resolve`).
    board: BoardStruct | Mapping[str, Any]
    chosen: tuple[str, ...]
    poison_recipients: Mapping[str, str]
    rounds: tuple[Round, ...] | None = None
    phase: str | None = None
    source: str | None = None
    candidates: tuple[str, ...] | None = None
    meta: Mapping[str, Any] | None = None

    def choice(self, n_rounds: int) -> Choice:
        """The choice for a resolution of ``n_rounds`` proliferates."""
        if self.rounds is not None:
            return Choice(self.rounds)
        return Choice.of(self.chosen, self.poison_recipients, rounds=n_rounds)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.game,
            "turn": self.turn,
            "decider": self.decider,
            "board": (
                _json_ready(msgspec.to_builtins(self.board)) if isinstance(self.board, BoardStruct) else self.board
            ),
            "chosen": list(self.chosen),
            "poison_recipients": dict(self.poison_recipients),
        }
        if self.rounds is not None:
            out["rounds"] = [
                {"chosen": list(r.chosen), "poison_recipients": dict(r.poison_recipients)} for r in self.rounds
            ]
        for key in ("phase", "source"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.candidates is not None:
            out["candidates"] = list(self.candidates)
        if self.meta is not None:
            out["meta"] = dict(self.meta)
        return out


# ---------------------------------------------------------------------------- parsing one record
def parse_record(data: object) -> Record:
    """Check one parsed JSON record against the record format; raises :class:`RecordError` with every problem.

    The format is :class:`solver.formats.RecordStruct`, validated by msgspec (``msgspec.convert``);
    the board's contents are the board loader's business, reported by :func:`resolve`.
    """
    if not isinstance(data, Mapping):
        raise RecordError([Problem("", "a record must be a JSON object")])
    # A mapping can hold text no output could carry, and NaN or an infinity where the type is free-form (``meta``):
    # JSON text cannot, and msgspec's conversion would keep them.
    if lone_surrogate_path(data) is None and free_form_problem(data.get("meta")) is None:
        try:
            return _record(msgspec.convert(data, RecordStruct))
        except msgspec.ValidationError:
            pass
    problems = _problems(data)
    if problems:
        raise RecordError(problems)
    return _record_with_raw_board(data)


def _json_ready(value: Any) -> Any:
    """Builtins as parsed JSON has them: the board's lists that its Structs hold as tuples (card types, keywords,
    subtypes; ``msgspec.to_builtins`` keeps tuples) as lists."""
    if isinstance(value, tuple | list):
        return [_json_ready(item) for item in value]
    if isinstance(value, dict):
        return {key: _json_ready(item) for key, item in value.items()}
    return value


def parse_line(text: str | bytes) -> Record:
    """One JSON line as a record, decoded and validated in C by the record decoder; raises :class:`RecordError`."""
    try:
        return _record(RECORD_DECODER.decode(text))
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeEncodeError):
        pass
    try:  # the error path: the standard library's reading and messages, then every problem
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError([Problem("", f"not valid JSON: column {exc.colno}: {exc.msg}")]) from None
    except RecursionError:
        raise RecordError([Problem("", "not valid JSON: nested too deeply")]) from None
    except ValueError as exc:
        raise RecordError([Problem("", f"not valid JSON: {exc}")]) from None
    if not isinstance(data, Mapping):
        raise RecordError([Problem("", "a record must be a JSON object")])
    problems = _problems(data)
    if problems:
        raise RecordError(problems)
    return _record_with_raw_board(data)


def _problems(data: Mapping[str, Any]) -> list[Problem]:
    """Every problem of a record outside its board: the walk of :func:`solver.formats.type_problems`, then the
    checks a type cannot state.  The board need only be an object here (:func:`resolve` loads it)."""
    rest = {key: value for key, value in data.items() if key != "board"}
    problems = [p for p in type_problems(rest, RecordStruct) if p.path != "board"]
    if "board" not in data:
        problems.append(Problem("board", "required"))
    elif not isinstance(data["board"], Mapping):
        problems.append(Problem("board", "must be an object (board JSON v1)"))
    problems += _choice_problems(data)
    return problems


def _choice_problems(data: Mapping[str, Any]) -> list[Problem]:
    """Ids listed twice (in ``chosen``, each round's and ``candidates``) and a first round that is not ``chosen``."""
    out: list[Problem] = []
    for path, value in _id_lists(data):
        seen: set[str] = set()
        for i, item in enumerate(value):
            if isinstance(item, str) and item:
                if item in seen:
                    out.append(Problem(f"{path}[{i}]", f"duplicate id {item!r}"))
                elif is_text(item):  # text that is not valid is reported, once, by the type walk
                    seen.add(item)
    rounds = data.get("rounds")
    if isinstance(rounds, list) and rounds and isinstance(rounds[0], Mapping):
        first = rounds[0]
        mine = (_id_set(data.get("chosen")), data.get("poison_recipients") or {})
        theirs = (_id_set(first.get("chosen")), first.get("poison_recipients") or {})
        if None not in (mine[0], theirs[0]) and mine != theirs:
            out.append(Problem("rounds[0]", "must repeat the record's chosen and poison_recipients"))
    return out


def _id_lists(data: Mapping[str, Any]) -> Iterator[tuple[str, list[Any]]]:
    for key in ("chosen", "candidates"):
        if isinstance(data.get(key), list):
            yield key, data[key]
    rounds = data.get("rounds")
    if isinstance(rounds, list):
        for i, item in enumerate(rounds):
            if isinstance(item, Mapping) and isinstance(item.get("chosen"), list):
                yield f"rounds[{i}].chosen", item["chosen"]


def _id_set(value: object) -> frozenset[Any] | None:
    return frozenset(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _record(s: RecordStruct) -> Record:
    """The record of decoded Structs, after the checks a type cannot state."""
    problems = _choice_problems(
        {"chosen": s.chosen, "candidates": s.candidates, "poison_recipients": s.poison_recipients,
         "rounds": None if s.rounds is None else [msgspec.structs.asdict(r) for r in s.rounds]}
    )  # fmt: skip
    if problems:
        raise RecordError(problems)
    return Record(
        game=s.game,
        turn=s.turn,
        decider=s.decider,
        board=s.board,
        chosen=tuple(s.chosen),
        poison_recipients=MappingProxyType(s.poison_recipients or {}),
        rounds=None
        if s.rounds is None
        else tuple(Round(tuple(r.chosen), MappingProxyType(r.poison_recipients or {})) for r in s.rounds),
        phase=s.phase,
        source=s.source,
        candidates=None if s.candidates is None else tuple(s.candidates),
        meta=s.meta,
    )


def _record_with_raw_board(data: Mapping[str, Any]) -> Record:
    """A record whose fields are valid but whose board did not decode: kept raw for :func:`resolve` to report."""
    try:
        placeholder = msgspec.convert({**data, "board": _EMPTY_BOARD}, RecordStruct)
    except (msgspec.ValidationError, UnicodeEncodeError) as exc:  # the walk accepted what msgspec refuses
        raise RecordError([Problem("", f"invalid record: {exc}")]) from None
    record = _record(placeholder)
    return Record(**{**record.__dict__, "board": data["board"]})


#: A board that decodes, standing in while the record's own fields are decoded (its board is reported later).
_EMPTY_BOARD = {"variant": "duel", "proliferator": "p", "players": [{"id": "p"}]}


# ---------------------------------------------------------------------------- checks that need the board
def resolve(record: Record) -> tuple[Board, Choice]:
    """Load the record's board and check its choice; raises :class:`RecordError` (paths inside the record)."""
    board, choice, _ = resolve_matrices(record)
    return board, choice


def resolve_matrices(record: Record) -> tuple[Board, Choice, tuple[BoolArray, IntArray]]:
    """:func:`resolve`, and the choice as the matrices it was checked through (:func:`solver.rules.choice_matrix`).

    Judging the choice needs those matrices; keeping them spares checking it twice.
    """
    try:
        board = load_board(record.board)
    except BoardError as exc:
        raise RecordError([Problem(_under("board", p.path), p.message) for p in exc.problems]) from None
    if record.decider != board.proliferator_id:
        raise RecordError(
            [Problem("decider", f"{record.decider!r} is not the board's proliferator {board.proliferator_id!r}")]
        )
    if record.rounds is not None and len(record.rounds) != board.rounds:
        raise RecordError(
            [Problem("rounds", f"has {len(record.rounds)} round(s); this board proliferates {board.rounds} time(s)")]
        )
    choice = record.choice(board.rounds)
    try:
        matrices = choice_matrix(board, choice)
    except IllegalChoice as exc:
        raise RecordError([Problem("rounds" if record.rounds is not None else "chosen", str(exc))]) from None
    return board, choice, matrices


# ---------------------------------------------------------------------------- files
class LineTooLong(ValueError):
    """A line past the line bound: the file is not read further (its end cannot be found without reading it)."""

    def __init__(self, source: str, line: int, limit: int) -> None:
        self.source, self.line, self.limit = source, line, limit
        #: The message without its place (``SOURCE:LINE: ``), for a :class:`LineProblem` or an error line.
        self.reason = (
            f"line longer than {limit} bytes (the limit; --max-line-bytes changes it): the rest of the file is not read"
        )
        super().__init__(f"{source}:{line}: {self.reason}")


def iter_lines(
    path: str | os.PathLike[str], max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, str] | LineProblem]:
    """Lines of a text file, gzip or not (told by its first bytes), numbered from 1.

    A line that is not UTF-8 and a read error (truncated or corrupt gzip) become problems;
    the former skips the line, the latter ends the file and is a problem of the whole file
    (line 0), since no line was read.  A line of more than ``max_line_bytes`` bytes (its line
    end not counted) raises :class:`LineTooLong` once ``max_line_bytes + 2`` bytes of it are read:
    no more of it is held, and nothing after it is read (``/dev/zero`` has no line end).
    """
    source = os.fspath(path)
    try:
        handle = _open_binary(source)
    except OSError as exc:
        yield LineProblem(source, 0, "", f"cannot read: {exc.strerror or exc}")
        return
    lineno = 0
    bound = max_line_bytes + 2  # room for the line end, "\r\n" included
    with handle:
        try:
            while raw := handle.readline(bound):
                lineno += 1
                if len(raw) > max_line_bytes and len(raw.rstrip(b"\r\n")) > max_line_bytes:
                    raise LineTooLong(source, lineno, max_line_bytes)
                try:
                    yield lineno, raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    yield LineProblem(source, lineno, "", f"not UTF-8 ({exc.reason} at byte {exc.start})")
        except (OSError, EOFError, zlib.error) as exc:
            yield LineProblem(source, 0, "", f"cannot read further after line {lineno}: {exc}")


def _open_binary(source: str) -> BinaryIO:
    handle: BinaryIO = open(source, "rb")  # noqa: SIM115 -- returned to the caller, who closes it
    try:
        magic = handle.read(2)
        handle.seek(0)
    except OSError:
        handle.close()
        raise
    if magic == _GZIP_MAGIC:
        handle.close()  # a GzipFile does not close a file object it was given, so let it open its own
        return cast(BinaryIO, gzip.open(source, "rb"))
    return handle


def read_records(
    path: str | os.PathLike[str], max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, Record] | LineProblem]:
    """``(line, record)`` for each good line of a records file, a :class:`LineProblem` for each bad one.

    Blank lines are allowed (they separate games for human readers) and skipped silently.
    Only per-line checks run here; :func:`resolve` does the board checks.  A line past
    ``max_line_bytes`` raises :class:`LineTooLong`.
    """
    source = os.fspath(path)
    for item in iter_lines(source, max_line_bytes):
        if isinstance(item, LineProblem):
            yield item
            continue
        lineno, text = item
        if not text.strip():
            continue
        try:
            yield lineno, parse_line(text)
        except RecordError as exc:
            for problem in exc.problems:
                yield LineProblem(source, lineno, problem.path, problem.message)


def write_records(records: Iterable[Record], out: TextIO) -> int:
    """Write records as JSON Lines (compact, one per line), encoded through the record Structs; returns how many."""
    n = 0
    for record in records:
        out.write(encode_record(record.to_json()).decode())
        out.write("\n")
        n += 1
    return n


def encode_record(data: Mapping[str, Any]) -> bytes:
    """One record as compact JSON, validated by and encoded through :class:`solver.formats.RecordStruct`.

    Raises :class:`RecordError` (with every problem) for data that is not a valid record.
    """
    try:
        return msgspec.json.encode(msgspec.convert(data, RecordStruct))
    except (msgspec.ValidationError, UnicodeEncodeError):
        raise RecordError(_problems(data) or [Problem("", "invalid record")]) from None


def _under(prefix: str, path: str) -> str:
    return prefix if not path else f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"
