"""The compiled core's state-based actions and the value of given choices (solver.kernels.settle / resolve).

Small boards whose answers the Comprehensive Rules give (704.5a, 704.5c, 704.5q, 704.6b, 714.4,
810.8a, 104.2a, 122.7 thresholds), then the batch against each board alone: a board's settle
and the value of its choices do not depend on the boards laid out with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from batch_strategies import random_boards

from env.policies import random_choice
from solver import load_board
from solver.batch import score_choices, settle_many
from solver.board import Board
from solver.kernels import score_layout, settle_layout, stack
from solver.kernels.after import counters_after_layout
from solver.objective import Objective
from solver.policy import DEFAULT_POLICY, Policy
from solver.rules import apply_matrix, counters_after, event_mask, losers, settle


def _board(
    players: Sequence[dict[str, Any]],
    permanents: Sequence[dict[str, Any]] = (),
    *,
    variant: str = "duel",
    proliferates: int = 1,
) -> Board:
    return load_board(
        {
            "variant": variant,
            "proliferator": "alice",
            "proliferates": proliferates,
            "players": list(players),
            "permanents": list(permanents),
        }
    )


def _duel(alice: dict[str, int], bob: dict[str, int], permanents: Sequence[dict[str, Any]] = ()) -> Board:
    return _board([{"id": "alice", "counters": alice}, {"id": "bob", "counters": bob}], permanents)


def _giant(bob: dict[str, int], carol: dict[str, int]) -> Board:
    return _board(
        [
            {"id": "alice", "team": "A"},
            {"id": "ally", "team": "A"},
            {"id": "bob", "team": "B", "counters": bob},
            {"id": "carol", "team": "B", "counters": carol},
        ],
        variant="two_headed_giant",
    )


def _one_round(board: Board, *ids: str, recipient: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    chosen = np.zeros((board.rounds, board.n_objects), dtype=bool)
    chosen[:, [board.index[i] for i in ids]] = True
    recipients = np.full((board.rounds, board.n_teams), -1, dtype=np.int64)
    if recipient is not None:
        recipients[:, board.team[board.index[recipient]]] = board.index[recipient]
    return chosen, recipients


def test_704_5q_annihilation_is_counted_and_the_counts_settle() -> None:
    board = _duel({}, {}, [{"id": "bear", "controller": "alice", "types": ["creature"], "power": 2, "toughness": 2,
                            "counters": {"+1/+1": 3, "-1/-1": 2}}])  # fmt: skip
    settled = settle(board, board.counts)
    row = board.index["bear"]
    assert int(settled.annihilated[row]) == 2
    assert settled.counts[row, board.kind_column("+1/+1")] == 1 and settled.counts[row, board.kind_column("-1/-1")] == 0


def test_704_5c_ten_poison_loses_and_the_events_are_the_settles_own() -> None:
    board = _duel({}, {"poison": 9})
    after = counters_after(board, *_one_round(board, "bob"))
    settled = settle(board, after)
    assert int(settled.events) == 0b10  # seat 1 (bob) loses
    assert event_mask(board, settled) == 0b10
    assert losers(board, settled).tolist() == [False, True]


def test_704_6b_a_2hg_team_loses_at_fifteen_shared_poison_both_heads_810_8a() -> None:
    board = _giant({"poison": 14}, {"poison": 14})
    outcome = apply_matrix(board, *_one_round(board, "bob", "carol", recipient="carol"))
    assert int(outcome.settled.events) == 0b10  # team B, seat 1 in 2HG (810.8a)
    assert outcome.losers == ("bob", "carol")
    assert outcome.settled.lost.tolist() == [False, False, True, True]


def test_104_2a_a_win_threshold_makes_every_opponent_lose() -> None:
    win: dict[str, Any] = {"kind": "growth", "at": 20, "effect": "win", "label": "win"}
    asc: dict[str, Any] = {"id": "asc", "controller": "alice", "types": ["enchantment"], "counters": {"growth": 19}}
    asc["thresholds"] = [win]
    board = _duel({}, {}, [asc])
    settled = settle(board, counters_after(board, *_one_round(board, "asc")))
    assert settled.thr_reached.tolist() == [True] and settled.thr_crossed.tolist() == [True]
    assert int(settled.events) == 1 << (0 + 1 * 2)  # seat 0's win bit, S = 2 seats
    assert losers(board, settled).tolist() == [False, True]


def test_714_4_a_saga_reaching_its_last_chapter_is_sacrificed_and_its_chapters_trigger() -> None:
    board = _duel({}, {}, [{"id": "saga", "controller": "alice", "types": ["enchantment"], "subtypes": ["Saga"],
                            "chapters": 3, "counters": {"lore": 2}}])  # fmt: skip
    settled = settle(board, counters_after(board, *_one_round(board, "saga")))
    row = board.index["saga"]
    assert (int(settled.chapters_before[row]), int(settled.chapters_after[row])) == (2, 3)
    assert bool(settled.sacrificed[row]) and not bool(settled.dies[row])


def test_settle_takes_leading_axes_as_copies() -> None:
    board = _duel({}, {"poison": 8})
    gain = counters_after(board, *_one_round(board, "bob")) - board.counts
    counts = board.counts + np.arange(3)[:, None, None] * gain
    settled = settle(board, counts)
    assert settled.events.tolist() == [0, 0, 0b10] and settled.lost.shape == (3, 2)


@pytest.fixture(scope="module")
def boards() -> list[Board]:
    return [load_board(data) for data in random_boards(seed=77, n=600)]


def test_a_layout_settles_each_board_as_it_settles_alone(boards: list[Board]) -> None:
    """settle_layout over many boards (kinds in the union's columns) is each board settled as a batch of one."""
    rng = np.random.default_rng(2)
    counts = [counters_after(board, *random_choice(board, rng)) for board in boards]
    many = settle_many(boards, counts)
    for board, own, (settled, lost) in zip(boards, counts, many, strict=True):
        alone = settle(board, own)
        for name in alone.__dataclass_fields__:
            assert np.array_equal(getattr(settled, name), getattr(alone, name)), name
        assert np.array_equal(lost, losers(board, alone))


def test_score_layout_scores_alternatives_in_one_call_as_the_objective_does_each(boards: list[Board]) -> None:
    """Three alternatives per board in one compiled call: each value is Objective.score_matrix's, choosing
    nothing is worth 0, and the baseline is the objective's."""
    rng = np.random.default_rng(8)
    policy = Policy(weights={"+1/+1": 1.5, "poison": 2.0})
    alternatives = [[random_choice(board, rng) for board in boards] for _ in range(3)]
    scored = score_choices(boards, alternatives, policy)
    for j, alternative in enumerate(alternatives):
        for b, (board, choice) in enumerate(zip(boards, alternative, strict=True)):
            assert int(scored.values[j, b]) == Objective(board, policy).score_matrix(*choice), (j, b)
    layout = stack(boards, policy)
    nothing = score_layout(
        layout, np.zeros((1, len(layout.flags)), dtype=np.int64), np.full((1, 4, int(layout.team_off[-1])), -1)
    )
    assert not nothing.values.any()
    assert nothing.baseline.tolist() == [Objective(board, policy).baseline for board in boards]


def test_a_settled_resolution_is_valued_as_its_choice_is(boards: list[Board]) -> None:
    """Objective.value_of (a resolution already settled) and score_matrix (its choice) are the same kernel's."""
    rng = np.random.default_rng(11)
    for board in boards[:300]:
        choice = random_choice(board, rng)
        objective = Objective(board)
        assert objective.value_of(apply_matrix(board, *choice).settled) == objective.score_matrix(*choice), board


def test_settle_layout_settles_copies_in_place() -> None:
    board = _duel({}, {"poison": 9})
    layout = stack([board], DEFAULT_POLICY)
    counts = np.repeat(layout.counts[None], 2, axis=0)
    counts[1, board.index["bob"], board.kind_column("poison")] = 10
    out = settle_layout(layout, counts)
    assert out.events[:, 0].tolist() == [0, 0b10] and out.lost[:, 0].tolist() == [0, 0b10]
    assert out.counts is counts


def test_701_34_counters_after_every_board_of_a_layout_are_each_board_s_alone(boards: list[Board]) -> None:
    """counters_after_layout (every board and alternative in one call) is rules.counters_after board by board.

    701.34a: each chosen object gains its gain table once per round; 701.34b / 810.10: a 2HG team's
    poison grows by what its named head receives, on every head (the boards include 2HG boards
    and several rounds).
    """
    rng = np.random.default_rng(5)
    layout = stack(boards, DEFAULT_POLICY)
    offsets, team_off = layout.obj_off.tolist(), layout.team_off.tolist()
    width = max(int(layout.rounds.max()), 1)
    choices = [[random_choice(board, rng) for board in boards] for _ in range(2)]
    times = np.zeros((2, offsets[-1]), dtype=np.int64)
    named = np.full((2, width, max(team_off[-1], 1)), -1, dtype=np.int64)
    for a, alternative in enumerate(choices):
        for b, (chosen, recipients) in enumerate(alternative):
            times[a, offsets[b] : offsets[b + 1]] = chosen.sum(axis=0)
            named[a, : recipients.shape[0], team_off[b] : team_off[b] + recipients.shape[1]] = recipients
    after = counters_after_layout(layout, times, named)
    assert after.shape == (2, *layout.counts.shape)
    assert any(layout.shared) and max(layout.rounds) > 1  # the cases the rule treats apart are there
    for a, alternative in enumerate(choices):
        for b, (board, (chosen, recipients)) in enumerate(zip(boards, alternative, strict=True)):
            cols = [layout.kinds.index(kind) for kind in board.kinds]
            alone = counters_after(board, chosen, recipients)
            assert np.array_equal(after[a, offsets[b] : offsets[b + 1]][:, cols], alone), (a, b)
