"""The objective's promises (issue 3): relative to choosing nothing, from the proliferator's side, results dominate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import boards

import solver
from solver import Board, Choice, Policy, PolicyError, Round, eligible, load_board
from solver.effects import gain
from solver.objective import Objective, UnitKind
from solver.rules import choice_matrix


def _board(
    alice: dict[str, int] | None = None,
    bob: dict[str, int] | None = None,
    permanents: Sequence[dict[str, Any]] = (),
    **extra: Any,
) -> Board:
    return load_board(
        {
            "variant": "duel",
            "proliferator": "alice",
            "players": [{"id": "alice", "counters": alice or {}}, {"id": "bob", "counters": bob or {}}],
            "permanents": list(permanents),
            **extra,
        }
    )


def _creature(
    pid: str, controller: str, counters: dict[str, int], p: int = 2, t: int = 2, **extra: Any
) -> dict[str, Any]:
    return {"id": pid, "controller": controller, "types": ["creature"], "power": p, "toughness": t,
            "counters": counters, **extra}  # fmt: skip


def _value(board: Board, *chosen: str, policy: Policy | None = None, recipients: dict[str, str] | None = None) -> float:
    return Objective(board, policy).score(Choice.of(chosen, recipients, rounds=board.rounds))


def test_empty_choice_scores_zero() -> None:
    board = _board({"poison": 9, "energy": 3}, {"poison": 9}, [_creature("c", "alice", {"-1/-1": 1})])
    assert _value(board) == 0


def test_opponent_poison_is_good_own_poison_is_bad() -> None:
    board = _board({"poison": 1}, {"poison": 1})
    assert _value(board, "bob") == 1.0
    assert _value(board, "alice") == -1.0


def test_own_minus_counter_is_bad_and_opponents_is_good() -> None:
    board = _board(
        permanents=[_creature("mine", "alice", {"-1/-1": 1}, 4, 4), _creature("theirs", "bob", {"-1/-1": 1}, 4, 4)]
    )
    assert _value(board, "mine") == -1.0
    assert _value(board, "theirs") == 1.0


@pytest.mark.parametrize(("value", "expected"), [(None, -(1.0 + (3 + 2) / 2)), (7.5, -7.5)])
def test_704_5f_killing_own_creature_costs_its_value(value: float | None, expected: float) -> None:
    """Default worth: creature_base + (P+T)/2 of the printed P/T; its -1/-1 counter (-1) leaves with it."""
    extra = {} if value is None else {"value": value}
    board = _board(permanents=[_creature("c", "alice", {"-1/-1": 1}, 3, 2, **extra)])
    # Before: worth - 1 (one -1/-1); after: dead, nothing.
    assert _value(board, "c") == pytest.approx(expected + 1.0)


def test_714_2b_saga_chapters_are_worth_saga_chapter() -> None:
    saga = {"id": "s", "controller": "alice", "types": ["enchantment"], "subtypes": ["Saga"], "chapters": 4,
            "counters": {"lore": 1}}  # fmt: skip
    policy = Policy(saga_chapter=2.5)
    assert _value(_board(permanents=[saga]), "s", policy=policy) == 2.5
    final = saga | {"counters": {"lore": 3}, "value": 4.0}
    assert _value(_board(permanents=[final]), "s", policy=policy) == 2.5 - 4.0  # 714.4: the Saga goes


def test_counter_values_override_the_kind_weight() -> None:
    land = {"id": "l", "controller": "alice", "types": ["land"], "counters": {"storage": 2},
            "counter_values": {"storage": 3.0}}  # fmt: skip
    assert _value(_board(permanents=[land]), "l") == 3.0
    assert _value(_board(permanents=[land | {"counter_values": {}}]), "l") == Policy().weight("storage")


@pytest.mark.parametrize("kind", ["flying", "finality", "deathtouch"])
def test_presence_only_kinds_add_nothing_when_already_present(kind: str) -> None:
    board = _board(permanents=[_creature("c", "alice", {kind: 1})])
    assert _value(board, "c") == 0


def test_exalted_counts_every_instance() -> None:
    assert _value(_board(permanents=[_creature("c", "alice", {"exalted": 1})]), "c") > 0


def test_310_battle_counters_are_valued_from_the_protectors_side() -> None:
    """A Siege I control is protected by my opponent: more defense helps them (310.12)."""
    siege = {"id": "s", "controller": "alice", "protector": "bob", "types": ["battle"], "subtypes": ["Siege"],
             "counters": {"defense": 3}}  # fmt: skip
    assert _value(_board(permanents=[siege]), "s") == -Policy().weight("defense")
    theirs = siege | {"controller": "bob", "protector": "alice"}
    assert _value(_board(permanents=[theirs]), "s") == Policy().weight("defense")


# ------------------------------------------------------------------ game results
def test_game_result_dominates_any_material_sum() -> None:
    """Nine Lives at 8: reaching 9 loses; even a million points of incarnation counters can't pay for that."""
    nine = {"id": "nine", "controller": "alice", "types": ["enchantment"], "counters": {"incarnation": 8},
            "counter_values": {"incarnation": 1e6},
            "thresholds": [{"kind": "incarnation", "at": 9, "effect": "lose"}]}  # fmt: skip
    board = _board(permanents=[nine])
    objective = Objective(board)
    assert objective.game_weight > 1e6
    assert _value(board, "nine") < 0


def test_win_beats_material_and_a_draw_ranks_between_win_and_loss() -> None:
    """Both at 9 poison and lots of energy on me: proliferating both poisons is a draw (704.5c for each)."""
    board = _board({"poison": 9}, {"poison": 9})
    win, draw, loss = _value(board, "bob"), _value(board, "alice", "bob"), _value(board, "alice")
    assert win > draw > loss
    assert Objective(board).game_result(0b11) == "draw"
    rich = _board({"poison": 9, "energy": 5}, {"poison": 9}, [_creature("c", "bob", {"+1/+1": 1})])
    assert _value(rich, "bob") > 0 > _value(rich, "alice", "bob")


def test_free_for_all_each_elimination_counts_but_less_than_a_win() -> None:
    board = load_board(
        {
            "variant": "free_for_all",
            "proliferator": "alice",
            "players": [
                {"id": "alice"},
                {"id": "bob", "counters": {"poison": 9}},
                {"id": "carol", "counters": {"poison": 9}},
                {"id": "dave", "counters": {"poison": 9}},
            ],
        }
    )
    one, two, three = _value(board, "bob"), _value(board, "bob", "carol"), _value(board, "bob", "carol", "dave")
    assert 0 < one < two < three
    assert three - two > two - one  # the win is worth more than one more elimination
    assert Objective(board).game_result(0b1110) == "win"
    assert Objective(board).game_result(0b0010) == "eliminations"


# ------------------------------------------------------------------ units = rules-engine scoring
def _random_choice(board: Board, data: st.DataObject) -> Choice:
    ids = eligible(board)
    poison = board.kind_column("poison")
    rounds = []
    for _ in range(board.rounds):
        chosen = data.draw(st.lists(st.sampled_from(ids), unique=True)) if ids else []
        named: dict[str, str] = {}
        if board.variant == "two_headed_giant" and poison >= 0:
            for team, name in enumerate(board.team_names):
                heads = [i for i in chosen if board.index[i] < board.n_players and board.team[board.index[i]] == team]
                if heads and board.counts[board.index[heads[0]], poison] > 0:
                    named[name] = data.draw(st.sampled_from(heads))
        rounds.append(Round(tuple(chosen), named))
    return Choice(tuple(rounds))


@settings(max_examples=60, deadline=None)
@given(boards(max_permanents=6), st.data())
def test_unit_tables_sum_to_the_rules_engine_score(board: Board, data: st.DataObject) -> None:
    """The fast path's per-unit tables reproduce score_matrix (settle + state_value) for any choice."""
    objective = Objective(board)
    chosen, recipients = choice_matrix(board, _random_choice(board, data))
    units = objective.units
    times = chosen.sum(axis=0)
    single_times = times[units.single_rows]
    material = units.base_material + int(units.single_material[np.arange(len(single_times)), single_times].sum())
    events = units.base_events | int(
        np.bitwise_or.reduce(units.single_events[np.arange(len(single_times)), single_times], initial=np.int64(0))
    )
    col = board.kind_column("poison")
    for team in units.teams:
        key = tuple(int(times[h]) for h in team.heads)
        poison = sum(int(gain(board)[h, col]) for h in recipients[:, team.team] if h >= 0)
        option = next(o for o in team.options if o.times == key and o.poison == poison)
        material += option.material
        events |= option.events
    # Objective.total: a resolution that ends the game is worth its game score alone (104.2a, 104.3).
    total = objective.total(material, events) - objective.baseline
    assert total == objective.score_matrix(chosen, recipients)


@settings(max_examples=40, deadline=None)
@given(boards(max_permanents=6))
def test_empty_choice_scores_zero_on_random_boards(board: Board) -> None:
    assert Objective(board).score(Choice.empty(board.rounds)) == 0


# ------------------------------------------------------------------ kernels shared with the batched core
@settings(max_examples=40, deadline=None)
@given(boards(max_permanents=6))
def test_game_scores_of_many_masks_equal_one_at_a_time(board: Board) -> None:
    objective = Objective(board)
    masks = np.arange(64, dtype=np.int64)
    many = objective.game_millis(masks)
    assert many.tolist() == [objective.game_milli(int(m)) for m in masks]


def test_units_come_in_board_order_with_typed_kinds() -> None:
    board = _board({"poison": 3}, {"poison": 9}, [_creature("bears", "alice", {"+1/+1": 1})])
    order = Objective(board).unit_order
    assert all(isinstance(ref.kind, UnitKind) for ref in order)
    assert [ref.kind for ref in order] == [UnitKind.SINGLE] * 3
    assert order[0] == ("single", 0)  # still unpacks and compares as (kind, index)


def test_eliminations_equal_to_a_draw_up_to_rounding_keep_the_game_weight_finite() -> None:
    """3 x 0.1 is not 0.3 in floating point: the objective must not read that as a 5e-17 gap between scores.

    With draw 0.3 and elimination 0.1 against four opponents at 9 poison, proliferating all of
    them wins (704.5c); a gap of 5e-17 used to raise the game weight past int64 and lose the win.
    """
    policy = Policy.from_dict({"game": {"draw": 0.3, "elimination": 0.1}})
    assert policy.score_gap(4) == pytest.approx(0.1)
    players = [{"id": "a"}] + [{"id": x, "counters": {"poison": 9}} for x in "bcde"]
    decision = solver.solve({"variant": "free_for_all", "proliferator": "a", "players": players}, policy)
    assert decision.chosen == ("b", "c", "d", "e")
    assert decision.game_result == "win"
    assert 1000 <= decision.value < 1e6


def test_policy_refuses_eliminations_that_crowd_another_score() -> None:
    """Score multiples within a hair of the draw would need a game weight past the arithmetic budget."""
    with pytest.raises(PolicyError, match="scores too close together"):
        Policy.from_dict({"game": {"draw": 0.3, "elimination": 0.1000001}})


@settings(max_examples=40, deadline=None)
@given(boards(max_permanents=6))
def test_the_objectives_tables_and_optimum_are_the_compiled_cores(board: Board) -> None:
    """One implementation (issue 26): the per-unit tables CP-SAT and explanations read are the core's
    own, and solve(), score()'s best and worst_value report the core's optimum of the board alone."""
    from solver.kernels import decide, tabulate

    objective = Objective(board)
    layout, best = decide([board], objective.policy)
    material, events = tabulate(layout)
    assert np.array_equal(objective.row_tables[0], material) and np.array_equal(objective.row_tables[1], events)
    assert int(best.spans[0]) == objective.units.span  # the range the game weight is raised above
    assert round(solver.solve(board).value * 1000) == int(best.values[0]) == objective.best().value
    _, worst = decide([board], objective.policy, -1)
    assert round(solver.worst_value(board) * 1000) == int(worst.values[0])
    assert round(solver.score(board, Choice.empty(board.rounds)).best * 1000) == int(best.values[0])
