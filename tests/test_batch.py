"""The batched core against one board at a time: :func:`solver.batch.decide_many` / ``solve_many``.

Differential tests on ten thousand seeded random boards (every variant, 1-4 proliferates,
replacement effects, thresholds, Sagas, battles, 2HG poison recipients): the batch must give
exactly what :func:`solver.solve` gives per board -- value, choice in every round with its
poison recipients, status, game result -- and what brute force gives on small boards.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from batch_strategies import random_boards

from benchmarks.boards import BoardSpec, generate
from solver import Choice, Policy, load_board, solve
from solver.batch import (
    CHUNK,
    CHUNK_ROWS,
    chunk_bounds,
    decide_many,
    decide_one,
    material_spans,
    score_choices,
    solve_many,
    stacked,
)
from solver.board import Board
from solver.brute import MAX_BRUTE, solve_brute
from solver.objective import MILLI, Objective
from solver.rules import ChoiceMatrix, apply_matrix, eligible_mask, event_mask

BOARDS = 10_000


@pytest.fixture(scope="module")
def boards() -> list[Board]:
    return [load_board(data) for data in random_boards(seed=12, n=BOARDS)]


def _choice(board: Board, chosen: np.ndarray, recipients: np.ndarray) -> Choice:
    return ChoiceMatrix(board, chosen, recipients).to_choice()


def test_the_mix_covers_every_feature(boards: list[Board]) -> None:
    assert {b.variant.value for b in boards} == {"duel", "free_for_all", "two_headed_giant"}
    assert {b.rounds for b in boards} >= {1, 2, 3, 4}
    assert sum(1 for b in boards if b.effects) > BOARDS // 3
    assert sum(1 for b in boards if len(b.thr_object)) > BOARDS // 3
    recipients = decide_many(boards).recipients
    assert (recipients >= 0).sum() > 100  # 2HG teams whose poison went to a named head


def test_decide_many_equals_the_fast_path_on_every_board(boards: list[Board]) -> None:
    """What ``solve`` returns by default is the fast path's answer (checked against ``solve`` below)."""
    batch = decide_many(boards)
    assert len(batch) == len(boards)
    for b, board in enumerate(boards):
        one = decide_one(board)
        assert int(batch.values[b]) == one.value, board
        chosen, recipients = batch.matrices(b)
        assert np.array_equal(chosen, one.chosen) and np.array_equal(recipients, one.recipients), board


def test_decide_many_equals_solve(boards: list[Board]) -> None:
    batch = decide_many(boards[:1500])
    for b, board in enumerate(boards[:1500]):
        decision = solve(board)
        assert int(batch.values[b]) == round(decision.value * MILLI), board
        assert _choice(board, *batch.matrices(b)) == decision.choice, board
        assert batch.results[b] == decision.game_result, board


def test_worst_choice_equals_the_fast_path_worst(boards: list[Board]) -> None:
    batch = decide_many(boards[:2000], sense=-1)
    for b, board in enumerate(boards[:2000]):
        assert int(batch.values[b]) == decide_one(board, sense=-1).value, board


def test_small_boards_equal_brute_force(boards: list[Board]) -> None:
    small = [b for b in boards if int(eligible_mask(b).sum()) * b.rounds <= min(MAX_BRUTE, 7)][:150]
    assert len(small) == 150
    batch = decide_many(small)
    for b, board in enumerate(small):
        chosen, recipients, value = solve_brute(Objective(board))
        assert int(batch.values[b]) == value, board
        assert _choice(board, *batch.matrices(b)) == _choice(board, chosen, recipients), board


def test_solve_many_gives_solves_decisions(boards: list[Board]) -> None:
    sample = boards[:500]
    for board, many in zip(sample, solve_many(sample), strict=True):
        one = solve(board)
        assert (many.choice, many.value, many.status, many.method, many.game_result, many.bound) == (
            one.choice,
            one.value,
            one.status,
            one.method,
            one.game_result,
            one.bound,
        )
    board = sample[7]
    many, one = solve_many([board])[0], solve(board)
    assert many.outcome.to_json() == one.outcome.to_json()
    assert many.explanation == one.explanation


def test_inputs_may_be_dicts_or_json_text() -> None:
    data = random_boards(seed=3, n=3)
    mixed: list[Board | dict[str, Any] | str] = [load_board(data[0]), data[1], json.dumps(data[2])]
    values = decide_many(mixed).values
    assert [int(v) for v in values] == [round(solve(load_board(d)).value * MILLI) for d in data]


def test_chunks_join_in_input_order(boards: list[Board], monkeypatch: pytest.MonkeyPatch) -> None:
    whole = decide_many(boards[:300])
    monkeypatch.setattr("solver.batch.CHUNK", 64)
    parts = decide_many(boards[:300])
    assert np.array_equal(whole.values, parts.values)
    for b in range(300):
        for mine, theirs in zip(whole.matrices(b), parts.matrices(b), strict=True):
            assert np.array_equal(mine, theirs)


def test_a_shared_stack_decides_and_scores_as_stacks_of_their_own(boards: list[Board]) -> None:
    """Inside ``stacked`` the boards are one stack in input order (mixed rounds, no ranking): same answers."""
    sample = boards[:500]
    alone = [decide_many(sample, sense=s) for s in (1, -1)]
    spans = material_spans(sample)
    best = [alone[0].matrices(b) for b in range(len(sample))]
    scored = score_choices(sample, [best], spans=spans)
    with stacked(sample):
        shared = [decide_many(sample, sense=s) for s in (1, -1)]
        shared_spans = material_spans(sample)
        shared_scored = score_choices(sample, [best], spans=shared_spans)
        other = decide_many(sample[:10])  # other boards: a stack of their own
    assert np.array_equal(spans, shared_spans)
    assert np.array_equal(scored.values, shared_scored.values) and scored.results == shared_scored.results
    assert np.array_equal(other.values, alone[0].values[:10])
    for mine, theirs in zip(alone, shared, strict=True):
        assert np.array_equal(mine.values, theirs.values) and mine.results == theirs.results
        assert np.array_equal(mine.events, theirs.events)
        for b in range(len(sample)):
            for m, t in zip(mine.matrices(b), theirs.matrices(b), strict=True):
                assert np.array_equal(m, t)


def test_empty_batch_and_bad_sense() -> None:
    assert len(decide_many([])) == 0
    assert solve_many([]) == []
    with pytest.raises(ValueError, match="sense"):
        decide_many([], sense=0)


def test_a_policy_applies_to_every_board(boards: list[Board]) -> None:
    policy = Policy(weights={"+1/+1": 2.0, "loyalty": 0.5, "charge": -0.25}, elimination=0.4, saga_chapter=0.7)
    sample = boards[:400]
    batch = decide_many(sample, policy)
    for b, board in enumerate(sample):
        decision = solve(board, policy)
        assert int(batch.values[b]) == round(decision.value * MILLI), board
        assert _choice(board, *batch.matrices(b)) == decision.choice, board


def test_the_fast_path_reports_the_events_of_its_choice(boards: list[Board]) -> None:
    """The fast path's events are the game-event mask of the resolution it chose (no second settle needed)."""
    for board in boards[:300]:
        one = decide_one(board)
        outcome = apply_matrix(board, one.chosen, one.recipients)
        assert one.events == event_mask(board, outcome.settled), board


def test_decide_one_is_what_solve_decides(boards: list[Board]) -> None:
    for board in boards[:300]:
        one, decision = decide_one(board), solve(board)
        assert one.value == round(decision.value * MILLI), board
        assert _choice(board, one.chosen, one.recipients) == decision.choice, board
        assert one.game_result() == decision.game_result, board


def test_the_fast_paths_value_is_the_score_of_its_choice(boards: list[Board]) -> None:
    """``solve`` reports the fast path's own value, so it must equal settling its choice and scoring it."""
    for board in boards[:1500]:
        for sense in (1, -1):
            one = decide_one(board, sense=sense)
            assert one.value == Objective(board).score_matrix(one.chosen, one.recipients), board


def test_chunks_cover_the_boards_in_order_bounded_by_boards_and_rows() -> None:
    """Batched calls stack consecutive boards, at most CHUNK of them and CHUNK_ROWS rows (a bigger board alone),
    and what they decide does not depend on where the chunks fall."""
    sizes = [3] * 300 + [20] * 200 + [CHUNK_ROWS + 40] + [200] * 30 + [5]
    boards = [load_board(generate(BoardSpec(n, seed=s))) for s, n in enumerate(sizes)]
    bounds = list(chunk_bounds(boards))
    assert bounds[0][0] == 0 and bounds[-1][1] == len(boards)
    assert all(a[1] == b[0] for a, b in pairwise(bounds))
    for start, stop in bounds:
        rows = sum(len(board.counts) for board in boards[start:stop])
        assert stop - start <= CHUNK and (rows <= CHUNK_ROWS or stop - start == 1)
    assert any(stop - start == CHUNK for start, stop in bounds)  # small boards: the board bound
    assert any(  # mid-sized ones: the row bound (the next board would not have fit)
        stop < len(boards) and sum(len(b.counts) for b in boards[start : stop + 1]) > CHUNK_ROWS > stop - start
        for start, stop in bounds
    )
    assert any(stop - start == 1 and len(boards[start].counts) > CHUNK_ROWS for start, stop in bounds)
    together = decide_many(boards[:560])
    apart = [decide_many([board]) for board in boards[:560:37]]
    for k, alone in enumerate(apart):
        assert int(together.values[37 * k]) == int(alone.values[0])


def test_a_board_derived_from_a_stacked_one_is_stacked_with_its_own_counters(boards: list[Board]) -> None:
    """A board's stack record (solver.kernels.layout.record) is kept with it; every derived board drops it."""
    from solver.board import STACK

    sample = [b for b in boards if b.n_objects > b.n_players][:200]
    decide_many(sample)  # every board's record is kept now
    assert all(STACK in b.__dict__ for b in sample)
    derived = [b.with_counts(b.counts * 2) for b in sample] + [b.with_life(b.life + 3) for b in sample]
    assert not any(STACK in b.__dict__ for b in derived)
    fresh = [load_board(b.to_dict()) for b in derived]
    got, want = decide_many(derived), decide_many(fresh)
    assert got.values.tolist() == want.values.tolist()
    assert np.array_equal(got.chosen, want.chosen) and np.array_equal(got.recipients, want.recipients)


def test_a_large_boards_counters_are_joined_where_they_are_alone_and_copied_in_a_batch(boards: list[Board]) -> None:
    """A board above RECORD_KEPT_CELLS keeps no stack record; alone, the join reads its counters and gains in
    place (no copy first); in a batch they are copied with the others. Both decide as solve() does."""
    from solver.board import STACK
    from solver.kernels.layout import RECORD_KEPT_CELLS

    large = [
        load_board(generate(BoardSpec(600, variant, extras=True, seed=5))) for variant in ("duel", "two_headed_giant")
    ]
    assert all(b.counts.size > RECORD_KEPT_CELLS for b in large)
    for board in large:
        alone = decide_many([board])
        mixed = decide_many([boards[0], board, boards[1]])
        assert STACK not in board.__dict__
        assert int(alone.values[0]) == int(mixed.values[1]) == round(solve(board).value * MILLI)
        assert np.array_equal(alone.matrices(0)[0], mixed.matrices(1)[0])
