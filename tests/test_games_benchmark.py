"""benchmarks/games.py and benchmarks/winprob_fit.py at a tiny size, and simulated games reviewed end to end."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.games import DECIDERS, play, summarise, wilson
from solver.analysis.analyze import DecisionResult, analyze_items
from solver.analysis.grading import Grade

ROOT = Path(__file__).resolve().parent.parent


def test_wilson_interval_matches_the_textbook_values() -> None:
    low, high = wilson(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 20)
    assert low == 0.0 and 0.16 < high < 0.17


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
    games = [play("proliferate/Duel-v1", "infect", seed, d) for seed in range(3) for d in DECIDERS]
    summary = summarise(games)
    row = summary["all"]
    assert row["games"] == 3
    for decider in DECIDERS:
        assert row[decider]["games"] == 3
        low, high = row[decider]["wilson95"]
        assert 0.0 <= low <= row[decider]["win_rate"] <= high <= 1.0
    by_seed = {(g.seed, g.decider): g.result for g in games}
    changed = sum(by_seed[(s, "random")] != by_seed[(s, "oracle")] for s in range(3))
    assert row["random"]["changed"] == changed


def test_the_scripts_print_tables_and_write_their_results(tmp_path: Path) -> None:
    out, games_out, fit = tmp_path / "games.json", tmp_path / "games.jsonl.gz", tmp_path / "fit.json"
    run = [sys.executable, "-m", "benchmarks.games", "--games", "2", "--archetypes", "infect", "plus_counters"]
    run += ["--json", str(out), "--games-out", str(games_out)]
    done = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "## By environment and archetype" in done.stdout and "| Duel infect" in done.stdout
    assert set(json.loads(out.read_text())["summary"]["all"]) >= {"games", *DECIDERS}
    with gzip.open(games_out, "rt") as lines:
        assert len(lines.readlines()) == 3 * 2 * 2 * len(DECIDERS)
    fit_run = [sys.executable, "-m", "benchmarks.winprob_fit", "--games-file", str(games_out), "--json", str(fit)]
    done = subprocess.run(fit_run, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    data = json.loads(fit.read_text())
    assert data["k"] >= 0 and data["samples"] > 0 and data["excluded_archetypes"] == ["superfriends"]


@pytest.mark.parametrize("env_id", ["proliferate/TwoHeadedGiant-v1", "proliferate/FreeForAll-v1"])
def test_multiplayer_records_are_legal_choices(env_id: str) -> None:
    records: list[dict[str, object]] = []
    for decider in ("random", "everything"):
        play(env_id, "infect", 1, decider, records)
    items = [("sim", i + 1, rec) for i, rec in enumerate(records)]
    results = list(analyze_items(items))
    assert all(isinstance(r, DecisionResult) for r in results)  # no record was rejected as illegal
    assert np.isfinite([r.regret for r in results if isinstance(r, DecisionResult)]).all()
