"""Regret per decision and the aggregates (solver.analysis.analyze)."""

from __future__ import annotations

import gc
import json
import random
import tempfile
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from analysis_helpers import creature, duel, record
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from solver.analysis import analyze as analyze_module
from solver.analysis.analyze import (
    DecisionResult,
    Item,
    Job,
    Judgement,
    Summary,
    analyze_chunk,
    analyze_items,
    analyze_record,
)
from solver.analysis.grading import Grade, Thresholds
from solver.analysis.inputs import Reader, expand
from solver.analysis.records import LineProblem, RecordError, parse_record
from solver.board import Board
from solver.errors import Problem
from solver.policy import Policy

EXAMPLES = (
    "classic",
    "self_poison_trap",
    "vorinclex_lethal",
    "nine_lives_trap",
    "proliferate_twice",
    "sagas_and_battles",
)


def _example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(files("solver.examples").joinpath(f"{name}.json").read_text())
    return data


def _two_bears() -> dict[str, Any]:
    return duel("alice", {}, {}, [creature("a", "alice", {"+1/+1": 1}), creature("b", "alice", {"+1/+1": 1})])


def test_an_optimal_record_has_zero_regret_and_grades_best() -> None:
    result = analyze_record(parse_record(record(_two_bears(), ["a", "b"])))
    assert result.regret == 0.0
    assert result.regret_norm == 0.0
    assert result.grade is Grade.BEST
    assert result.accuracy == 100.0
    assert result.comment == "Best."


def test_a_suboptimal_record_has_exactly_the_known_gap() -> None:
    # One +1/+1 counter on your own creature is worth 1 point; leaving out one of two costs exactly 1.
    result = analyze_record(parse_record(record(_two_bears(), ["a"])))
    assert result.value_best == 2.0 and result.value_chosen == 1.0 and result.value_worst == 0.0
    assert result.regret == 1.0
    assert result.regret_norm == pytest.approx(0.5)
    assert result.grade is Grade.GOOD  # one point of a small board: about 1.4 points of Win%
    assert result.comment == "Good: lost 1 point (winning chances 64% -> 63%) — also proliferate b (+1/+1 1 -> 2)"


def test_missed_poison_lethal_is_a_blunder_with_the_plain_words_comment() -> None:
    board = duel("alice", {}, {"poison": 9}, [creature("bears", "alice", {"+1/+1": 1})])
    result = analyze_record(parse_record(record(board, ["bears"])))
    assert result.grade is Grade.BLUNDER  # 704.5c: ten poison loses the game
    assert result.result_best == "win" and result.result_chosen == "none"
    assert result.comment == "Blunder: missed lethal — also proliferate bob (poison 9 -> 10)"


def test_a_self_inflicted_loss_is_a_blunder() -> None:
    board = duel("alice", {"poison": 9, "energy": 4}, {}, [])
    result = analyze_record(parse_record(record(board, ["alice"])))
    assert result.grade is Grade.BLUNDER  # 701.34a: the energy cannot be had without the poison
    assert result.comment.startswith("Blunder: self-inflicted loss — don't proliferate alice (poison 9 -> 10")


@pytest.mark.parametrize("name", EXAMPLES)
def test_values_agree_with_the_public_solver_api(name: str) -> None:
    data = _example(name)
    board = solver.load_board(data)
    rng = random.Random(name)
    ids = list(solver.eligible(board))
    chosen = [i for i in ids if rng.random() < 0.5 and i in {p.id for p in board.permanents}]
    result = analyze_record(parse_record(record(data, chosen)))
    score = solver.score(board, solver.Choice.of(chosen, rounds=board.rounds))
    assert result.value_chosen == pytest.approx(score.value)
    assert result.value_best == pytest.approx(solver.solve(board).value)
    assert result.regret == pytest.approx(score.regret)
    assert result.value_worst == pytest.approx(solver.worst_value(board))


def _result(decider: str, grade: Grade, regret: float, accuracy: float, game: str = "g") -> DecisionResult:
    empty: dict[str, Any] = {"chosen": [], "poison_recipients": {}, "rounds": [{"chosen": [], "poison_recipients": {}}]}
    return DecisionResult(
        0,
        "f:1",
        game,
        1,
        None,
        decider,
        ("alice", "bob"),
        (),
        empty,
        empty,
        0.0,
        regret,
        0.0,
        regret,
        0.5 if regret else 0.0,
        accuracy,
        grade,
        "none",
        "none",
        "",
    )


def test_a_player_without_decisions_gets_no_accuracy() -> None:
    summary = Summary()
    summary.add(_result("alice", Grade.BEST, 0.0, 100.0))
    assert summary.players["bob"].decisions == 0
    assert summary.players["bob"].accuracy is None
    assert summary.players_json()[1]["accuracy"] is None


def test_all_best_is_exactly_100_and_any_blunder_is_below() -> None:
    summary = Summary()
    for _ in range(3):
        summary.add(_result("alice", Grade.BEST, 0.0, 100.0))
    assert summary.players["alice"].accuracy == 100.0
    summary.add(_result("alice", Grade.BLUNDER, 1000.0, 0.0))
    accuracy = summary.players["alice"].accuracy
    assert accuracy is not None and accuracy < 100.0
    assert summary.players["alice"].counts["blunder"] == 1
    assert summary.players["alice"].total_regret == 1000.0
    assert summary.players["alice"].mean_regret == 250.0


def test_games_are_tallied_separately_per_player() -> None:
    summary = Summary()
    summary.add(_result("alice", Grade.BEST, 0.0, 100.0, game="one"))
    summary.add(_result("bob", Grade.MISTAKE, 2.0, 50.0, game="two"))
    games = summary.games_json()
    assert [g["game"] for g in games] == ["one", "two"]
    assert games[1]["players"][1] == {"player": "bob", **summary.games['"two"'].players["bob"].to_json()}
    assert games[1]["players"][0]["accuracy"] is None


def _items(n: int) -> list[tuple[str, int, str]]:
    rng = random.Random(7)
    out = []
    for i in range(n):
        data = _example(EXAMPLES[i % len(EXAMPLES)])
        board = solver.load_board(data)
        chosen = [p.id for p in board.permanents if p.counters and rng.random() < 0.5 and not p.phased_out]
        out.append(("mem", i + 1, json.dumps(record(data, chosen, game=f"g{i // 10}", turn=i % 10))))
    out.insert(5, ("mem", 999, "{not json"))
    return out


def test_two_workers_give_exactly_what_one_worker_gives() -> None:
    items = _items(90)
    one = list(analyze_items(items, workers=1, chunk_size=8))
    two = list(analyze_items(items, workers=2, chunk_size=8))
    assert one == two
    assert [r.index for r in one if isinstance(r, DecisionResult)] == list(range(90))
    assert sum(isinstance(r, LineProblem) for r in one) == 1


_GOOD = json.dumps(record(_two_bears(), ["a"]))
_KINDS = {
    "good": _GOOD,
    "not json": "{",
    "three problems": json.dumps({"game": None, "turn": "x", "decider": 1, "board": {}, "chosen": []}),
    "illegal choice": json.dumps(record(_two_bears(), ["alice"])),
    "blank": "   ",
}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(_KINDS)), max_size=14), st.integers(1, 4))
def test_lines_read_are_decisions_plus_skipped_lines_whatever_the_mix(kinds: list[str], chunk: int) -> None:
    """The counts reconcile (docs/analysis.md, Outputs) and problems are counted apart from lines."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mix.jsonl"
        path.write_text("\n".join(_KINDS[k] for k in kinds) + "\n")
        found, unmatched = expand([str(path)])
        reader, summary = Reader(found, unmatched), Summary()
        for result in analyze_items(reader, chunk_size=chunk):
            if isinstance(result, LineProblem):
                summary.skip(result)
            else:
                summary.add(result)
    summary.lines = reader.lines
    assert summary.lines == sum(k != "blank" for k in kinds)
    assert summary.decisions == kinds.count("good")
    assert summary.lines == summary.decisions + summary.skipped_lines
    assert summary.problems >= summary.skipped_lines + 2 * kinds.count("three problems")


def test_a_chunk_is_decided_in_one_call_and_a_board_it_cannot_take_stays_in_its_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = analyze_module.decide

    def counting(boards: Sequence[Board], policy: Policy | None = None) -> list[Judgement | RecordError]:
        calls.append(len(boards))
        out = real(boards, policy)
        out[1] = RecordError([Problem("board", "cannot analyse: too many seats")])
        return out

    monkeypatch.setattr(analyze_module, "decide", counting)
    job = Job([("f", i, _GOOD) for i in (1, 2, 3)], None, Thresholds())
    results = analyze_chunk(job)
    assert calls == [3]
    assert [type(r).__name__ for r in results] == ["DecisionResult", "LineProblem", "DecisionResult"]
    assert results[1] == LineProblem("f", 2, "board", "cannot analyse: too many seats")


def test_a_chunk_leaves_the_garbage_collector_as_it_found_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunk pauses the cyclic collector (see analyze_chunk); a bad line or an error must not leave it off."""
    job = Job([("f", 1, _GOOD), ("f", 2, "{not json"), ("f", 3, _GOOD)], None, Thresholds())
    assert gc.isenabled()
    assert [type(r).__name__ for r in analyze_chunk(job)] == ["DecisionResult", "LineProblem", "DecisionResult"]
    assert gc.isenabled()

    def failing(boards: Sequence[Board], policy: Policy | None = None) -> list[Judgement | RecordError]:
        raise RuntimeError("decision core failed")

    with monkeypatch.context() as patched:
        patched.setattr(analyze_module, "decide", failing)
        with pytest.raises(RuntimeError):
            analyze_chunk(job)
    assert gc.isenabled()
    gc.disable()
    try:
        analyze_chunk(job)
        assert not gc.isenabled()  # a caller's own pause is kept
    finally:
        gc.enable()


def _too_many_seats() -> dict[str, Any]:
    """Eleven players at nine poison and ten "win" thresholds one counter away: 21 seat events in play."""
    players = [{"id": f"p{i}", "life": 20, "counters": {"poison": 9}} for i in range(11)]
    reactors = [
        {
            "id": f"r{i}",
            "controller": f"p{i + 1}",
            "types": ["artifact"],
            "counters": {"charge": 1},
            "thresholds": [{"kind": "charge", "at": 2, "effect": "win", "label": "Darksteel Reactor"}],
        }
        for i in range(10)
    ]
    return {"format": 1, "variant": "free_for_all", "proliferator": "p0", "players": players, "permanents": reactors}


def test_a_board_the_batch_cannot_take_falls_back_to_one_by_one_and_sinks_only_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sizes: list[int] = []
    real = solver.batch.decide_many

    def counting(boards: Sequence[Board], policy: Any = None, *, sense: int = 1) -> Any:
        sizes.append(len(boards))
        return real(boards, policy, sense=sense)

    monkeypatch.setattr(analyze_module, "decide_many", counting)  # the name analyze calls
    good: list[Item] = [("f", i, _GOOD) for i in (1, 2)]
    assert [type(r).__name__ for r in analyze_chunk(Job(good, None, Thresholds()))] == ["DecisionResult"] * 2
    assert sizes == [2, 2]  # best and worst, one call each for the whole chunk
    sizes.clear()
    bad: Item = ("f", 3, json.dumps(record(_too_many_seats(), ["r0"])))
    results = analyze_chunk(Job([good[0], bad, good[1]], None, Thresholds()))
    assert sizes[0] == 3 and sizes[1:] == [1, 1, 1, 1, 1]  # the batch raised; then each board alone
    assert [type(r).__name__ for r in results] == ["DecisionResult", "LineProblem", "DecisionResult"]
    problem = results[1]
    assert isinstance(problem, LineProblem) and (problem.line, problem.path) == (3, "board")
    assert problem.message.startswith("cannot analyse: more than 20 seats")
    assert [results[0], results[2]] == analyze_chunk(Job(good, None, Thresholds()))


def test_a_chunk_judges_as_its_records_judged_one_at_a_time() -> None:
    """Batched scoring changes nothing: every example record, chunked, equals it analysed alone."""
    items = _items(24)
    chunked = [r for r in analyze_items(items, chunk_size=24) if isinstance(r, DecisionResult)]
    alone = [
        analyze_record(parse_record(json.loads(text)), index=i, location=f"{src}:{line}")
        for i, (src, line, text) in enumerate(t for t in items if t[1] != 999)
    ]
    assert chunked == alone
