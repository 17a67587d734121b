"""The envs' batched solver passes against one board at a time: ``score_many`` and ``settle_many``.

The delta and regret rewards score the agents' choices of every game in one
:func:`solver.batch.score_many` call; it must give exactly
:meth:`solver.objective.Objective.score_matrix` per board.  The games' state-based actions
(after events, and after every resolution) run in one :func:`solver.batch.settle_many`
call; it must give exactly :func:`solver.rules.settle` and :func:`solver.rules.losers` per
board.  Random boards of every variant (1-4 proliferates, replacement effects, thresholds,
Sagas, battles, 2HG poison recipients), with random, optimal, worst and empty choices.
"""

from __future__ import annotations

import numpy as np
import pytest
from batch_strategies import random_boards

from env.policies import noop_choice, random_choice
from solver.batch import decide_many, score_many, settle_many
from solver.board import Board, BoolArray, IntArray
from solver.boardjson import load_board
from solver.objective import Objective
from solver.policy import Policy
from solver.rules import Settled, counters_after, losers, settle

BOARDS = 3_000


@pytest.fixture(scope="module")
def boards() -> list[Board]:
    return [load_board(data) for data in random_boards(seed=31, n=BOARDS)]


def _one_by_one(
    boards: list[Board], choices: list[tuple[BoolArray, IntArray]], policy: Policy | None = None
) -> list[int]:
    return [Objective(b, policy).score_matrix(*c) for b, c in zip(boards, choices, strict=True)]


def test_random_choices_score_as_one_board_at_a_time(boards: list[Board]) -> None:
    rng = np.random.default_rng(5)
    choices = [random_choice(board, rng) for board in boards]
    got = score_many(boards, choices)
    assert got.tolist() == _one_by_one(boards, choices)
    assert len(set(got.tolist())) > 50  # the mix scores many different values, wins and losses among them
    assert got.max() > 100_000 and got.min() < -100_000


@pytest.mark.parametrize("sense", [1, -1])
def test_best_and_worst_choices_score_their_decided_values(boards: list[Board], sense: int) -> None:
    batch = decide_many(boards, sense=sense)
    choices = [batch.matrices(b) for b in range(len(boards))]
    assert score_many(boards, choices).tolist() == batch.values.tolist()


def test_choosing_nothing_scores_zero(boards: list[Board]) -> None:
    rng = np.random.default_rng(0)
    assert not score_many(boards[:500], [noop_choice(b, rng) for b in boards[:500]]).any()


def test_another_policy_is_the_objectives(boards: list[Board]) -> None:
    policy = Policy.from_dict({"weights": {"poison": -3.0, "loyalty": 2.0}, "game": {"win": 50.0}})
    rng = np.random.default_rng(9)
    part = boards[:800]
    choices = [random_choice(board, rng) for board in part]
    assert score_many(part, choices, policy).tolist() == _one_by_one(part, choices, policy)


def test_one_board_and_none() -> None:
    board = load_board("solver/examples/classic.json")
    choice = random_choice(board, np.random.default_rng(1))
    assert score_many([board], [choice]).tolist() == _one_by_one([board], [choice])
    assert score_many([], []).shape == (0,)
    with pytest.raises(ValueError, match="one choice per board"):
        score_many([board], [])


def _same_settled(got: Settled, want: Settled) -> None:
    for name in Settled.__dataclass_fields__:
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_settle_many_is_settle_and_losers_per_board(boards: list[Board]) -> None:
    rng = np.random.default_rng(3)
    counts = [counters_after(board, *random_choice(board, rng)) for board in boards]
    got = settle_many(boards, counts)
    lost_any = 0
    for board, own, (settled, lost) in zip(boards, counts, got, strict=True):
        want = settle(board, own)
        _same_settled(settled, want)
        assert np.array_equal(lost, losers(board, want))
        lost_any += bool(lost.any())
    assert lost_any > 100  # the mix has losses to find


def test_settle_many_of_the_boards_as_they_are(boards: list[Board]) -> None:
    part = boards[:1000]
    for board, (settled, lost) in zip(part, settle_many(part, [b.counts for b in part]), strict=True):
        want = settle(board, board.counts)
        _same_settled(settled, want)
        assert np.array_equal(lost, losers(board, want))
    assert settle_many([], []) == []
