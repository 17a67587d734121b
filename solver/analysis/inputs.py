"""What an analysis reads: many paths, directories and globs, each a records file or an Arena log, gzipped or not.

``proliferate analyze`` takes whatever a site has lying around -- a day's uploads in a
directory, ``logs/**/*.log.gz``, a few records files -- and the local and the Ray runs read
it through this one module, so both see the same items in the same order.  Inputs are
expanded in the order given (a directory or a glob in sorted order), and a path given twice
is read twice.  An input that cannot be found or read is a problem of that input (line 0),
never the end of the run.
"""

from __future__ import annotations

import glob
import gzip
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from ..limits import MAX_LINE_BYTES
from .analyze import Item
from .arena import AbilityText, ImportStats, import_log
from .records import LineProblem, LineTooLong, iter_lines

__all__ = ["FORMATS", "SUFFIXES", "Input", "Reader", "expand", "sniff"]

#: ``--from`` values; ``auto`` tells each input's format by its first bytes (:func:`sniff`).
FORMATS = ("auto", "native", "arena")

Format = Literal["native", "arena"]
#: Names a directory is searched for (each may end in ``.gz``); a file named explicitly is read whatever its name.
SUFFIXES = (".jsonl", ".ndjson", ".log")
#: An Arena log says one of these within its first :data:`SNIFF_BYTES`; a records file never does.
_ARENA_MARKS = (b"greToClientEvent", b"UnityCrossThreadLogger", b"[Client GRE]", b"GREMessageType_")
SNIFF_BYTES = 1 << 16
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class Input:
    """One file to read, and the format to read it as."""

    path: str
    format: Format


def expand(specs: Sequence[str], source_format: str = "auto") -> tuple[list[Input], list[LineProblem]]:
    """Inputs for paths, directories (searched recursively for :data:`SUFFIXES`) and globs, and what matched nothing."""
    inputs: list[Input] = []
    problems: list[LineProblem] = []
    for spec in specs:
        if os.path.isdir(spec):
            found = sorted(
                os.path.join(root, name)
                for root, _, names in os.walk(spec)
                for name in names
                if name.removesuffix(".gz").endswith(SUFFIXES) and not name.startswith(".")
            )
            if not found:
                problems.append(LineProblem(spec, 0, "", f"directory holds no {'/'.join(SUFFIXES)}[.gz] file"))
        elif _GLOB_CHARS & set(spec) and not os.path.exists(spec):
            found = sorted(p for p in glob.glob(spec, recursive=True) if os.path.isfile(p))
            if not found:
                problems.append(LineProblem(spec, 0, "", "matches no file"))
        else:
            found = [spec]
        inputs += [Input(path, sniff(path) if source_format == "auto" else _format(source_format)) for path in found]
    return inputs, problems


def _format(name: str) -> Format:
    if name not in ("native", "arena"):
        raise ValueError(f"unknown input format {name!r} (known: {', '.join(FORMATS)})")
    return "arena" if name == "arena" else "native"


def sniff(path: str) -> Format:
    """``arena`` if the file (gzipped or not) starts like an MTG Arena log, else ``native`` (records).

    A file that cannot be read is called ``native``: reading it reports the problem.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as unzipped:
                head = unzipped.read(SNIFF_BYTES)
    except (OSError, EOFError, ValueError):
        return "native"
    return "arena" if any(mark in head for mark in _ARENA_MARKS) else "native"


class Reader:
    """The items of many inputs in order, with the input counts the outputs reconcile.

    ``lines`` counts every unit handed on: a non-blank line of a records file (an undecodable
    line too, as the problem it is) and a decision found in an Arena log.  ``on_arena`` hears
    each Arena log's :class:`~solver.analysis.arena.ImportStats` when the log is done.  Problems
    of a whole input (missing, unreadable, cut short, not an Arena log) come through as
    :class:`LineProblem` with line 0, and the next input is read; so does a line past
    ``max_line_bytes`` (with its line number), which ends its input and is kept in :attr:`too_long`.
    """

    def __init__(
        self,
        inputs: Sequence[Input],
        problems: Sequence[LineProblem] = (),
        on_arena: Callable[[str, ImportStats], None] | None = None,
        ability_text: AbilityText | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.inputs = list(inputs)
        self.ability_text = ability_text
        self.problems = list(problems)
        self.on_arena = on_arena
        self.max_line_bytes = max_line_bytes
        self.lines = 0
        #: Inputs cut short at a line past ``max_line_bytes``: the run reports them and fails (exit 2).
        self.too_long: list[LineTooLong] = []

    @property
    def paths(self) -> list[str]:
        return [i.path for i in self.inputs]

    def __iter__(self) -> Iterator[Item | LineProblem]:
        yield from self.problems
        for source in self.inputs:
            try:
                yield from self._arena(source.path) if source.format == "arena" else self._native(source.path)
            except LineTooLong as exc:
                self.too_long.append(exc)
                self.lines += 1
                yield LineProblem(exc.source, exc.line, "", exc.reason)

    def _native(self, path: str) -> Iterator[Item | LineProblem]:
        for item in iter_lines(path, self.max_line_bytes):
            if isinstance(item, LineProblem):
                self.lines += item.line > 0
                yield item
            elif item[1].strip():
                self.lines += 1
                yield path, item[0], item[1]

    def _arena(self, path: str) -> Iterator[Item | LineProblem]:
        stats = ImportStats()
        for line, record in import_log(path, stats, self.ability_text, self.max_line_bytes):
            self.lines += 1
            yield path, line, record
        if self.on_arena is not None:
            self.on_arena(path, stats)
        failure = stats.failure()
        if failure is not None:
            yield LineProblem(path, 0, "", failure)
