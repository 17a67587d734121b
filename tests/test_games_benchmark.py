"""benchmarks/games.py and benchmarks/winprob_fit.py at a tiny size, the compiled whole games against the env's
game, and simulated games reviewed end to end."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from benchmarks.games import (
    DECIDERS,
    ENV_IDS,
    _made,
    engine_of,
    play,
    play_cell,
    same_game,
    stream_seed,
    summarise,
    wilson,
)
from env.core import ProliferateEnv
from env.kernels import game as K
from env.kernels.engine import Engine
from env.kernels.state import G_PROUND, G_STEPS
from solver.analysis.analyze import DecisionResult, analyze_items
from solver.analysis.grading import Grade

ROOT = Path(__file__).resolve().parent.parent


def test_wilson_interval_matches_the_textbook_values() -> None:
    low, high = wilson(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 20)
    assert low == 0.0 and 0.16 < high < 0.17


def _env_engine(env_id: str, archetype: str) -> Engine:
    core: ProliferateEnv = _made(env_id, archetype).unwrapped  # type: ignore[assignment]
    return core._core.engine


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_compiled_policy_plays_the_game_the_env_plays_with_the_python_policy(env_id: str) -> None:
    """The differential test of the fast path: a whole game with the agent's decisions made by a compiled policy
    (Engine.play) ends in the state, result and decision count of the same seed played through the Gymnasium env
    with the Python policy of that name (env.policies.BOARD_POLICIES) stepping it, for every policy (the random
    one drawing from the game's own stream, as the compiled one does); 701.34a choices, 704.3 after each."""
    for archetype, seeds in (("infect", (3, 11)), ("sagas_battles", (5,))):
        compiled = engine_of(env_id, archetype, slots=1)
        for seed in seeds:
            for decider in DECIDERS:
                python = play(env_id, archetype, seed, decider)
                row = compiled.play([stream_seed(seed)], decider)[0]
                assert same_game(python, row), (archetype, seed, decider, python, row)
                theirs, ours = _env_engine(env_id, archetype).arrays, compiled.arrays
                for name in ("counts", "obj", "seat", "effects", "rng"):
                    assert np.array_equal(getattr(theirs, name)[0], getattr(ours, name)[0]), (name, decider, seed)
                # The env counts its steps (a decision's rounds) and the round its action is in; a compiled policy
                # decides all rounds at once and counts its decisions.
                same = np.ones(theirs.game.shape[1], dtype=np.bool_)
                same[[G_STEPS, G_PROUND]] = False
                assert np.array_equal(theirs.game[0, same], ours.game[0, same]), (decider, seed)


def test_whole_games_are_the_same_on_one_thread_or_two_and_on_any_number_of_slots() -> None:
    """Each game starts from its own seed's stream and draws only from it (issue 28's "a random stream per game")."""
    streams = [stream_seed(s) for s in range(40)]
    few = engine_of(ENV_IDS[1], "infect", slots=3)
    many = engine_of(ENV_IDS[1], "infect", slots=16)
    before = numba.get_num_threads()
    try:
        for decider in ("random", "oracle"):
            numba.set_num_threads(1)
            one = few.play(streams, decider)
            numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
            two = many.play(streams, decider)
            assert np.array_equal(one, two)
            assert (one[:, K.W_ERROR] == 0).all() and (one[:, K.W_DECISIONS] > 0).all()
    finally:
        numba.set_num_threads(before)


def test_whole_games_refuse_a_policy_that_is_not_compiled() -> None:
    engine = engine_of(ENV_IDS[0], "infect", slots=1)
    with pytest.raises(ValueError, match="policy must be one of"):
        engine.play([1], "python")
    with pytest.raises(ValueError, match="policy must be one of"):
        engine.play([1], "filter")


def test_same_seed_same_game_and_the_oracle_reviews_as_best() -> None:
    records: list[dict[str, object]] = []
    first = play("proliferate/Duel-v1", "infect", 4, "oracle", records)
    again = play("proliferate/Duel-v1", "infect", 4, "oracle")
    assert first == again
    assert first.decisions == len(records) == len(first.balances) > 0
    items = [("sim", i + 1, rec) for i, rec in enumerate(records)]
    results = [r for r in analyze_items(items) if isinstance(r, DecisionResult)]
    assert len(results) == len(records)
    assert all(r.grade is Grade.BEST and r.regret == 0.0 for r in results)  # the oracle is the solver's optimum


def test_a_baseline_that_changes_the_result_is_counted_against_the_oracle() -> None:
    cell = play_cell("proliferate/Duel-v1", "infect", range(30))
    summary = summarise([cell])
    row = summary["all"]
    assert row["games"] == 30
    points = {d: cell.points(d) for d in DECIDERS}
    for decider in DECIDERS:
        low, high = row[decider]["wilson95"]
        assert 0.0 <= low <= row[decider]["win_rate"] <= high <= 1.0
        assert row[decider]["score"] == points[decider].sum()
    changed = (cell.rows["random"][:, K.W_RESULT] != cell.rows["oracle"][:, K.W_RESULT]).sum()
    assert row["random"]["changed"] == changed
    lead = row["rule"]["oracle_lead"]
    assert lead["mean"] == pytest.approx((points["oracle"] - points["rule"]).mean())
    assert lead["low"] <= lead["mean"] <= lead["high"]
    split = summary["poison in play"]["games"] + summary["no poison at start"]["games"]
    assert split == 30 == summary["threshold or Saga in play"]["games"] + summary["no threshold or Saga"]["games"]


def test_the_scripts_print_tables_and_write_their_results(tmp_path: Path) -> None:
    out, games_out, fit = tmp_path / "games.json", tmp_path / "games.jsonl.gz", tmp_path / "fit.json"
    run = [sys.executable, "-m", "benchmarks.games", "--games", "3", "--records", "2"]
    run += ["--archetypes", "infect", "plus_counters", "--json", str(out), "--games-out", str(games_out)]
    done = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "## By environment and archetype" in done.stdout and "| Duel infect" in done.stdout
    assert "games/s" in done.stdout and "u = " in done.stdout
    data = json.loads(out.read_text())
    assert data["games"] == 3 * 2 * 3 * len(DECIDERS) and data["python_games_same_as_compiled"] == data["python_games"]
    assert set(data["summary"]["all"]) >= {"games", *DECIDERS}
    with gzip.open(games_out, "rt") as lines:
        assert len(lines.readlines()) == 3 * 2 * 2 * len(DECIDERS)
    fit_run = [sys.executable, "-m", "benchmarks.winprob_fit", "--games-file", str(games_out), "--json", str(fit)]
    done = subprocess.run(fit_run, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    data = json.loads(fit.read_text())
    assert data["k"] >= 0 and data["samples"] > 0 and data["excluded_archetypes"] == ["superfriends"]


@pytest.mark.parametrize("env_id", ENV_IDS[1:])
def test_multiplayer_records_are_legal_choices(env_id: str) -> None:
    records: list[dict[str, object]] = []
    for decider in ("random", "everything"):
        play(env_id, "infect", 1, decider, records)
    items = [("sim", i + 1, rec) for i, rec in enumerate(records)]
    results = list(analyze_items(items))
    assert all(isinstance(r, DecisionResult) for r in results)  # no record was rejected as illegal
    assert np.isfinite([r.regret for r in results if isinstance(r, DecisionResult)]).all()
