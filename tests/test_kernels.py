"""The compiled core (solver.kernels): a board alone and in a batch, against brute force and the rules themselves.

The fixture (tests/test_fixture.py) holds the decisions of the numpy path the core replaced."""

from __future__ import annotations

import numpy as np
from batch_strategies import random_boards
from hypothesis import HealthCheck, given, settings
from strategies import boards as board_strategy

from benchmarks.fixture import board_dict, subset
from solver import load_board, solve
from solver.batch import decide_one
from solver.board import Board
from solver.brute import MAX_BRUTE, solve_brute
from solver.kernels import _decide_arrays, decide
from solver.kernels.exact import (
    D_SPAN,
    D_VALUE,
    SPAN_ONLY,
    choosable_701_34a,
    split_units,
    team_option_values,
    team_poison_810_10,
)
from solver.kernels.layout import (
    F_CREATURE,
    F_DESTRUCTIBLE,
    F_PHASED_OUT,
    F_PLANESWALKER,
    F_PLAYER,
    F_PRESENT,
    F_SAGA,
)
from solver.kernels.sba import (
    annihilate_704_5q,
    lethal_damage_704_5g,
    planeswalker_loyalty_704_5i,
    saga_sacrifice_714_4,
    settle_row,
)
from solver.objective import Objective
from solver.policy import DEFAULT_POLICY
from solver.rules import choice_matrix, eligible_mask


def _mismatches(boards: list[Board], sense: int = 1) -> list[int]:
    """Boards a batch decides otherwise than the board alone (``decide_one``: ``solve()``'s path, a batch of one).

    A batch joins boards of different kinds and sizes into one layout: none of that may move an answer.
    """
    layout, got = decide(boards, DEFAULT_POLICY, sense)
    bad = []
    for b, board in enumerate(boards):
        want = decide_one(board, sense=sense)
        lo, hi = layout.obj_off[b], layout.obj_off[b + 1]
        t_lo, t_hi = layout.team_off[b], layout.team_off[b + 1]
        r = board.rounds
        same = (
            got.values[b] == want.value
            and np.array_equal(got.chosen[:r, lo:hi], want.chosen)
            and np.array_equal(got.recipients[:r, t_lo:t_hi], want.recipients)
            and got.events[b] == want.events
            and got.results[b] == want.game_result()
        )
        if not same:
            bad.append(b)
    return bad


def test_a_batch_decides_the_fixture_subset_as_each_board_alone() -> None:
    boards = [load_board(board_dict(i)) for i in subset(1_000, seed=1)]
    assert _mismatches(boards, 1) == []
    assert _mismatches(boards, -1) == []


def test_a_batch_decides_the_batched_strategies_as_each_board_alone() -> None:
    boards = [load_board(d) for d in random_boards(seed=26, n=2_000)]
    assert _mismatches(boards) == []


def test_the_span_alone_is_the_spans_a_decision_works_out() -> None:
    """``SPAN_ONLY`` (what scoring a choice runs where a game result scores and the span is not known) writes every
    board's material span as the optimum's and the worst choice's decisions do, and nothing else."""
    boards = [load_board(board_dict(i)) for i in subset(1_000, seed=3)]
    boards += [load_board(d) for d in random_boards(seed=27, n=1_000)]
    layout, best = decide(boards, DEFAULT_POLICY)
    _, worst = decide(boards, DEFAULT_POLICY, -1)
    out, chosen, recipients = _decide_arrays(layout, SPAN_ONLY)
    assert np.array_equal(out[D_SPAN], best.spans) and np.array_equal(out[D_SPAN], worst.spans)
    assert (best.spans > 0).mean() > 0.5  # the boards' choices move material
    assert not chosen.any() and (recipients == -1).all() and not out[D_VALUE].any()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board_strategy(max_proliferates=3))
def test_kernels_decide_hypothesis_boards_as_brute_force_or_cpsat_does(board: Board) -> None:
    """The core's optimum is the reference's: brute force on small boards, CP-SAT (its own model) on the rest."""
    _, got = decide([board], DEFAULT_POLICY)
    small = int(eligible_mask(board).sum()) * board.rounds <= 10
    reference = solve(board, method="brute" if small else "cpsat")
    assert int(got.values[0]) == round(reference.value * 1000), board
    if small:  # brute force breaks ties as the core does; CP-SAT's tie-break is checked in test_solvers
        chosen, recipients = choice_matrix(board, reference.choice)
        assert np.array_equal(got.chosen[: board.rounds], chosen), board
        assert np.array_equal(got.recipients[: board.rounds], recipients), board


def test_kernels_equal_brute_force_on_small_boards() -> None:
    pool = [load_board(d) for d in random_boards(seed=7, n=3_000)]
    small = [b for b in pool if int(eligible_mask(b).sum()) * b.rounds <= min(MAX_BRUTE, 7)]
    small = small[:150]
    assert len(small) == 150
    layout, got = decide(small, DEFAULT_POLICY)
    for b, board in enumerate(small):
        chosen, recipients, value = solve_brute(Objective(board))
        lo, hi = layout.obj_off[b], layout.obj_off[b + 1]
        assert int(got.values[b]) == value, board
        t_lo, t_hi = layout.team_off[b], layout.team_off[b + 1]
        assert np.array_equal(got.chosen[: board.rounds, lo:hi], chosen), board
        assert np.array_equal(got.recipients[: board.rounds, t_lo:t_hi], recipients), board


def test_a_boards_answer_does_not_depend_on_its_batch() -> None:
    boards = [load_board(board_dict(i)) for i in range(300)]
    _, together = decide(boards, DEFAULT_POLICY)
    _, backwards = decide(boards[::-1], DEFAULT_POLICY)
    assert together.values.tolist() == backwards.values[::-1].tolist()
    for b in (0, 17, 299):
        _, alone = decide([boards[b]], DEFAULT_POLICY)
        assert int(alone.values[0]) == int(together.values[b])


def test_a_proliferate_chooses_among_objects_with_a_counter_not_phased_out_701_34a_702_26b() -> None:
    assert choosable_701_34a(1, F_PRESENT) and choosable_701_34a(3, F_PLAYER)
    assert not choosable_701_34a(0, F_PRESENT)  # no counter
    assert not choosable_701_34a(2, F_PRESENT | F_PHASED_OUT)  # treated as though it doesn't exist


def test_annihilation_removes_pairs_704_5q() -> None:
    counts = np.array([[5, 5, 5], [3, 1, 0]], dtype=np.int64)  # the rule reads and writes its row alone
    assert annihilate_704_5q(counts, 1, F_PRESENT, 0, 1) == 1
    assert counts.tolist() == [[5, 5, 5], [2, 0, 0]]


def test_a_shield_counter_does_not_save_a_creature_from_lethal_damage_122_1c_704_5g() -> None:
    flags = F_PRESENT | F_CREATURE | F_DESTRUCTIBLE
    counts = np.array([[3], [1]], dtype=np.int64)  # row 1: one shield counter (the rule reads its row alone)
    special = np.array([-1, -1, -1, -1, -1, -1], dtype=np.int64)
    dies, _, _, _ = settle_row(counts, counts.copy(), 1, flags, 2, 2, 0, np.zeros(1, dtype=np.int64), special)
    assert dies and counts.tolist() == [[3], [0]]  # it dies, and its counters cease to exist (122.2)
    assert lethal_damage_704_5g(flags, 2, 2) and not lethal_damage_704_5g(F_PRESENT | F_CREATURE, 2, 2)


def test_planeswalker_with_no_loyalty_dies_704_5i() -> None:
    counts = np.array([[1], [0]], dtype=np.int64)
    assert planeswalker_loyalty_704_5i(counts, 1, F_PRESENT | F_PLANESWALKER, 0)
    assert not planeswalker_loyalty_704_5i(counts, 0, F_PRESENT | F_PLANESWALKER, 0)


def test_a_saga_at_its_final_chapter_is_sacrificed_714_4() -> None:
    assert saga_sacrifice_714_4(F_PRESENT | F_SAGA, 3, 3)
    assert not saga_sacrifice_714_4(F_PRESENT | F_SAGA, 2, 3)


def test_a_2hg_teams_shared_poison_counts_once_and_loses_at_its_threshold_704_6b_810_11() -> None:
    """810.10: the team's poison is worth its weight once per team; 704.6b/810.11: 15 for two heads makes it lose."""
    assert team_poison_810_10(14, -1000, 15, 1) == (-14000, 0)
    assert team_poison_810_10(15, -1000, 15, 1) == (-15000, 1 << 1)


def test_a_2hg_teams_options_add_its_heads_rows_to_its_poison_810_10() -> None:
    material = np.array([[10, 20, 0], [11, 25, 0]], dtype=np.int64)  # rows chosen in 0 or 1 rounds
    events = np.array([[0, 0, 0], [0, 4, 0]], dtype=np.int64)
    times = np.array([[1, 1], [0, 1], [0, 0]], dtype=np.int64)  # both heads, the second, neither
    poison = np.array([1, 1, 0], dtype=np.int64)  # the team's counter went to a head, or nobody got one
    mats, evs = team_option_values(times, poison, 14, 1000, 15, 0, np.array([0, 1]), material, events)
    assert mats.tolist() == [15000 + 11 + 25, 15000 + 10 + 25, 14000 + 10 + 20]
    assert evs.tolist() == [1 | 4, 1 | 4, 0]  # at 15 the team (seat 0) loses; the head's own event stays


def test_the_unit_split_keeps_heads_and_unchoosable_rows_apart() -> None:
    """Rows 0-1 are 2HG heads (team units); a choosable row is a single unit, coupled when its events vary."""
    material = np.array([[1, 2, 3, 4, 5], [1, 2, 6, 4, 9]], dtype=np.int64)
    events = np.array([[0, 0, 0, 0, 0], [0, 0, 8, 0, 0]], dtype=np.int64)
    choosable = np.array([True, True, True, False, True])
    single, varies, base_material, base_events, span = split_units(material, events, choosable, 2)
    assert single.tolist() == [False, False, True, False, True]
    assert varies.tolist() == [False, False, True, False, False]
    assert (base_material, base_events, span) == (4, 0, (6 - 3) + (9 - 5))


def test_a_2hg_team_of_five_heads_is_decided_as_cpsat_decides_it_810_11() -> None:
    """A team of five poisoned heads has 81 choices a round (each subset of its heads, each recipient the subset
    names, 701.34b): more than a fixed table of 64 would hold.  The core sizes its tables by the batch's largest
    team, alone and beside smaller boards, and agrees with CP-SAT's own model."""
    players = [
        {"id": f"{t}{i}", "team": t, "counters": {"poison": poison, "experience": i}}
        for t, poison in (("A", 3), ("B", 27))
        for i in range(5)
    ]
    big = load_board(
        {
            "variant": "two_headed_giant",
            "proliferator": "A0",
            "proliferates": 2,
            "players": players,
            "permanents": [
                {"id": "bear", "controller": "A0", "types": ["creature"], "power": 2, "toughness": 2,
                 "counters": {"+1/+1": 1}},
            ],
        }
    )  # fmt: skip
    reference = round(solve(big, method="cpsat").value * 1000)
    _, alone = decide([big], DEFAULT_POLICY)
    small = [load_board(board_dict(i)) for i in range(20)]
    _, mixed = decide([*small, big, *small], DEFAULT_POLICY)
    _, small_alone = decide(small, DEFAULT_POLICY)
    assert int(alone.values[0]) == reference
    assert int(mixed.values[20]) == reference
    assert mixed.values[:20].tolist() == small_alone.values.tolist() == mixed.values[21:].tolist()
