"""The decision engine: the named failure modes of other engines (issue 3), and fast = CP-SAT = brute force."""

from __future__ import annotations

import importlib.resources
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import board_dicts, boards

import solver
from solver import Board, Choice, Decision, load_board, score, solve, worst_value
from solver.brute import enumerate_choices
from solver.objective import MILLI, Objective
from solver.rules import ChoiceMatrix, counters_after, eligible_mask


def _example(name: str) -> Board:
    text = importlib.resources.files("solver.examples").joinpath(f"{name}.json").read_text()
    return load_board(text)


def _duel(alice: dict[str, int], bob: dict[str, int], permanents: list[dict[str, Any]], **extra: Any) -> Board:
    return load_board(
        {
            "variant": "duel",
            "proliferator": "alice",
            "players": [{"id": "alice", "counters": alice}, {"id": "bob", "counters": bob}],
            "permanents": permanents,
            **extra,
        }
    )


# ------------------------------------------------------------------ the named cases
def test_self_poison_trap_avoided() -> None:
    """Alice at 9 poison with energy: proliferating herself is 704.5c suicide whatever the energy."""
    decision = solve(_example("self_poison_trap"))
    assert "alice" not in decision.chosen
    assert set(decision.chosen) == {"bob", "ancient"}
    assert decision.outcome.losers == ()
    assert decision.game_result == "none"


def test_704_5c_lethal_ninth_to_tenth_poison_taken() -> None:
    board = _duel({"energy": 3}, {"poison": 9}, [])
    decision = solve(board)
    assert decision.chosen == ("alice", "bob") or decision.chosen == ("bob",)
    assert decision.outcome.losers == ("bob",)
    assert decision.game_result == "win"


def test_classic_board_avoids_growing_opponents_planeswalker() -> None:
    decision = solve(_example("classic"))
    assert set(decision.chosen) == {"bob", "bears", "tamiyo", "courser"}
    assert decision.value == pytest.approx(4.0)
    assert decision.outcome.board.counters("liliana") == {"loyalty": 4}


def test_704_5f_killing_own_creature_with_a_minus_counter_avoided() -> None:
    """My 2/2 with a -1/-1 and a +1/+0: one more -1/-1 kills it, so the +1/+0 is not worth it."""
    mine = {"id": "mine", "controller": "alice", "types": ["creature"], "power": 2, "toughness": 2,
            "counters": {"-1/-1": 1, "+1/+0": 1}}  # fmt: skip
    theirs = mine | {"id": "theirs", "controller": "bob"}
    decision = solve(_duel({}, {}, [mine, theirs]))
    assert decision.chosen == ("theirs",)
    assert decision.outcome.dies == ("theirs",)


def test_701_34b_two_headed_giant_lethal_needs_only_one_head() -> None:
    decision = solve(_example("two_headed_giant_lethal"))
    assert decision.game_result == "win"
    assert len({"bob", "carol"} & set(decision.chosen)) == 1
    assert set(decision.outcome.losers) == {"bob", "carol"}


def test_701_34b_both_heads_give_one_poison_so_team_at_13_survives() -> None:
    board = load_board(
        {
            "variant": "two_headed_giant",
            "proliferator": "alice",
            "players": [
                {"id": "alice", "team": "A"},
                {"id": "ally", "team": "A"},
                {"id": "bob", "team": "B", "counters": {"poison": 13}},
                {"id": "carol", "team": "B"},
            ],
        }
    )
    for method in ("fast", "cpsat", "brute"):
        decision = solve(board, method=method)
        assert decision.game_result == "none"
        assert decision.outcome.board.counters("bob")["poison"] == 14
        assert len(decision.chosen) == 1


def test_701_34b_recipient_choice_with_winding_constrictor_makes_lethal() -> None:
    """Team B at 13; bob controls Winding Constrictor, so the poison must go to bob (2 counters, 15)."""
    board = load_board(
        {
            "variant": "two_headed_giant",
            "proliferator": "alice",
            "players": [
                {"id": "alice", "team": "A"},
                {"id": "ally", "team": "A"},
                {"id": "bob", "team": "B", "counters": {"poison": 13}},
                {"id": "carol", "team": "B", "counters": {"energy": 4}},
            ],
            "effects": [{"card": "Winding Constrictor", "controller": "bob"}],
        }
    )
    for method in ("fast", "cpsat", "brute"):
        decision = solve(board, method=method)
        assert decision.game_result == "win", method
        assert "bob" in decision.chosen
        if "carol" in decision.chosen:
            assert decision.poison_recipients == {"B": "bob"}
    both_to_carol = score(board, Choice.of(["bob", "carol"], {"B": "carol"}))
    assert both_to_carol.regret > 0


def test_vorinclex_makes_lethal_reachable() -> None:
    decision = solve(_example("vorinclex_lethal"))
    assert "bob" in decision.chosen
    assert decision.outcome.board.counters("bob")["poison"] == 10
    assert decision.game_result == "win"


def test_704_4_proliferate_twice_reaches_lethal() -> None:
    decision = solve(_example("proliferate_twice"))
    assert len(decision.rounds) == 2
    assert all("bob" in r.chosen for r in decision.rounds)
    assert decision.game_result == "win"


@pytest.mark.parametrize(
    "name",
    [
        "classic",
        "nine_lives_trap",
        "proliferate_twice",
        "sagas_and_battles",
        "self_poison_trap",
        "two_headed_giant_lethal",
        "vorinclex_lethal",
    ],
)
def test_examples_all_paths_agree(name: str) -> None:
    board = _example(name)
    decisions = [solve(board, method=m) for m in ("fast", "cpsat", "brute")]
    assert len({round(d.value * MILLI) for d in decisions}) == 1
    assert len({_picks(d) for d in decisions}) == 1
    for d in decisions:
        assert d.status == "OPTIMAL"
        assert d.bound == pytest.approx(d.value), d.method


def test_nine_lives_trap_avoided() -> None:
    decision = solve(_example("nine_lives_trap"))
    assert "nine_lives" not in decision.chosen
    assert decision.outcome.losers == ()


# ------------------------------------------------------------------ properties against brute force
def _picks(decision: Decision) -> int:
    return sum(len(r.chosen) for r in decision.rounds)


def _small(board: Board, limit: int = 10) -> bool:
    return int(eligible_mask(board).sum()) * board.rounds <= limit


_BOARDS = boards(max_permanents=6, max_proliferates=2)


@settings(max_examples=50, deadline=None)
@given(_BOARDS)
def test_fast_cpsat_brute_agree_and_are_optimal(board: Board) -> None:
    """Exact agreement in milli-points and in the number of picks (canonical tie-break: fewest)."""
    assume(_small(board))
    objective = Objective(board)
    values = [objective.score_matrix(c, r) for c, r in enumerate_choices(objective)]
    best = max(values)
    decisions = {m: solve(board, method=m) for m in ("fast", "cpsat", "brute")}
    for method, decision in decisions.items():
        assert round(decision.value * MILLI) == best, method
    assert len({_picks(d) for d in decisions.values()}) == 1
    assert len({_canonical(d) for d in decisions.values()}) == 1, "same canonical tie-break on every path"
    assert worst_value(board) == min(values) / MILLI


def _canonical(decision: Decision) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """Rounds per object and poison per recipient: a choice up to the order of its rounds."""
    times = Counter(i for r in decision.rounds for i in r.chosen)
    recipients = Counter(h for r in decision.rounds for h in r.poison_recipients.values())
    return tuple(sorted(times.items())), tuple(sorted(recipients.items()))


@settings(max_examples=40, deadline=None)
@given(_BOARDS)
def test_solve_is_deterministic(board: Board) -> None:
    def clean(decision: Decision) -> str:
        out = decision.to_json()
        del out["elapsed_ms"]
        return json.dumps(out, sort_keys=True)

    assert clean(solve(board, top_k=3)) == clean(solve(board, top_k=3))


@settings(max_examples=40, deadline=None)
@given(_BOARDS, st.integers(2, 6))
def test_top_k_distinct_sorted_with_regrets(board: Board, k: int) -> None:
    assume(_small(board))
    decision = solve(board, top_k=k)
    alts = decision.alternatives
    assert alts[0].rank == 1 and alts[0].regret == 0 and alts[0].value == decision.value
    assert [a.rank for a in alts] == list(range(1, len(alts) + 1))
    values = [a.value for a in alts]
    assert values == sorted(values, reverse=True)
    for alt in alts:
        assert alt.regret == pytest.approx(decision.value - alt.value)
        assert score(board, alt.choice).value == pytest.approx(alt.value)
    keys = [_signature(board, alt.choice) for alt in alts]
    assert len(set(keys)) == len(keys)
    # The k best distinct values, by brute force.
    objective = Objective(board)
    best_by_key: dict[Any, int] = {}
    for chosen, recipients in enumerate_choices(objective):
        key = (tuple(chosen.sum(axis=0)), counters_after(board, chosen, recipients).tobytes())
        best_by_key[key] = max(best_by_key.get(key, -(2**62)), objective.score_matrix(chosen, recipients))
    expected = sorted(best_by_key.values(), reverse=True)[:k]
    assert [round(v * MILLI) for v in values] == expected


def _signature(board: Board, choice: Choice) -> tuple[Any, ...]:
    from solver.rules import choice_matrix

    chosen, recipients = choice_matrix(board, choice)
    return tuple(chosen.sum(axis=0)), counters_after(board, chosen, recipients).tobytes()


@settings(max_examples=40, deadline=None)
@given(_BOARDS, st.data())
def test_constraints_respected_and_cpsat_agrees_with_brute(board: Board, data: st.DataObject) -> None:
    assume(_small(board))
    ids = solver.eligible(board)
    assume(ids)
    include = data.draw(st.lists(st.sampled_from(ids), max_size=1, unique=True))
    exclude = data.draw(st.lists(st.sampled_from([i for i in ids if i not in include] or ids), max_size=2, unique=True))
    exclude = [i for i in exclude if i not in include]
    max_chosen = data.draw(st.none() | st.integers(1, 3))
    kwargs: dict[str, Any] = {"max_chosen": max_chosen, "must_include": include, "must_exclude": exclude}
    try:
        brute = solve(board, method="brute", **kwargs)
    except ValueError:  # e.g. 2HG heads that must both be chosen over max_chosen: nothing satisfies
        return
    cp = solve(board, method="cpsat", **kwargs)
    auto = solve(board, **kwargs)
    for d in (brute, cp, auto):
        assert round(d.value * MILLI) == round(brute.value * MILLI)
        assert _picks(d) == _picks(brute)
        ever = {i for r in d.rounds for i in r.chosen}
        assert set(include) <= ever
        assert not set(exclude) & ever
        if max_chosen is not None:
            assert all(len(r.chosen) <= max_chosen for r in d.rounds)


@settings(max_examples=40, deadline=None)
@given(_BOARDS, st.data())
def test_score_regret_and_worst_value(board: Board, data: st.DataObject) -> None:
    assume(_small(board))
    objective = Objective(board)
    choices = list(enumerate_choices(objective))
    chosen, recipients = data.draw(st.sampled_from(choices))
    choice = ChoiceMatrix(board, chosen, recipients).to_choice()
    result = score(board, choice)
    best = solve(board)
    assert result.best == best.value
    assert result.regret == pytest.approx(best.value - result.value)
    assert result.regret >= 0
    assert score(board, best.choice).regret == 0
    assert worst_value(board) <= result.value


def test_thread_safety_identical_answers() -> None:
    board = _example("sagas_and_battles")

    def run(_: int) -> str:
        out = solve(board, top_k=3).to_json()
        del out["elapsed_ms"]
        return json.dumps(out, sort_keys=True)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, range(8)))
    assert len(set(results)) == 1


def test_top_k_beyond_enumeration_uses_cpsat_and_matches_brute_force() -> None:
    """13 eligible objects: past the enumeration cut-off (12), so top-k comes from CP-SAT no-goods."""
    perms = [
        {
            "id": f"c{i}",
            "controller": "alice" if i % 2 else "bob",
            "types": ["creature"],
            "power": 2,
            "toughness": 2,
            "counters": {"+1/+1": 1 + i % 3, "stun": i % 2},
        }
        for i in range(11)
    ]
    board = _duel({"energy": 1}, {"poison": 2}, perms)
    assert int(eligible_mask(board).sum()) == 13
    decision = solve(board, top_k=4)
    objective = Objective(board)
    best_by_key: dict[Any, int] = {}
    for chosen, recipients in enumerate_choices(objective):
        key = tuple(chosen.sum(axis=0))
        best_by_key[key] = max(best_by_key.get(key, -(2**62)), objective.score_matrix(chosen, recipients))
    expected = sorted(best_by_key.values(), reverse=True)[:4]
    assert [round(a.value * MILLI) for a in decision.alternatives] == expected
    assert np.all(np.diff([a.value for a in decision.alternatives]) <= 0)


# ------------------------------------------------------------------ CP-SAT specifics
def _dying(pid: str) -> dict[str, Any]:
    """Bob's 2/2 with a -1/-1: one more kills it (704.5f); a second changes nothing."""
    return {"id": pid, "controller": "bob", "types": ["creature"], "power": 2, "toughness": 2, "counters": {"-1/-1": 1}}


def test_cpsat_max_chosen_applies_per_round() -> None:
    """Proliferate twice, at most one object per proliferate: kill one creature in each round (value 4)."""
    board = _duel({}, {}, [_dying("a"), _dying("b")], proliferates=2)
    brute = solve(board, method="brute", max_chosen=1)
    assert brute.value == 4.0 and set(brute.outcome.dies) == {"a", "b"}
    cp = solve(board, method="cpsat", max_chosen=1)
    assert cp.value == brute.value


def test_cpsat_tie_break_prefers_earlier_objects_with_constraints() -> None:
    board = _duel({}, {}, [_dying("a"), _dying("b"), _dying("c")])
    assert solve(board, method="brute", max_chosen=1).chosen == ("a",)
    assert solve(board, max_chosen=1).chosen == ("a",)


def test_cpsat_tie_break_matches_fast_in_two_headed_giant() -> None:
    """Either head of a poisoned team takes the poison (810.10d); input order says the first, carol."""
    board = load_board(
        {
            "variant": "two_headed_giant",
            "proliferator": "alice",
            "players": [
                {"id": "alice", "team": "A"},
                {"id": "bob", "team": "A"},
                {"id": "carol", "team": "B", "counters": {"poison": 1}},
                {"id": "dave", "team": "B"},
            ],
        }
    )
    assert solve(board, method="fast").chosen == ("carol",)
    assert solve(board, method="brute").chosen == ("carol",)
    assert solve(board, method="cpsat").chosen == ("carol",)


def test_api_misuse_is_refused() -> None:
    board = _example("classic")
    with pytest.raises(ValueError, match="fast path takes no constraints"):
        solve(board, method="fast", max_chosen=1)
    with pytest.raises(ValueError, match="top_k"):
        solve(board, top_k=0)
    with pytest.raises(ValueError, match="must_include"):
        solve(board, must_include=["nobody"])
    with pytest.raises(solver.IllegalChoice):
        score(board, Choice.of(["nobody"]))


# ------------------------------------------------------------------ a finished game (104.2a, 104.3, 704.5c, 810.8)
def _value(board: Board, ids: list[str]) -> float:
    return score(board, Choice.of(ids)).value


def _bears(controller: str, pid: str = "bears") -> dict[str, Any]:
    return {"id": pid, "controller": controller, "types": ["creature"], "power": 2, "toughness": 2,
            "counters": {"+1/+1": 1}}  # fmt: skip


def test_104_2a_704_5c_a_win_is_worth_its_score_alone_and_takes_the_fewest_picks() -> None:
    # Both players at 9 poison: choosing bob alone makes him lose (704.5c) and alice win (104.2a).
    # The +1/+1 counter on her Bears, added to a game that is over, is worth nothing: bob alone is
    # the best choice, and the fewest picks break the tie.  (Main preferred bob + bears, 1 point more.)
    board = _duel({"poison": 9}, {"poison": 9}, [_bears("alice")])
    for method in ("fast", "cpsat", "brute"):
        decision = solve(board, method=method)
        assert decision.chosen == ("bob",), method
        assert decision.game_result == "win"
        assert decision.value == _value(board, ["bob"]) == _value(board, ["bob", "bears"])
    [many] = solver.solve_many([board])
    assert many.chosen == ("bob",) and many.value == decision.value


def test_104_3_a_loss_is_worth_its_score_alone() -> None:
    # Alice at 9 and bob at 0 poison: choosing alice loses the game (104.3, 704.5c), bears or not.
    board = _duel({"poison": 9}, {"poison": 0, "energy": 1}, [_bears("alice")])
    assert _value(board, ["alice", "bears"]) == _value(board, ["alice"])
    assert worst_value(board) == _value(board, ["alice"])
    assert _value(board, ["alice", "bob", "bears"]) == _value(board, ["alice"])


def test_104_4a_a_draw_is_worth_its_score_alone() -> None:
    # Both at 9 poison, both chosen: both lose at once, a draw (104.4a); the Bears' counter adds nothing.
    board = _duel({"poison": 9}, {"poison": 9}, [_bears("alice")])
    draw = _value(board, ["alice", "bob"])
    assert _value(board, ["alice", "bob", "bears"]) == draw


def test_810_8_two_headed_giant_win_is_worth_its_score_alone() -> None:
    # Team b at 14 shared poison: one head chosen gives the team its 15th (704.6b), the team loses (810.8a).
    board = load_board(
        {
            "variant": "two_headed_giant",
            "proliferator": "a1",
            "players": [
                {"id": "a1", "team": "a", "counters": {}},
                {"id": "a2", "team": "a", "counters": {}},
                {"id": "b1", "team": "b", "counters": {"poison": 14}},
                {"id": "b2", "team": "b", "counters": {"poison": 14}},
            ],
            "permanents": [_bears("a1")],
        }
    )
    for method in ("fast", "cpsat", "brute"):
        decision = solve(board, method=method)
        assert decision.game_result == "win" and len(decision.chosen) == 1 and decision.chosen[0] in ("b1", "b2")
    assert _value(board, ["b1", "bears"]) == _value(board, ["b1"])


def _near_lethal(dicts: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Board]:
    """Boards whose players sit at or near lethal poison, so that many choices end the game."""

    @st.composite
    def build(draw: st.DrawFn) -> Board:
        board = draw(dicts)
        board.pop("team_poison", None)
        two_headed = board["variant"] == "two_headed_giant"
        shared = draw(st.sampled_from([13, 14])) if two_headed else 0
        for player in board["players"]:
            counters = {k: v for k, v in player["counters"].items() if k.lower() != "poison"}
            counters["poison"] = shared or draw(st.sampled_from([0, 8, 9, 9]))
            player["counters"] = counters
        return load_board(board)

    return build()


@settings(max_examples=60, deadline=None)
@given(_near_lethal(board_dicts(max_permanents=5, max_proliferates=2)))
def test_game_ending_boards_fast_cpsat_brute_batch_agree(board: Board) -> None:
    """On boards where choices win, lose or draw, every path finds the brute-force optimum and its picks."""
    assume(_small(board))
    objective = Objective(board)
    scored = [(objective.score_matrix(c, r), -int(c.sum())) for c, r in enumerate_choices(objective)]
    best = max(scored)
    decisions = {m: solve(board, method=m) for m in ("fast", "cpsat", "brute")}
    decisions["batch"] = solver.solve_many([board])[0]
    for method, decision in decisions.items():
        assert (round(decision.value * MILLI), -_picks(decision)) == best, method
    assert len({_canonical(d) for d in decisions.values()}) == 1
    assert worst_value(board) == min(v for v, _ in scored) / MILLI
