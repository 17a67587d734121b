"""Every public entry point takes a board, a choice and a policy in each form the README teaches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import solver

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = ROOT / "solver" / "examples" / "classic.json"
POLICY = ROOT / "solver" / "examples" / "policy.toml"


def board_forms() -> list[Any]:
    text = CLASSIC.read_text()
    return [solver.load_board(CLASSIC), json.loads(text), text, text.encode(), str(CLASSIC), CLASSIC]


@pytest.mark.parametrize("board", board_forms(), ids=["Board", "dict", "text", "UTF-8 bytes", "str path", "Path"])
def test_solve_takes_every_board_form(board: Any) -> None:
    assert solver.solve(board).chosen == ("bob", "bears", "tamiyo", "courser")


@pytest.mark.parametrize(
    "policy",
    [solver.Policy(), {"weights": {"loyalty": 1}}, str(POLICY), POLICY, None],
    ids=["Policy", "dict", "str path", "Path", "None"],
)
def test_solve_and_score_take_every_policy_form(policy: Any) -> None:
    assert solver.solve(CLASSIC, policy).value == 4.0
    assert solver.score(CLASSIC, ["bob"], policy).best == 4.0


def test_a_policy_dict_changes_the_answer() -> None:
    decision = solver.solve(CLASSIC, {"weights": {"loyalty": -3}})
    assert "tamiyo" not in decision.chosen


@pytest.mark.parametrize(
    "choice",
    [
        ["bears"],
        ("bears",),
        solver.Choice.of(["bears"]),
        solver.Round(("bears",)),
        {"chosen": ["bears"]},
        {"rounds": [{"chosen": ["bears"]}]},
    ],
    ids=["list", "tuple", "Choice", "Round", "chosen mapping", "rounds mapping"],
)
def test_score_takes_every_choice_form(choice: Any) -> None:
    assert solver.score(CLASSIC, choice) == solver.Score(value=1.0, best=4.0, regret=3.0)


def test_explain_choice_and_top_k_take_the_same_forms() -> None:
    rows = solver.explain_choice(json.loads(CLASSIC.read_text()), ["bob"], {"weights": {}})
    assert {row.id: row.chosen for row in rows}["bob"] == 1
    assert [alt.rank for alt in solver.top_k(str(CLASSIC), 3)] == [1, 2, 3]


@pytest.mark.parametrize("board", [42, None, ["not", "a", "board"], bytearray(b"{}")])
def test_other_boards_are_type_errors_saying_what_is_accepted(board: Any) -> None:
    with pytest.raises(TypeError, match="a Board, a mapping"):
        solver.solve(board)


@pytest.mark.parametrize("policy", [42, ["weights"], 1.5])
def test_other_policies_are_type_errors_saying_what_is_accepted(policy: Any) -> None:
    with pytest.raises(TypeError, match="a Policy, a mapping"):
        solver.solve(CLASSIC, policy)


@pytest.mark.parametrize("choice", ["bears", 7, None, [1, 2]])
def test_other_choices_are_type_errors(choice: Any) -> None:
    with pytest.raises(TypeError, match="must be"):
        solver.score(CLASSIC, choice)


def test_one_string_is_not_a_list_of_ids_anywhere() -> None:
    """``Choice.of("bob")`` chose "b", "o" and "b" (a str is a sequence): every constructor refuses one string."""
    with pytest.raises(TypeError, match=r"^chosen must be a sequence of ids, not one str \('bob'\)$"):
        solver.Choice.of("bob")  # a str is an Iterable[str]: only the run time can refuse it
    one_id: Any  # a type checker already refuses these for Round
    for one_id in ("bob", b"bob"):
        with pytest.raises(TypeError, match=r"^chosen must be a sequence of ids, not one (str|bytes)"):
            solver.Round(one_id)
    assert solver.Choice.of(["bob"]).rounds[0].chosen == ("bob",)


def test_bytes_are_json_text_or_a_path_as_str_is() -> None:
    text = CLASSIC.read_bytes()
    assert solver.load_board(b"\n " + text) == solver.load_board(text) == solver.load_board(str(CLASSIC).encode())
    with pytest.raises(solver.BoardError, match="not valid JSON: 'utf-8' codec can't decode byte 0xff"):
        solver.load_board(b"{\xff}")
    with pytest.raises(solver.BoardError, match="cannot read board file"):
        solver.load_board(b"/no/such/board.json")


def test_a_missing_board_file_is_a_board_error() -> None:
    with pytest.raises(solver.BoardError):
        solver.solve("no/such/board.json")


def test_a_misspelt_policy_kind_is_a_policy_error_with_a_suggestion() -> None:
    with pytest.raises(solver.PolicyError, match="did you mean 'loyalty'"):
        solver.solve(CLASSIC, {"weights": {"loyality": 2}})


def test_unknown_method_and_bad_top_k_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown method"):
        solver.solve(CLASSIC, method="magic")
    with pytest.raises(ValueError, match="top_k"):
        solver.solve(CLASSIC, top_k=0)
