"""The card registry: one entry per card, read by the board, the loader, the schema, the docs and the envs.

Adding a card is one entry in ``solver.cards`` and its expected scope in ``tests/test_effects.py``
(or, for a card that changes the number of proliferates, a test here); these tests fail
until the schema's card list and ``docs/board-format.md`` follow.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from test_effects import _EXPECTED

import env.scenarios
import solver.effects
from solver import BoardError, Effect, load_board
from solver.boardjson import dump_board
from solver.cards import CARDS, SUPPORTED_CARDS, Card, canonical_card

SCHEMA = json.loads(resources.files("solver.schema").joinpath("board-v1.schema.json").read_text("utf-8"))
DOCS = Path(__file__).resolve().parents[1] / "docs" / "board-format.md"


def _duel(*effects: dict[str, Any]) -> dict[str, Any]:
    return {
        "variant": "duel",
        "proliferator": "alice",
        "players": [{"id": "alice"}, {"id": "bob", "counters": {"poison": 1}}],
        "permanents": [
            {"id": "bear", "controller": "alice", "types": ["creature"], "power": 2, "toughness": 2,
             "counters": {"+1/+1": 1}},
            {"id": "wolf", "controller": "bob", "types": ["creature"], "power": 2, "toughness": 2},
        ],
        "effects": [e | {"source": _SOURCE[e["controller"]]} if _needs_source(e) else e for e in effects],
    }  # fmt: skip


#: A permanent of each player, for the effects of the cards that name themselves (Card.needs_source).
_SOURCE = {"alice": "bear", "bob": "wolf"}


def _needs_source(effect: dict[str, Any]) -> bool:
    card = canonical_card(str(effect.get("card", "")))
    return card is not None and CARDS[card].needs_source and "source" not in effect


def test_supported_cards_are_the_registry_everywhere() -> None:
    assert tuple(CARDS) == SUPPORTED_CARDS
    assert solver.effects.SUPPORTED_CARDS is SUPPORTED_CARDS
    assert vars(env.scenarios)["SUPPORTED_CARDS"] is SUPPORTED_CARDS


def test_schema_lists_the_registry() -> None:
    assert SCHEMA["$defs"]["Effect"]["properties"]["card"]["enum"] == list(CARDS)


def test_schema_parameters_are_the_registrys() -> None:
    params = {p.name: p for card in CARDS.values() for p in card.parameters}
    declared = set(SCHEMA["$defs"]["Effect"]["properties"]) - {"card", "controller", "source"}
    assert declared == set(params)
    level = SCHEMA["$defs"]["Effect"]["properties"]["level"]
    assert (level["minimum"], level["maximum"]) == (params["level"].low, params["level"].high)


def _docs_table() -> list[list[str]]:
    text = DOCS.read_text("utf-8")
    block = text.split("<!-- cards -->", 1)[1].split("<!-- /cards -->", 1)[0]
    rows = [line for line in block.strip().splitlines()[2:]]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def _docs_row(card: Card) -> list[str]:
    params = "; ".join(f"`{p.name}` {p.low}–{p.high}, default {p.default}: {p.doc}" for p in card.parameters)
    return [card.name, card.summary, params or "—"]


def test_docs_list_the_registry() -> None:
    expected = [_docs_row(card) for card in CARDS.values()]
    assert _docs_table() == expected, "docs/board-format.md's card table must be:\n" + "\n".join(
        "| " + " | ".join(row) + " |" for row in expected
    )


def test_every_card_has_a_summary_and_an_expected_behaviour() -> None:
    assert all(card.summary for card in CARDS.values())
    proliferate_changers = {name for name, card in CARDS.items() if card.proliferate_factor != 1}
    parameterised = {name for name, card in CARDS.items() if card.parameters}
    sourced = {name for name, card in CARDS.items() if card.needs_source}
    assert set(CARDS) == set(_EXPECTED) | proliferate_changers | parameterised | sourced


@pytest.mark.parametrize("name", list(CARDS))
def test_declared_ops_cover_every_scope(name: str) -> None:
    """``ops`` is what bounds read without a board: it must list every op the card can use."""
    card = CARDS[name]
    for proliferator in ("alice", "bob"):
        for controller in ("alice", "bob"):
            board = load_board(_duel({"card": name, "controller": controller}) | {"proliferator": proliferator})
            row = board.index[controller]
            used = {scope.op for scope in card.scopes(board, row, board.effects[0])}
            assert used <= card.ops


def test_only_tekuthal_changes_the_number_of_proliferates() -> None:
    """701.34: Tekuthal, Inquiry Dominus makes its controller proliferate twice; see Board.rounds."""
    assert {name: card.proliferate_factor for name, card in CARDS.items() if card.proliferate_factor != 1} == {
        "Tekuthal, Inquiry Dominus": 2
    }
    assert load_board(_duel({"card": "Tekuthal, Inquiry Dominus", "controller": "alice"})).rounds == 2
    assert load_board(_duel({"card": "Tekuthal, Inquiry Dominus", "controller": "bob"})).rounds == 1


@pytest.mark.parametrize(
    ("written", "printed"),
    [
        ("doubling season", "Doubling Season"),
        ("INNKEEPERS TALENT", "Innkeeper's Talent"),
        ("Vorinclex Monstrous Raider", "Vorinclex, Monstrous Raider"),
        ("Mox Opal", None),
    ],
)
def test_card_names_match_loosely(written: str, printed: str | None) -> None:
    assert canonical_card(written) == printed


# ------------------------------------------------------------------ parameters
def test_innkeepers_talent_level_is_a_declared_parameter() -> None:
    (level,) = CARDS["Innkeeper's Talent"].parameters
    assert (level.name, level.low, level.high, level.default) == ("level", 1, 3, Effect.level)


@pytest.mark.parametrize("level", [0, 4, -1, 2.0, True, "3"])
def test_a_level_outside_the_class_levels_is_refused(level: object) -> None:
    with pytest.raises(BoardError) as info:
        load_board(_duel({"card": "Innkeeper's Talent", "controller": "alice", "level": level}))
    assert [p.path for p in info.value.problems] == ["effects[0].level"]


def test_a_parameter_on_a_card_that_has_none_is_refused() -> None:
    with pytest.raises(BoardError) as info:
        load_board(_duel({"card": "Doubling Season", "controller": "alice", "level": 3}))
    (problem,) = info.value.problems
    assert problem.path == "effects[0].level"
    assert "Doubling Season has no level" in problem.message


@pytest.mark.parametrize(("level", "dumped"), [(1, {"level": 1}), (3, {})])
def test_dump_writes_a_parameter_only_away_from_its_default(level: int, dumped: dict[str, int]) -> None:
    board = load_board(_duel({"card": "Innkeeper's Talent", "controller": "alice", "level": level}))
    assert dump_board(board)["effects"] == [{"card": "Innkeeper's Talent", "controller": "alice"} | dumped]
    assert load_board(dump_board(board)) == board


def test_the_board_reads_effects_through_the_registry_only() -> None:
    """No card name is spelt in solver/board.py: its rules are the registry's."""
    source = (Path(solver.effects.__file__).parent / "board.py").read_text("utf-8")
    assert not [name for name in CARDS if name in source or name.split(",")[0] in source]


# ------------------------------------------------------------------ sources
def test_a_card_that_names_itself_needs_its_permanent() -> None:
    """Benevolent Hydra ("another creature") and Mowu ("on Mowu"): the effect says which permanent it is."""
    with pytest.raises(BoardError) as info:
        load_board(_duel({"card": "Benevolent Hydra", "controller": "alice", "source": None}) | {"effects": [
            {"card": "Benevolent Hydra", "controller": "alice"}]})  # fmt: skip
    assert [p.path for p in info.value.problems] == ["effects[0].source"]
    assert "required" in info.value.problems[0].message


@pytest.mark.parametrize(
    ("source", "message"),
    [("nope", "'nope' is not a permanent on this board"), ("wolf", "'wolf' is controlled by 'bob'"),
     ("alice", "'alice' is not a permanent"), (3, "must be a permanent id")],
)  # fmt: skip
def test_a_source_must_be_a_permanent_of_the_effects_controller(source: object, message: str) -> None:
    data = _duel() | {"effects": [{"card": "Mowu, Loyal Companion", "controller": "alice", "source": source}]}
    with pytest.raises(BoardError) as info:
        load_board(data)
    (problem,) = info.value.problems
    assert problem.path == "effects[0].source" and message in problem.message


def test_any_effect_may_name_its_source_and_it_round_trips() -> None:
    board = load_board(_duel({"card": "Hardened Scales", "controller": "alice", "source": "bear"}))
    assert board.effects[0].source == "bear"
    assert dump_board(board)["effects"] == [{"card": "Hardened Scales", "controller": "alice", "source": "bear"}]
    assert load_board(dump_board(board)) == board
