"""Fit the points -> winning chances curve of the analysis grades: ``python -m benchmarks.winprob_fit``.

Lichess maps an evaluation to Win% with a logistic curve fitted on real games; we fit ours
on games simulated in our own environments.  Every decision of seat ``p0`` in the games of
``benchmarks/games.py`` (duels and Two-Headed Giant: two sides, so an even board is a coin
flip; free-for-all starts at one in four and is left out) outside the superfriends archetype
gives a pair (material balance
of the position from ``p0``'s side, p0's final result: 1 win, 0.5 draw, 0 loss; unfinished
games are dropped).  Superfriends games are left out because the event model grows
planeswalker loyalty without ever turning it into a win: their balances run into the
hundreds and their results do not depend on them (scored 48-51% at every balance), so
they measure the simulator, not the value of material; they would drag the fit to k = 0.
The slope ``k`` of P(win) = 1 / (1 + exp(-k * balance)), which is
Lichess's Win% / 100, is the maximum-likelihood fit.  The result goes to
``benchmarks/results/winprob_fit.json`` with calibration by balance bucket (observed vs
predicted) and the log-loss against a constant 50%; :data:`solver.analysis.winprob.K` is
set from it by hand.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from solver.analysis.winprob import K, fit_k

from . import games as games_benchmark
from .common import RESULTS, markdown_table, write_json

#: The two-sided games' envs, either version (the stored records of benchmarks.games are v0's games, the same game).
TWO_SIDED = tuple(f"proliferate/{name}-{v}" for name in ("Duel", "TwoHeadedGiant") for v in ("v0", "v1"))
EXCLUDED_ARCHETYPES = ("superfriends",)
BUCKETS = (-math.inf, -40, -20, -10, -5, 0, 5, 10, 20, 40, math.inf)


def samples(games: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """(balance, score) for every p0 decision of a finished two-sided game."""
    balances: list[float] = []
    scores: list[float] = []
    for g in games:
        if g["env"] not in TWO_SIDED or g["result"] == "unfinished" or g["archetype"] in EXCLUDED_ARCHETYPES:
            continue
        score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[g["result"]]
        balances.extend(g["balances"])
        scores.extend([score] * len(g["balances"]))
    return np.array(balances, dtype=np.float64), np.array(scores, dtype=np.float64)


def log_loss(balances: np.ndarray, scores: np.ndarray, k: float) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(np.clip(-k * balances, -700, 700))), 1e-12, 1 - 1e-12)
    return float(-(scores * np.log(p) + (1 - scores) * np.log(1 - p)).mean())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games-file", type=Path, help="read games from this benchmarks/games.py games.jsonl.gz")
    parser.add_argument(
        "--play", action="store_true", help="play the games first (benchmarks/games.py) and fit on them"
    )
    parser.add_argument("--games", type=int, default=25, help="seeds per env and archetype when playing (default 25)")
    parser.add_argument("--json", type=Path, default=RESULTS / "winprob_fit.json")
    args = parser.parse_args(argv)
    source = args.games_file or RESULTS / "games.jsonl.gz"
    if args.play or not source.exists():
        games_benchmark.main(["--games", str(args.games), "--games-out", str(source)])
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        played = [json.loads(line) for line in lines]
    balances, scores = samples(played)
    if len(balances) < 10:
        print("too few finished two-sided games to fit", file=sys.stderr)
        return 1
    k = fit_k(balances, scores)
    rows = []
    buckets = []
    for low, high in itertools.pairwise(BUCKETS):
        inside = (balances >= low) & (balances < high)
        n = int(inside.sum())
        if not n:
            continue
        observed = float(scores[inside].mean())
        predicted = float((1.0 / (1.0 + np.exp(-k * balances[inside]))).mean())
        buckets.append({"low": low, "high": high, "n": n, "observed": observed, "predicted": predicted})
        rows.append([f"[{low:g}, {high:g})", n, f"{100 * observed:.1f}%", f"{100 * predicted:.1f}%"])
    fitted_loss, flat_loss = log_loss(balances, scores, k), log_loss(balances, scores, 0.0)
    print(f"# Win% curve fit on {len(balances)} decisions of finished duels and 2HG games (no superfriends)\n")
    print(f"k = {k:.4f} per point (in code: K = {K}); log-loss {fitted_loss:.4f} vs {flat_loss:.4f} for a flat 50%")
    if k > 0:
        print(
            f"one point at an even board moves Win% by {25 * k:.2f} points; Win% 60 at {math.log(1.5) / k:.1f} points\n"
        )
    print(markdown_table(["balance (points)", "decisions", "observed score", "fitted Win%"], rows))
    write_json(
        "winprob_fit",
        {
            "k": k,
            "k_in_code": K,
            "samples": len(balances),
            "log_loss": fitted_loss,
            "log_loss_flat": flat_loss,
            "buckets": buckets,
            "source": source.name,
            "excluded_archetypes": list(EXCLUDED_ARCHETYPES),
        },
        args.json,
    )
    print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
