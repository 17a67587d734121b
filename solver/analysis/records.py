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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, BinaryIO, TextIO, TypeVar, cast

from .. import jsoncodec
from ..board import Board, BoolArray, IntArray
from ..boardjson import load_board
from ..errors import BoardError, IllegalChoice, Problem
from ..limits import MAX_LINE_BYTES
from ..rules import Choice, Round, choice_matrix
from ..validation import (
    Problems,
    choice_round,
    id_string,
    index,
    int_in_range,
    is_int,
    no_lone_surrogate,
    required,
    rerooted,
    string,
    text,
    unique_ids,
    unknown_fields,
)

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

_FIELDS = frozenset(
    (
        "game",
        "turn",
        "decider",
        "board",
        "chosen",
        "poison_recipients",
        "rounds",
        "phase",
        "source",
        "candidates",
        "meta",
    )
)
_ROUND_FIELDS = frozenset({"chosen", "poison_recipients"})
_GZIP_MAGIC = b"\x1f\x8b"
_T = TypeVar("_T")


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
    board: Mapping[str, Any]
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
            "board": self.board,
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
    """Check one parsed JSON line against the record format; raises :class:`RecordError` with every problem.

    Each kind of field is checked by the same function of :mod:`solver.validation` as in the board
    loader and the protocol, so a choice the server refuses is refused here too.
    """
    if not isinstance(data, Mapping):
        raise RecordError([Problem("", "a record must be a JSON object")])
    problems = Problems()
    unknown_fields(data, _FIELDS, "", problems)
    required(data, ("game", "turn", "decider", "board"), "", problems)
    game = _game(data["game"], "game", problems) if "game" in data else None
    turn = int_in_range(data["turn"], "turn", 0, None, problems) if "turn" in data else None
    decider = id_string(data["decider"], "decider", problems, "a player id of the board") if "decider" in data else None
    board = data.get("board")
    if "board" in data and not isinstance(board, Mapping):
        problems.add("board", "must be an object (board JSON v1)")
    choice = choice_round(data, "", problems)
    rounds = _rounds(data, choice, problems)
    phase = _optional(data, "phase", string, problems)
    source = _optional(data, "source", string, problems)
    candidates = _optional(data, "candidates", unique_ids, problems)
    meta = _optional(data, "meta", _meta, problems)
    if problems:
        raise RecordError(problems)
    assert game is not None and turn is not None and decider is not None
    assert isinstance(board, Mapping) and choice is not None
    chosen, recipients = choice
    return Record(
        game=game,
        turn=turn,
        decider=decider,
        board=board,
        chosen=chosen,
        poison_recipients=MappingProxyType(recipients),
        rounds=rounds,
        phase=phase,
        source=source,
        candidates=candidates,
        meta=meta,
    )


def _optional(
    data: Mapping[str, Any], key: str, check: Callable[[object, str, Problems], _T | None], problems: Problems
) -> _T | None:
    """An optional field, checked by ``check`` unless absent or null (which mean the same: not given)."""
    value = data.get(key)
    return None if value is None else check(value, key, problems)


def _game(value: object, path: str, problems: Problems) -> str | int | None:
    """A game key: a non-empty string (Arena's ``matchID:gameNumber``) or an integer."""
    if is_int(value):
        return value
    if isinstance(value, str) and value:
        return value if text(value, path, problems) else None
    problems.add(path, "must be a non-empty string or an integer")
    return None


def _meta(value: object, path: str, problems: Problems) -> Mapping[str, Any] | None:
    """Free-form, but an object, and text that can be written back (no lone surrogate)."""
    if not isinstance(value, Mapping):
        problems.add(path, "must be an object")
        return None
    return value if no_lone_surrogate(value, path, problems) else None


def _rounds(
    data: Mapping[str, Any], choice: tuple[tuple[str, ...], dict[str, str]] | None, problems: Problems
) -> tuple[Round, ...] | None:
    """Per-round choices; the first must repeat ``chosen`` so readers that ignore ``rounds`` stay right."""
    value = data.get("rounds")
    if value is None:  # absent or null, as for every optional field
        return None
    if not (isinstance(value, list) and value):
        problems.add("rounds", "must be a non-empty list of {chosen, poison_recipients}")
        return None
    out: list[Round] = []
    for i, raw in enumerate(value):
        path = index("rounds", i)
        if not isinstance(raw, Mapping):
            problems.add(path, "must be an object")
            continue
        unknown_fields(raw, _ROUND_FIELDS, path, problems)
        one = choice_round(raw, path, problems)
        if one is None:
            continue
        if i == 0 and choice is not None and (set(one[0]), one[1]) != (set(choice[0]), choice[1]):
            problems.add(path, "must repeat the record's chosen and poison_recipients")
        out.append(Round(one[0], MappingProxyType(one[1])))
    return tuple(out)


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
        raise RecordError(rerooted(exc.problems, "board")) from None
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
        super().__init__(
            f"{source}:{line}: line longer than {limit} bytes (the limit; --max-line-bytes changes it): "
            "the rest of the file is not read"
        )


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


def parse_line(text: str) -> Record:
    """One JSON line as a record; raises :class:`RecordError`."""
    try:
        data = jsoncodec.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError([Problem("", f"not valid JSON: column {exc.colno}: {exc.msg}")]) from None
    except RecursionError:
        raise RecordError([Problem("", "not valid JSON: nested too deeply")]) from None
    return parse_record(data)


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
    """Write records as JSON Lines (compact, one per line); returns how many were written."""
    n = 0
    for record in records:
        out.write(json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":")))
        out.write("\n")
        n += 1
    return n
