"""The Decision a caller gets: short repr, readable str, enums, lazy parts, JSON both ways, typed package."""

from __future__ import annotations

import doctest
import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

import solver
from solver.decision import JSON_FIELDS
from solver.render import render_decision

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = ROOT / "solver" / "examples" / "classic.json"
TWICE = ROOT / "solver" / "examples" / "proliferate_twice.json"
THG = ROOT / "solver" / "examples" / "two_headed_giant_lethal.json"


def test_repr_is_short_and_str_is_the_cli_rendering() -> None:
    decision = solver.solve(CLASSIC, top_k=2)
    assert (
        repr(decision)
        == "Decision(chosen=('bob', 'bears', 'tamiyo', 'courser'), value=4.0, status=OPTIMAL, method=fast)"
    )
    assert str(decision) == render_decision(decision)
    assert "Why (marginal" in str(decision) and "Best 2 distinct choices" in str(decision)
    twice = solver.solve(TWICE)
    assert repr(twice).startswith("Decision(rounds=(") and len(repr(twice)) < 200


def test_status_method_and_result_are_enums_with_the_old_strings() -> None:
    decision = solver.solve(THG)
    assert (decision.status, decision.method, decision.game_result) == ("OPTIMAL", "fast", "win")
    assert decision.status is solver.Status.OPTIMAL
    assert decision.method is solver.Method.FAST
    assert decision.game_result is solver.GameResult.WIN
    data = decision.to_json()
    assert (type(data["status"]), type(data["method"]), type(data["game_result"])) == (str, str, str)
    assert json.loads(json.dumps(data))["status"] == "OPTIMAL"


def test_expensive_parts_are_computed_on_first_access_only() -> None:
    decision = solver.solve(CLASSIC)
    assert not {"outcome", "explanation", "game_result"} & set(vars(decision))
    partial = decision.to_json(["chosen", "value", "status"])
    assert list(partial) == ["chosen", "value", "status"]
    assert not {"outcome", "explanation"} & set(vars(decision))
    assert decision.outcome.losers == ()
    assert "outcome" in vars(decision)


def test_to_json_keeps_its_keys_in_order() -> None:
    assert list(solver.solve(CLASSIC).to_json()) == list(JSON_FIELDS)


@pytest.mark.parametrize("path", [CLASSIC, TWICE, THG], ids=lambda p: p.stem)
def test_from_json_rebuilds_the_same_decision(path: Path) -> None:
    decision = solver.solve(path, top_k=3)
    data = json.loads(json.dumps(decision.to_json()))
    again = solver.decision_from_json(data, path)
    assert again.to_json() == data
    assert again == decision or again.choice == decision.choice  # elapsed is read back in milliseconds


def test_from_json_derives_what_a_partial_reply_left_out() -> None:
    decision = solver.solve(THG)
    data = decision.to_json(["rounds", "value", "status", "bound", "method"])
    again = solver.decision_from_json(data, THG)
    assert again.explanation == decision.explanation
    assert again.outcome.to_json() == decision.outcome.to_json()
    assert again.game_result == decision.game_result


def test_from_json_names_a_missing_key() -> None:
    with pytest.raises(ValueError, match="'status'"):
        solver.decision_from_json({"chosen": [], "value": 0, "bound": 0, "method": "fast"}, CLASSIC)


def test_the_package_ships_its_types() -> None:
    assert (ROOT / "solver" / "py.typed").exists()
    assert "py.typed" in (ROOT / "pyproject.toml").read_text()


#: Public modules whose docstring examples are part of the contract.
DOCTESTED = ("solver.solve", "solver.batch", "solver.decision", "solver.inputs", "solver.policy", "solver.status")


@pytest.mark.parametrize("name", DOCTESTED)
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples name the bundled boards by their repository path
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_public_entry_points_document_parameters_returns_raises_and_an_example() -> None:
    for entry in (solver.solve, solver.solve_many, solver.decide_many):
        doc = entry.__doc__ or ""
        for section in ("Args:", "Returns:", "Raises:", ">>> "):
            assert section in doc, (entry.__name__, section)
    for function in (solver.score, solver.top_k, solver.explain_choice, solver.decision_from_json):
        assert function.__doc__ and len(function.__doc__.splitlines()) >= 3


def test_a_batch_names_each_bad_board_by_its_index() -> None:
    """solve_many and decide_many report every bad board's problems under boards[i], and the item of a wrong type."""
    good = str(ROOT / "solver" / "examples" / "classic.json")
    bad = {"variant": "duel", "proliferator": "me", "players": [{"id": "me"}, {"id": "you", "life": "x"}]}
    for entry in (solver.solve_many, solver.decide_many):
        with pytest.raises(solver.BoardError) as info:
            entry([good, bad, "{not json", good])
        assert [(p.path, p.message) for p in info.value.problems] == [
            ("boards[1].players[1].life", "must be an integer"),
            ("boards[2]", "not valid JSON: line 1 column 2: Expecting property name enclosed in double quotes"),
        ]
        with pytest.raises(TypeError, match=r"^boards\[1\]: board must be a Board, .* not int$"):
            entry([good, 3])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"value": "x"}, "decision JSON: value: must be a number, not 'x'"),
        ({"bound": None}, "decision JSON: bound: must be a number, not None"),
        ({"value": True}, "decision JSON: value: must be a number, not True"),
        ({"status": "WIN"}, "decision JSON: status: must be one of OPTIMAL, FEASIBLE, not 'WIN'"),
        ({"method": 3}, "decision JSON: method: must be one of auto, cpsat, fast, brute, not 3"),
        (
            {"chosen": ["zed"]},
            "decision JSON: chosen ['zed'] is not the first round's ['bob', 'bears', 'tamiyo', 'courser']",
        ),
    ],
)
def test_from_json_names_the_malformed_key(change: dict[str, Any], message: str) -> None:
    """A malformed key is named, with what it must be; ``chosen`` that contradicts ``rounds`` is not ignored."""
    data = {**solver.solve(CLASSIC).to_json(), **change}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        solver.decision_from_json(data, CLASSIC)


@pytest.mark.parametrize("data", ["{}", [], None])
def test_from_json_of_something_not_an_object_says_so(data: Any) -> None:
    with pytest.raises(ValueError, match=r"^decision JSON must be an object \(as to_json writes it\), not "):
        solver.decision_from_json(data, CLASSIC)
