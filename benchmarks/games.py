"""How much the proliferate decision matters in whole games: ``python -m benchmarks.games``.

Seeded games of every v1 environment (duel, Two-Headed Giant, free-for-all) and every deck
archetype, played four times each with a different policy in the deciding seat ``p0``: the
oracle (the solver's optimum), the rule-based per-object filter of classic engine AIs,
"everything I control" (every eligible object of mine, and me) and uniform random, the
policies of :data:`env.policies.BOARD_POLICIES`.  The seeds, the opponents (the rule-based
filter) and the event model are the same for all four, so the four games of a seed start from
the same position and differ only by what ``p0`` chose, and the consequences of that.

The games are played whole in compiled code (:meth:`env.kernels.engine.Engine.play`: the
agent's decisions made by the compiled policy of the same name, the games spread over
numba's threads, each on its own random stream); a game there is the game the Gymnasium env
plays for that seed with the Python policy stepping it (``tests/test_games_benchmark.py``).

Printed: win rates with Wilson 95% intervals per decider, per environment and archetype, the
oracle's lead over the rule-based filter (a paired difference, same seeds), and how often each
baseline's result differs from the oracle's on the same seed, split by what the position held
at ``p0``'s first decision (poison in play, a threshold or Saga in play); the games per second
and the time of one game in ``u`` (one CartPole-v1 step timed in the same run).  A game that reaches the env's turn
limit unfinished scores 0 points (the table shows how many did).  The summary
goes to ``benchmarks/results/games.json``.  A smaller sample (``--records`` games per cell and
decider, the first seeds of each cell) is also played through the Python path of the env, and
every game of it (each ``p0`` decision's material balance,
:func:`~solver.analysis.winprob.material_balance`, and the final result, which
``benchmarks/winprob_fit.py`` fits the grading curve on) goes to
``benchmarks/results/games.jsonl.gz``, one compact line per game; those games are checked
against the compiled ones of the same seeds.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numba
import numpy as np
import numpy.typing as npt
from gymnasium.utils import seeding

import env
from env.core import ProliferateEnv
from env.kernels import game as K
from env.kernels.engine import Engine
from env.kernels.rng import StreamGenerator
from env.policies import BOARD_POLICIES
from env.scenarios import ARCHETYPES
from solver.analysis.winprob import material_balance
from solver.board import Board, BoolArray, IntArray

from .common import RESULTS, cartpole_unit, in_units, markdown_table, write_json

ENV_IDS = ("proliferate/Duel-v1", "proliferate/TwoHeadedGiant-v1", "proliferate/FreeForAll-v1")
#: The deciders of seat p0, names of env.policies.BOARD_POLICIES (and of the compiled policies).
DECIDERS = ("oracle", "rule", "everything", "random")
LABELS = {"oracle": "oracle", "rule": "rule-based", "everything": "everything", "random": "random"}
#: Seeds per environment and archetype by default: 3 environments x 6 archetypes x 4 deciders x 16,667 = 1,200,024
#: games, 250,000 or more per decider.
DEFAULT_GAMES = 16_667
#: Agent steps before a Python-path game counts as unfinished (the compiled games end by the env's turn limit).
MAX_STEPS = 10_000
#: Slots the compiled games run on (each plays its games one after another).
SLOTS = 256
RESULTS_BY_CODE = ("unfinished", "win", "loss", "draw")
POINTS = np.array([0.0, 1.0, 0.0, 0.5])  # by result code: unfinished, win, loss, draw (draws count half)
Z95 = 1.959963984540054
FEATURES = ("poison in play", "no poison at start", "threshold or Saga in play", "no threshold or Saga")

assert env.IDS  # registers the environments


def short(env_id: str) -> str:
    return env_id.split("/")[1].removesuffix("-v1")


def stream_seed(seed: int) -> int:
    """The stream seed of a game reset with ``seed``: the one draw ``LockstepV1.reset`` makes from the generator
    Gymnasium seeds with it (the env's ``np_random``)."""
    return int(seeding.np_random(seed)[0].integers(0, 2**63))


def cell_seeds(first: int, games: int, cell: int) -> range:
    """The reset seeds of cell ``cell`` (an environment and archetype): a block of its own, the same for every
    decider (paired games), so no two cells share a start."""
    return range(first + cell * games, first + (cell + 1) * games)


# ---------------------------------------------------------------------- the compiled path
@dataclass
class Cell:
    """The compiled games of one environment and archetype: a row of ``W_`` columns per seed and decider."""

    env: str
    archetype: str
    seeds: range
    rows: dict[str, npt.NDArray[np.int64]]

    def points(self, decider: str) -> npt.NDArray[np.float64]:
        return cast("npt.NDArray[np.float64]", POINTS[self.rows[decider][:, K.W_RESULT]])


@functools.cache
def _made(env_id: str, archetype: str) -> gym.Env[Any, Any]:
    return gym.make(env_id, archetypes=(archetype,), max_episode_steps=MAX_STEPS)


def engine_of(env_id: str, archetype: str, slots: int = SLOTS) -> Engine:
    """An engine of ``slots`` games with the configuration ``gym.make(env_id, archetypes=(archetype,))`` has."""
    core: ProliferateEnv = _made(env_id, archetype).unwrapped  # type: ignore[assignment]
    return Engine(core.settings, core.agent, slots)


def play_cell(env_id: str, archetype: str, seeds: range, deciders: Sequence[str] = DECIDERS) -> Cell:
    engine = engine_of(env_id, archetype)
    streams = [stream_seed(s) for s in seeds]
    return Cell(env_id, archetype, seeds, {d: engine.play(streams, d) for d in deciders})


# ---------------------------------------------------------------------- the Python path (records)
@dataclass(frozen=True)
class GameResult:
    env: str
    archetype: str
    seed: int
    decider: str
    result: str  # win, loss, draw, unfinished
    decisions: int
    poison_start: bool
    threshold_start: bool
    balances: tuple[float, ...]


class GameStream(StreamGenerator):
    """The env's game's own random stream (a view of its cell), for a policy that draws: it draws what the
    compiled policy draws there, so the Python game stays the compiled one."""

    def __init__(self, core: ProliferateEnv) -> None:
        self.state = core._core.engine.arrays.rng[0:1]


def play(
    env_id: str, archetype: str, seed: int, decider: str, records: list[dict[str, Any]] | None = None
) -> GameResult:
    """One game of the Gymnasium env reset with ``seed``, the Python ``decider`` (:data:`BOARD_POLICIES`) stepping
    seat p0 (the env's opponents are the rule-based filter).

    With ``records``, every p0 decision is appended to it as a game record (``docs/analysis.md``),
    so ``proliferate analyze`` can review simulated games.
    """
    made = _made(env_id, archetype)
    core: ProliferateEnv = made.unwrapped  # type: ignore[assignment]
    decide = BOARD_POLICIES[decider]
    _, info = made.reset(seed=seed)
    stream = GameStream(core)
    first = core.decision_board()
    poison = first.kind_column("poison")
    poison_start = bool(poison >= 0 and first.counts[:, poison].any())
    threshold_start = bool(len(first.thr_at) or (first.chapters > 0).any())
    balances: list[float] = []
    name = f"{short(env_id)} {archetype} seed {seed} {decider}"
    result = "unfinished"
    while True:
        board = core.decision_board()
        balances.append(material_balance(board, core.policy))
        chosen, recipients = decide(board, cast("np.random.Generator", stream))
        if records is not None:
            source = info.get("opportunity", {}).get("card", "")
            records.append(_record(name, len(balances), board, chosen, recipients, source))
        for _ in range(board.rounds):
            _, _, terminated, truncated, info = made.step(core.action_for(chosen, recipients))
            if terminated or truncated:
                break
        if terminated or truncated:
            result = str(info.get("game_result", "unfinished"))
            break
    return GameResult(
        env_id, archetype, seed, decider, result, len(balances), poison_start, threshold_start, tuple(balances)
    )


def _record(
    game: str, number: int, board: Board, chosen: BoolArray, recipients: IntArray, source: str
) -> dict[str, Any]:
    """A game record of one p0 decision; ``turn`` is p0's decision number (the env does not expose its turn)."""
    rounds = [
        {
            "chosen": [board.ids[i] for i in np.flatnonzero(chosen[r])],
            "poison_recipients": {
                board.team_names[t]: board.ids[h] for t, h in enumerate(recipients[r]) if h >= 0 and chosen[r, h]
            },
        }
        for r in range(board.rounds)
    ]
    out: dict[str, Any] = {"game": game, "turn": number, "decider": board.proliferator_id, "board": board.to_dict()}
    if source:
        out["phase"] = f"via {source}"
    out |= {"chosen": rounds[0]["chosen"], "poison_recipients": rounds[0]["poison_recipients"]}
    if len(rounds) > 1:
        out["rounds"] = rounds
    return out


def same_game(python: GameResult, row: npt.NDArray[np.int64]) -> bool:
    """Whether a Python-path game and the compiled game of its seed agree (result, decisions, first decision)."""
    return (
        python.result == RESULTS_BY_CODE[int(row[K.W_RESULT])]
        and python.decisions == int(row[K.W_DECISIONS])
        and python.poison_start == bool(row[K.W_POISON])
        and python.threshold_start == bool(row[K.W_THRESHOLD])
    )


# ---------------------------------------------------------------------- statistics
def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws count half): better than p ± z·se at small n or extreme p."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))  # it holds p: no rounding past it


def paired_difference(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], z: float = Z95) -> dict[str, float]:
    """Mean of ``a - b`` over paired games (the same seeds) with its normal 95% interval."""
    n = len(a)
    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan}
    d = a - b
    mean = float(d.mean())
    half = z * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return {"mean": mean, "low": mean - half, "high": mean + half}


def summarise(cells: Sequence[Cell]) -> dict[str, Any]:
    """Win rates per decider and group, the oracle's paired lead over each baseline, and how often a baseline's
    result differs from the oracle's (same seed)."""
    groups: dict[str, list[tuple[Cell, npt.NDArray[np.bool_]]]] = {}

    def add(name: str, cell: Cell, mask: npt.NDArray[np.bool_]) -> None:
        groups.setdefault(name, []).append((cell, mask))

    for cell in cells:
        everything = np.ones(len(cell.seeds), dtype=np.bool_)
        first = cell.rows["oracle"]  # the first decision comes before p0 chooses anything: the same for all
        poison, threshold = first[:, K.W_POISON] == 1, first[:, K.W_THRESHOLD] == 1
        env_name = short(cell.env)
        for name in ("all", f"env={env_name}", f"archetype={cell.archetype}", f"{env_name} {cell.archetype}"):
            add(name, cell, everything)
        add(FEATURES[0], cell, poison)
        add(FEATURES[1], cell, ~poison)
        add(FEATURES[2], cell, threshold)
        add(FEATURES[3], cell, ~threshold)
    out: dict[str, Any] = {}
    for name, parts in groups.items():
        points = {d: np.concatenate([c.points(d)[m] for c, m in parts]) for d in DECIDERS}
        codes = {d: np.concatenate([c.rows[d][m, K.W_RESULT] for c, m in parts]) for d in DECIDERS}
        decisions = {d: np.concatenate([c.rows[d][m, K.W_DECISIONS] for c, m in parts]) for d in DECIDERS}
        n = len(points["oracle"])
        row: dict[str, Any] = {"games": n}
        for decider in DECIDERS:
            score = float(points[decider].sum())
            low, high = wilson(score, n)
            row[decider] = {
                "games": n,
                "score": score,
                "win_rate": score / n if n else None,
                "wilson95": [low, high],
                "unfinished": int((codes[decider] == 0).sum()),
                "decisions_per_game": float(decisions[decider].mean()) if n else None,
            }
            if decider != "oracle":
                changed = codes[decider] != codes["oracle"]
                row[decider]["changed"] = int(changed.sum())
                row[decider]["oracle_better"] = int((points["oracle"] > points[decider]).sum())
                row[decider]["oracle_lead"] = paired_difference(points["oracle"], points[decider])
        out[name] = row
    return out


def _rate(d: dict[str, Any]) -> str:
    if d["win_rate"] is None:
        return "—"
    low, high = d["wilson95"]
    return f"{100 * d['win_rate']:.2f} [{100 * low:.2f}-{100 * high:.2f}]"


def _lead(d: dict[str, Any]) -> str:
    lead = d["oracle_lead"]
    if math.isnan(lead["mean"]):
        return "—"
    return f"{100 * lead['mean']:+.2f} [{100 * lead['low']:+.2f}, {100 * lead['high']:+.2f}]"


def _table(summary: dict[str, Any], names: Sequence[str]) -> str:
    rows = []
    for name in names:
        row = summary[name]
        cells: list[object] = [name, row["games"]]
        cells += [_rate(row[d]) for d in DECIDERS]
        cells.append(_lead(row["rule"]))
        cells += [f"{100 * row[d]['changed'] / max(row['games'], 1):.1f}%" for d in DECIDERS[1:]]
        cells.append(f"{100 * row['oracle']['unfinished'] / max(row['games'], 1):.1f}%")
        rows.append(cells)
    headers = [
        "games",
        "seeds",
        *[f"{LABELS[d]} win % [95%]" for d in DECIDERS],
        "oracle − rule-based, points [95%]",
        *[f"result ≠ oracle: {LABELS[d]}" for d in DECIDERS[1:]],
        "unfinished (oracle; 0 points)",
    ]
    return markdown_table(headers, rows)


# ---------------------------------------------------------------------- the script
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        help=f"seeds per environment and archetype (default {DEFAULT_GAMES})",
    )
    parser.add_argument("--envs", nargs="+", default=list(ENV_IDS), choices=ENV_IDS)
    parser.add_argument("--archetypes", nargs="+", default=list(ARCHETYPES), choices=ARCHETYPES)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument(
        "--records", type=int, default=25, help="games per cell and decider through the Python path (default 25)"
    )
    parser.add_argument("--json", type=Path, default=RESULTS / "games.json", help="where to write the summary")
    parser.add_argument(
        "--decision-records", type=Path, help="also write every p0 decision of the Python games as game records"
    )
    parser.add_argument(
        "--games-out", type=Path, default=RESULTS / "games.jsonl.gz", help="where to write the Python games"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or not 0 <= args.records <= args.games:
        parser.error("--games must be at least 1 and --records between 0 and --games")

    unit = cartpole_unit()
    cells: list[Cell] = []
    start = time.perf_counter()
    for env_id in args.envs:
        for archetype in args.archetypes:
            at = ENV_IDS.index(env_id) * len(ARCHETYPES) + ARCHETYPES.index(archetype)
            seeds = cell_seeds(args.seed, args.games, at)
            cells.append(play_cell(env_id, archetype, seeds))
            done = len(cells) * args.games * len(DECIDERS)
            elapsed = time.perf_counter() - start
            print(f"{short(env_id)} {archetype}: {done} games, {elapsed:.0f} s", file=sys.stderr)
    elapsed = time.perf_counter() - start
    n_games = len(cells) * args.games * len(DECIDERS)
    rate = n_games / elapsed

    python_start = time.perf_counter()
    played: list[GameResult] = []
    records: list[dict[str, Any]] | None = [] if args.decision_records else None
    agree = 0
    for cell in cells:
        for decider in DECIDERS:
            for j, seed in enumerate(cell.seeds[: args.records]):
                game = play(cell.env, cell.archetype, seed, decider, records)
                played.append(game)
                agree += same_game(game, cell.rows[decider][j])
    python_elapsed = time.perf_counter() - python_start

    summary = summarise(cells)
    env_rows = ["all", *(f"env={short(e)}" for e in args.envs)]
    arch_rows = [f"archetype={a}" for a in args.archetypes]
    feature_rows = [k for k in FEATURES if k in summary]
    cell_rows = [f"{short(c.env)} {c.archetype}" for c in cells]
    per_game = elapsed / n_games
    print(f"# Whole games: the deciding seat's policy ({n_games:,} games, {elapsed:.0f} s)\n")
    print(
        f"{rate:,.0f} games/s on {numba.get_num_threads()} threads; one game = {in_units(per_game, unit)} "
        f"(u = {unit.median * 1e6:.1f} µs, one CartPole-v1 step timed in this run). Same seeds and opponents "
        "for every decider; draws count half; [95% Wilson interval]; the oracle's lead is a paired difference.\n"
    )
    print("## By environment\n\n" + _table(summary, env_rows) + "\n")
    print("## By archetype\n\n" + _table(summary, arch_rows) + "\n")
    print("## By what was in play at the first decision\n\n" + _table(summary, feature_rows) + "\n")
    print("## By environment and archetype\n\n" + _table(summary, cell_rows) + "\n")
    print(
        f"Python path: {len(played)} games through the Gymnasium env with the Python policies in "
        f"{python_elapsed:.0f} s; {agree} of them are the compiled game of their seed.\n"
    )
    write_json(
        "games",
        {
            "args": {
                "games": args.games,
                "envs": args.envs,
                "archetypes": args.archetypes,
                "seed": args.seed,
                "records": args.records,
            },
            "games": n_games,
            "elapsed_s": elapsed,
            "games_per_s": rate,
            "threads": numba.get_num_threads(),
            "u_s": unit.median,
            "game_in_u": per_game / unit.median,
            "python_games": len(played),
            "python_games_same_as_compiled": agree,
            "python_elapsed_s": python_elapsed,
            "summary": summary,
            "games_file": args.games_out.name,
        },
        args.json,
    )
    args.games_out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.games_out, "wt", encoding="utf-8") as out:
        for g in played:
            out.write(json.dumps(asdict(g), separators=(",", ":")) + "\n")
    print(f"wrote {args.json} and {args.games_out}", file=sys.stderr)
    if args.decision_records and records is not None:
        with args.decision_records.open("w", encoding="utf-8") as out:
            for rec in records:
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print(f"wrote {len(records)} game records to {args.decision_records}", file=sys.stderr)
    return 0 if agree == len(played) else 1


if __name__ == "__main__":
    raise SystemExit(main())
