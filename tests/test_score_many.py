"""Given choices scored over stacked boards (solver.batch.score_many / score_choices / material_spans).

Differential tests on seeded random boards (every variant, 1-4 proliferates, replacement
effects, thresholds, Sagas, battles, 2HG poison recipients): scoring many boards at once must
give exactly what the objective gives one board at a time -- the value of the choice
(:meth:`Objective.score_matrix`), its game events, game score and result in words, the
material balance after it, and the material range the game weight is raised above.
"""

from __future__ import annotations

import numpy as np
import pytest
from batch_strategies import random_boards

from solver import Policy, load_board
from solver.analysis.winprob import settled_material
from solver.batch import decide_many, material_spans, score_choices, score_many
from solver.board import Board, BoolArray, IntArray
from solver.objective import MILLI, Objective
from solver.rules import Choice, ChoiceMatrix, Round, apply_matrix, eligible, event_mask

BOARDS = 1_500


@pytest.fixture(scope="module")
def boards() -> list[Board]:
    return [load_board(data) for data in random_boards(seed=31, n=BOARDS)]


def _random_choice(board: Board, rng: np.random.Generator) -> tuple[BoolArray, IntArray]:
    """A legal choice drawn at random, checked by the rules (a 2HG team's poison to a random chosen head)."""
    ids = eligible(board)
    poison = board.kind_column("poison")
    rounds = []
    for _ in range(board.rounds):
        chosen = tuple(i for i in ids if rng.random() < 0.5)
        named: dict[str, str] = {}
        if board.variant.value == "two_headed_giant" and poison >= 0:
            for t, team in enumerate(board.team_names):
                heads = [h for h in chosen if board.index[h] < board.n_players and board.team[board.index[h]] == t]
                heads = [h for h in heads if board.counts[board.index[h], poison] > 0]
                if heads:
                    named[team] = heads[int(rng.integers(len(heads)))]
        rounds.append(Round(chosen, named))
    matrix = ChoiceMatrix.from_choice(board, Choice(tuple(rounds)))
    return matrix.chosen, matrix.recipients


@pytest.fixture(scope="module")
def choices(boards: list[Board]) -> list[tuple[BoolArray, IntArray]]:
    rng = np.random.default_rng(4)
    return [_random_choice(b, rng) for b in boards]


def test_the_mix_covers_two_headed_recipients_and_game_results(
    boards: list[Board], choices: list[tuple[BoolArray, IntArray]]
) -> None:
    assert {b.rounds for b in boards} >= {1, 2, 3, 4}
    assert sum(int((r >= 0).sum()) for _, r in choices) > 100
    scored = score_choices(boards, [choices])
    assert {"win", "loss", "eliminations", "none"} <= set(scored.results[0])


def test_score_many_is_the_objective_board_by_board(
    boards: list[Board], choices: list[tuple[BoolArray, IntArray]]
) -> None:
    values = score_many(boards, choices)
    expected = [Objective(b).score_matrix(c, r) for b, (c, r) in zip(boards, choices, strict=True)]
    assert values.tolist() == expected


def test_every_part_of_the_score_is_the_objective_s(
    boards: list[Board], choices: list[tuple[BoolArray, IntArray]]
) -> None:
    """Events, game score and result, material balance: of the chosen and of the best choice, in one pass."""
    best = decide_many(boards)
    optimal = [best.matrices(b) for b in range(len(boards))]
    scored = score_choices(boards, [choices, optimal])
    assert scored.values[1].tolist() == best.values.tolist()
    assert list(scored.results[1]) == list(best.results)
    for j, alternative in enumerate((choices, optimal)):
        for b, (board, (chosen, recipients)) in enumerate(zip(boards, alternative, strict=True)):
            objective = Objective(board)
            settled = apply_matrix(board, chosen, recipients).settled
            events = event_mask(board, settled)
            assert int(scored.events[j, b]) == events
            assert float(scored.scores[j, b]) == objective.game_score(events)
            assert scored.results[j][b] == objective.game_result(events)
            assert int(scored.material[j, b]) == round(settled_material(objective, settled) * MILLI)


def test_material_spans_raise_the_game_weight_as_the_objective_does(boards: list[Board]) -> None:
    policy = Policy()
    spans = material_spans(boards, policy)
    for board, span in zip(boards, spans.tolist(), strict=True):
        objective = Objective(board, policy)
        units = objective.units
        expected = int((units.single_material.max(axis=1) - units.single_material.min(axis=1)).sum())
        expected += sum(max(o.material for o in t.options) - min(o.material for o in t.options) for t in units.teams)
        assert span == expected
        gap = policy.score_gap(int(objective.core.n_opponents[0]))
        assert objective.game_weight == max(policy.game_weight, (span / MILLI + 1.0) / gap)


def test_given_spans_change_nothing_and_a_policy_is_honoured(
    boards: list[Board], choices: list[tuple[BoolArray, IntArray]]
) -> None:
    policy = Policy(weights={"+1/+1": 3.0, "poison": 2.5})
    some, picked = boards[:300], choices[:300]
    derived = score_choices(some, [picked], policy)
    given = score_choices(some, [picked], policy, spans=material_spans(some, policy))
    assert derived.values.tolist() == given.values.tolist()
    assert derived.values[0].tolist() == [
        Objective(b, policy).score_matrix(c, r) for b, (c, r) in zip(some, picked, strict=True)
    ]


def test_nothing_to_score() -> None:
    assert score_many([], []).shape == (0,)
    assert material_spans([]).shape == (0,)
    with pytest.raises(ValueError, match="one choice per board"):
        score_choices([load_board("solver/examples/classic.json")], [[]])


def test_a_policy_finer_than_milli_points_has_one_material_balance() -> None:
    """The material balance analysis reads (solver.analysis.winprob) is the core's material, which scores the
    policy's weights in milli-points: three +1/+1 counters at 1.2345 are 3 x 1.234 points, not 3.7035."""
    policy = Policy.from_dict({"weights": {"+1/+1": 1.2345}})
    board = load_board(
        {
            "variant": "duel",
            "proliferator": "alice",
            "players": [{"id": "alice"}, {"id": "bob"}],
            "permanents": [
                {"id": "bear", "controller": "alice", "types": ["creature"], "power": 1, "toughness": 1,
                 "counters": {"+1/+1": 3}},
            ],
        }
    )  # fmt: skip
    objective = Objective(board, policy)
    nothing = (np.zeros((board.rounds, board.n_objects), dtype=bool), np.full((board.rounds, 0), -1, dtype=np.int64))
    scored = score_choices([board], [[nothing]], policy)
    assert int(scored.material[0, 0]) == 2000 + 3 * 1234
    assert round(settled_material(objective, objective.settled_nothing) * MILLI) == 2000 + 3 * 1234
