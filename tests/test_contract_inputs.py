"""Every public entry point takes a board, a choice and a policy in each form the README teaches."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
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


# ---------------------------------------------------------------------------- every board-taking entry point
#: Each public entry point that takes a board, called on ``board`` (any form) with the classic board's
#: choice ``["bob"]`` where it takes one, reduced to something comparable across the forms.
ENTRY_POINTS: dict[str, Callable[[Any], object]] = {
    "solver.solve": lambda b: solver.solve(b).chosen,
    "solver.top_k": lambda b: [(alt.rank, alt.value) for alt in solver.top_k(b, 2)],
    "solver.score": lambda b: solver.score(b, ["bob"]),
    "solver.explain_choice": lambda b: [row.id for row in solver.explain_choice(b, ["bob"])],
    "solver.worst_value": lambda b: solver.worst_value(b),
    "solver.eligible": lambda b: solver.eligible(b),
    "solver.apply_proliferate": lambda b: dict(solver.apply_proliferate(b, ["bob"]).added),
    "solver.solve_many": lambda b: [d.chosen for d in solver.solve_many([b, b])],
    "solver.decide_many": lambda b: solver.decide_many([b]).values.tolist(),
    "solver.dump_board": lambda b: solver.dump_board(b),
    "solver.load_board": lambda b: solver.dump_board(solver.load_board(b)),
    "solver.board_svg": lambda b: solver.board_svg(b, chosen=["bob"]),
    "solver.choice_svg": lambda b: solver.choice_svg(b, ["bob"], ["bob", "bears"]),
    "solver.decision_from_json": lambda b: solver.decision_from_json(solver.solve(CLASSIC).to_json(), b).chosen,
    "env.ProliferateEnv.reset": lambda b: _env_reset(b),
    "env.ProliferateVectorEnv.reset": lambda b: _vector_reset(b),
}
#: Data types built from a loaded board: they hold a Board and do not call back into loading.
BOARD_ONLY = {"solver.ChoiceMatrix.from_choice", "solver.ChoiceMatrix.from_rows", "solver.ChoiceMatrix.__init__"}
BOARD_ONLY |= {"solver.Decision.__init__"}


def _env_reset(board: Any) -> list[str]:
    import gymnasium as gym

    import env  # registers the ids

    e = gym.make("proliferate/Duel-v1")
    try:
        e.reset(seed=0, options={"board": board})
        core = e.unwrapped
        assert isinstance(core, env.ProliferateEnv)
        return list(core.decision_board().ids)
    finally:
        e.close()


def _vector_reset(board: Any) -> list[str]:
    import gymnasium as gym

    import env

    vec = gym.make_vec("proliferate/Duel-v1", num_envs=2)
    try:
        obs, _ = vec.reset(seed=0, options={"board": board})
        core = vec.unwrapped
        assert isinstance(core, env.ProliferateVectorEnv)
        return [str(x) for x in obs["counters"].sum(axis=(1, 2)).tolist()]
    finally:
        vec.close()


def _board_parameters() -> set[str]:
    """Every public callable (and public method of a public class) of ``solver`` with a board parameter."""
    found: set[str] = set()
    for name in solver.__all__:
        obj = getattr(solver, name)
        members: list[tuple[str, object]] = [(f"solver.{name}", obj)]
        if inspect.isclass(obj):
            members = [
                (f"solver.{name}.{attr}", getattr(value, "__func__", value))
                for attr, value in vars(obj).items()
                if attr == "__init__" or not attr.startswith("_")
            ]
        for qual, fn in members:
            if not callable(fn):
                continue
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if any(p in ("board", "boards") for p in params):
                found.add(qual)
    return found | {"solver.load_board"}  # its board is its ``source``


def test_every_board_taking_entry_point_is_covered() -> None:
    """A new public entry point taking a board must join ENTRY_POINTS (or say why it takes a Board only)."""
    assert _board_parameters() - set(ENTRY_POINTS) - BOARD_ONLY == set()
    assert _board_parameters() >= {name for name in ENTRY_POINTS if name.startswith("solver.")}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_takes_every_board_form(entry: str) -> None:
    """The README's promise: a Board, a dict, JSON text (str or bytes) and a path all mean the same board."""
    call = ENTRY_POINTS[entry]
    forms = board_forms()
    expected = call(forms[0])
    for form in forms[1:]:
        assert call(form) == expected, f"{entry} on a {type(form).__name__}"


@pytest.mark.parametrize("entry", sorted(set(ENTRY_POINTS) - {"solver.load_board", "solver.decision_from_json"}))
def test_every_entry_point_refuses_other_boards_saying_what_is_accepted(entry: str) -> None:
    with pytest.raises(TypeError, match="a Board, a mapping"):
        ENTRY_POINTS[entry](42)


def test_apply_proliferate_and_eligible_take_a_dict_and_a_list_of_ids() -> None:
    """Issue 24 item 7: both raised AttributeError on a dict (701.34a: bob, bears, tamiyo, liliana, courser)."""
    data = json.loads(CLASSIC.read_text())
    assert solver.eligible(data) == ("bob", "bears", "tamiyo", "liliana", "courser")
    assert solver.apply_proliferate(data, ["bob", "bears"]).added == {"bob": {"poison": 1}, "bears": {"+1/+1": 1}}
    with pytest.raises(solver.IllegalChoice, match=r"'alice' has no counters \(701.34a\)"):
        solver.apply_proliferate(data, ["alice"])
