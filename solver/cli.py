"""The ``proliferate`` command: ``solve`` and ``demo`` here, ``analyze``/``serve`` registered by their packages.

``main`` returns the exit status instead of exiting so that tests and embedding code can
call it; the console-script wrapper exits with it.  Exit statuses: 0 answered, 2 bad input
or usage (one ``proliferate: error: <where>: <problem>`` line per problem on stderr, never a
traceback), 1 anything unexpected (one line; ``PROLIFERATE_DEBUG=1`` shows the traceback).
Start-up stays light because ``--help`` and typos should answer at once: CP-SAT is imported
only when a solve needs it (:mod:`solver.cpsat`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from typing import Any

from . import __version__, interrupts
from .allocator import steady_mmap_threshold
from .board import Board
from .boardjson import load_board
from .errors import BoardError, Problem
from .files import TooLarge, UnsafeOutput, failure_reason, read_stream_bounded, safe_output
from .limits import MAX_BOARD_BYTES
from .policy import Policy, PolicyError
from .render import render_board, render_score
from .solve import score, solve
from .terminal import terminal_text

__all__ = ["build_parser", "example_names", "main", "read_example"]

PROG = "proliferate"
DEFAULT_EXAMPLE = "classic"
#: Packages that add their own subcommands through ``register(subparsers)``.
SUBCOMMAND_MODULES = ("solver.analysis.cli", "solver.protocol.cli")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status (130 after SIGINT, 143 after SIGTERM).

    The signals raise :class:`~solver.interrupts.Interrupted` (:func:`~solver.interrupts.raising`), and one
    that a finaliser dropped still sets the status.
    """
    steady_mmap_threshold()  # our own process: the largest boards' peak memory (solver.allocator)
    try:
        with interrupts.raising():
            status = _main(argv)
            signum = interrupts.arrived()
    except interrupts.Interrupted as exc:  # one that came between the command's own handlers
        return exc.status
    return status if signum is None else 128 + signum


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = handler(args)
        sys.stdout.flush()
    except interrupts.Interrupted as exc:
        return exc.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (``| head``) went away: not an error of ours; keep Python quiet at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (BoardError, PolicyError) as exc:
        return _bad_input(None, exc.problems)
    except Exception as exc:
        if os.environ.get("PROLIFERATE_DEBUG") == "1":
            traceback.print_exc()
        else:
            message = " ".join(str(exc).split()) or "no message"
            print(
                terminal_text(
                    f"{PROG}: internal error: {type(exc).__name__}: {message} "
                    "(PROLIFERATE_DEBUG=1 shows the traceback)",
                    lines=False,
                ),
                file=sys.stderr,
            )
        return 1
    return status


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Rules-exact, provably optimal proliferate decisions for Magic: The Gathering.",
        epilog="Run `proliferate demo` to see an answer, `proliferate solve BOARD.json` for your own board.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    _add_solve(subparsers)
    _add_score(subparsers)
    _add_demo(subparsers)
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


# ---------------------------------------------------------------------------- solve
def _add_solve(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub = subparsers.add_parser(
        "solve",
        help="the optimal proliferate choice for a board",
        description="Print the optimal proliferate choice for a board (JSON format v1, docs/board-format.md), "
        "its value, the outcome and why each object is or is not chosen.",
    )
    sub.add_argument("board", metavar="BOARD", help="board JSON file, or - to read it from standard input")
    sub.add_argument("--json", action="store_true", help="print the decision as one JSON document")
    sub.add_argument("--policy", metavar="FILE", help="TOML file of objective weights (docs/objective.md)")
    sub.add_argument("--top", metavar="K", type=_positive_int, default=1, help="also list the K best distinct choices")
    sub.add_argument(
        "--time-limit",
        metavar="SECONDS",
        type=_positive_float,
        help="time limit for the whole solve, --top included (the best found by then; may be FEASIBLE)",
    )
    sub.add_argument(
        "--method", choices=("auto", "fast", "cpsat", "brute"), default="auto", help="solver path (default: auto)"
    )
    sub.add_argument("--max-chosen", metavar="N", type=_natural_int, help="choose at most N objects per proliferate")
    sub.add_argument("--include", metavar="ID", action="append", help="force ID into the choice (repeatable)")
    sub.add_argument("--exclude", metavar="ID", action="append", help="keep ID out of the choice (repeatable)")
    sub.add_argument("--svg", metavar="FILE", help="also draw the board with the answer marked, as SVG, to FILE")
    _add_board_bound(sub)
    sub.set_defaults(handler=_solve)


def _solve(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    where = _board_name(args.board)
    read = _board_and_policy(args)
    if isinstance(read, int):
        return read
    board, policy = read
    time_limit = args.time_limit
    if time_limit is not None:  # the limit bounds the command's work: reading the board and policy count
        time_limit = max(time_limit - (time.perf_counter() - started), 1e-3)
    try:
        decision = solve(
            board,
            policy,
            top_k=args.top,
            time_limit=time_limit,
            method=args.method,
            max_chosen=args.max_chosen,
            must_include=args.include or (),
            must_exclude=args.exclude or (),
        )
    except ValueError as exc:  # IllegalChoice, impossible constraints, a method that cannot take them
        return _bad_input(where, [str(exc)])
    if args.svg:
        from .svg import choice_svg

        inputs = [p for p in (args.board, args.policy) if p not in (None, "-")]
        try:
            with safe_output(args.svg, inputs=inputs) as drawing:
                drawing.text.write(choice_svg(board, best=decision.choice))
        except (OSError, UnsafeOutput) as exc:
            return _bad_input(args.svg, [f"cannot write the drawing: {failure_reason(exc)}"])
    if args.json:
        print(json.dumps(decision.to_json()))
    else:
        sys.stdout.write(terminal_text(str(decision)))  # str(decision) is the readable rendering
    return 0


def _board_and_policy(args: argparse.Namespace) -> tuple[Board, Policy | None] | int:
    """The board and the policy a command names (``BOARD``, ``--policy``), or the exit code of bad input (2)."""
    try:
        board = _read_board(args.board, args.max_board_bytes)
    except BoardError as exc:
        return _bad_input(_board_name(args.board), exc.problems)
    if args.policy is None:
        return board, None
    try:
        return board, Policy.from_toml(args.policy)
    except PolicyError as exc:
        return _bad_input(args.policy, exc.problems)


def _board_name(source: str) -> str:
    """How an error line names the board a command read: its path, or ``<stdin>`` for ``-``."""
    return "<stdin>" if source == "-" else source


def _add_board_bound(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--max-board-bytes",
        metavar="N",
        type=_positive_int,
        default=MAX_BOARD_BYTES,
        help=f"largest board file (or standard input) read, in bytes (default: {MAX_BOARD_BYTES}; docs/limits.md)",
    )


def _read_board(source: str, max_bytes: int = MAX_BOARD_BYTES) -> Board:
    """A board from a path, or from standard input for ``-``; at most ``max_bytes`` of JSON either way."""
    if source != "-":
        return load_board(source, max_bytes=max_bytes)
    try:
        text = read_stream_bounded(sys.stdin.buffer, max_bytes, "standard input").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BoardError([Problem("", f"cannot read standard input: not UTF-8 ({exc.reason})")]) from None
    except TooLarge as exc:
        raise BoardError([Problem("", exc.message("--max-board-bytes changes it"))]) from None
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardError([Problem("", f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}")]) from None
    except RecursionError:
        raise BoardError([Problem("", "not valid JSON: nested too deeply")]) from None
    except ValueError as exc:  # an integer too long to convert
        raise BoardError([Problem("", f"not valid JSON: {exc}")]) from None
    if not isinstance(data, dict):
        raise BoardError([Problem("", "must be an object (the board)")])
    return load_board(data)


# ---------------------------------------------------------------------------- score
def _add_score(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub = subparsers.add_parser(
        "score",
        help="the value, the best value and the regret of a given choice",
        description="Score a given proliferate choice on a board: its value, the best value and the regret "
        "(best minus value), in points. The ids are the chosen objects (none: choose nothing), the same in "
        "every proliferate; --choice gives one per proliferate.",
    )
    sub.add_argument("board", metavar="BOARD", help="board JSON file, or - to read it from standard input")
    sub.add_argument("ids", metavar="ID", nargs="*", help="a chosen player or permanent (none: choose nothing)")
    sub.add_argument(
        "--recipient",
        metavar="TEAM=PLAYER",
        action="append",
        help="Two-Headed Giant: the chosen head of TEAM that gets the team's poison counter (701.34b; repeatable)",
    )
    sub.add_argument(
        "--choice",
        metavar="JSON",
        help='the whole choice as JSON instead of IDs: {"chosen": [...], "poison_recipients": {"TEAM": "PLAYER"}} '
        'or {"rounds": [{"chosen": [...]}, ...]}, one round per proliferate (as in docs/protocol.md)',
    )
    sub.add_argument("--json", action="store_true", help='print {"choice", "value", "best", "regret"} as JSON')
    sub.add_argument("--policy", metavar="FILE", help="TOML file of objective weights (docs/objective.md)")
    _add_board_bound(sub)
    sub.set_defaults(handler=_score)


def _score(args: argparse.Namespace) -> int:
    from .decision import choice_to_json
    from .errors import IllegalChoice
    from .protocol.messages import read_choice
    from .rules import Choice

    where = _board_name(args.board)
    read = _board_and_policy(args)
    if isinstance(read, int):
        return read
    board, policy = read
    if args.choice is not None:
        if args.ids or args.recipient:
            return _bad_input("--choice", ["gives the whole choice: leave out the IDs and --recipient"])
        try:
            raw = json.loads(args.choice)
        except (ValueError, RecursionError) as exc:
            return _bad_input("--choice", [f"not valid JSON: {exc}"])
        item, problems = read_choice(raw, "--choice")  # the protocol's evaluate entry (docs/protocol.md)
        if item is None:
            return _bad_input(None, problems)
        choice = item.choice(board.rounds)
    else:
        recipients = {}
        for spec in args.recipient or ():
            team, sep, head = spec.partition("=")
            if not sep or not team or not head:
                return _bad_input("--recipient", [f"must be TEAM=PLAYER, not {spec!r}"])
            recipients[team] = head
        listed, problems = read_choice(list(args.ids), "ID")  # distinct non-empty ids, as in an evaluate entry
        if listed is None:
            return _bad_input(None, problems)
        choice = Choice.of(listed.rounds[0][0], recipients, rounds=board.rounds)
    try:
        result = score(board, choice, policy)
    except IllegalChoice as exc:  # the rules' reason, e.g. "'alice' has no counters (701.34a)"
        return _bad_input(where, [str(exc)])
    if args.json:
        doc = {"choice": choice_to_json(choice), "value": result.value, "best": result.best, "regret": result.regret}
        print(json.dumps(doc))
    else:
        sys.stdout.write(terminal_text(render_score(choice, result.value, result.best, result.regret)))
    return 0


# ---------------------------------------------------------------------------- demo
def _add_demo(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub = subparsers.add_parser(
        "demo",
        help="solve a bundled example board",
        description="Solve one of the example boards shipped with the package and explain the answer.",
    )
    sub.add_argument("name", metavar="NAME", nargs="?", default=DEFAULT_EXAMPLE, help="example (default: classic)")
    sub.add_argument("--list", action="store_true", help="list the bundled examples")
    sub.set_defaults(handler=_demo)


def example_names() -> tuple[str, ...]:
    """Names of the example boards shipped in :mod:`solver.examples`, sorted."""
    from importlib.resources import files  # only demo needs it; keeps --help light

    entries = files("solver.examples").iterdir()
    return tuple(sorted(e.name.removesuffix(".json") for e in entries if e.name.endswith(".json")))


def read_example(name: str) -> Board:
    """A bundled example board, read through importlib.resources so it works from a wheel."""
    from importlib.resources import files

    text = files("solver.examples").joinpath(f"{name}.json").read_text(encoding="utf-8")
    return load_board(text)


def _demo(args: argparse.Namespace) -> int:
    names = example_names()
    if args.list:
        for name in names:
            board = read_example(name)
            print(f"{name:<{max(map(len, names))}}  {board.variant.value}, {_plural(board.n_objects, 'object')}")
        return 0
    name = args.name.removesuffix(".json")
    if name not in names:
        return _bad_input(args.name, [f"no such example (bundled: {', '.join(names)})"])
    board = read_example(name)
    print(f"Example board {name!r} (bundled as solver/examples/{name}.json; `{PROG} demo --list` shows the others).")
    print(f"Solve your own board with `{PROG} solve BOARD.json` (format: docs/board-format.md).")
    print()
    print(terminal_text(render_board(board)))
    print()
    sys.stdout.write(terminal_text(str(solve(board))))
    return 0


# ---------------------------------------------------------------------------- helpers
def _bad_input(where: str | None, problems: Iterable[Problem | str]) -> int:
    prefix = f"{PROG}: error: " + (f"{where}: " if where else "")
    for problem in problems:
        for line in str(problem).splitlines() or [""]:
            print(terminal_text(prefix + line, lines=False), file=sys.stderr)
    return 2


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, not {text}")
    return value


def _positive_int(text: str) -> int:
    value = _natural_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, not {text}")
    return value


def _natural_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, not {text}")
    return value
