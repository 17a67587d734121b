"""Replacement effects on proliferate (614; 616.1: the affected party orders them; docs/board-format.md#effect)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from importlib import resources
from itertools import permutations
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.boards import VARIANTS, BoardSpec, generate
from solver import Board, BoardError, Choice, Effect, apply_proliferate, eligible, load_board, solve, solve_many
from solver.cards import Op, scopes_in_force
from solver.catalogue import valence
from solver.effects import SUPPORTED_CARDS, apply_op, best_count, gain, gains


def _board(
    permanents: list[dict[str, Any]],
    effects: list[tuple[str, str]] | list[dict[str, Any]],
    *,
    proliferator: str = "alice",
    alice: dict[str, int] | None = None,
    bob: dict[str, int] | None = None,
    variant: str = "duel",
) -> Board:
    if variant == "two_headed_giant":
        players = [
            {"id": "alice", "team": "A", "counters": alice or {}},
            {"id": "ally", "team": "A"},
            {"id": "bob", "team": "B", "counters": bob or {}},
            {"id": "carol", "team": "B"},
        ]
    else:
        players = [{"id": "alice", "counters": alice or {}}, {"id": "bob", "counters": bob or {}}]
    return load_board(
        {
            "variant": variant,
            "proliferator": proliferator,
            "players": players,
            "permanents": permanents,
            "effects": [e if isinstance(e, dict) else {"card": e[0], "controller": e[1]} for e in effects],
        }
    )


def _perm(pid: str, controller: str, types: list[str], counters: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": pid, "controller": controller, "types": types, "counters": counters}
    if "creature" in types:
        out |= {"power": 3, "toughness": 3}
    return out


def _gain(board: Board, obj: str, kind: str) -> int:
    return int(gain(board)[board.index[obj], board.kind_column(kind)])


def _everything() -> list[dict[str, Any]]:
    """One object of each relevant type per player, each with one counter of the kinds that matter."""
    out = []
    for who in ("alice", "bob"):
        out += [
            _perm(f"{who}_bear", who, ["creature"], {"+1/+1": 1, "-1/-1": 1, "stun": 1}),
            _perm(f"{who}_thopter", who, ["artifact"], {"+1/+1": 1, "charge": 1}),
            _perm(f"{who}_walker", who, ["planeswalker"], {"loyalty": 3}),
            _perm(f"{who}_land", who, ["land"], {"storage": 1}),
            _perm(f"{who}_saga", who, ["enchantment"], {"lore": 1}) | {"subtypes": ["Saga"], "chapters": 3},
        ]
    return out


def _gains(board: Board) -> dict[tuple[str, str], int]:
    return {
        (board.ids[r], board.kinds[k]): int(gain(board)[r, k])
        for r in range(board.n_objects)
        for k in range(len(board.kinds))
        if board.counts[r, k] > 0
    }


_PLAYER = {"energy": 1, "poison": 1}


def _with(card: str, controller: str = "alice", proliferator: str = "alice") -> dict[tuple[str, str], int]:
    board = _board(_everything(), [(card, controller)], proliferator=proliferator, alice=_PLAYER, bob=_PLAYER)
    return _gains(board)


def _changed(card: str, controller: str = "alice", proliferator: str = "alice") -> dict[tuple[str, str], int]:
    """The cells where the card changes the default of one counter per kind (701.34a)."""
    return {cell: n for cell, n in _with(card, controller, proliferator).items() if n != 1}


def _all_cells() -> list[tuple[str, str]]:
    return list(_gains(_board(_everything(), [], alice=_PLAYER, bob=_PLAYER)))


def test_every_supported_card_is_tested() -> None:
    named = {"Tekuthal, Inquiry Dominus", "Innkeeper's Talent", "Benevolent Hydra", "Mowu, Loyal Companion"}
    named |= {"Melira, the Living Cure"}
    assert set(SUPPORTED_CARDS) == set(_EXPECTED) | named


_EXPECTED: dict[str, dict[tuple[str, str], int]] = {
    # Permanents its controller controls, any kind; not players.
    "Doubling Season": {
        ("alice_bear", "+1/+1"): 2,
        ("alice_bear", "-1/-1"): 2,
        ("alice_bear", "stun"): 2,
        ("alice_thopter", "+1/+1"): 2,
        ("alice_thopter", "charge"): 2,
        ("alice_walker", "loyalty"): 2,
        ("alice_land", "storage"): 2,
        ("alice_saga", "lore"): 2,
    },
    # Artifacts and creatures its controller controls, and the controller itself.
    "Winding Constrictor": {
        ("alice", "energy"): 2,
        ("alice", "poison"): 2,
        ("alice_bear", "+1/+1"): 2,
        ("alice_bear", "-1/-1"): 2,
        ("alice_bear", "stun"): 2,
        ("alice_thopter", "+1/+1"): 2,
        ("alice_thopter", "charge"): 2,
    },
    # Permanents its controller's team controls.
    "Pir, Imaginative Rascal": {
        ("alice_bear", "+1/+1"): 2,
        ("alice_bear", "-1/-1"): 2,
        ("alice_bear", "stun"): 2,
        ("alice_thopter", "+1/+1"): 2,
        ("alice_thopter", "charge"): 2,
        ("alice_walker", "loyalty"): 2,
        ("alice_land", "storage"): 2,
        ("alice_saga", "lore"): 2,
    },
    "Hardened Scales": {("alice_bear", "+1/+1"): 2},
    "Ozolith, the Shattered Spire": {("alice_bear", "+1/+1"): 2, ("alice_thopter", "+1/+1"): 2},
    "Corpsejack Menace": {("alice_bear", "+1/+1"): 2},
    "Branching Evolution": {("alice_bear", "+1/+1"): 2},
    "Primal Vigor": {("alice_bear", "+1/+1"): 2, ("bob_bear", "+1/+1"): 2},
    # "If one or more +1/+1 counters would be put on a creature you control, that many plus one" (Oracle).
    "Conclave Mentor": {("alice_bear", "+1/+1"): 2},
    # "... on a permanent you control": the artifact's +1/+1 counter too.
    "Kami of Whispered Hopes": {("alice_bear", "+1/+1"): 2, ("alice_thopter", "+1/+1"): 2},
    "Solid Ground": {("alice_bear", "+1/+1"): 2, ("alice_thopter", "+1/+1"): 2},
    # "If you would put one or more counters on a creature or planeswalker you control or on yourself": any kind.
    "Lae'zel, Vlaakith's Champion": {
        ("alice", "energy"): 2,
        ("alice", "poison"): 2,
        ("alice_bear", "+1/+1"): 2,
        ("alice_bear", "-1/-1"): 2,
        ("alice_bear", "stun"): 2,
        ("alice_walker", "loyalty"): 2,
    },
    # "If one or more +1/+1 counters would be put on a creature you control, twice that many" (Oracle).
    "The Earth Crystal": {("alice_bear", "+1/+1"): 2},
    # "... on a creature or Vehicle you control, that many plus one +1/+1 counters" (no Vehicle here).
    "Caradora, Heart of Alacria": {("alice_bear", "+1/+1"): 2},
    # "... on a creature, Spacecraft, or Planet you control, twice that many of each of those kinds".
    "Loading Zone": {("alice_bear", "+1/+1"): 2, ("alice_bear", "-1/-1"): 2, ("alice_bear", "stun"): 2},
    "Vizier of Remedies": {("alice_bear", "-1/-1"): 0},
    "Melira, Sylvok Outcast": {("alice", "poison"): 0, ("alice_bear", "-1/-1"): 0},
    # Players and artifacts/creatures/enchantments/lands get nothing; planeswalkers still do.
    "Solemnity": {
        (obj, kind): 0
        for who in ("alice", "bob")
        for obj, kind in (
            (who, "energy"),
            (who, "poison"),
            (f"{who}_bear", "+1/+1"),
            (f"{who}_bear", "-1/-1"),
            (f"{who}_bear", "stun"),
            (f"{who}_thopter", "+1/+1"),
            (f"{who}_thopter", "charge"),
            (f"{who}_land", "storage"),
            (f"{who}_saga", "lore"),
        )
    },
    # Doubles everything its controller puts, on any permanent or player.
    "Vorinclex, Monstrous Raider": {cell: 2 for cell in _all_cells()},
}


@pytest.mark.parametrize("card", sorted(_EXPECTED))
def test_614_scope_of_each_card(card: str) -> None:
    assert _changed(card) == _EXPECTED[card]


def test_614_vorinclex_halves_an_opponents_proliferate_to_nothing() -> None:
    """An opponent's 1-counter proliferate becomes 0 (rounded down) on every object."""
    assert set(_with("Vorinclex, Monstrous Raider", "bob").values()) == {0}


def test_614_vorinclex_does_nothing_for_a_teammates_proliferate() -> None:
    board = _board(
        [_perm("w", "alice", ["planeswalker"], {"loyalty": 3})],
        [("Vorinclex, Monstrous Raider", "ally")],
        bob={"poison": 3},
        variant="two_headed_giant",
    )
    assert _gain(board, "w", "loyalty") == 1
    assert _gain(board, "bob", "poison") == 1


def test_614_innkeepers_talent_doubles_only_at_level_3() -> None:
    cells = _all_cells()
    level3 = _board(
        _everything(), [{"card": "Innkeeper's Talent", "controller": "alice", "level": 3}], alice=_PLAYER, bob=_PLAYER
    )
    assert _gains(level3) == {cell: 2 for cell in cells}
    for level in (1, 2):
        low = _board(
            _everything(),
            [{"card": "Innkeeper's Talent", "controller": "alice", "level": level}],
            alice=_PLAYER,
            bob=_PLAYER,
        )
        assert _gains(low) == {cell: 1 for cell in cells}
    # Only counters *its controller* puts.
    assert _changed("Innkeeper's Talent", "bob") == {}


def test_614_winding_constrictor_helps_an_opponents_proliferate_too() -> None:
    """Any source: bob proliferating alice's poison with alice's Constrictor gives her 2 (614.1a)."""
    changed = _changed("Winding Constrictor", "alice", proliferator="bob")
    assert changed[("alice", "poison")] == 2
    assert changed[("alice_bear", "-1/-1")] == 2


def test_614_laezel_adds_only_to_counters_its_controller_puts() -> None:
    """ "If you would put": an opponent's proliferate is not one its controller performs (701.34a)."""
    assert _changed("Lae'zel, Vlaakith's Champion", "alice", proliferator="bob") == {}
    assert _changed("Lae'zel, Vlaakith's Champion", "bob", proliferator="alice") == {}


def test_614_loading_zone_doubles_on_spacecraft_and_planets_its_controller_controls() -> None:
    """Spacecraft and Planet are artifact subtypes (Edge of Eternities); an opponent's are not covered."""
    ship = _perm("ship", "alice", ["artifact"], {"charge": 1}) | {"subtypes": ["Spacecraft"]}
    planet = _perm("planet", "alice", ["artifact"], {"charge": 2}) | {"subtypes": ["planet"]}
    theirs = _perm("their_ship", "bob", ["artifact"], {"charge": 1}) | {"subtypes": ["Spacecraft"]}
    rock = _perm("rock", "alice", ["artifact"], {"charge": 1})
    board = _board([ship, planet, theirs, rock], [("Loading Zone", "alice")])
    assert [_gain(board, p, "charge") for p in ("ship", "planet", "their_ship", "rock")] == [2, 2, 1, 1]


def test_614_caradora_adds_one_on_its_controllers_vehicles() -> None:
    """A Vehicle is an artifact (205.3g); Caradora's +1 reaches it whether or not it is crewed; not an opponent's."""
    car = _perm("car", "alice", ["artifact"], {"+1/+1": 1, "charge": 1}) | {"subtypes": ["Vehicle"]}
    theirs = _perm("their_car", "bob", ["artifact"], {"+1/+1": 1}) | {"subtypes": ["Vehicle"]}
    board = _board([car, theirs], [("Caradora, Heart of Alacria", "alice")])
    assert [_gain(board, "car", "+1/+1"), _gain(board, "car", "charge"), _gain(board, "their_car", "+1/+1")] == [
        2,
        1,
        1,
    ]


def test_616_1_conclave_mentor_and_doubling_season_give_4_in_the_controllers_order() -> None:
    """616.1: the creature's controller applies Mentor's +1 first, then doubles: (1 + 1) x 2."""
    board = _board(
        [_perm("c", "alice", ["creature"], {"+1/+1": 1})],
        [("Doubling Season", "alice"), ("Conclave Mentor", "alice")],
    )
    assert _gain(board, "c", "+1/+1") == 4


def test_616_1_laezel_and_vorinclex_on_an_opponents_proliferate_do_not_apply() -> None:
    """Bob proliferates alice's walker: Lae'zel ("you would put") does not apply, Vorinclex halves 1 to 0."""
    board = _board(
        [_perm("w", "alice", ["planeswalker"], {"loyalty": 3})],
        [("Lae'zel, Vlaakith's Champion", "alice"), ("Vorinclex, Monstrous Raider", "alice")],
        proliferator="bob",
    )
    assert _gain(board, "w", "loyalty") == 0


def test_701_34a_a_permanent_that_cant_have_counters_is_eligible_but_gets_none() -> None:
    """Tatterkite / Blossombind: it has a counter, so it may be chosen (701.34a), but none is put on it (614)."""
    kite = _perm("kite", "bob", ["artifact", "creature"], {"-1/-1": 1}) | {"no_counters": True, "toughness": 2}
    bear = _perm("bear", "alice", ["creature"], {"+1/+1": 1}) | {"no_counters": True}
    board = _board([kite, bear], [("Doubling Season", "alice"), ("Hardened Scales", "alice")], bob={"poison": 1})
    assert "kite" in eligible(board) and "bear" in eligible(board)
    assert _gain(board, "kite", "-1/-1") == _gain(board, "bear", "+1/+1") == 0
    out = apply_proliferate(board, ["kite", "bear", "bob"])
    assert out.added == {"bob": {"poison": 1}}
    assert out.board.counters("kite") == {"-1/-1": 1} and not out.dies
    assert solve(board).chosen == ("bob",) == solve_many([board])[0].chosen  # the batched path agrees
    assert load_board(board.to_dict()) == board and board.to_dict()["permanents"][0]["no_counters"] is True


def test_no_counters_must_be_a_boolean() -> None:
    with pytest.raises(BoardError) as info:
        _board([_perm("kite", "bob", ["artifact"], {"charge": 1}) | {"no_counters": 1}], [])
    assert [p.path for p in info.value.problems] == ["permanents[0].no_counters"]


def _sourced(card: str, source: str, proliferator: str = "alice") -> dict[tuple[str, str], int]:
    """:func:`_changed` for a card naming itself, whose permanent is ``source`` (a creature of alice's)."""
    board = _board(
        _everything(), [{"card": card, "controller": "alice", "source": source}], proliferator=proliferator,
        alice=_PLAYER, bob=_PLAYER,
    )  # fmt: skip
    return {cell: n for cell, n in _gains(board).items() if n != 1}


def test_614_benevolent_hydra_adds_one_on_each_other_creature_its_controller_controls() -> None:
    """ "If one or more +1/+1 counters would be put on another creature you control, that many plus one" (Oracle)."""
    hydra = _perm("hydra", "alice", ["creature"], {"+1/+1": 3})
    board = _board([hydra, *_everything()], [{"card": "Benevolent Hydra", "controller": "alice", "source": "hydra"}])
    assert {cell: n for cell, n in _gains(board).items() if n != 1} == {("alice_bear", "+1/+1"): 2}
    assert _gain(board, "hydra", "+1/+1") == 1  # not on itself
    # The bear as the Hydra, whoever proliferates (not "you would put"): alice has no other creature.
    assert _sourced("Benevolent Hydra", "alice_bear", proliferator="bob") == {}


def test_614_mowu_adds_one_only_on_itself() -> None:
    """ "If one or more +1/+1 counters would be put on Mowu, Loyal Companion, that many plus one" (Oracle)."""
    assert _sourced("Mowu, Loyal Companion", "alice_bear") == {("alice_bear", "+1/+1"): 2}
    assert _sourced("Mowu, Loyal Companion", "alice_thopter", proliferator="bob") == {("alice_thopter", "+1/+1"): 2}


def test_616_1_benevolent_hydra_and_a_doubler_give_4_on_another_creature() -> None:
    """616.1: the creature's controller applies the Hydra's +1 before Corpsejack Menace doubles: (1 + 1) x 2."""
    hydra = _perm("hydra", "alice", ["creature"], {"+1/+1": 1})
    other = _perm("other", "alice", ["creature"], {"+1/+1": 1})
    board = _board(
        [hydra, other],
        [
            {"card": "Benevolent Hydra", "controller": "alice", "source": "hydra"},
            {"card": "Corpsejack Menace", "controller": "alice"},
        ],
    )
    assert (_gain(board, "other", "+1/+1"), _gain(board, "hydra", "+1/+1")) == (4, 2)


_CURE = "Melira, the Living Cure"


def test_616_1_melira_the_living_cure_makes_a_doubled_poison_counter_one() -> None:
    """ "If you would get one or more poison counters, instead you get one poison counter" (Oracle).

    Bob's Vorinclex doubles the poison bob puts on alice: 2 without Melira; with it alice, the
    affected player, orders the effects (616.1): doubled first, then one.  Her Winding
    Constrictor's +1 likewise: one, not two.
    """
    doubled = _board([], [("Vorinclex, Monstrous Raider", "bob")], proliferator="bob", alice={"poison": 3})
    assert _gain(doubled, "alice", "poison") == 2
    cured = _board([], [("Vorinclex, Monstrous Raider", "bob"), (_CURE, "alice")], proliferator="bob",
                   alice={"poison": 3})  # fmt: skip
    assert _gain(cured, "alice", "poison") == 1
    constricted = _board([], [("Winding Constrictor", "alice"), (_CURE, "alice")], proliferator="bob",
                         alice={"poison": 3, "energy": 1})  # fmt: skip
    assert (_gain(constricted, "alice", "poison"), _gain(constricted, "alice", "energy")) == (1, 2)


def test_melira_the_living_cure_once_poisoned_this_turn_gets_none() -> None:
    """ "... and you can't get additional poison counters this turn": its team in 2HG (810.10c)."""
    effect = {"card": _CURE, "controller": "alice", "poisoned_this_turn": 1}
    board = _board([], [effect], proliferator="bob", alice={"poison": 3})
    assert _gain(board, "alice", "poison") == 0
    team = _board([], [effect], proliferator="bob", alice={"poison": 3}, variant="two_headed_giant")
    assert (_gain(team, "alice", "poison"), _gain(team, "ally", "poison")) == (0, 0)


def test_810_10_melira_the_living_cure_caps_only_its_controller_as_recipient() -> None:
    """In 2HG the proliferator picks the head receiving the team's counter (701.34b): the teammate is not "you"."""
    board = _board([], [("Vorinclex, Monstrous Raider", "bob"), (_CURE, "alice")], proliferator="bob",
                   alice={"poison": 3}, variant="two_headed_giant")  # fmt: skip
    assert (_gain(board, "alice", "poison"), _gain(board, "ally", "poison")) == (1, 2)
    out = apply_proliferate(board, {"chosen": ["alice", "ally"], "poison_recipients": {"A": "ally"}})
    assert out.board.counters("alice")["poison"] == 5  # the team's 3, and 2 given to the ally
    out = apply_proliferate(board, {"chosen": ["alice", "ally"], "poison_recipients": {"A": "alice"}})
    assert out.board.counters("ally")["poison"] == 4


def test_melira_the_living_cure_refuses_a_second_proliferate_of_its_controllers_poison() -> None:
    """Each proliferate of a resolution adds the same; a second poison counter this turn would be none."""
    data = {"variant": "duel", "proliferator": "bob", "proliferates": 2,
            "players": [{"id": "alice", "counters": {"poison": 3}}, {"id": "bob"}],
            "effects": [{"card": _CURE, "controller": "alice"}]}  # fmt: skip
    with pytest.raises(BoardError) as info:
        load_board(data)
    (problem,) = info.value.problems
    assert problem.path == "effects[0]" and "only once this turn" in problem.message
    assert load_board(data | {"proliferates": 1}).rounds == 1
    banned = data | {"effects": [{"card": _CURE, "controller": "alice", "poisoned_this_turn": 1}]}
    assert _gain(load_board(banned), "alice", "poison") == 0
    assert load_board(data | {"players": [{"id": "alice"}, {"id": "bob", "counters": {"poison": 1}}]}).rounds == 2


def test_810_10c_melira_protects_the_whole_team_in_two_headed_giant() -> None:
    board = _board([], [("Melira, Sylvok Outcast", "ally")], alice={"poison": 3}, bob={"poison": 3},
                   variant="two_headed_giant", proliferator="bob")  # fmt: skip
    assert _gain(board, "alice", "poison") == 0
    assert _gain(board, "ally", "poison") == 0
    assert _gain(board, "bob", "poison") == 1
    out = apply_proliferate(board, Choice.of(["alice"]))
    assert out.board.counters("alice")["poison"] == 3


def test_614_solemnity_objects_stay_eligible() -> None:
    board = _board(_everything(), [("Solemnity", "bob")], alice=_PLAYER, bob=_PLAYER)
    out = apply_proliferate(board, Choice.of(["alice", "alice_bear", "alice_walker"]))
    assert out.board.counters("alice") == {"energy": 1, "poison": 1}
    assert out.board.counters("alice_bear") == {"stun": 1}  # +1/+1 and -1/-1 annihilated as before
    assert out.board.counters("alice_walker") == {"loyalty": 4}


def test_614_battle_still_gets_counters_under_solemnity() -> None:
    siege = _perm("siege", "alice", ["battle"], {"defense": 3}) | {"protector": "bob", "subtypes": ["Siege"]}
    board = _board([siege], [("Solemnity", "alice")])
    assert _gain(board, "siege", "defense") == 1


@pytest.mark.parametrize(("n", "rounds"), [(0, 1), (1, 2), (2, 4)])
def test_701_34_tekuthal_doubles_the_number_of_proliferates(n: int, rounds: int) -> None:
    board = _board([], [("Tekuthal, Inquiry Dominus", "alice")] * n, bob={"poison": 1})
    assert board.rounds == rounds
    assert set(_gains(board).values()) == {1}
    out = apply_proliferate(board, Choice.of(["bob"], rounds=rounds))
    assert out.board.counters("bob")["poison"] == 1 + rounds


def test_701_34_tekuthal_of_another_player_does_not_double() -> None:
    assert _board([], [("Tekuthal, Inquiry Dominus", "bob")], bob={"poison": 1}).rounds == 1


# ------------------------------------------------------------------ 616.1 ordering
def test_616_1_hardened_scales_then_doubling_season_gives_4() -> None:
    board = _board(
        [_perm("c", "alice", ["creature"], {"+1/+1": 1})],
        [("Doubling Season", "alice"), ("Hardened Scales", "alice")],
    )
    assert _gain(board, "c", "+1/+1") == 4


def test_616_1_constrictor_and_vizier_on_own_minus_counters_give_0() -> None:
    board = _board(
        [_perm("c", "alice", ["creature"], {"-1/-1": 1})],
        [("Winding Constrictor", "alice"), ("Vizier of Remedies", "alice")],
    )
    assert _gain(board, "c", "-1/-1") == 0


def test_616_1_vorinclex_halving_and_doubling_season_ordered_by_affected_controller() -> None:
    """Bob proliferates alice's walker; alice doubles first (2), then halves (1) rather than 0."""
    board = _board(
        [_perm("w", "alice", ["planeswalker"], {"loyalty": 3}), _perm("bw", "bob", ["planeswalker"], {"loyalty": 3})],
        [("Vorinclex, Monstrous Raider", "alice"), ("Doubling Season", "alice")],
        proliferator="bob",
    )
    assert _gain(board, "w", "loyalty") == 1
    assert _gain(board, "bw", "loyalty") == 0


def test_616_1_affected_opponent_orders_against_the_proliferator() -> None:
    """Bob's creature gets alice's -1/-1 with bob's Constrictor and Vizier: bob picks Vizier first (0)."""
    board = _board(
        [_perm("c", "bob", ["creature"], {"-1/-1": 1})],
        [("Winding Constrictor", "bob"), ("Vizier of Remedies", "bob")],
    )
    assert _gain(board, "c", "-1/-1") == 0


# ------------------------------------------------------------------ 616.1 ordering: the best order, in polynomial time
def _brute_force(uses: list[int], want_more: bool) -> int:
    """Every distinct order of the operations, applied until the count is 0 (the definition)."""
    ops = [op for op, n in zip(Op, uses, strict=True) for _ in range(n)]
    results = []
    for order in set(permutations(ops)):
        count = 1
        for op in order:
            if count == 0:
                break
            count = apply_op(op, count)
        results.append(count)
    return max(results) if want_more else min(results)


@given(st.lists(st.integers(0, 3), min_size=len(Op), max_size=len(Op)).filter(lambda u: sum(u) <= 7), st.booleans())
def test_616_1_best_count_equals_the_best_of_every_order(uses: list[int], want_more: bool) -> None:
    assert best_count(uses, want_more) == _brute_force(uses, want_more)


@pytest.mark.parametrize(
    ("uses", "want_more", "count"),
    [
        ([1, 1, 0, 0, 0, 0], True, 4),  # +1 then x2
        ([1, 1, 0, 0, 0, 0], False, 3),  # x2 then +1
        ([0, 1, 0, 1, 0, 0], True, 1),  # x2 then /2
        ([0, 1, 0, 1, 0, 0], False, 0),  # /2 first: nothing left to double
        ([2, 0, 1, 0, 0, 0], False, 0),  # -1 first: 0, the +1s no longer apply
        ([5, 5, 5, 5, 5, 1], True, 0),  # a ban in any order
        ([0, 40, 0, 0, 0, 0], True, 2**40),
        ([0, 2, 0, 0, 1, 0], True, 4),  # =1 first, then x2 twice
        ([0, 2, 0, 0, 1, 0], False, 1),  # x2 twice, then =1
        ([1, 0, 0, 0, 1, 0], False, 1),  # +1 then =1 (or =1 then +1: 2),
    ],
)
def test_616_1_best_count_known_orders(uses: list[int], want_more: bool, count: int) -> None:
    assert best_count(uses, want_more) == count


@pytest.mark.parametrize("variant", VARIANTS)
def test_616_1_every_cell_of_a_large_board_gets_its_best_order(variant: str) -> None:
    """The compiled gains of a 300-object board with effects, cell by cell, against every order of its effects.

    701.34a: a counter only of a kind already there; 616.1: the affected party's best order
    (and fewer defense counters for a battle's controller when an opponent of theirs protects it).
    """
    board = load_board(generate(BoardSpec(300, variant, extras=True, seed=3)))
    scopes = scopes_in_force(board)
    assert scopes
    got = gains(board)
    covers = [np.asarray(scope.objects(board, c), dtype=bool) for scope, c in scopes]
    has = (board.counts > 0) & ~board.no_counters[:, None]
    checked = 0
    for s, k in zip(*np.nonzero(has), strict=True):
        kind = board.kinds[k]
        uses = [0] * len(Op)
        for (scope, _), cover in zip(scopes, covers, strict=True):
            if cover[s] and scope.kinds(kind):
                uses[list(Op).index(scope.op)] += 1
        protector = int(board.protector[s])
        hostile = protector >= 0 and board.team[protector] != board.team[board.controller[s]]
        want_more = valence(kind) >= 0 and not (kind == "defense" and hostile)
        if sum(uses) <= 7:
            assert got[s, k] == _brute_force(uses, want_more), (board.ids[s], kind, uses)
            checked += sum(uses) > 0
    assert (got != has).any() and checked > 0  # the effects change some gains
    assert not got[~has].any()


def test_616_1_a_count_past_int64_is_refused_never_wrapped() -> None:
    """The compiled DP saturates at 2**62 and refuses any count that met it, rather than give a wrapped one."""
    assert best_count([0, 61, 0, 0, 0, 0], True) == 2**61
    with pytest.raises(ValueError, match="counters in one proliferate"):
        best_count([0, 62, 0, 0, 0, 0], True)
    with pytest.raises(ValueError, match="counters in one proliferate"):
        best_count([0, 70, 0, 70, 0, 0], True)  # the best order passes 2**62 on its way down to 1
    assert best_count([0, 70, 0, 0, 0, 1], True) == 0  # a ban: 0 in any order, nothing computed


def test_616_1_the_compiled_gains_are_loaded_by_import_solver() -> None:
    """``import solver`` loads the 616.1 kernel a board's gains call (solver.preload.load), so no first decision
    pays for it."""
    code = "import solver; from solver.kernels.gains import board_gains_616_1; print(len(board_gains_616_1.signatures))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 1


def test_616_1_many_effects_order_in_polynomial_time() -> None:
    """15 of each operation: 60!/(15!^4) orders, 65,536 DP states (the old enumeration never finished)."""
    started = time.perf_counter()
    most = best_count([15, 15, 15, 15, 0, 0], True)
    assert 1 <= most <= 16 * 2**15  # some order keeps a counter; none beats +1s then x2s alone
    assert best_count([15, 15, 15, 15, 0, 0], False) == 0  # halving first leaves nothing
    assert time.perf_counter() - started < 30


def test_616_1_forty_doubling_seasons_decide_fast() -> None:
    """Regression: the classic board with 13 Doubling Seasons took minutes; 40 take milliseconds."""
    board = load_board(resources.files("solver.examples").joinpath("classic.json").read_text("utf-8"))
    crowded = board.with_effects([Effect("Doubling Season", "alice")] * 40)
    started = time.perf_counter()
    decision = solve(crowded)
    assert time.perf_counter() - started < 30
    assert _gain(crowded, "tamiyo", "loyalty") == 2**40
    assert "tamiyo" in decision.chosen


def test_616_1_thirty_doublers_against_thirty_halvers_through_the_loader() -> None:
    """Alice's 30 Doubling Seasons against Bob's 30 Vorinclexes: each side orders its own objects' events."""
    data = json.loads(resources.files("solver.examples").joinpath("classic.json").read_text("utf-8"))
    data["effects"] = [{"card": "Doubling Season", "controller": "alice"}] * 30 + [
        {"card": "Vorinclex, Monstrous Raider", "controller": "bob"}
    ] * 30
    board = load_board(data)
    assert _gain(board, "tamiyo", "loyalty") == 1  # alice doubles 30 times, then halves 30 times
    assert _gain(board, "liliana", "loyalty") == 0  # halved first: Doubling Season is not bob's
    assert _gain(board, "bob", "poison") == 0  # bob wants fewer poison counters
    assert solve(board).value >= 0


def test_more_counters_than_int64_holds_is_a_clear_error() -> None:
    """Boards built in Python skip the loader's limits: 70 doublers must not wrap around silently."""
    board = load_board(resources.files("solver.examples").joinpath("classic.json").read_text("utf-8"))
    with pytest.raises(ValueError, match="int64"):
        _ = gain(board.with_effects([Effect("Doubling Season", "alice")] * 70))
