"""The equality fixture: one digest per seeded board of what the solver decides on it (issue 26, item 5).

``python -m benchmarks.fixture record`` decides :data:`N_BOARDS` seeded boards and writes
``tests/fixtures/decisions.npz``; ``python -m benchmarks.fixture check`` decides them again and
prints, per cause, how many boards moved (exit 1 if any did).  ``--subset N`` checks ``N``
boards drawn by a seeded generator over the whole range (the test suite's quick check);
``--path single`` decides each board by :func:`solver.solve` (the single-board call) instead of
:func:`solver.solve_many` (``--path batch``, the default); ``--fixture FILE`` reads (or, with
``record``, writes) another recording; ``diff --against OLD.npz`` compares two recordings, per
cause, without deciding anything.

The boards cover every variant, 1-4 proliferates (8 with Tekuthal), every supported card
with a replacement effect (the last 10,000 boards draw from all, with their parameters),
thresholds (numeric, win, lose), Sagas, battles, 2HG shared poison with its recipients, and
sizes from 2 to 2,000 objects: board ``i`` is drawn from its own generator seeded by
``(SEED, i)`` (:func:`board_dict`), so any subset is rebuilt alone.
Most come from :func:`tests.batch_strategies.random_board` with a varying number of
permanents; every :data:`LARGE_EVERY`-th is a large realistic board of
:func:`benchmarks.boards.generate` with thresholds and effects.

A board's digest is 16 bytes: the first 8 of the decision (value in milli-points, chosen ids
per round, poison recipients, status, game result), the last 8 of the explanation's marginals
(per eligible object: id, rounds chosen, marginal in milli-points), so a check can tell a moved
decision from a moved explanation.  Values are also kept whole, to say by how much one moved.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from solver import Board, load_board, solve
from solver.batch import solve_many
from solver.decision import Decision

from .boards import VARIANTS, BoardSpec, generate

__all__ = ["N_BOARDS", "PATHS", "board_dict", "causes", "decide", "digest", "subset"]

#: Boards in the fixture, and the seed of the generator of each.
N_BOARDS = 110_000
SEED = 26
#: From this board on, every effect is drawn from all supported cards (those added after the
#: first 100,000 boards were recorded included), with random parameters.
ALL_CARDS_FROM = 100_000
#: Every this-many-th board is a large one (100 to 2,000 objects).
LARGE_EVERY = 500
_LARGE_SIZES = (100, 200, 500, 1_000, 2_000)
#: Permanents per small board, at most (drawn per board): sizes 2 to about 50 objects.
_MAX_PERMANENTS = (0, 1, 2, 4, 6, 8, 8, 12, 16, 24, 48)
#: Boards decided per call of :func:`solve_many`.
_CHUNK = 2_000
#: How a check decides its boards: all together (:func:`solve_many`) or one by one (:func:`solver.solve`).
PATHS = ("batch", "single")

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "decisions.npz"


def board_dict(i: int) -> dict[str, Any]:
    """Board ``i`` of the fixture as board JSON (its own generator: a subset needs no other board)."""
    # The test suite's generator, imported by name: the suite imports it as ``batch_strategies``.
    random_board = importlib.import_module("tests.batch_strategies").random_board
    rng = np.random.default_rng([SEED, i])
    if i % LARGE_EVERY == LARGE_EVERY - 1:
        spec = BoardSpec(
            size=int(rng.choice(_LARGE_SIZES)),
            variant=VARIANTS[int(rng.integers(len(VARIANTS)))],
            proliferates=int(rng.integers(1, 5)),
            extras=True,
            seed=i,
        )
        return generate(spec)
    board: dict[str, Any] = random_board(rng, int(rng.choice(_MAX_PERMANENTS)))
    if i >= ALL_CARDS_FROM:
        board["effects"] = _any_cards(rng, board)
    return board


def _any_cards(rng: np.random.Generator, board: dict[str, Any]) -> list[dict[str, Any]]:
    """One to three effects of any supported card, controlled by any player, each parameter drawn in its range."""
    from solver.cards import CARDS, SUPPORTED_CARDS

    players = [p["id"] for p in board["players"]]
    out: list[dict[str, Any]] = []
    for _ in range(int(rng.integers(1, 4))):
        card = SUPPORTED_CARDS[int(rng.integers(len(SUPPORTED_CARDS)))]
        effect: dict[str, Any] = {"card": card, "controller": players[int(rng.integers(len(players)))]}
        if CARDS[card].needs_source:  # the text names the card itself: one of the permanents is it
            if not board["permanents"]:
                continue
            source = board["permanents"][int(rng.integers(len(board["permanents"])))]
            effect |= {"controller": source["controller"], "source": source["id"]}
        for param in CARDS[card].parameters:
            effect[param.name] = int(rng.integers(param.low, param.high + 1))
        out.append(effect)
    if any(CARDS[e["card"]].once_per_turn for e in out):  # a once-per-turn effect: one proliferate (modelled)
        board["proliferates"] = 1
        out = [e for e in out if CARDS[e["card"]].proliferate_factor == 1]
    elif any(CARDS[e["card"]].proliferate_factor > 1 for e in out):  # doubling proliferates: at most 4 rounds
        board["proliferates"] = min(int(board.get("proliferates", 1)), 2)
    return out


def _digest_of(payload: object) -> bytes:
    text = json.dumps(payload, separators=(",", ":"), sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=8).digest()


def digest(decision: Decision) -> tuple[bytes, int]:
    """A decision's 16-byte digest (decision half, marginals half) and its value in milli-points."""
    milli = round(decision.value * 1000)
    rounds = [[list(r.chosen), sorted(r.poison_recipients.items())] for r in decision.choice.rounds]
    head = _digest_of([milli, rounds, decision.status.value, str(decision.game_result)])
    rows = [[row.id, row.chosen, round(row.marginal * 1000)] for row in decision.explanation]
    return head + _digest_of(rows), milli


def decide(indices: Sequence[int], path: str = "batch") -> tuple[list[Board], list[Decision]]:
    """The boards ``indices`` loaded and decided: by :func:`solve_many` in chunks (``path="batch"``),
    or one by one by :func:`solver.solve` (``path="single"``)."""
    if path not in PATHS:
        raise ValueError(f"path must be one of {', '.join(PATHS)}, not {path!r}")
    boards = [load_board(board_dict(i)) for i in indices]
    decisions: list[Decision] = []
    if path == "single":
        decisions = [solve(board) for board in boards]
        return boards, decisions
    for start in range(0, len(boards), _CHUNK):
        decisions.extend(solve_many(boards[start : start + _CHUNK]))
    return boards, decisions


def subset(n: int, seed: int = 0) -> list[int]:
    """``n`` board indices drawn over the whole fixture (sorted), large boards included in proportion."""
    rng = np.random.default_rng([SEED, seed, n])
    return sorted(rng.choice(N_BOARDS, size=min(n, N_BOARDS), replace=False).tolist())


#: Game results as stored in the fixture (one byte per board).
RESULTS = ("none", "eliminations", "win", "draw", "loss")


def causes(board: Board, before: str, after: str) -> str:
    """Which feature of the board a moved decision is put down to (for the report of a check).

    The features are those the rule changes of this round touch: a creature with a shield
    counter and damage marked (122.1c: the shield no longer saves it from 704.5g), a
    resolution that can end the game for the proliferator (win, loss or draw: a win or lose
    threshold, poison, a player at 0 life, or a result that was or is one), 2HG shared poison;
    anything else is ``other``.
    """
    from solver.board import CardType

    shield = board.kind_column("shield")
    if shield >= 0:
        shielded = board.has_type(CardType.CREATURE) & (board.counts[:, shield] > 0)
        if (shielded & (board.damage > 0)).any():
            return "shielded creature with damage (122.1c)"
    ending = {"win", "loss", "draw"}
    poison = board.kind_column("poison")
    if (
        before in ending
        or after in ending
        or any(e in ("win", "lose") for e in board.thr_effect)
        or (poison >= 0 and bool((board.counts[: board.n_players, poison] > 0).any()))
        or bool((board.life <= 0).any())
    ):
        return "a resolution can end the game (win, loss or draw)"
    return "other"


def _record(path: Path) -> int:
    start = time.perf_counter()
    digests = np.zeros((N_BOARDS, 16), dtype=np.uint8)
    values = np.zeros(N_BOARDS, dtype=np.int64)
    sizes = np.zeros(N_BOARDS, dtype=np.int32)
    results = np.zeros(N_BOARDS, dtype=np.uint8)
    step = 10_000
    for lo in range(0, N_BOARDS, step):
        indices = list(range(lo, min(lo + step, N_BOARDS)))
        boards, decisions = decide(indices)
        for j, (board, decision) in enumerate(zip(boards, decisions, strict=True)):
            d, v = digest(decision)
            digests[lo + j] = np.frombuffer(d, dtype=np.uint8)
            values[lo + j] = v
            sizes[lo + j] = board.n_objects
            results[lo + j] = RESULTS.index(str(decision.game_result))
        print(f"{lo + len(indices):>7} boards  {time.perf_counter() - start:7.1f} s", file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, digests=digests, values=values, sizes=sizes, results=results, seed=np.int64(SEED))
    print(f"recorded {N_BOARDS} boards (sizes {int(sizes.min())}-{int(sizes.max())}) to {path}")
    return 0


def check(
    indices: Sequence[int], fixture: Path = FIXTURE, path: str = "batch", *, progress: bool = False
) -> dict[str, list[int]]:
    """The boards among ``indices`` whose decision or explanation differs from the fixture, per cause.

    ``path`` is how the boards are decided (:data:`PATHS`, see :func:`decide`); ``progress``
    prints a line to stderr after each chunk.
    """
    data = dict(np.load(fixture))
    digests, values, results = data["digests"], data["values"], data["results"]
    moved: dict[str, list[int]] = {}
    for start in range(0, len(indices), _CHUNK):  # a chunk at a time: no more decisions kept than that
        chunk = indices[start : start + _CHUNK]
        boards, decisions = decide(chunk, path)
        for i, board, decision in zip(chunk, boards, decisions, strict=True):
            d, v = digest(decision)
            if d != digests[i].tobytes():
                part = "decision" if d[:8] != digests[i, :8].tobytes() else "marginals only"
                cause = causes(board, RESULTS[int(results[i])], str(decision.game_result))
                key = f"{cause}: {part}" + ("" if v == values[i] else ", value")
                moved.setdefault(key, []).append(i)
        if progress:
            done = start + len(chunk)
            print(f"{done:>7} boards  {sum(map(len, moved.values()))} moved", file=sys.stderr, flush=True)
    return moved


def diff(old: Path, new: Path) -> dict[str, list[int]]:
    """The boards whose digest differs between two recordings, per cause (no board decided again)."""
    a, b = dict(np.load(old)), dict(np.load(new))  # each array read once (an NpzFile reads it at every access)
    common = min(len(a["digests"]), len(b["digests"]))  # the boards both recorded
    moved_rows = np.flatnonzero((a["digests"][:common] != b["digests"][:common]).any(axis=1))
    moved: dict[str, list[int]] = {}
    for i in moved_rows.tolist():
        board = load_board(board_dict(i))
        part = "decision" if (a["digests"][i, :8] != b["digests"][i, :8]).any() else "marginals only"
        cause = causes(board, RESULTS[int(a["results"][i])], RESULTS[int(b["results"][i])])
        key = f"{cause}: {part}" + ("" if a["values"][i] == b["values"][i] else ", value")
        moved.setdefault(key, []).append(i)
    return moved


def _print_moved(moved: dict[str, list[int]], checked: int, seconds: float) -> int:
    total = sum(map(len, moved.values()))
    print(f"checked {checked} boards in {seconds:.1f} s: {total} moved")
    for key, items in sorted(moved.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(items):>6}  {key}  (e.g. boards {', '.join(map(str, items[:5]))})")
    return 1 if total else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fixture", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("record", "check", "diff"))
    parser.add_argument("--against", type=Path, help="diff: the older recording (the fixture is the newer)")
    parser.add_argument("--subset", type=int, default=0, help="check this many boards drawn over the fixture")
    parser.add_argument("--path", choices=PATHS, default="batch", help="check: decide by solve_many or by solve")
    parser.add_argument("--fixture", type=Path, default=FIXTURE, help="the recording (default: the test suite's)")
    args = parser.parse_args(argv)
    if args.action == "record":
        return _record(args.fixture)
    if args.action == "diff":
        if args.against is None:
            parser.error("diff needs --against OLD.npz")
        start = time.perf_counter()
        common = min(len(np.load(args.against)["values"]), len(np.load(args.fixture)["values"]))
        return _print_moved(diff(args.against, args.fixture), common, time.perf_counter() - start)
    if args.subset < 0:
        parser.error("--subset must be 0 (every board) or more")
    indices = subset(args.subset) if args.subset else list(range(N_BOARDS))
    start = time.perf_counter()
    moved = check(indices, args.fixture, args.path, progress=True)
    return _print_moved(moved, len(indices), time.perf_counter() - start)


if __name__ == "__main__":
    raise SystemExit(main())
