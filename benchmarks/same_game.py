"""Does env v1 play v0's game?  ``python -m benchmarks.same_game [--version v0|v1]`` (issue 28, item 5).

Plays seeded games of every id of one version with a decider in seat ``p0`` (the oracle, the
rule-based filter, uniform random; the other seats are the envs' default rule-based opponents)
and every deck archetype, and writes per id, decider and archetype: win rates, decisions per
game, objects per decision, game length (agent steps), the share of decisions whose board
holds a threshold or a Saga, where choosing every eligible object kills a permanent (a death)
or makes a player lose (a lethal), and for the bandit the mean reward.  v1's trajectories
differ from v0's seed for seed (another random stream), so the comparison is statistical:
:func:`compare` puts two runs side by side with the z-score of each difference.

Every game of a run has its own seed (:func:`cell_seeds`: one block of seeds per decider and
deck), so the games of a group are independent and the standard errors are those of
independent samples.  (Reusing one block of seeds in every cell made the deciders' and the
decks' games share their starts, which the standard errors did not account for.)  While both
versions were in the tree, v1 was also tested to play v0's rules draw for draw (v0's Python game
model on v1's random stream gave v1's games: ``tests/test_env_v1.py`` at commit ``a0ec434``).

v0 is retired, so ``--version v0`` runs this script of the last commit that has v0
(:data:`V0_COMMIT`) in a checkout of it: ``--v0-checkout PATH``, or by default a ``git worktree``
of that commit made in a temporary directory (and removed after; its first run compiles the
kernels of that tree, minutes).  Compare two runs with
``python -m benchmarks.same_game --compare v0.json v1.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import env
from env.policies import matrices, oracle_choice, random_choice, rule_choice
from env.scenarios import ARCHETYPES
from solver.board import Board
from solver.rules import counters_after, eligible_mask, losers, settle

DECIDERS = {"oracle": oracle_choice, "rule": rule_choice, "random": random_choice}
NAMES = ("Duel", "TwoHeadedGiant", "FreeForAll", "Bandit")
MAX_STEPS = 300
#: The last commit with the v0 envs (``--version v0`` runs there).
V0_COMMIT = "a0ec434"
REPO = Path(__file__).resolve().parent.parent

assert env.IDS


def features(board: Board) -> tuple[bool, bool, bool]:
    """(threshold or Saga in play, choosing every eligible object kills a permanent, ... makes a player lose)."""
    threshold = bool(len(board.thr_at) or (board.chapters > 0).any())
    chosen = np.flatnonzero(eligible_mask(board)).tolist()
    heads: dict[int, int] = {}
    col = board.kind_column("poison")
    if board.variant.value == "two_headed_giant" and col >= 0:
        for t in range(board.n_teams):
            mine = [i for i in chosen if i < board.n_players and board.team[i] == t and board.counts[i, col] > 0]
            if len(mine) > 1:
                heads[t] = mine[0]
    c, r = matrices(board, [chosen] * board.rounds, [heads] * board.rounds)
    settled = settle(board, counters_after(board, c, r))
    return threshold, bool(settled.dies.any()), bool(losers(board, settled).any())


def cell_seeds(first: int, per: int, cell: int) -> range:
    """The seeds of cell ``cell`` (a decider and a deck): ``per`` of them, no two cells sharing one."""
    start = first + cell * per
    return range(start, start + per)


def make(env_id: str, archetype: str) -> gym.Env[Any, Any]:
    """The env one deck's games are played in (reset with each game's seed)."""
    return gym.make(env_id, archetypes=(archetype,), max_episode_steps=MAX_STEPS)


def play(env_id: str, archetype: str, seed: int, decider: str, made: gym.Env[Any, Any] | None = None) -> dict[str, Any]:
    """One game with ``decider`` in seat ``p0``, in ``made`` (an env of ``env_id`` and ``archetype``) or a new one."""
    own = made is None
    if made is None:
        made = make(env_id, archetype)
    core = made.unwrapped
    decide = DECIDERS[decider]
    rng = np.random.default_rng(seed + 7919)
    made.reset(seed=seed)
    decisions = objects = steps = 0
    thr = death = lethal = 0
    reward = 0.0
    info: dict[str, Any] = {}
    while True:
        board = core.decision_board()  # type: ignore[attr-defined]
        decisions += 1
        objects += board.n_objects
        f = features(board)
        thr, death, lethal = thr + f[0], death + f[1], lethal + f[2]
        chosen, recipients = decide(board, rng)
        done = False
        for _ in range(board.rounds):
            _, r, terminated, truncated, info = made.step(core.action_for(chosen, recipients))  # type: ignore[attr-defined]
            steps += 1
            reward += float(r)
            if terminated or truncated:
                done = True
                break
        if done:
            break
    if own:
        made.close()
    return {
        "archetype": archetype, "decider": decider, "result": str(info.get("game_result", "unfinished")),
        "decisions": decisions, "objects": objects, "steps": steps, "threshold": thr, "death": death,
        "lethal": lethal, "reward": reward,
    }  # fmt: skip


def summarise(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per decider, and per decider and archetype: n, win share (draws half), means and their standard errors."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in games:
        groups[g["decider"]].append(g)
        groups[f"{g['decider']} {g['archetype']}"].append(g)
    out: dict[str, Any] = {}
    for name, gs in sorted(groups.items()):
        n = len(gs)
        row: dict[str, Any] = {"n": n}
        points = np.array([{"win": 1.0, "draw": 0.5}.get(g["result"], 0.0) for g in gs])
        per_game = {
            "win": points,
            "decisions": np.array([g["decisions"] for g in gs], dtype=float),
            "steps": np.array([g["steps"] for g in gs], dtype=float),
            "reward": np.array([g["reward"] for g in gs], dtype=float),
        }
        for key, values in per_game.items():
            row[key] = [float(values.mean()), float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0]
        total = sum(g["decisions"] for g in gs)
        for key in ("objects", "threshold", "death", "lethal"):
            # a ratio of sums; its standard error by the delta method over games
            num = np.array([g[key] for g in gs], dtype=float)
            den = np.array([g["decisions"] for g in gs], dtype=float)
            ratio = num.sum() / total
            resid = num - ratio * den
            se = math.sqrt((resid**2).sum()) / total if n > 1 else 0.0
            row[f"{key}_per_decision"] = [float(ratio), float(se)]
        out[name] = row
    return out


def compare(a: dict[str, Any], b: dict[str, Any]) -> tuple[list[str], int, int]:
    """Lines of ``a`` vs ``b`` per id, group and measure with z = difference / combined standard error;
    the number of comparisons and of |z| > 3."""
    lines, n, far = [], 0, 0
    for env_name in sorted(set(a["ids"]) & set(b["ids"])):
        sa, sb = a["ids"][env_name], b["ids"][env_name]
        for group in sorted(set(sa) & set(sb)):
            for key, va in sa[group].items():
                if key == "n" or key not in sb[group]:
                    continue
                vb = sb[group][key]
                se = math.hypot(va[1], vb[1])
                if se == 0:
                    continue
                z = (vb[0] - va[0]) / se
                n += 1
                far += abs(z) > 3
                a_text, b_text = f"{va[0]:.4f} ± {va[1]:.4f}", f"{vb[0]:.4f} ± {vb[1]:.4f}"
                lines.append(f"| {env_name} | {group} | {key} | {a_text} | {b_text} | {z:+.2f} |")
    return lines, n, far


def run_v0(args: argparse.Namespace) -> int:
    """``--version v0``: this script of :data:`V0_COMMIT` in ``args.v0_checkout`` (or a temporary worktree of it)."""
    with contextlib.ExitStack() as stack:
        checkout: Path | None = args.v0_checkout
        if checkout is None:
            checkout = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="proliferate-v0-"))) / "tree"
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", str(checkout), V0_COMMIT], check=True
            )
            stack.callback(subprocess.run, ["git", "-C", str(REPO), "worktree", "remove", "--force", str(checkout)])
        elif not (checkout / "benchmarks" / "same_game.py").is_file():
            print(
                f"--v0-checkout: {checkout} has no benchmarks/same_game.py (a checkout of {V0_COMMIT})", file=sys.stderr
            )
            return 2
        command = [sys.executable, "-m", "benchmarks.same_game", "--version", "v0", "--games", str(args.games)]
        command += ["--ids", *args.ids, "--seed", str(args.seed)]
        if args.out:
            command += ["--out", str(args.out.resolve())]
        root = str(checkout.resolve())
        return subprocess.run(command, cwd=root, env={**os.environ, "PYTHONPATH": root}, check=False).returncode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", default="v1", choices=("v0", "v1"), help="the env version to play")
    parser.add_argument(
        "--v0-checkout", type=Path, help=f"a checkout of {V0_COMMIT} for --version v0 (default: a temporary worktree)"
    )
    parser.add_argument("--games", type=int, default=10_008, help="games per id (split over deciders and decks)")
    parser.add_argument("--ids", nargs="+", default=list(NAMES), choices=NAMES)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="where to write the summary (JSON)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="compare two summaries")
    args = parser.parse_args(argv)
    if args.compare:
        a, b = (json.loads(p.read_text()) for p in args.compare)
        lines, n, far = compare(a, b)
        print(f"| id | group | measure | {a['version']} | {b['version']} | z |\n|---|---|---|---|---|---|")
        print("\n".join(lines))
        print(f"\n{n} comparisons, {far} with |z| > 3 (about {n * 0.0027:.1f} expected by chance)")
        return 0
    if args.version == "v0":
        return run_v0(args)
    per = max(1, args.games // (len(DECIDERS) * len(ARCHETYPES)))
    result: dict[str, Any] = {"version": args.version, "games_per_cell": {}, "ids": {}, "elapsed_s": {}}
    if args.out and args.out.exists():  # another run's ids of the same version are kept
        kept = json.loads(args.out.read_text())
        if kept.get("version") == args.version and isinstance(kept.get("games_per_cell"), dict):
            result = kept
    for name in args.ids:
        env_id = f"proliferate/{name}-{args.version}"
        start = time.perf_counter()
        games: list[dict[str, Any]] = []
        for a, archetype in enumerate(ARCHETYPES):
            made = make(env_id, archetype)
            for d, decider in enumerate(DECIDERS):
                cell = a * len(DECIDERS) + d
                games.extend(play(env_id, archetype, seed, decider, made) for seed in cell_seeds(args.seed, per, cell))
            made.close()
        result["ids"][name] = summarise(games)
        result["games_per_cell"][name] = per
        result["elapsed_s"][name] = time.perf_counter() - start
        print(f"{env_id}: {len(games)} games in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        if args.out:
            args.out.write_text(json.dumps(result, indent=1) + "\n")
    if not args.out:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
