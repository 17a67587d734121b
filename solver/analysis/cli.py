"""``proliferate analyze`` and ``proliferate import-arena``: registered into the main command by :func:`register`.

Exit statuses follow the main command: 0 done, 2 bad input or usage (``proliferate: error:
<where>: <problem>`` on stderr, never a traceback).  A bad *line* is not bad input for the
whole run, nor is one bad input among many: it is reported as ``proliferate: warning:
FILE:LINE: ...`` and skipped, and the run fails with 2 only when nothing at all could be
analysed (for ``import-arena``: when the log holds no proliferate decision).  Heavy imports (numpy through
the solver, matplotlib) wait until a handler runs, so ``proliferate --help`` stays instant.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from .. import interrupts
from ..files import UnsafeOutput, failure_reason, safe_output
from ..limits import MAX_LINE_BYTES  # a constant: light, as --help needs
from ..terminal import cut_message, terminal_text
from .inputs import FORMATS  # the ``--from`` values, defined with the readers

if TYPE_CHECKING:
    from .analyze import ChunkRunner
    from .arena import ImportStats
    from .report import Sink

__all__ = ["main", "register", "run_analyze", "run_import_arena"]

PROG = "proliferate"
#: Inputs at least this large get a progress bar on stderr (when it is a terminal).
PROGRESS_BYTES = 1 << 20
#: Warnings about bad lines shown on stderr; the rest are counted in one closing line.
SHOWN_WARNINGS = 20


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``analyze`` and ``import-arena`` to the ``proliferate`` command."""
    analyze = subparsers.add_parser(
        "analyze",
        help="grade the proliferate decisions of finished games",
        description="For every recorded proliferate decision: the best choice, the regret of the one made, a grade "
        "(best, good, inaccuracy ?!, mistake ?, blunder ??) and a comment; then accuracy and regret per player and "
        "per game.  See docs/analysis.md.",
    )
    analyze.add_argument(
        "records",
        nargs="+",
        metavar="INPUT",
        help="game records (JSON Lines) or MTG Arena logs, gzipped or not: files, directories or globs",
    )
    analyze.add_argument(
        "--from",
        dest="source_format",
        choices=FORMATS,
        default="auto",
        help="input format: auto (default: told per input by its first bytes), native game records, or an MTG Arena "
        "Player.log with detailed logs",
    )
    analyze.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    analyze.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the table (or the JSON document) to FILE instead of standard output; FILE is replaced only "
        "when the run ends (an interrupted run leaves it as it was), and never when it is one of the inputs",
    )
    analyze.add_argument(
        "--max-line-bytes",
        type=_byte_count,
        default=MAX_LINE_BYTES,
        metavar="N",
        help=f"longest input line read, in bytes (default: {MAX_LINE_BYTES}; docs/limits.md); a longer line "
        "ends its input and fails the run (exit 2)",
    )
    analyze.add_argument(
        "--report",
        metavar="DIR",
        help="also write DIR/index.html and a page per game; DIR then holds exactly this report (pages of an "
        "earlier report are replaced or removed, other files left alone)",
    )
    analyze.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="processes to analyse with (default: every available core); with --ray, Ray tasks at once "
        "(default: the cluster's CPUs)",
    )
    analyze.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="judge on Ray workers (needs the ray extra): a cluster's ADDRESS (ray://host:10001), else RAY_ADDRESS, "
        "else a local Ray started for the run; see docs/scaling-out.md",
    )
    analyze.add_argument(
        "--thresholds",
        metavar="SPEC",
        help="grade thresholds on the drop in winning chances (Win%% points), e.g. inaccuracy=10,mistake=20,blunder=30 "
        "(the defaults)",
    )
    analyze.add_argument("--policy", metavar="FILE", help="TOML file of objective weights (docs/objective.md)")
    analyze.add_argument(
        "--cards",
        metavar="PATH",
        help="Arena card database (Raw_CardDatabase_*.mtga) for card names; default: the installed client's, if found",
    )
    analyze.set_defaults(handler=run_analyze)

    importer = subparsers.add_parser(
        "import-arena",
        help="extract proliferate decisions from an MTG Arena Player.log",
        description="Read an MTG Arena Player.log (detailed logs on; may be gzipped) and write the proliferate "
        "decisions it holds as native game records (JSON Lines).",
    )
    importer.add_argument("log", metavar="LOG", help="Player.log or Player.log.gz")
    importer.add_argument(
        "-o",
        "--output",
        metavar="OUT.jsonl",
        help="write here instead of standard output (replaced whole when the import succeeds; never the log itself)",
    )
    importer.add_argument(
        "--max-line-bytes",
        type=_byte_count,
        default=MAX_LINE_BYTES,
        metavar="N",
        help=f"longest log line read, in bytes (default: {MAX_LINE_BYTES}; docs/limits.md)",
    )
    importer.add_argument(
        "--cards",
        metavar="PATH",
        help="Arena card database (Raw_CardDatabase_*.mtga): abilities whose text says proliferate count even "
        "when the log holds no selection request (an opponent's); default: the installed client's, if found",
    )
    importer.set_defaults(handler=run_import_arena)


def main(argv: Sequence[str] | None = None) -> int:
    """These subcommands on their own (``python -m solver.analysis.cli``); ``proliferate`` is the usual entry."""
    parser = argparse.ArgumentParser(prog=PROG)
    register(parser.add_subparsers(title="commands", metavar="COMMAND"))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return 2
    status: int = args.handler(args)
    return status


def _error(where: str, message: str) -> int:
    _say(f"{PROG}: error: {where}: {message}" if where else f"{PROG}: error: {message}")
    return 2


def _warn(message: str) -> None:
    _say(f"{PROG}: warning: {message}")


def _say(line: str) -> None:
    """One line on stderr, escaped for the terminal and cut at :data:`~solver.terminal.MAX_MESSAGE_CHARS`."""
    print(terminal_text(cut_message(line), lines=False), file=sys.stderr)


class _Warnings:
    """Warnings about bad input lines: the first :data:`SHOWN_WARNINGS` shown, the rest counted and summarised."""

    def __init__(self, shown: int = 0) -> None:
        self.limit = shown or SHOWN_WARNINGS
        self.count = 0
        self.hidden_lines = 0
        self.last: tuple[str, int] | None = None  # a line's problems come one after another

    def add(self, message: str, where: tuple[str, int]) -> None:
        self.count += 1
        if self.count <= self.limit:
            _warn(message)
        elif where != self.last:
            self.hidden_lines += 1
        self.last = where

    def finish(self) -> None:
        hidden = self.count - self.limit
        if hidden > 0:
            _warn(
                f"... and {hidden} more problem(s) in {self.hidden_lines} more line(s), not shown "
                "(--json and --report list the first 1000)"
            )


def _byte_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a number of bytes >= 1, not {text}")
    return value


def _unreadable(path: str) -> str | None:
    try:
        with open(path, "rb"):
            return None
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"


def _default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# ---------------------------------------------------------------------------- analyze
def run_analyze(args: argparse.Namespace) -> int:
    from ..policy import Policy, PolicyError
    from .analyze import Summary, analyze_items
    from .grading import Thresholds, ThresholdsError
    from .inputs import Reader, expand
    from .records import LineProblem
    from .report import HtmlReport, JsonReport, ProblemLog, ReportDirError, TextReport

    try:
        thresholds = Thresholds.parse(args.thresholds) if args.thresholds else Thresholds()
    except ThresholdsError as exc:
        return _error("", str(exc))
    policy = None
    if args.policy:
        try:
            policy = Policy.from_toml(args.policy)
        except PolicyError as exc:
            for problem in exc.problems:
                _error(f"{args.policy}" + (f": {problem.path}" if problem.path else ""), problem.message)
            return 2
    if args.workers is not None and args.workers < 1:
        return _error("--workers", f"must be at least 1, not {args.workers}")
    if args.ray is not None:
        from .distributed import ray_missing

        missing = ray_missing()
        if missing is not None:
            return _error("--ray", missing)
    from .cards import CardDatabaseError, name_items, open_cards

    try:
        cards = open_cards(args.cards)
    except CardDatabaseError as exc:
        return _error("--cards", str(exc))
    with contextlib.ExitStack() as stack:
        try:
            runner = stack.enter_context(_runner(args))
        except RuntimeError as exc:  # distributed.RayStartError: an address that does not answer, ...
            return _error("--ray", str(exc))
        inputs, unmatched = expand(args.records, args.source_format)
        reader = Reader(
            inputs,
            unmatched,
            on_arena=_arena_summary,
            ability_text=cards.ability_text if cards is not None else None,
            max_line_bytes=args.max_line_bytes,
        )
        out: TextIO = sys.stdout
        if args.output:
            try:
                out = stack.enter_context(safe_output(args.output, inputs=reader.paths)).text
            except (UnsafeOutput, OSError) as exc:
                return _error(args.output, f"cannot write: {failure_reason(exc)}")
        sinks: list[Sink] = [JsonReport(out, thresholds, args.records) if args.json else TextReport(out, thresholds)]
        report = None
        if args.report:
            try:
                report = HtmlReport(args.report, thresholds, args.records)
            except ReportDirError as exc:
                return _error(args.report, str(exc))
            except OSError as exc:
                return _error(args.report, f"cannot write the report: {failure_reason(exc)}")
            stack.callback(report.close)  # an interrupted or failed run leaves the directory as it was
            sinks.append(report)
        summary, problems, warnings = Summary(), ProblemLog(), _Warnings()
        bar = stack.enter_context(_progress(reader.paths))
        workers = args.workers or (runner.workers if runner is not None else _default_workers())
        items = reader if cards is None else name_items(reader, cards)
        results = analyze_items(items, workers=workers, policy=policy, thresholds=thresholds, runner=runner)
        stack.callback(results.close)  # first on the way out: an interrupted run's workers are stopped at once
        for result in results:
            interrupts.check()  # a stop signal a finaliser dropped stops the run here
            if isinstance(result, LineProblem):
                cut = reader.too_long[-1] if reader.too_long else None
                if cut is None or (cut.source, cut.line) != (result.source, result.line):  # an error, at the end
                    warnings.add(str(result), (result.source, result.line))
                problems.add(result)
                summary.skip(result)
                continue
            summary.add(result)
            for sink in sinks:
                sink.decision(result)
            bar.update(1)
        warnings.finish()
        summary.lines = reader.lines
        try:
            for sink in sinks:
                sink.finish(summary, problems)
        except OSError as exc:
            return _error(args.report or args.output or "", f"cannot write: {failure_reason(exc)}")
    if report is not None:
        for note in report.notes:
            _say(f"{PROG}: {args.report}: {note}")
        _say(f"{PROG}: wrote {os.path.join(args.report, 'index.html')}")
    for cut in reader.too_long:
        _error(f"{cut.source}:{cut.line}", cut.reason)
    if reader.too_long:
        return 2
    if summary.decisions == 0:
        return _error("", "no decision could be analysed" if summary.problems else "no decision to analyse")
    return 0


@contextlib.contextmanager
def _runner(args: argparse.Namespace) -> Iterator[ChunkRunner | None]:
    """Ray tasks with ``--ray`` (started, or joined, for this run only), else None: local processes."""
    if args.ray is None:
        yield None
        return
    from .distributed import ray_runner

    with ray_runner(args.ray or None, workers=args.workers) as runner:
        yield runner


def _arena_summary(path: str, stats: ImportStats) -> None:
    _say(
        f"{PROG}: {path}: {stats.records} proliferate decision(s) in {stats.games} game(s) "
        f"({stats.messages} game-state messages, {stats.client_messages} client messages, {stats.lines} lines)"
    )
    for text in stats.warning_lines():
        _warn(f"{path}: {text}")


def _progress(paths: Sequence[str]) -> _Bar:
    size = 0
    for path in paths:
        with contextlib.suppress(OSError):
            size += os.path.getsize(path)
    return _Bar(enabled=size >= PROGRESS_BYTES)


class _Bar:
    """A tqdm bar on stderr for big inputs (tqdm hides itself when stderr is not a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None  # a tqdm bar

    def __enter__(self) -> _Bar:
        if self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(unit=" decisions", file=sys.stderr, disable=None, mininterval=0.5)
        return self

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------------- import-arena
def run_import_arena(args: argparse.Namespace) -> int:
    """Records to ``-o`` (replaced whole, and only when the import finds something) or standard output."""
    from .arena import ImportStats, import_log
    from .cards import CardDatabaseError, open_cards
    from .records import LineTooLong

    reason = _unreadable(args.log)
    if reason is not None:
        return _error(args.log, reason)
    try:
        cards = open_cards(args.cards)
    except CardDatabaseError as exc:
        return _error("--cards", str(exc))
    stats = ImportStats()
    records = import_log(args.log, stats, cards.ability_text if cards is not None else None, args.max_line_bytes)
    try:
        if args.output:
            with safe_output(args.output, inputs=[args.log]) as target:
                _write_json_lines(records, target.text)
                if stats.records == 0:
                    target.discard()  # docs/analysis.md: exit 2, writing no record (an existing file stays)
        else:
            _write_json_lines(records, sys.stdout)
    except LineTooLong as exc:
        _arena_summary(args.log, stats)
        return _error(
            f"{exc.source}:{exc.line}",
            exc.reason + (f"; {args.output} was not written" if args.output else ""),
        )
    except (UnsafeOutput, OSError) as exc:
        return _error(args.output or "<stdout>", f"cannot write: {failure_reason(exc)}")
    _arena_summary(args.log, stats)
    if stats.records == 0:
        failure = stats.failure()
        return _error(args.log, failure or "no proliferate decision found: nothing to analyse")
    if stats.unreadable is not None:
        _warn(f"{args.log}: {stats.unreadable}")
    return 0


def _write_json_lines(records: Iterator[tuple[int, dict[str, Any]]], out: TextIO) -> None:
    """Each record as one line, validated by and encoded through the record Structs (solver.formats)."""
    from .records import encode_record

    for _, record in records:
        out.write(encode_record(record).decode() + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
