"""Decision quality against the rules of thumb engine AIs use: ``python -m benchmarks.quality``.

Thousands of seeded random boards per variant (6 to 30 objects, one or two proliferates,
half of them with thresholds and replacement effects).  On each, the optimum of the
objective is compared with four baseline policies that mimic classic engine AIs:

* ``filter``: a per-object filter over a fixed list of good and bad counter kinds that never
  touches opponents' non-creature permanents (the shape of Forge-style proliferate AIs):
  our team's objects if they hold a good kind and no bad one, opponents (players and
  creatures) if they hold a bad kind and no good one;
* ``mine+poisoned``: everything I control (and myself), opponents only if they are poisoned;
* ``everything``: every eligible object;
* ``nothing``: choose no object.

A baseline chooses the same objects in every proliferate; in Two-Headed Giant, when it picks
both heads of a poisoned team, the first head gets the team's poison counter (701.34b).
Values come from the objective (:class:`solver.objective.Objective`), the same scoring code
every solver path uses: regret is the optimum minus the baseline's value, in points.  The
game result is read from the players the rules engine says lose (``Outcome.losers``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import solver
from solver.batch import decide_many
from solver.board import Board, CardType, Variant
from solver.kinds import KEYWORD_KINDS
from solver.objective import MILLI, Objective
from solver.rules import Choice, apply_matrix, choice_matrix, eligible_mask

from .boards import VARIANTS, BoardSpec, generate, players_of
from .common import fmt_time, markdown_table, write_json

#: The fixed lists a filter AI carries (kinds outside both lists are ignored).
GOOD_KINDS = frozenset(
    {"+1/+1", "loyalty", "charge", "energy", "experience", "shield", "lore", "defense", "quest", "storage"}
    | {"growth", "tower", "filibuster", "luck", "oil", "level"}
    | KEYWORD_KINDS
)
BAD_KINDS = frozenset({"-1/-1", "poison", "stun", "incarnation", "age", "doom", "rad", "bounty", "finality", "ice"})
DEFAULT_BOARDS = 2_000
LOSING = ("loss", "draw")

Baseline = Callable[[Board], list[int]]


def _good_bad(board: Board) -> tuple[np.ndarray, np.ndarray]:
    present = board.counts > 0
    good = np.array([k in GOOD_KINDS for k in board.kinds], dtype=bool)
    bad = np.array([k in BAD_KINDS for k in board.kinds], dtype=bool)
    return (present & good).any(axis=1), (present & bad).any(axis=1)


def filter_ai(board: Board) -> list[int]:
    has_good, has_bad = _good_bad(board)
    ours = board.object_team == board.team[board.proliferator]
    is_player = np.arange(board.n_objects) < board.n_players
    creature = board.has_type(CardType.CREATURE)
    pick = np.where(ours, has_good & ~has_bad, (is_player | creature) & has_bad & ~has_good)
    return [int(r) for r in np.flatnonzero(pick & eligible_mask(board))]


def mine_and_poisoned(board: Board) -> list[int]:
    rows = np.arange(board.n_objects)
    mine = (board.controller == board.proliferator) | (rows == board.proliferator)
    col = board.kind_column("poison")
    poisoned = np.zeros(board.n_objects, dtype=bool)
    if col >= 0:
        poisoned[: board.n_players] = board.counts[: board.n_players, col] > 0
    opponent = board.object_team != board.team[board.proliferator]
    pick = mine | (opponent & poisoned)
    return [int(r) for r in np.flatnonzero(pick & eligible_mask(board))]


def everything(board: Board) -> list[int]:
    return [int(r) for r in np.flatnonzero(eligible_mask(board))]


def nothing(board: Board) -> list[int]:
    return []


BASELINES: dict[str, Baseline] = {
    "filter": filter_ai,
    "mine+poisoned": mine_and_poisoned,
    "everything": everything,
    "nothing": nothing,
}


def as_choice(board: Board, rows: list[int]) -> Choice:
    """The same rows every round; a 2HG team with poison gets it on its first chosen head (701.34b)."""
    recipients: dict[str, str] = {}
    col = board.kind_column("poison")
    if board.variant is Variant.TWO_HEADED_GIANT and col >= 0:
        for row in rows:
            if row < board.n_players and board.counts[row, col] > 0:
                recipients.setdefault(board.team_names[int(board.team[row])], board.ids[row])
    return Choice.of([board.ids[r] for r in rows], recipients, rounds=board.rounds)


# ---------------------------------------------------------------------------- one board
@dataclass(frozen=True)
class Verdict:
    regret: float  # points
    normalised: float  # regret / (best - worst), 0 when every choice is worth the same
    result: str


@dataclass(frozen=True)
class BoardResult:
    best_result: str
    verdicts: dict[str, Verdict]


def game_result(board: Board, chosen: np.ndarray, recipients: np.ndarray) -> str:
    """The proliferator's game result from who loses (104.2a, 104.4a): win, draw, loss, eliminations or none."""
    losers = {board.index[pid] for pid in apply_matrix(board, chosen, recipients).losers}
    ours = int(board.team[board.proliferator])
    teams_lost = {int(board.team[row]) for row in losers}
    rivals = set(range(board.n_teams)) - {ours}
    if ours in teams_lost:
        return "draw" if rivals <= teams_lost else "loss"
    if rivals <= teams_lost:
        return "win"
    return "eliminations" if teams_lost else "none"


def judge_all(boards: list[Board]) -> list[BoardResult]:
    """Every board judged, the optimum and the worst choice decided for all of them in one batched pass."""
    best, worst = decide_many(boards), decide_many(boards, sense=-1)
    return [
        judge(board, int(best.values[b]), int(worst.values[b]), game_result(board, *best.matrices(b)))
        for b, board in enumerate(boards)
    ]


def judge(board: Board, best_value: int, worst: int, best_result: str) -> BoardResult:
    """Each baseline's choice on ``board`` against the optimum (values in milli-points)."""
    objective = Objective(board)
    span = best_value - worst
    verdicts = {}
    for name, baseline in BASELINES.items():
        chosen, recipients = choice_matrix(board, as_choice(board, baseline(board)))
        value = objective.score_matrix(chosen, recipients)
        regret = best_value - value
        if regret < 0:
            raise AssertionError(f"baseline {name} beats the optimum on a board: the fast path is wrong")
        verdicts[name] = Verdict(regret / MILLI, regret / span if span else 0.0, game_result(board, chosen, recipients))
    return BoardResult(best_result, verdicts)


def random_spec(variant: str, index: int, seed: int) -> BoardSpec:
    """Board ``index`` of a variant: size, proliferates and extras drawn from the seed."""
    rng = random.Random(f"quality/{seed}/{variant}/{index}")
    size = rng.randint(len(players_of(variant)) + 2, 30)
    proliferates = 2 if rng.random() < 0.25 else 1
    return BoardSpec(size, variant, proliferates, rng.random() < 0.5, seed=seed * 1_000_003 + index)


# ---------------------------------------------------------------------------- summary
def summarise(results: list[BoardResult]) -> dict[str, dict[str, Any]]:
    wins = sum(r.best_result == "win" for r in results)
    out = {}
    for name in BASELINES:
        regrets = np.array([r.verdicts[name].regret for r in results])
        normalised = np.array([r.verdicts[name].normalised for r in results])
        missed = sum(r.best_result == "win" and r.verdicts[name].result != "win" for r in results)
        own_loss = sum(r.verdicts[name].result in LOSING and r.best_result not in LOSING for r in results)
        out[name] = {
            "boards": len(results),
            "suboptimal": int((regrets > 0).sum()),
            "mean_regret": float(regrets.mean()),
            "p95_regret": float(np.percentile(regrets, 95)),
            "worst_regret": float(regrets.max()),
            "mean_normalised_regret": float(normalised.mean()),
            "wins_available": wins,
            "missed_wins": int(missed),
            "own_losses": int(own_loss),
            "regrets": regrets.tolist(),
        }
    return out


def table(summary: dict[str, dict[str, dict[str, Any]]]) -> str:
    rows = []
    for variant, per_baseline in summary.items():
        for name, s in per_baseline.items():
            n = s["boards"]
            rows.append(
                [
                    variant,
                    name,
                    f"{100 * s['suboptimal'] / n:.1f}%",
                    f"{s['mean_regret']:.1f}",
                    f"{s['p95_regret']:.1f}",
                    f"{s['worst_regret']:.0f}",
                    f"{100 * s['mean_normalised_regret']:.1f}%",
                    f"{s['missed_wins']}/{s['wins_available']}",
                    f"{s['own_losses']} ({100 * s['own_losses'] / n:.1f}%)",
                ]
            )
    headers = [
        "variant",
        "baseline",
        "suboptimal",
        "mean regret",
        "p95 regret",
        "worst regret",
        "mean normalised regret",
        "missed wins",
        "own losses",
    ]
    return markdown_table(headers, rows)


def plot(summary: dict[str, dict[str, dict[str, Any]]], path: Path) -> None:
    """Empirical distribution of regret per baseline, one panel per variant (matplotlib, imported here)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(summary), figsize=(5 * len(summary), 4), sharey=True, squeeze=False)
    for ax, (variant, per_baseline) in zip(axes[0], summary.items(), strict=True):
        for name, s in per_baseline.items():
            regrets = np.sort(np.array(s["regrets"]))
            share = 1.0 - np.arange(len(regrets)) / len(regrets)
            ax.step(regrets, share, where="post", label=name)
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_title(variant)
        ax.set_xlabel("regret (points; symlog)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("share of boards with regret ≥ x")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---------------------------------------------------------------------------- main
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.quality", description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=DEFAULT_BOARDS, help="random boards per variant")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", type=Path, metavar="FILE", help="also draw regret distributions (needs matplotlib)")
    parser.add_argument(
        "--json", type=Path, help="where to write the results (default benchmarks/results/quality.json)"
    )
    args = parser.parse_args(argv)
    if args.boards < 1:
        parser.error("--boards must be >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    start = time.perf_counter()
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for variant in args.variants:
        print(f"judging {args.boards} {variant} boards ...", file=sys.stderr, flush=True)
        boards = [solver.load_board(generate(random_spec(variant, i, args.seed))) for i in range(args.boards)]
        results = judge_all(boards)
        summary[variant] = summarise(results)
    elapsed = time.perf_counter() - start
    print(f"\n## Baselines against the optimum ({args.boards} boards per variant, seed {args.seed})\n")
    print(table(summary))
    print(f"\n{args.boards * len(args.variants)} boards judged in {fmt_time(elapsed)}")
    if args.plot is not None:
        plot(summary, args.plot)
        print(f"plotted {args.plot}")
    path = write_json(
        "quality",
        {
            "arguments": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "good_kinds": sorted(GOOD_KINDS),
            "bad_kinds": sorted(BAD_KINDS),
            "elapsed_s": elapsed,
            "summary": summary,
        },
        args.json,
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
