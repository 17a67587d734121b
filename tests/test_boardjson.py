"""Board JSON format version 1: examples, schema, round trip, aliases, and every kind of bad input."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from strategies import board_dicts
from timing_helpers import retried_on_overrun, within

from solver import formats, limits
from solver.analysis.arena import COUNTER_TYPES
from solver.board import Board, TeamPoison, Variant
from solver.boardjson import dump_board, load_board
from solver.catalogue import default_spec
from solver.effects import SUPPORTED_CARDS
from solver.errors import BoardError, Problem
from solver.kinds import KIND_TABLE, KNOWN_KINDS, canonical_kind, pt_delta

EXAMPLES = sorted(
    (p for p in resources.files("solver.examples").iterdir() if p.name.endswith(".json")), key=lambda p: p.name
)
SCHEMA = json.loads(resources.files("solver.schema").joinpath("board-v1.schema.json").read_text("utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
EXPECTED_EXAMPLES = {
    "classic.json",
    "nine_lives_trap.json",
    "proliferate_twice.json",
    "sagas_and_battles.json",
    "self_poison_trap.json",
    "two_headed_giant_lethal.json",
    "vorinclex_lethal.json",
}


def base() -> dict[str, Any]:
    """A valid duel touching every permanent field family; tests break one thing in a copy."""
    return {
        "format": 1,
        "variant": "duel",
        "proliferator": "alice",
        "players": [
            {"id": "alice", "counters": {"energy": 2}},
            {"id": "bob", "life": 17, "counters": {"poison": 3}},
        ],
        "permanents": [
            {
                "id": "bears",
                "name": "Grizzly Bears",
                "controller": "alice",
                "types": ["creature"],
                "power": 2,
                "toughness": 2,
                "counters": {"+1/+1": 1},
            },
            {"id": "tamiyo", "controller": "alice", "types": ["planeswalker"], "counters": {"loyalty": 3}},
            {
                "id": "siege",
                "controller": "alice",
                "types": ["battle"],
                "subtypes": ["Siege"],
                "protector": "bob",
                "counters": {"defense": 2},
            },
            {
                "id": "reactor",
                "controller": "bob",
                "types": ["artifact"],
                "counters": {"charge": 19},
                "thresholds": [{"kind": "charge", "at": 20, "effect": "win", "label": "Darksteel Reactor"}],
            },
        ],
        "effects": [{"card": "Doubling Season", "controller": "alice"}],
    }


def giant() -> dict[str, Any]:
    """A valid Two-Headed Giant board: teams A (alice, ally) and B (bob, carol)."""
    return {
        "variant": "two_headed_giant",
        "proliferator": "alice",
        "players": [
            {"id": "alice", "team": "A"},
            {"id": "ally", "team": "A"},
            {"id": "bob", "team": "B", "counters": {"poison": 14}},
            {"id": "carol", "team": "B"},
        ],
    }


def problems(source: Any) -> tuple[Problem, ...]:
    with pytest.raises(BoardError) as info:
        load_board(source)
    return info.value.problems


def assert_problem(source: Any, path: str, fragment: str = "") -> Problem:
    """The load fails with a problem at exactly ``path`` whose message contains ``fragment``."""
    found = problems(source)
    matching = [p for p in found if p.path == path and fragment in p.message]
    assert matching, f"no problem at {path!r} containing {fragment!r}; got {[str(p) for p in found]}"
    return matching[0]


def broken(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    board = base()
    change(board)
    return board


# ---------------------------------------------------------------------- examples and schema


def test_all_examples_ship() -> None:
    assert {p.name for p in EXAMPLES} == EXPECTED_EXAMPLES


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_loads(example: Any) -> None:
    board = load_board(json.loads(example.read_text("utf-8")))
    assert board.n_players >= 2
    assert all(p.name for p in board.permanents)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_validates_against_schema(example: Any) -> None:
    VALIDATOR.validate(json.loads(example.read_text("utf-8")))


def test_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA)


def test_schema_lists_exactly_the_supported_cards() -> None:
    assert SCHEMA["$defs"]["Effect"]["properties"]["card"]["enum"] == list(SUPPORTED_CARDS)


def test_schema_describes_every_field() -> None:
    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                assert "description" in sub, f"{where}.{name} has no description"
            for key, sub in node.items():
                walk(sub, f"{where}.{key}")

    walk(SCHEMA, "schema")


def test_two_headed_giant_example_shares_team_poison() -> None:
    """810.10: team B's 14 poison is one shared total, on both heads."""
    board = load_board(json.loads((resources.files("solver.examples") / "two_headed_giant_lethal.json").read_text()))
    assert board.counters("bob")["poison"] == board.counters("carol")["poison"] == 14
    assert list(board.poison_threshold()) == [15, 15]


# ---------------------------------------------------------------------- round trip


@settings(max_examples=150, deadline=None)
@given(board_dicts())
def test_round_trip(data: dict[str, Any]) -> None:
    board = load_board(data)
    dumped = dump_board(board)
    VALIDATOR.validate(dumped)
    assert load_board(dumped) == board
    assert dump_board(load_board(json.loads(json.dumps(dumped)))) == dumped
    per_head = ["team_poison"] if board.team_poison is TeamPoison.PER_HEAD else []  # only when not the default
    fields = ["format", "variant", "proliferator", "proliferates", *per_head, "players", "permanents", "effects"]
    assert list(dumped) == fields


@settings(max_examples=100, deadline=None)
@given(board_dicts())
def test_loaded_counters_are_the_canonical_input(data: dict[str, Any]) -> None:
    """122.1: aliases name the same kind; zero counts are no counters at all."""
    board = load_board(data)
    for perm in data["permanents"]:
        expected = {canonical_kind(k): n for k, n in perm["counters"].items() if n}
        assert dict(board.counters(perm["id"])) == expected
    if data["variant"] != Variant.TWO_HEADED_GIANT:
        for player in data["players"]:
            expected = {canonical_kind(k): n for k, n in player["counters"].items() if n}
            assert dict(board.counters(player["id"])) == expected


def test_dump_omits_defaults_and_keeps_required_keys() -> None:
    dumped = dump_board(load_board(base()))
    assert dumped["permanents"][1] == {
        "id": "tamiyo",
        "controller": "alice",
        "types": ["planeswalker"],
        "counters": {"loyalty": 3},
    }
    assert dumped["players"][0] == {"id": "alice", "team": "alice", "life": 20, "counters": {"energy": 2}}
    assert dumped["effects"] == [{"card": "Doubling Season", "controller": "alice"}]


# ---------------------------------------------------------------------- normalisation and defaults


@pytest.mark.parametrize(
    ("alias", "kind"),
    [
        ("P1P1", "+1/+1"),
        ("p1p1", "+1/+1"),
        ("M1M1", "-1/-1"),
        ("+1/+1 counters", "+1/+1"),
        ("FIRST_STRIKE", "first strike"),
    ],
)
def test_counter_kind_aliases(alias: str, kind: str) -> None:
    """122.1: counters with the same name are one kind, however an engine spells it."""
    board = load_board(broken(lambda b: b["permanents"][0].update(counters={alias: 2})))
    assert dict(board.counters("bears")) == {kind: 2}


def test_duplicate_kind_after_normalisation() -> None:
    """122.1: "P1P1" and "+1/+1" are the same kind, so one object cannot list both."""
    board = broken(lambda b: b["permanents"][0].update(counters={"P1P1": 1, "+1/+1": 2}))
    assert_problem(board, 'permanents[0].counters["+1/+1"]', "same counter kind")


def test_card_types_are_case_insensitive_and_tribal_is_kindred() -> None:
    board = load_board(broken(lambda b: b["permanents"][3].update(types=["Tribal", "ARTIFACT"])))
    assert board.permanents[3].types == ("kindred", "artifact")


def test_keywords_are_stored_lower_case() -> None:
    board = load_board(broken(lambda b: b["permanents"][0].update(keywords=["Indestructible"])))
    assert board.permanents[0].keywords == ("indestructible",)
    assert bool(board.indestructible[board.index["bears"]])


def test_effect_card_names_match_loosely() -> None:
    board = load_board(
        broken(lambda b: b["effects"].append({"card": "vorinclex monstrous raider", "controller": "bob"}))
    )
    assert board.effects[1].card == "Vorinclex, Monstrous Raider"


def test_defaults() -> None:
    """103.4: 20 life; a player's team defaults to their own id; one proliferate."""
    board = load_board(base())
    assert board.players[0].life == 20 and board.players[0].team == "alice"
    assert board.proliferates == 1
    assert board.effects[0].level == 3


def test_two_headed_giant_defaults_and_poison_on_one_head() -> None:
    """810.4: a team starts at 30 life; 810.10: poison written on one head is the team's."""
    board = load_board(giant())
    assert [p.life for p in board.players] == [30, 30, 30, 30]
    assert board.counters("carol")["poison"] == 14


def test_two_headed_giant_poison_written_identically_on_both_heads() -> None:
    """810.10: both heads may state the team's shared poison if they agree."""
    data = giant()
    data["players"][3]["counters"] = {"Poison": 14}
    assert load_board(data).counters("carol")["poison"] == 14


def test_two_headed_giant_allows_bigger_teams() -> None:
    """810.11: teams of three are legal (their poison threshold is 20)."""
    data = giant()
    data["players"].extend([{"id": "dan", "team": "A"}, {"id": "eve", "team": "B"}])
    assert list(load_board(data).poison_threshold()) == [20, 20]


# ---------------------------------------------------------------------- sources


def test_json_text_source() -> None:
    assert load_board("  \n" + json.dumps(base())) == load_board(base())


def test_path_sources(tmp_path: Path) -> None:
    file = tmp_path / "board.json"
    file.write_text(json.dumps(base()), encoding="utf-8")
    assert load_board(str(file)) == load_board(file) == load_board(base())


def test_invalid_json_text() -> None:
    text = '{\n  "variant": "duel"\n    "players": []\n}'
    assert problems(text) == (Problem("", "not valid JSON: line 3 column 5: Expecting ',' delimiter"),)


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "x.json"
    assert problems(missing) == (Problem("", f"cannot read board file {str(missing)!r}: No such file or directory"),)


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    file = tmp_path / "list.json"
    file.write_text("[1, 2]", encoding="utf-8")
    assert problems(file) == (Problem("", "must be an object (the board)"),)


# ---------------------------------------------------------------------- one kind of bad input per test


def test_unknown_field_at_top_level() -> None:
    assert_problem(broken(lambda b: b.update(colour="green")), "colour", "unknown field")


def test_unknown_field_in_a_player() -> None:
    assert_problem(broken(lambda b: b["players"][1].update(nickname="B")), "players[1].nickname", "unknown field")


def test_unknown_field_in_a_permanent() -> None:
    assert_problem(broken(lambda b: b["permanents"][2].update(colour="red")), "permanents[2].colour", "unknown field")


def test_unknown_field_in_a_threshold() -> None:
    board = broken(lambda b: b["permanents"][3]["thresholds"][0].update(when="upkeep"))
    assert_problem(board, "permanents[3].thresholds[0].when", "unknown field")


def test_unknown_field_in_an_effect() -> None:
    assert_problem(broken(lambda b: b["effects"][0].update(note="x")), "effects[0].note", "unknown field")


@pytest.mark.parametrize(
    ("change", "path", "message"),
    [
        (lambda b: b["permanents"][0].update(name=5), "permanents[0].name", "must be a string"),
        (lambda b: b["players"][0].update(life="20"), "players[0].life", "must be an integer"),
        (lambda b: b["players"][0].update(counters=[]), "players[0].counters", "must be an object"),
        (lambda b: b["permanents"][0].update(types="creature"), "permanents[0].types", "must be a list"),
        (lambda b: b["permanents"][0].update(phased_out="no"), "permanents[0].phased_out", "must be a boolean"),
        (lambda b: b["permanents"][0].update(value="high"), "permanents[0].value", "must be a number"),
        (lambda b: b["permanents"][0].update(keywords=[1]), "permanents[0].keywords[0]", "must be a string"),
        (lambda b: b["players"].append(3), "players[2]", "must be an object"),
        (lambda b: b.update(permanents={}), "permanents", "must be a list"),
        (lambda b: b.update(proliferator=None), "proliferator", "must be a string"),
        (lambda b: b["permanents"][1].update(id=""), "permanents[1].id", "must be a non-empty string"),
    ],
)
def test_wrong_json_type(change: Callable[[dict[str, Any]], object], path: str, message: str) -> None:
    assert_problem(broken(change), path, message)


def test_negative_count() -> None:
    board = broken(lambda b: b["permanents"][0].update(counters={"-1/-1": -1}))
    assert assert_problem(board, 'permanents[0].counters["-1/-1"]').message == "must be an integer >= 0"


@pytest.mark.parametrize("count", [2.0, 1.5, "2", None])
def test_non_integer_count(count: object) -> None:
    board = broken(lambda b: b["players"][1]["counters"].update(poison=count))
    assert assert_problem(board, 'players[1].counters["poison"]').message == "must be an integer >= 0"


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda b: b["players"][1]["counters"].update(poison=True), 'players[1].counters["poison"]'),
        (lambda b: b["players"][1].update(life=False), "players[1].life"),
        (lambda b: b.update(proliferates=True), "proliferates"),
        (lambda b: b.update(format=True), "format"),
        (lambda b: b["permanents"][0].update(power=True), "permanents[0].power"),
        (lambda b: b["permanents"][3]["thresholds"][0].update(at=True), "permanents[3].thresholds[0].at"),
        (lambda b: b["permanents"][0].update(value=True), "permanents[0].value"),
    ],
)
def test_bool_is_not_an_integer(change: Callable[[dict[str, Any]], object], path: str) -> None:
    """JSON true is not 1, although Python's bool is an int."""
    assert_problem(broken(change), path)


def test_non_finite_number() -> None:
    board = broken(lambda b: b["permanents"][0].update(counter_values={"+1/+1": float("inf")}))
    assert_problem(board, 'permanents[0].counter_values["+1/+1"]', "finite")


def test_count_too_large() -> None:
    assert_problem(broken(lambda b: b["players"][1]["counters"].update(poison=10**30)), 'players[1].counters["poison"]')


def test_duplicate_id_player_vs_permanent() -> None:
    assert_problem(broken(lambda b: b["permanents"][1].update(id="bob")), "permanents[1].id", "duplicate id 'bob'")


#: Boards with problems the loader finds after the types (ids, references, kinds), one or several each.
_CHECKED_PROBLEMS: dict[str, Callable[[dict[str, Any]], object]] = {
    "repeated permanent id": lambda b: b["permanents"][2].update(id="bears"),
    "permanent id of a player": lambda b: b["permanents"][1].update(id="bob"),
    "controller a permanent": lambda b: b["permanents"][1].update(controller="bears"),
    "counter kinds spelt twice": lambda b: b["permanents"][0]["counters"].update(P1P1=2),
    "several": lambda b: (
        b["permanents"][0].update(controller="reactor", types=["creature", "sorcery"]),
        b["permanents"][3].update(id="tamiyo"),
        b["effects"].append({"card": "Benevolent Hydra", "controller": "alice", "source": "bears"}),
    ),
}


@pytest.mark.parametrize("change", _CHECKED_PROBLEMS.values(), ids=list(_CHECKED_PROBLEMS))
def test_json_text_and_its_parsed_form_have_the_same_problems(change: Callable[[dict[str, Any]], object]) -> None:
    """JSON text passes the permanents once with the ids registered together, then again checking each id where
    a problem is found: the problems, their paths and their order are those of the parsed form's one pass."""
    board = broken(change)
    assert problems(json.dumps(board)) == problems(board)


def test_json_text_with_forge_spellings_loads_like_its_parsed_form() -> None:
    board = broken(lambda b: b["permanents"][0].update(counters={"P1P1": 1, "FIRST_STRIKE": 1}))
    assert load_board(json.dumps(board)) == load_board(board)
    kinds = ("energy", "poison", "+1/+1", "first strike", "loyalty", "defense", "charge")
    assert load_board(json.dumps(board)).kinds == kinds


def test_dangling_controller() -> None:
    assert_problem(broken(lambda b: b["permanents"][0].update(controller="zed")), "permanents[0].controller", "'zed'")


def test_controller_must_be_a_player_not_a_permanent() -> None:
    board = broken(lambda b: b["permanents"][1].update(controller="bears"))
    assert_problem(board, "permanents[1].controller", "is a permanent, not a player")


def test_dangling_protector() -> None:
    assert_problem(broken(lambda b: b["permanents"][2].update(protector="zed")), "permanents[2].protector", "'zed'")


def test_dangling_effect_controller() -> None:
    assert_problem(broken(lambda b: b["effects"][0].update(controller="zed")), "effects[0].controller", "'zed'")


@pytest.mark.parametrize("proliferator", ["bears", "zed"])
def test_proliferator_not_a_player(proliferator: str) -> None:
    assert_problem(broken(lambda b: b.update(proliferator=proliferator)), "proliferator", repr(proliferator))


def test_missing_team_in_two_headed_giant() -> None:
    """810.1: Two-Headed Giant is played by teams, so every player names theirs."""
    data = giant()
    del data["players"][1]["team"]
    assert_problem(data, "players[1].team", "required")


def test_two_headed_giant_team_of_one_player() -> None:
    """810.1, 810.11: a Two-Headed Giant team has at least two players."""
    data = giant()
    data["players"][3]["team"] = "C"
    assert_problem(data, "players[3].team", "team 'C' has one player")


def test_two_headed_giant_needs_two_teams() -> None:
    data = giant()
    for player in data["players"]:
        player["team"] = "A"
    assert_problem(data, "players", "at least 2 teams")


def test_inconsistent_team_poison_in_two_headed_giant() -> None:
    """810.10: poison is the team's shared total, so two heads cannot state different totals."""
    data = giant()
    data["players"][3]["counters"] = {"Poison": 13}
    assert_problem(data, 'players[3].counters["Poison"]', "810.10")


def test_unknown_variant() -> None:
    assert_problem(broken(lambda b: b.update(variant="commander")), "variant", "unknown variant 'commander'")


def test_duel_with_three_players() -> None:
    assert_problem(broken(lambda b: b["players"].append({"id": "carol"})), "players", "exactly 2 players")


def test_duel_players_on_one_team() -> None:
    board = broken(lambda b: [p.update(team="T") for p in b["players"]])
    assert_problem(board, "players[1].team", "different teams")


def test_free_for_all_with_one_player() -> None:
    board = broken(lambda b: b.update(variant="free_for_all", players=b["players"][:1], permanents=[], effects=[]))
    assert_problem(board, "players", "at least 2 players")


def test_empty_players() -> None:
    assert_problem(broken(lambda b: b.update(players=[])), "players", "must not be empty")


@pytest.mark.parametrize("field", ["variant", "proliferator", "players"])
def test_missing_required_top_level_field(field: str) -> None:
    assert_problem(broken(lambda b: b.pop(field)), field, "required")


def test_missing_permanent_controller() -> None:
    assert_problem(broken(lambda b: b["permanents"][1].pop("controller")), "permanents[1].controller", "required")


def test_unknown_card_type() -> None:
    board = broken(lambda b: b["permanents"][3].update(types=["artifact", "instant"]))
    assert_problem(board, "permanents[3].types[1]", "unknown card type 'instant'")


def test_creature_without_toughness() -> None:
    """704.5f needs a toughness to check, so creatures must state one."""
    assert_problem(broken(lambda b: b["permanents"][0].pop("toughness")), "permanents[0].toughness", "required")


def test_saga_without_chapters() -> None:
    """714.2d, 714.4: a Saga's final chapter number decides when it is sacrificed."""
    board = broken(lambda b: b["permanents"][1].update(types=["enchantment"], subtypes=["saga"], counters={"lore": 1}))
    assert_problem(board, "permanents[1].chapters", "required")


def test_protector_on_a_non_battle() -> None:
    """310.9: only battles have protectors."""
    assert_problem(broken(lambda b: b["permanents"][1].update(protector="bob")), "permanents[1].protector", "battle")


def test_threshold_with_bad_effect() -> None:
    board = broken(lambda b: b["permanents"][3]["thresholds"][0].update(effect="draw"))
    assert_problem(board, "permanents[3].thresholds[0].effect", "'lose', 'win' or a number")


def test_threshold_at_zero() -> None:
    board = broken(lambda b: b["permanents"][3]["thresholds"][0].update(at=0))
    assert_problem(board, "permanents[3].thresholds[0].at", "must be an integer >= 1")


def test_proliferates_zero() -> None:
    assert_problem(broken(lambda b: b.update(proliferates=0)), "proliferates", "from 1 to 16")


def test_unsupported_format() -> None:
    assert_problem(broken(lambda b: b.update(format=2)), "format", "format 1")


def test_unknown_effect_card_lists_supported_cards() -> None:
    problem = assert_problem(broken(lambda b: b["effects"][0].update(card="Mox Opal")), "effects[0].card", "'Mox Opal'")
    assert all(card in problem.message for card in SUPPORTED_CARDS)


def test_unknown_counter_kind_syntax() -> None:
    """122.1: a counter kind is a name; "%%" is not one."""
    board = broken(lambda b: b["permanents"][0].update(counters={"%%": 1}))
    assert_problem(board, 'permanents[0].counters["%%"]', "not a counter kind")


def test_unknown_threshold_kind_syntax() -> None:
    board = broken(lambda b: b["permanents"][3]["thresholds"][0].update(kind="%%"))
    assert_problem(board, "permanents[3].thresholds[0].kind", "not a counter kind")


def test_several_problems_are_all_reported() -> None:
    def wreck(b: dict[str, Any]) -> None:
        b["colour"] = "green"
        b["players"][1]["counters"]["poison"] = -2
        b["permanents"][0]["controller"] = "zed"
        b["permanents"][2]["types"] = ["battle", "sorcery"]
        b["permanents"][3]["thresholds"][0]["effect"] = "draw"
        b["effects"][0]["card"] = "Mox Opal"

    found = {p.path for p in problems(broken(wreck))}
    assert found == {
        "colour",
        'players[1].counters["poison"]',
        "permanents[0].controller",
        "permanents[2].types[1]",
        "permanents[3].thresholds[0].effect",
        "effects[0].card",
    }


def test_error_message_lists_each_problem_with_its_path() -> None:
    board = broken(lambda b: (b.update(variant="commander"), b["players"][0].update(life="x")))
    with pytest.raises(BoardError) as info:
        load_board(board)
    lines = str(info.value).splitlines()
    assert "variant: unknown variant 'commander'; expected one of duel, free_for_all, two_headed_giant" in lines
    assert "players[0].life: must be an integer" in lines


# ---------------------------------------------------------------------- robustness

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(board_dicts(max_permanents=4), st.data())
def test_any_corruption_gives_board_error_or_board(data: dict[str, Any], draw: st.DataObject) -> None:
    """Bad input never escapes as anything but BoardError, and every problem has a path."""
    corrupted = copy.deepcopy(data)
    node: Any = corrupted
    for _ in range(draw.draw(st.integers(1, 4))):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = draw.draw(st.sampled_from(keys))
        if isinstance(node[key], dict | list) and draw.draw(st.booleans()):
            node = node[key]
            continue
        node[key] = draw.draw(_JSON)
        break
    try:
        board = load_board(corrupted)
    except BoardError as exc:
        assert exc.problems and all(isinstance(p.path, str) and p.message for p in exc.problems)
    else:
        assert isinstance(board, Board)


# ---------------------------------------------------------------------- limits (docs/limits.md)


def _only_problem(source: Any) -> Problem:
    found = problems(source)
    assert len(found) == 1, [str(p) for p in found]
    return found[0]


@retried_on_overrun
def test_players_past_the_limit_are_refused_before_they_are_read() -> None:
    """Regression: 100,000 players cost 1.7 s and 159 MB before the solver refused them."""
    board = base()
    board["players"] = [{"id": f"p{i}"} for i in range(100_000)]
    board["variant"] = "free_for_all"
    started = time.perf_counter()
    problem = _only_problem(board)
    within(time.perf_counter() - started, 1.0)
    assert problem.path == "players"
    assert f"the limit is {limits.MAX_PLAYERS}" in problem.message


def test_more_seats_than_the_solver_handles_are_refused() -> None:
    board = base()
    board["variant"] = "free_for_all"
    board["players"] += [{"id": f"p{i}"} for i in range(limits.MAX_SEATS - 1)]
    assert_problem(board, "players", f"the limit is {limits.MAX_SEATS} outside two_headed_giant")
    board["players"].pop()
    load_board(board)


def test_more_two_headed_giant_teams_than_seats_are_refused() -> None:
    board = giant()
    board["players"] = [{"id": f"p{i}", "team": f"t{i // 2}"} for i in range(2 * (limits.MAX_SEATS + 1))]
    board["proliferator"] = "p0"
    assert_problem(board, "players", f"{limits.MAX_SEATS + 1} teams; the limit is {limits.MAX_SEATS}")


def test_effects_past_the_limit_are_refused() -> None:
    board = base()
    board["effects"] = [{"card": "Hardened Scales", "controller": "alice"}] * (limits.MAX_EFFECTS + 1)
    assert _only_problem(board) == Problem("effects", f"{limits.MAX_EFFECTS + 1} effects; the limit is 62")


def test_objects_past_the_limit_are_refused_before_they_are_read() -> None:
    board = base()
    board["permanents"] = [{}] * limits.MAX_OBJECTS
    problem = _only_problem(board)
    assert problem.path == "permanents"
    assert f"the limit is {limits.MAX_OBJECTS}" in problem.message


def test_proliferates_per_resolution_past_the_limit_are_refused() -> None:
    board = base()
    board["proliferates"] = 16
    board["effects"] = [{"card": "Tekuthal, Inquiry Dominus", "controller": "alice"}] * 3
    problem = _only_problem(board)
    assert problem.path == "effects[2]"
    assert "128 proliferates" in problem.message
    board["effects"].pop()
    assert load_board(board).rounds == limits.MAX_ROUNDS


def test_distinct_kinds_past_the_limit_are_refused_at_the_first_one_past() -> None:
    board = base()
    board["permanents"][0]["counters"] = {f"arena:{k}": 1 for k in range(limits.MAX_KINDS)}
    problem = _only_problem(board)
    # The board already had energy and poison on its players: arena:998 is kind 1,001.
    assert problem.path == 'permanents[0].counters["arena:998"]'
    assert f"more than {limits.MAX_KINDS} distinct counter kinds" in problem.message


def test_objects_times_kinds_past_the_limit_are_refused() -> None:
    """Regression: 1,000 permanents with 50 distinct arena kinds each took a server to 3.2 GB."""
    board = base()
    board["permanents"] = [
        {"id": f"p{i}", "controller": "alice", "counters": {f"arena:{50 * i + k}": 1 for k in range(50)}}
        for i in range(1000)
    ]
    problem = _only_problem(board)
    assert "distinct counter kinds" in problem.message
    assert problem.path.startswith("permanents[19].counters")  # the 1,001st kind


def test_cells_past_the_limit_are_refused_at_the_kind_that_passes_it() -> None:
    n_objects = 10_000
    kinds = limits.MAX_CELLS // n_objects  # the first kind past the limit is kind number kinds + 1
    board = base()
    board["permanents"] = [{"id": f"p{i}", "controller": "alice"} for i in range(n_objects - 3)]
    board["permanents"].append(
        {"id": "wide", "controller": "alice", "counters": {f"arena:{k}": 1 for k in range(kinds)}}
    )
    problem = _only_problem(board)
    assert problem.path == f'permanents[{n_objects - 3}].counters["arena:{kinds - 2}"]'  # 2 kinds on the players
    assert f"{limits.MAX_CELLS:,} cells" in problem.message


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda b: b["permanents"][0].update(value=1e17), "permanents[0].value"),
        (lambda b: b["permanents"][0].update(counter_values={"+1/+1": 5e15}), 'permanents[0].counter_values["+1/+1"]'),
        (lambda b: b["permanents"][3]["thresholds"][0].update(effect=-1e10), "permanents[3].thresholds[0].effect"),
    ],
)
def test_points_past_the_limit_are_refused(change: Callable[[dict[str, Any]], object], path: str) -> None:
    """Regression: value 1e17 overflowed int64 milli-points and the solver dropped a good choice."""
    assert_problem(broken(change), path, f"must be within ±{limits.MAX_POINTS}")


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_in_json_text_are_refused(text: str) -> None:
    source = json.dumps(base()).replace('"Grizzly Bears", ', f'"Grizzly Bears", "value": {text}, ', 1)
    assert_problem(source, "permanents[0].value", "finite")


def test_a_board_whose_numbers_could_overflow_the_objective_is_refused_at_the_object_that_passes() -> None:
    board = base()
    board["permanents"][1]["counters"]["loyalty"] = limits.MAX_MAGNITUDE // 2
    board["permanents"][2]["counters"]["defense"] = limits.MAX_MAGNITUDE // 2
    problem = _only_problem(board)
    assert problem.path == "permanents[2]"
    assert "magnitude limit" in problem.message
    board["permanents"][2]["counters"]["defense"] = 2
    assert load_board(board).counters("tamiyo")["loyalty"] == limits.MAX_MAGNITUDE // 2


def test_many_doublers_are_refused_when_their_counters_could_overflow() -> None:
    """40 Doubling Seasons put 2**40 loyalty counters on a planeswalker in one proliferate."""
    board = base()
    board["effects"] = [{"card": "Doubling Season", "controller": "alice"}] * 40
    problem = _only_problem(board)
    assert problem.path.startswith("permanents[")
    assert "magnitude limit" in problem.message


@given(st.integers(-(2**70), 2**70))
def test_any_integer_count_loads_or_is_refused_at_its_path(count: int) -> None:
    board = broken(lambda b: b["permanents"][0]["counters"].update({"+1/+1": count}))
    try:
        loaded = load_board(board)
    except BoardError as exc:
        assert {p.path for p in exc.problems} <= {'permanents[0].counters["+1/+1"]', "permanents[0]"}
    else:
        assert 0 <= count <= limits.MAX_COUNT
        assert loaded.counters("bears").get("+1/+1", 0) == count


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda b: b.update(effects=[{"card": "Doubling Season", "controller": "alice"}] * 40), "magnitude limit"),
        (lambda b: b.update(players=[{"id": f"p{i}"} for i in range(100_000)]), "players: 100000 players"),
        (lambda b: b["permanents"][0].update(value=1e17), "permanents[0].value: must be within"),
    ],
)
def test_the_command_refuses_a_board_past_a_limit_with_status_2(
    tmp_path: Path, change: Callable[[dict[str, Any]], object], fragment: str
) -> None:
    path = tmp_path / "board.json"
    path.write_text(json.dumps(broken(change)), "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "solver", "solve", str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr


def test_a_counter_value_override_counts_in_the_magnitude() -> None:
    """+1/+1 counters worth 10^6 points each; Doubling Season makes one proliferate add 2."""
    worth = limits.MAX_MAGNITUDE // 10
    board = broken(lambda b: b["permanents"][0].update(counters={"+1/+1": 7}, counter_values={"+1/+1": worth}))
    load_board(board)  # 9 x 10^6 after the proliferate, plus a little
    board["permanents"][0]["counters"]["+1/+1"] = 9
    assert "magnitude limit" in _only_problem(board).message


# ---------------------------------------------------------------------------- counter kinds must be real (122.1)
def _with_counters(player: dict[str, int], permanent: dict[str, int]) -> dict[str, Any]:
    return {
        "variant": "duel",
        "proliferator": "alice",
        "players": [{"id": "alice"}, {"id": "bob", "counters": player}],
        "permanents": [{"id": "jace", "controller": "alice", "types": ["planeswalker"], "counters": permanent}],
    }


@pytest.mark.parametrize(
    ("players", "permanent", "path", "near"),
    [
        ({"poision": 9}, {"loyalty": 3}, 'players[1].counters["poision"]', "'poison'"),
        ({"poison": 9}, {"loyality": 3}, 'permanents[0].counters["loyality"]', "'loyalty'"),
    ],
)
def test_122_1_a_misspelt_kind_is_refused_with_the_nearest_known_kinds(
    players: dict[str, int], permanent: dict[str, int], path: str, near: str
) -> None:
    # Main accepted both, worth 0: "Proliferate: nothing", lethal poison missed.
    with pytest.raises(BoardError) as info:
        load_board(_with_counters(players, permanent))
    [problem] = info.value.problems
    assert problem.path == path
    assert f"did you mean {near}" in problem.message


def test_a_kind_far_from_any_known_one_is_refused_and_told_to_take_a_namespace() -> None:
    with pytest.raises(BoardError, match=r"name a kind of your own with a namespace, e\.g\. 'custom:zzqx'"):
        load_board(_with_counters({"zzqx": 1}, {"loyalty": 3}))


@pytest.mark.parametrize("kind", ["custom:widget", "Custom:Widget", "arena:159", "mygame:slime mold"])
def test_namespaced_kinds_are_accepted_and_worth_0(kind: str) -> None:
    board = load_board(_with_counters({"poison": 1}, {"loyalty": 3, kind: 2}))
    canonical = kind.lower()
    assert canonical in board.kinds
    assert default_spec(canonical).weight == 0


def test_every_catalogued_kind_loads_and_every_arena_kind_is_catalogued() -> None:
    kinds = [row["kind"] for row in KIND_TABLE]
    assert kinds == sorted(set(kinds)), "one row per kind, in order"
    assert all(canonical_kind(k) == k for k in kinds), "rows are canonical spellings"
    assert {row["class"] for row in KIND_TABLE} <= {"player", "keyword", "permanent"}
    assert all(k in KNOWN_KINDS or pt_delta(k) is not None for k in COUNTER_TYPES.values())
    board = load_board(_with_counters({"poison": 1}, dict.fromkeys(kinds, 1)))
    assert set(kinds) <= set(board.kinds)


def test_cli_refuses_a_misspelt_kind_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(_with_counters({"poision": 9}, {"loyalty": 3})), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "solver", "solve", str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2
    assert "players[1].counters[\"poision\"]: unknown counter kind 'poision'; did you mean 'poison'" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------- one definition (solver.formats)


def test_load_board_accepts_a_board_decoded_structs_text_and_bytes() -> None:
    """load_board takes every form of a board (issue 27, item 5): a Board as it is, and Structs without re-decoding."""
    board = load_board(base())
    assert load_board(board) is board
    text = json.dumps(base())
    assert load_board(formats.BOARD_DECODER.decode(text)) == board
    assert load_board(text.encode()) == load_board(text) == board


def test_json_text_lists_every_problem_like_parsed_json() -> None:
    """msgspec stops at the first problem; the error path lists them all, types and cross-field checks together."""

    def wreck(b: dict[str, Any]) -> None:
        b["players"][0]["life"] = "x"
        b["permanents"][0]["controller"] = "zed"
        b["permanents"][1]["counters"] = {"+1/+1": -1}

    data = broken(wreck)
    assert (
        set(problems(json.dumps(data)))
        == set(problems(data))
        == {
            Problem("players[0].life", "must be an integer"),
            Problem("permanents[0].controller", "'zed' is not a player id"),
            Problem('permanents[1].counters["+1/+1"]', "must be an integer >= 0"),
        }
    )
