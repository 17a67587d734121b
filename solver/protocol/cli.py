"""The ``serve`` subcommand, registered into the ``proliferate`` parser by ``solver.cli``."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import Settings

__all__ = ["main", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``serve`` to the top-level parser; the server modules are imported only when it runs."""
    parser = subparsers.add_parser(
        "serve",
        help="answer proliferate-jsonl/1 requests on stdin/stdout (or TCP)",
        description="Serve decisions over the line-based JSON protocol described in docs/protocol.md.",
    )
    add_arguments(parser)
    parser.set_defaults(handler=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead of stdin/stdout (host defaults to 127.0.0.1)"
    )
    parser.add_argument("--max-line-bytes", type=int, metavar="N", help="longest request line accepted (1000000)")
    parser.add_argument("--max-objects", type=int, metavar="N", help="most players + permanents per board (2000)")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS", help="default time limit per solve (none)")
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="solve threads shared by all sessions (16); one solve per session at a time",
    )
    parser.add_argument(
        "--max-queue", type=int, metavar="N", help="solves a session may have waiting before it is no longer read (32)"
    )
    parser.add_argument("--verbose", action="store_true", help="log TCP connections on stderr")


def run(args: argparse.Namespace) -> int:
    """Start the stdio or TCP server with the limits from the command line (2 on bad flags)."""
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO if args.verbose else logging.WARNING,
        format="proliferate serve: %(message)s",
    )
    settings = _settings(args)
    if isinstance(settings, str):
        print(f"proliferate serve: {settings}", file=sys.stderr)
        return 2
    from . import engine

    for flag, value in (("--workers", args.workers), ("--max-queue", args.max_queue)):
        if value is not None and not 1 <= value <= _POOL_MAX:
            print(f"proliferate serve: {flag} must be from 1 to {_POOL_MAX}", file=sys.stderr)
            return 2
    if args.workers is not None:
        engine.set_workers(args.workers)
    queue_max = args.max_queue or engine.QUEUE_MAX
    host, port = "", 0
    if args.tcp is not None:
        from .tcp import parse_address

        try:
            host, port = parse_address(args.tcp)
        except ValueError as exc:
            print(f"proliferate serve: {exc}", file=sys.stderr)
            return 2
    _preload()
    if args.tcp is None:
        from .stdio import serve_stdio

        status = serve_stdio(settings, queue_max=queue_max)
    else:
        from .tcp import serve_tcp

        status = serve_tcp(host, port, settings, queue_max=queue_max)
    if engine.default_scheduler().busy():
        # A stopped solve has still not returned (reading a huge board cannot be interrupted):
        # leave without tearing the interpreter down under it.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


#: Largest ``--workers`` and ``--max-queue``.
_POOL_MAX = 1024
#: How long ``serve`` waits at start for OR-Tools, so no request pays for loading it.
_PRELOAD_SECONDS = 30.0


def _preload() -> None:
    """Load OR-Tools (and warm CP-SAT) before the first request; the first top-k solve then keeps its limit."""
    from solver.cpsat import preload

    if not preload(_PRELOAD_SECONDS):
        logging.getLogger("solver.protocol").warning("OR-Tools is not loaded yet: the first CP-SAT solves may be slow")


def _settings(args: argparse.Namespace) -> Settings | str:
    """The session defaults from the flags, or what is wrong with them."""
    from .engine import Settings
    from .messages import LINE_BYTES_RANGE, OBJECTS_RANGE, TIME_MS_MAX

    changes: dict[str, Any] = {}
    for key, flag, (low, high) in (
        ("max_line_bytes", "--max-line-bytes", LINE_BYTES_RANGE),
        ("max_objects", "--max-objects", OBJECTS_RANGE),
    ):
        value = getattr(args, key)
        if value is not None:
            if not low <= value <= high:
                return f"{flag} must be from {low} to {high}"
            changes[key] = value
    if args.time_limit is not None:
        if not 1 <= args.time_limit * 1000 <= TIME_MS_MAX:  # also refuses nan
            return f"--time-limit must be from 0.001 to {TIME_MS_MAX // 1000} seconds"
        changes["time_ms"] = round(args.time_limit * 1000)
    return replace(Settings(), **changes)


def main(argv: Sequence[str] | None = None) -> int:
    """``serve`` on its own, for ``python -m solver.protocol`` (the same flags as ``proliferate serve``)."""
    parser = argparse.ArgumentParser(prog="python -m solver.protocol", description="proliferate-jsonl/1 server")
    add_arguments(parser)
    return run(parser.parse_args(argv))
