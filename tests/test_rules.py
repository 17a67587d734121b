"""The rules engine against the Comprehensive Rules: 701.34 proliferate, 704 state-based actions, 714 Sagas, 810 2HG."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import boards

from solver import Board, Choice, IllegalChoice, Round, Variant, apply_proliferate, eligible, load_board, solve
from solver.effects import gain
from solver.errors import BoardError
from solver.kernels import game_of, layout_of
from solver.rules import ChoiceMatrix, counters_after, eligible_mask, settle


def _board(
    players: Sequence[dict[str, Any]],
    permanents: Sequence[dict[str, Any]] = (),
    *,
    variant: str = "duel",
    proliferator: str = "alice",
    proliferates: int = 1,
    effects: Sequence[dict[str, Any]] = (),
) -> Board:
    return load_board(
        {
            "variant": variant,
            "proliferator": proliferator,
            "proliferates": proliferates,
            "players": list(players),
            "permanents": list(permanents),
            "effects": list(effects),
        }
    )


def _creature(
    pid: str, controller: str, counters: dict[str, int], p: int = 2, t: int = 2, **extra: Any
) -> dict[str, Any]:
    return {"id": pid, "controller": controller, "types": ["creature"], "power": p, "toughness": t,
            "counters": counters, **extra}  # fmt: skip


def _duel(alice: dict[str, int] | None = None, bob: dict[str, int] | None = None, **kw: Any) -> Board:
    return _board([{"id": "alice", "counters": alice or {}}, {"id": "bob", "counters": bob or {}}], **kw)


def _giant(a: dict[str, int], b: dict[str, int], bob: dict[str, int], carol: dict[str, int], **kw: Any) -> Board:
    return _board(
        [
            {"id": "alice", "team": "A", "counters": a},
            {"id": "ally", "team": "A", "counters": b},
            {"id": "bob", "team": "B", "counters": bob},
            {"id": "carol", "team": "B", "counters": carol},
        ],
        variant="two_headed_giant",
        **kw,
    )


# ------------------------------------------------------------------ 701.34a
def test_701_34a_each_kind_gets_one() -> None:
    board = _duel(
        {"energy": 2, "poison": 1},
        permanents=[_creature("c", "alice", {"+1/+1": 2, "stun": 1, "flying": 1})],
    )
    out = apply_proliferate(board, Choice.of(["alice", "c"]))
    assert out.board.counters("alice") == {"energy": 3, "poison": 2}
    assert out.board.counters("c") == {"+1/+1": 3, "stun": 2, "flying": 2}
    assert out.added["c"] == {"+1/+1": 1, "stun": 1, "flying": 1}


def test_701_34a_zero_chosen_is_legal_and_changes_nothing() -> None:
    board = _duel({"energy": 2}, {"poison": 9}, permanents=[_creature("c", "bob", {"-1/-1": 1})])
    out = apply_proliferate(board, Choice.empty())
    assert out.board == board
    assert out.added == {} and out.losers == () and out.dies == ()


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        (["nobody"], "not a player or permanent"),
        (["bare"], "no counters"),
        (["alice"], "no counters"),
        (["ghost"], "phased out"),
    ],
)
def test_701_34a_illegal_objects_are_refused(chosen: list[str], message: str) -> None:
    """Unknown ids, objects without counters and phased-out permanents (702.26b) cannot be chosen."""
    board = _duel(
        {},
        {"poison": 1},
        permanents=[
            _creature("bare", "alice", {}),
            _creature("ghost", "bob", {"+1/+1": 1}, phased_out=True),
        ],
    )
    with pytest.raises(IllegalChoice, match=message):
        apply_proliferate(board, Choice.of(chosen))


def test_701_34a_wrong_number_of_rounds_is_refused() -> None:
    board = _duel({}, {"poison": 1}, proliferates=2)
    with pytest.raises(IllegalChoice, match="2 time"):
        apply_proliferate(board, Choice.of(["bob"]))
    with pytest.raises(IllegalChoice):
        apply_proliferate(board, Choice.of(["bob"], rounds=3))


def test_702_26b_phased_out_is_not_eligible_but_players_with_counters_are() -> None:
    board = _duel(
        {"energy": 1},
        {},
        permanents=[
            _creature("ghost", "bob", {"+1/+1": 1}, phased_out=True),
            _creature("bear", "bob", {"+1/+1": 1}),
            _creature("bare", "bob", {}),
        ],
    )
    assert eligible(board) == ("alice", "bear")
    assert eligible_mask(board).tolist() == [True, False, False, True, False]


# ------------------------------------------------------------------ 701.34b / 810.10 two-headed giant
def test_810_10d_head_without_personal_poison_is_eligible() -> None:
    """The team's poison is shared (810.10): a head with none written still "has" it."""
    board = _board(
        [
            {"id": "alice", "team": "A"},
            {"id": "ally", "team": "A"},
            {"id": "bob", "team": "B", "counters": {"poison": 3}},
            {"id": "carol", "team": "B"},
        ],
        variant="two_headed_giant",
    )
    assert eligible(board) == ("bob", "carol")
    out = apply_proliferate(board, Choice.of(["carol"]))
    assert out.board.counters("bob")["poison"] == 4
    assert out.board.counters("carol")["poison"] == 4


def test_701_34b_both_heads_chosen_give_one_team_poison_to_named_head() -> None:
    board = _giant({}, {}, {"poison": 3, "energy": 1}, {"poison": 3})
    out = apply_proliferate(board, Choice.of(["bob", "carol"], {"B": "carol"}))
    assert out.board.counters("bob") == {"poison": 4, "energy": 2}
    assert out.board.counters("carol") == {"poison": 4}
    assert out.added["carol"] == {"poison": 1}


def test_701_34b_recipient_matters_with_winding_constrictor() -> None:
    """Winding Constrictor's controller gets one more counter (616.1); only if that head receives the poison."""
    board = _giant({}, {}, {"poison": 3}, {"poison": 3}, effects=[{"card": "Winding Constrictor", "controller": "bob"}])
    to_bob = apply_proliferate(board, Choice.of(["bob", "carol"], {"B": "bob"}))
    to_carol = apply_proliferate(board, Choice.of(["bob", "carol"], {"B": "carol"}))
    assert to_bob.board.counters("carol")["poison"] == 5
    assert to_carol.board.counters("carol")["poison"] == 4


@pytest.mark.parametrize(
    ("chosen", "recipients", "message"),
    [
        (["bob", "carol"], {}, "name which one"),
        (["bob"], {"B": "carol"}, "not chosen"),
        (["bob"], {"B": "alice"}, "not a player of team"),
        (["bob"], {"Z": "bob"}, "unknown team"),
        (["bob"], {"B": "nobody"}, "not a player of team"),
    ],
)
def test_701_34b_bad_recipients_are_refused(chosen: list[str], recipients: dict[str, str], message: str) -> None:
    board = _giant({}, {}, {"poison": 3}, {"poison": 3})
    with pytest.raises(IllegalChoice, match=message):
        apply_proliferate(board, Choice.of(chosen, recipients))


def test_704_6b_two_headed_giant_team_loses_at_15() -> None:
    board = _giant({}, {}, {"poison": 14}, {"poison": 14})
    out = apply_proliferate(board, Choice.of(["bob", "carol"], {"B": "bob"}))
    assert out.board.counters("bob")["poison"] == 15
    assert set(out.losers) == {"bob", "carol"}  # 810.8a: the team loses


def test_704_5c_ten_poison_is_not_a_loss_in_two_headed_giant() -> None:
    board = _giant({}, {}, {"poison": 9}, {"poison": 9})
    out = apply_proliferate(board, Choice.of(["bob"]))
    assert out.board.counters("bob")["poison"] == 10
    assert out.losers == ()


def test_810_11_three_player_team_loses_at_20() -> None:
    players: list[dict[str, Any]] = [
        {"id": "alice", "team": "A"},
        {"id": "ally", "team": "A"},
        {"id": "bob", "team": "B", "counters": {"poison": 18}},
        {"id": "carol", "team": "B"},
        {"id": "dave", "team": "B"},
    ]
    board = _board(players, variant="two_headed_giant")
    assert board.poison_threshold().tolist() == [15, 20]
    assert apply_proliferate(board, Choice.of(["bob"])).losers == ()
    twice = _board(players, variant="two_headed_giant", proliferates=2)
    assert set(apply_proliferate(twice, Choice.of(["dave"], rounds=2)).losers) == {"bob", "carol", "dave"}


# ------------------------------------------------------------------ 704.4 multi-round
def test_704_4_no_state_based_actions_between_rounds() -> None:
    """A creature at 0 toughness after round 1 is still there to be chosen in round 2."""
    board = _duel(permanents=[_creature("c", "bob", {"-1/-1": 1}, t=2)], proliferates=2)
    out = apply_proliferate(board, Choice.of(["c"], rounds=2))
    assert out.added["c"] == {"-1/-1": 2}
    assert out.dies == ("c",)


def test_704_4_annihilation_waits_until_both_rounds_are_done() -> None:
    """Both +1/+1 and -1/-1 stay on the creature between rounds, so each round adds one of each (704.5q after)."""
    board = Board.build(
        variant="duel",
        proliferator="alice",
        players=[_player("alice"), _player("bob")],
        permanents=[_permanent("c", "alice", {"+1/+1": 2, "-1/-1": 1})],
        proliferates=2,
    )
    out = apply_proliferate(board, Choice.of(["c"], rounds=2))
    assert out.added["c"] == {"+1/+1": 2, "-1/-1": 2}
    assert out.annihilated == {"c": 3}
    assert out.board.counters("c") == {"+1/+1": 1}


def _player(pid: str, counters: dict[str, int] | None = None) -> Any:
    from solver import Player

    return Player(pid, pid, 20, counters or {})


def _permanent(pid: str, controller: str, counters: dict[str, int]) -> Any:
    from solver import Permanent

    return Permanent(pid, controller, ("creature",), power=2, toughness=2, counters=counters)


def test_rounds_may_differ() -> None:
    board = _duel({"energy": 1}, {"poison": 1}, proliferates=2)
    out = apply_proliferate(board, Choice((Round(("bob",)), Round(("alice", "bob")))))
    assert out.board.counters("bob") == {"poison": 3}
    assert out.board.counters("alice") == {"energy": 2}


# ------------------------------------------------------------------ 704.5 state-based actions
def test_704_5c_ten_poison_loses() -> None:
    out = apply_proliferate(_duel({}, {"poison": 9}), Choice.of(["bob"]))
    assert out.losers == ("bob",)


def test_704_5f_zero_toughness_dies_even_if_indestructible() -> None:
    board = _duel(permanents=[_creature("c", "alice", {"-1/-1": 1}, t=2, keywords=["indestructible"])])
    out = apply_proliferate(board, Choice.of(["c"]))
    assert out.dies == ("c",)
    assert "c" not in out.board.index


def test_704_5g_damage_destroys_unless_indestructible() -> None:
    """704.5g: proliferating a 4/4 with one -1/-1 and 2 damage makes it a 2/2: destroyed unless indestructible."""
    board = _duel(
        permanents=[
            _creature("plain", "bob", {"-1/-1": 1}, p=4, t=4, damage=2),
            _creature("tough", "bob", {"-1/-1": 1}, p=4, t=4, damage=2, keywords=["indestructible"]),
        ]
    )
    out = apply_proliferate(board, Choice.of(["plain", "tough"]))
    assert out.dies == ("plain",)
    assert out.board.counters("tough") == {"-1/-1": 2}


def test_122_1c_shield_counter_does_not_stop_704_5g_lethal_damage() -> None:
    # 122.1c replaces damage and destruction "as the result of an effect"; dying to damage already
    # marked is a state-based action (704.5g), so the shield is no help (the shield-counter rulings).
    # This test asserted the old, wrong answer (the creature lived and a shield was removed).
    board = _duel(permanents=[_creature("c", "bob", {"-1/-1": 1, "shield": 1}, p=4, t=4, damage=2)])
    out = apply_proliferate(board, Choice.of(["c"]))
    assert out.dies == ("c",)
    assert "c" not in out.board.index


def test_122_1c_shield_counter_does_not_stop_704_5f_zero_toughness() -> None:
    # 704.5f puts a creature with toughness 0 into its owner's graveyard: not a destruction at all.
    board = _duel(permanents=[_creature("c", "bob", {"-1/-1": 1, "shield": 1}, p=2, t=2)])
    out = apply_proliferate(board, Choice.of(["c"]))
    assert out.dies == ("c",)


def test_122_1c_shield_counter_is_just_a_counter_when_nothing_dies() -> None:
    board = _duel(permanents=[_creature("c", "bob", {"-1/-1": 1, "shield": 1}, p=4, t=4, damage=1)])
    out = apply_proliferate(board, Choice.of(["c"]))
    assert out.dies == ()
    assert out.board.counters("c") == {"-1/-1": 2, "shield": 2}


def test_122_1c_704_5g_proliferate_kills_a_shielded_opponent_creature() -> None:
    # The case: an opponent's 3/3 with one -1/-1, one shield and 1 damage.  One more -1/-1
    # makes it 1/1 with 1 damage: lethal (704.5g), the shield notwithstanding, so the solver picks it.
    board = _duel(permanents=[_creature("c", "bob", {"-1/-1": 1, "shield": 1}, p=3, t=3, damage=1)])
    decision = solve(board)
    assert "c" in decision.chosen
    assert apply_proliferate(board, Choice.of(["c"])).dies == ("c",)


def test_704_5q_plus_and_minus_counters_annihilate() -> None:
    board = _duel(permanents=[_creature("c", "alice", {"+1/+1": 3, "-1/-1": 1})])
    out = apply_proliferate(board, Choice.of(["c"]))
    assert out.annihilated == {"c": 2}
    assert out.board.counters("c") == {"+1/+1": 2}


# ------------------------------------------------------------------ 714 Sagas
def _saga(lore: int, chapters: int = 3) -> dict[str, Any]:
    return {"id": "saga", "controller": "alice", "types": ["enchantment"], "subtypes": ["Saga"],
            "chapters": chapters, "counters": {"lore": lore}}  # fmt: skip


def test_714_2b_chapter_triggers_when_crossed() -> None:
    out = apply_proliferate(_duel(permanents=[_saga(1)]), Choice.of(["saga"]))
    assert out.chapters == {"saga": (2,)}
    assert out.sacrificed == ()


def test_714_2b_doubler_triggers_two_chapters_and_714_4_sacrifice() -> None:
    board = _duel(permanents=[_saga(1)], effects=[{"card": "Doubling Season", "controller": "alice"}])
    out = apply_proliferate(board, Choice.of(["saga"]))
    assert out.board.counters("saga") == {"lore": 3}
    assert out.chapters == {"saga": (2, 3)}
    assert out.sacrificed == ("saga",)


def test_714_4_final_chapter_sacrifice() -> None:
    out = apply_proliferate(_duel(permanents=[_saga(2)]), Choice.of(["saga"]))
    assert out.chapters == {"saga": (3,)}
    assert out.sacrificed == ("saga",)


# ------------------------------------------------------------------ thresholds
def _threshold(pid: str, controller: str, kind: str, count: int, at: int, effect: str | float) -> dict[str, Any]:
    return {"id": pid, "controller": controller, "types": ["artifact"], "counters": {kind: count},
            "thresholds": [{"kind": kind, "at": at, "effect": effect, "label": pid}]}  # fmt: skip


def test_threshold_win_makes_every_opponent_lose() -> None:
    board = _board(
        [{"id": "alice"}, {"id": "bob"}, {"id": "carol"}],
        [_threshold("reactor", "alice", "charge", 19, 20, "win")],
        variant="free_for_all",
    )
    out = apply_proliferate(board, Choice.of(["reactor"]))
    assert out.losers == ("bob", "carol")
    assert [(t.object, t.kind, t.at, t.effect) for t in out.thresholds] == [("reactor", "charge", 20, "win")]


def test_810_8a_threshold_lose_makes_the_team_lose() -> None:
    board = _board(
        [
            {"id": "alice", "team": "A"},
            {"id": "ally", "team": "A"},
            {"id": "bob", "team": "B"},
            {"id": "c", "team": "B"},
        ],
        [_threshold("nine", "ally", "incarnation", 8, 9, "lose")],
        variant="two_headed_giant",
    )
    out = apply_proliferate(board, Choice.of(["nine"]))
    assert out.losers == ("alice", "ally")


def test_numeric_threshold_is_reported_when_crossed_only() -> None:
    board = _duel(permanents=[_threshold("quest", "alice", "quest", 3, 4, 5.0)])
    assert [t.effect for t in apply_proliferate(board, Choice.of(["quest"])).thresholds] == [5.0]
    assert apply_proliferate(board, Choice.empty()).thresholds == ()
    past = _duel(permanents=[_threshold("quest", "alice", "quest", 4, 4, 5.0)])
    assert apply_proliferate(past, Choice.of(["quest"])).thresholds == ()


# ------------------------------------------------------------------ properties
def _random_choice(board: Board, data: st.DataObject) -> Choice:
    """Any legal choice: a subset per round and, in 2HG, a drawn recipient when both heads are chosen (701.34b)."""
    ids = eligible(board)
    rounds = []
    for _ in range(board.rounds):
        chosen = data.draw(st.lists(st.sampled_from(ids), unique=True)) if ids else []
        named: dict[str, str] = {}
        poison = board.kind_column("poison")
        if board.variant == "two_headed_giant" and poison >= 0:
            for team, name in enumerate(board.team_names):
                heads = [i for i in chosen if board.index[i] < board.n_players and board.team[board.index[i]] == team]
                if len(heads) > 1 and board.counts[board.index[heads[0]], poison] > 0:
                    named[name] = data.draw(st.sampled_from(heads))
        rounds.append(Round(tuple(chosen), named))
    return Choice(tuple(rounds))


def _settled(board: Board) -> Board:
    """The board after its own state-based actions: what the empty choice leaves (704.3)."""
    return apply_proliferate(board, Choice.empty(board.rounds)).board


@settings(max_examples=60, deadline=None)
@given(boards(), st.data())
def test_counters_never_decrease_except_704_5q(board: Board, data: st.DataObject) -> None:
    """701.34a only adds; only 704.5q annihilation takes counters away (a shield counter replaces
    only an effect's damage or destruction, 122.1c, and a resolution has none)."""
    out = apply_proliferate(board, _random_choice(board, data))
    settled = out.settled
    for row, obj_id in enumerate(board.ids):
        if obj_id not in out.board.index:
            assert settled.dies[row]
            continue
        before, after = board.counters(obj_id), out.board.counters(obj_id)
        for kind, n in before.items():
            taken = n - after.get(kind, 0)
            if kind in ("+1/+1", "-1/-1"):
                assert taken <= int(settled.annihilated[row])
            else:
                assert taken <= 0, (obj_id, kind)


@settings(max_examples=60, deadline=None)
@given(boards())
def test_701_34a_empty_choice_changes_nothing_on_a_settled_board(board: Board) -> None:
    settled = _settled(board)
    out = apply_proliferate(settled, Choice.empty(settled.rounds))
    assert out.board == settled
    assert out.added == {} and out.dies == () and out.annihilated == {} and out.chapters == {}


# ------------------------------------------------------------------ trigger timing
@pytest.mark.parametrize(("poisoned", "loser"), [("alice", "alice"), ("bob", "bob")])
def test_704_3_poison_loss_comes_before_a_threshold_trigger(poisoned: str, loser: str) -> None:
    """The poisoned player's own Darksteel Reactor reaches 20 as they reach 10 poison: they lose, nobody else."""
    board = _board(
        [{"id": p, "counters": {"poison": 9} if p == poisoned else {}} for p in ("alice", "bob")],
        [_threshold("reactor", poisoned, "charge", 19, 20, "win")],
    )
    out = apply_proliferate(board, Choice.of([poisoned, "reactor"]))
    assert out.losers == (loser,)


# ------------------------------------------------------------------ array forms
@settings(max_examples=40, deadline=None)
@given(boards(), st.data())
def test_choice_matrix_and_back_is_the_same_choice(board: Board, data: st.DataObject) -> None:
    """ChoiceMatrix.from_choice checks and converts (701.34); to_choice is its inverse."""
    choice = _random_choice(board, data)
    matrix = ChoiceMatrix.from_choice(board, choice)
    back = matrix.to_choice()
    assert [set(r.chosen) for r in back.rounds] == [set(r.chosen) for r in choice.rounds]
    assert ChoiceMatrix.from_choice(board, back).to_choice() == back
    assert np.array_equal(ChoiceMatrix.from_choice(board, back).chosen, matrix.chosen)


@settings(max_examples=40, deadline=None)
@given(boards(max_proliferates=4), st.data())
def test_to_choice_is_the_choice_its_constructors_build(board: Board, data: st.DataObject) -> None:
    """to_choice (built without the dataclasses' __init__) equals and pickles as the Choice of the public
    constructors: ids in board order per round, each round's recipients by team name."""
    n, teams = board.n_objects, board.n_teams
    chosen = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=board.rounds,
                                         max_size=board.rounds)), dtype=bool).reshape(board.rounds, n)  # fmt: skip
    recipients = np.array(data.draw(st.lists(st.lists(st.integers(-1, n - 1), min_size=teams, max_size=teams),
                                             min_size=board.rounds, max_size=board.rounds)),
                          dtype=np.int64).reshape(board.rounds, teams)  # fmt: skip
    made = ChoiceMatrix(board, chosen, recipients).to_choice()
    expected = Choice(
        tuple(
            Round(
                tuple(board.ids[i] for i in range(n) if chosen[r, i]),
                {board.team_names[t]: board.ids[h] for t, h in enumerate(recipients[r]) if h >= 0},
            )
            for r in range(board.rounds)
        )
    )
    assert made == expected
    assert pickle.loads(pickle.dumps(made)) == expected
    for got in made.rounds:
        assert type(got.chosen) is tuple and isinstance(got.poison_recipients, MappingProxyType)


@settings(max_examples=40, deadline=None)
@given(boards())
def test_704_3_settling_many_counts_at_once_equals_one_at_a_time(board: Board) -> None:
    """settle over a leading axis (every object chosen c times, for each c) is settle per c."""
    counts = board.counts + np.arange(3)[:, None, None] * gain(board)
    many = settle(board, counts)
    for c in range(3):
        one = settle(board, counts[c])
        for name in ("counts", "annihilated", "dies", "chapters_after", "sacrificed", "thr_reached"):
            assert np.array_equal(getattr(many, name)[c], getattr(one, name)), name
        assert int(many.events[c]) == int(one.events) and np.array_equal(many.lost[c], one.lost)


def test_104_2a_a_win_makes_every_rival_seat_lose() -> None:
    """Seat 0 of a 4-player board wins (its win bit, seat count 4): seats 1-3 lose; a lose bit costs its own seat
    (603.3b) unless that seat wins first; in 2HG a team is one seat (810.8a)."""
    ffa = _board([{"id": p} for p in ("alice", "bob", "carol", "dave")], variant="free_for_all")
    events = np.array([1 << 4, 1 << 9, (1 << 8) | (1 << 4), 0b0100], dtype=np.int64)
    assert game_of(layout_of(ffa), events).lost.tolist() == [0b1110, 0b0010, 0b1110, 0b0100]
    giant = _giant({}, {}, {}, {})
    assert game_of(layout_of(giant), np.array([1 << 3, 0b01], dtype=np.int64)).lost.tolist() == [0b01, 0b01]


@settings(max_examples=40, deadline=None)
@given(board=boards(), data=st.data())
def test_701_34_counters_after_a_choice_add_each_gain_once_per_round(board: Board, data: st.DataObject) -> None:
    """701.34a: each chosen object gains its gain table once per round; 701.34b, 810.10: a 2HG team's poison grows
    by the named head's gain, on every head (what the compiled core adds, by a plain loop here)."""
    matrix = ChoiceMatrix.from_choice(board, _random_choice(board, data))
    after = counters_after(board, matrix.chosen, matrix.recipients)
    want = board.counts + matrix.chosen.sum(axis=0)[:, None] * gain(board)
    col = board.kind_column("poison")
    if board.variant is Variant.TWO_HEADED_GIANT and col >= 0:
        for team in range(board.n_teams):
            heads = [h for h in range(board.n_players) if board.team[h] == team]
            given_poison = sum(int(gain(board)[h, col]) for h in matrix.recipients[:, team].tolist() if h >= 0)
            for h in heads:
                want[h, col] = board.counts[h, col] + given_poison
    assert np.array_equal(after, want)


@settings(max_examples=60, deadline=None)
@given(board=boards(), data=st.data())
def test_choice_from_rows_is_the_choice_from_ids(board: Board, data: st.DataObject) -> None:
    """Rows, with or without named 2HG recipients, give what the ids give: the same matrices or the same refusal."""
    rows = [
        data.draw(st.lists(st.integers(0, board.n_objects - 1), unique=True, max_size=4)) for _ in range(board.rounds)
    ]
    named: list[dict[int, int]] = [{} for _ in rows]
    if board.variant is Variant.TWO_HEADED_GIANT and data.draw(st.booleans()):
        team = data.draw(st.integers(0, board.n_teams - 1))
        heads = [i for i in range(board.n_players) if board.team[i] == team]
        named[0] = {team: data.draw(st.sampled_from(heads))}
    choice = Choice(
        tuple(
            Round(tuple(board.ids[i] for i in picked), {board.team_names[t]: board.ids[h] for t, h in per.items()})
            for picked, per in zip(rows, named, strict=True)
        )
    )
    try:
        expected = ChoiceMatrix.from_choice(board, choice)
    except IllegalChoice as refused:
        with pytest.raises(IllegalChoice) as caught:
            ChoiceMatrix.from_rows(board, rows, named)
        assert str(caught.value) == str(refused)
        return
    got = ChoiceMatrix.from_rows(board, rows, named)
    assert np.array_equal(got.chosen, expected.chosen)
    assert np.array_equal(got.recipients, expected.recipients)


def test_choice_from_rows_refuses_a_row_the_board_does_not_have() -> None:
    board = load_board("solver/examples/classic.json")
    with pytest.raises(IllegalChoice, match="not a row of this board"):
        ChoiceMatrix.from_rows(board, [[board.n_objects]])
    with pytest.raises(IllegalChoice, match="not a row of this board"):
        ChoiceMatrix.from_rows(board, [[-1]])


# ---------------------------------------------------------------------------- 810.10: team poison, two ways to write it
def _giant_json(team_poison: str | None, b1: int, b2: int) -> dict[str, Any]:
    board: dict[str, Any] = {
        "variant": "two_headed_giant",
        "proliferator": "a1",
        "players": [
            {"id": "a1", "team": "A"},
            {"id": "a2", "team": "A"},
            {"id": "b1", "team": "B", "counters": {"poison": b1} if b1 else {}},
            {"id": "b2", "team": "B", "counters": {"poison": b2} if b2 else {}},
        ],
    }
    if team_poison is not None:
        board["team_poison"] = team_poison
    return board


def test_810_10_per_head_poison_is_summed_for_the_team() -> None:
    # Forge stores a 2HG team's poison per head: 3 and 2 is a team at 5 (810.10).  Main refused it.
    board = load_board(_giant_json("per_head", 3, 2))
    assert board.counters("b1") == {"poison": 3} and board.counters("b2") == {"poison": 2}
    assert board.to_dict()["team_poison"] == "per_head"
    assert load_board(board.to_dict()) == board
    shared = load_board(_giant_json(None, 5, 5))
    assert solve(board).value == solve(shared).value  # the same team at 5, written two ways


def test_810_10_per_head_addition_shows_on_the_recipient_head_only() -> None:
    # 701.34b: the team gets one poison counter, on the head chosen to receive it.  A per-head engine
    # applies outcome.added as it reads: on a per-head board it names that head alone.
    board = load_board(_giant_json("per_head", 3, 2))
    out = apply_proliferate(board, Choice((Round(("b1", "b2"), {"B": "b2"}),)))
    assert out.added == {"b2": {"poison": 1}}
    assert out.board.counters("b1") == {"poison": 3} and out.board.counters("b2") == {"poison": 3}
    board_after = out.to_json()["board"]
    assert isinstance(board_after, dict) and board_after["team_poison"] == "per_head"
    # The shared convention (the team's total on each head) reports the team's counter on every head.
    shared = apply_proliferate(load_board(_giant_json(None, 5, 5)), Choice((Round(("b1", "b2"), {"B": "b2"}),)))
    assert shared.added == {"b1": {"poison": 1}, "b2": {"poison": 1}}


def test_810_10_per_head_team_at_14_loses_to_one_more() -> None:
    # 704.6b: a 2HG team with 15 or more poison loses; 7 + 7 per head is 14.
    board = load_board(_giant_json("per_head", 7, 7))
    decision = solve(board)
    assert decision.game_result == "win" and len(decision.chosen) == 1
    [(head, count)] = [(h, c["poison"]) for h, c in decision.outcome.added.items()]
    assert head == decision.chosen[0] and count == 1


def test_810_10_shared_board_still_refuses_heads_that_disagree() -> None:
    with pytest.raises(BoardError, match=r'team poison is shared \(810.10\).*"team_poison": "per_head"'):
        load_board(_giant_json(None, 3, 2))
    with pytest.raises(BoardError, match="team_poison: must be one of 'shared', 'per_head'"):
        load_board(_giant_json("forge", 3, 2))
