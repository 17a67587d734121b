"""How much the proliferate decision matters in whole games: ``python -m benchmarks.games``.

Seeded games of every environment (duel, Two-Headed Giant, free-for-all) and every deck
archetype, played four times each with a different policy in the deciding seat ``p0``:
the oracle (the solver's optimum), the rule-based per-object filter of classic engine AIs,
"everything I control" (every eligible object of mine, and me) and uniform random.  The
seeds, the opponents (the rule-based filter) and the event model are the same for all four,
so a game differs only by what ``p0`` chose, and the consequences of that.

Printed: win rates with Wilson 95% intervals per decider, per environment and archetype,
and how often each baseline's result differs from the oracle's on the same seed (the choice
changed the result), split by what the position held at ``p0``'s first decision (poison in
play, a threshold or Saga in play) so the table shows where the effect is concentrated.
The summary goes to ``benchmarks/results/games.json``; every game (with each ``p0``
decision's material balance, :func:`~solver.analysis.winprob.material_balance`, and the
final result, which ``benchmarks/winprob_fit.py`` fits the grading curve on) to
``benchmarks/results/games.jsonl.gz``, one compact line per game.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import env
from env.core import ProliferateEnv
from env.policies import BoardPolicy, matrices, oracle_choice, random_choice, rule_choice
from env.scenarios import ARCHETYPES
from solver.analysis.winprob import material_balance
from solver.board import Board, BoolArray, IntArray
from solver.rules import eligible_mask

from .common import RESULTS, markdown_table, write_json

ENV_IDS = ("proliferate/Duel-v1", "proliferate/TwoHeadedGiant-v1", "proliferate/FreeForAll-v1")
DECIDERS = ("oracle", "filter", "everything", "random")
#: Agent steps before a game counts as unfinished (generous: most games end within 40 decisions).
MAX_STEPS = 300
Z95 = 1.959963984540054

assert env.IDS  # registers the environments


def everything_i_control(board: Board, rng: np.random.Generator | None = None) -> tuple[BoolArray, IntArray]:
    """Every eligible permanent the proliferator controls, and the proliferator: the "grow my stuff" reflex."""
    rows = np.arange(board.n_objects)
    mine = (board.controller == board.proliferator) | (rows == board.proliferator)
    chosen = [int(i) for i in np.flatnonzero(mine & eligible_mask(board))]
    return matrices(board, [chosen] * board.rounds)


#: Each decider decides a whole resolution on the board (every round), as the env's opponents do.
DECIDE: dict[str, BoardPolicy] = {
    "oracle": oracle_choice,
    "filter": rule_choice,
    "everything": everything_i_control,
    "random": random_choice,
}


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


def play(
    env_id: str, archetype: str, seed: int, decider: str, records: list[dict[str, Any]] | None = None
) -> GameResult:
    """One game with ``decider`` in seat p0 (the environment's opponents are the rule-based filter).

    With ``records``, every p0 decision is appended to it as a game record (``docs/analysis.md``),
    so ``proliferate analyze`` can review simulated games.
    """
    made = gym.make(env_id, archetypes=(archetype,), max_episode_steps=MAX_STEPS)
    core: ProliferateEnv = made.unwrapped  # type: ignore[assignment]
    decide = DECIDE[decider]
    rng = np.random.default_rng(seed + 7919)
    _, info = made.reset(seed=seed)
    first = core.decision_board()
    poison = first.kind_column("poison")
    poison_start = bool(poison >= 0 and first.counts[:, poison].any())
    threshold_start = bool(len(first.thr_at) or (first.chapters > 0).any())
    balances: list[float] = []
    name = f"{env_id.split('/')[1].removesuffix('-v1')} {archetype} seed {seed} {decider}"
    while True:
        board = core.decision_board()
        balances.append(material_balance(board, core.policy))
        chosen, recipients = decide(board, rng)
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
    made.close()
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


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws count half): better than p ± z·se at small n or extreme p."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))  # it holds p: no rounding past it


def _points(result: str) -> float:
    return {"win": 1.0, "draw": 0.5}.get(result, 0.0)


def _rate(games: Sequence[GameResult]) -> str:
    n = len(games)
    if not n:
        return "—"
    wins = sum(_points(g.result) for g in games)
    low, high = wilson(wins, n)
    return f"{100 * wins / n:.1f}% [{100 * low:.0f}-{100 * high:.0f}]"


def summarise(games: Sequence[GameResult]) -> dict[str, Any]:
    """Win rates per decider and group, and how often a baseline's result differs from the oracle's (same seed)."""
    by_key: dict[tuple[str, str, int], dict[str, GameResult]] = defaultdict(dict)
    for g in games:
        by_key[(g.env, g.archetype, g.seed)][g.decider] = g
    groups: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for key, per in by_key.items():
        oracle = per.get("oracle")
        if oracle is None:
            continue
        env_name = key[0].split("/")[1].removesuffix("-v1")
        groups["all"].append(key)
        groups[f"env={env_name}"].append(key)
        groups[f"archetype={key[1]}"].append(key)
        groups[f"{env_name} {key[1]}"].append(key)
        groups["poison in play" if oracle.poison_start else "no poison at start"].append(key)
        groups["threshold or Saga in play" if oracle.threshold_start else "no threshold or Saga"].append(key)
    out: dict[str, Any] = {}
    for name, keys in groups.items():
        row: dict[str, Any] = {"games": len(keys)}
        for decider in DECIDERS:
            played = [by_key[k][decider] for k in keys if decider in by_key[k]]
            wins = sum(_points(g.result) for g in played)
            low, high = wilson(wins, len(played))
            row[decider] = {
                "games": len(played),
                "score": wins,
                "win_rate": wins / len(played) if played else None,
                "wilson95": [low, high],
                "unfinished": sum(g.result == "unfinished" for g in played),
            }
            if decider != "oracle":
                changed = [
                    k for k in keys if decider in by_key[k] and by_key[k][decider].result != by_key[k]["oracle"].result
                ]
                better = sum(_points(by_key[k]["oracle"].result) > _points(by_key[k][decider].result) for k in changed)
                row[decider]["changed"] = len(changed)
                row[decider]["oracle_better"] = better
        out[name] = row
    return out


def _table(summary: dict[str, Any], names: Sequence[str]) -> str:
    rows = []
    for name in names:
        row = summary[name]
        cells: list[object] = [name, row["games"]]
        for decider in DECIDERS:
            d = row[decider]
            rate = (
                "—"
                if d["win_rate"] is None
                else f"{100 * d['win_rate']:.1f}% [{100 * d['wilson95'][0]:.0f}-{100 * d['wilson95'][1]:.0f}]"
            )
            cells.append(rate)
        for decider in DECIDERS[1:]:
            d = row[decider]
            cells.append(f"{d['changed']} ({d['oracle_better']} for the oracle)")
        rows.append(cells)
    headers = [
        "games",
        "n",
        *[f"{d} win % [95% CI]" for d in DECIDERS],
        *[f"result ≠ oracle: {d}" for d in DECIDERS[1:]],
    ]
    return markdown_table(headers, rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=25, help="seeds per environment and archetype (default 25)")
    parser.add_argument("--envs", nargs="+", default=list(ENV_IDS), choices=ENV_IDS)
    parser.add_argument("--archetypes", nargs="+", default=list(ARCHETYPES), choices=ARCHETYPES)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--json", type=Path, default=RESULTS / "games.json", help="where to write the summary")
    parser.add_argument("--records", type=Path, help="also write every p0 decision as game records (JSON Lines)")
    parser.add_argument(
        "--games-out", type=Path, default=RESULTS / "games.jsonl.gz", help="where to write every game (gzipped lines)"
    )
    args = parser.parse_args(argv)

    start = time.perf_counter()
    games: list[GameResult] = []
    records: list[dict[str, Any]] | None = [] if args.records else None
    for env_id in args.envs:
        for archetype in args.archetypes:
            for seed in range(args.seed, args.seed + args.games):
                for decider in DECIDERS:
                    games.append(play(env_id, archetype, seed, decider, records))
        print(f"{env_id}: {len(games)} games so far, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    elapsed = time.perf_counter() - start
    summary = summarise(games)
    env_rows = ["all", *sorted(k for k in summary if k.startswith("env="))]
    arch_rows = sorted(k for k in summary if k.startswith("archetype="))
    feature_rows = [
        k
        for k in ("poison in play", "no poison at start", "threshold or Saga in play", "no threshold or Saga")
        if k in summary
    ]
    cells = sorted(
        k for k in summary if " " in k and not k.startswith(("env=", "archetype=")) and k not in feature_rows
    )
    print(f"# Whole games: the deciding seat's policy ({len(games)} games, {elapsed:.0f} s)\n")
    print("Same seeds and opponents for every decider; draws count half; [95% Wilson interval].\n")
    print("## By environment\n\n" + _table(summary, env_rows) + "\n")
    print("## By archetype\n\n" + _table(summary, arch_rows) + "\n")
    print("## By what was in play at the first decision\n\n" + _table(summary, feature_rows) + "\n")
    print("## By environment and archetype\n\n" + _table(summary, cells) + "\n")
    write_json(
        "games",
        {
            "args": {"games": args.games, "envs": args.envs, "archetypes": args.archetypes, "seed": args.seed},
            "elapsed_s": elapsed,
            "summary": summary,
            "games_file": args.games_out.name,
        },
        args.json,
    )
    args.games_out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.games_out, "wt", encoding="utf-8") as out:
        for g in games:
            out.write(json.dumps(asdict(g), separators=(",", ":")) + "\n")
    print(f"wrote {args.json} and {args.games_out}", file=sys.stderr)
    if args.records and records is not None:
        with args.records.open("w", encoding="utf-8") as out:
            for rec in records:
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print(f"wrote {len(records)} game records to {args.records}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
