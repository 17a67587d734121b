"""The column-wise board build: every array, value by value, whichever way a board enters.

``load_board`` gathers what a board is built from (``solver.board.Objects``) in its checking pass, and
``Board.build`` gathers the same from typed permanents (``solver.board.assemble``); both hand it to
``assemble_objects``, so the two must give identical arrays (dtype, shape, kind column order), not
merely boards that dump alike.  Board equality compares
dumps, so these tests compare the arrays themselves.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import board_dicts

from benchmarks.boards import VARIANTS, BoardSpec, generate
from solver import Board, load_board
from solver.board import LAZY_FIELDS, CardType, Threshold

FIELDS = (*(f.name for f in dataclasses.fields(Board)), *LAZY_FIELDS)


def assert_same_arrays(left: Board, right: Board) -> None:
    """Every field equal; kind columns matched by kind (the typed views may meet a board's kinds in another order)."""
    assert sorted(left.kinds) == sorted(right.kinds)
    column = np.array([right.kinds.index(kind) for kind in left.kinds], dtype=np.int64)
    inverse = np.empty_like(column)
    inverse[column] = np.arange(len(column))
    aligned = {
        "counts": right.counts[:, column],
        "thr_kind": inverse[right.thr_kind],
        "cv_kind": inverse[right.cv_kind],
    }
    for name in FIELDS:
        if name == "kinds":
            continue
        a, b = getattr(left, name), aligned.get(name, getattr(right, name))
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, name
            assert not a.flags.writeable, name
            if a.dtype == object:
                assert a.tolist() == b.tolist(), name
            else:
                np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            assert a == b, name


def without_zero_counters(data: dict[str, Any]) -> dict[str, Any]:
    """The board minus counters stated as 0, which the typed views leave out (so they have no column there)."""
    strip = [
        {**obj, "counters": {k: v for k, v in obj["counters"].items() if v != 0}} if "counters" in obj else obj
        for obj in data["players"] + data.get("permanents", [])
    ]
    n = len(data["players"])
    return {**data, "players": strip[:n], "permanents": strip[n:]}


def rebuilt(board: Board) -> Board:
    """The board again through ``Board.build`` from its typed views."""
    return Board.build(
        variant=board.variant,
        proliferator=board.proliferator_id,
        players=board.players,
        permanents=board.permanents,
        effects=board.effects,
        proliferates=board.proliferates,
        team_poison=board.team_poison,
    )


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("size", [5, 20, 60])
@pytest.mark.parametrize("extras", [False, True])
def test_loaded_and_built_boards_have_identical_arrays(variant: str, size: int, extras: bool) -> None:
    board = load_board(generate(BoardSpec(size, variant, proliferates=2, extras=extras, seed=size)))
    assert_same_arrays(board, rebuilt(board))


@settings(max_examples=60, deadline=None)
@given(board_dicts())
def test_loaded_and_built_boards_have_identical_arrays_on_any_board(data: dict[str, Any]) -> None:
    board = load_board(without_zero_counters(data))
    assert_same_arrays(board, rebuilt(board))


def test_every_column_holds_its_own_field() -> None:
    """Each array row of a hand-checked board, so a column read from the wrong field fails here."""
    board = load_board(
        {
            "variant": "two_headed_giant",
            "proliferator": "a1",
            "players": [
                {"id": "a1", "team": "A", "life": 25, "counters": {"poison": 2}},
                {"id": "a2", "team": "A", "counters": {"energy": 4}},
                {"id": "b1", "team": "B"},
                {"id": "b2", "team": "B", "counters": {"poison": 5}},
            ],
            "permanents": [
                {
                    "id": "bear",
                    "controller": "a2",
                    "name": "Bear",
                    "types": ["Creature", "artifact"],
                    "power": 2,
                    "toughness": -3,
                    "damage": 1,
                    "counters": {"+1/+1": 3},
                    "keywords": ["Indestructible"],
                },
                {
                    "id": "saga",
                    "controller": "b1",
                    "types": ["enchantment"],
                    "subtypes": ["Saga"],
                    "chapters": 3,
                    "counters": {"lore": 1},
                    "phased_out": True,
                    "value": 2.5,
                    "thresholds": [{"kind": "quest", "at": 4, "effect": 7, "label": "done"}],
                    "counter_values": {"shield": 3},
                },
                {"id": "siege", "controller": "a1", "types": ["battle"], "protector": "b2", "counters": {"defense": 5}},
            ],
        }
    )
    assert board.ids == ("a1", "a2", "b1", "b2", "bear", "saga", "siege")
    # Kinds in order of first appearance: players' and permanents' counters, then thresholds and values.
    assert board.kinds == ("poison", "energy", "+1/+1", "lore", "defense", "quest", "shield")
    assert board.counts[:, 0].tolist() == [2, 2, 5, 5, 0, 0, 0]  # team poison shared (810.10)
    assert board.counts[:, 1].tolist() == [0, 4, 0, 0, 0, 0, 0]
    assert board.counts[4:, 2:5].tolist() == [[3, 0, 0], [0, 1, 0], [0, 0, 5]]
    assert board.controller.tolist() == [0, 1, 2, 3, 1, 2, 0]
    assert board.team.tolist() == [0, 0, 1, 1] and board.team_names == ("A", "B")
    assert board.life.tolist() == [25, 30, 30, 30]
    assert board.type_names.tolist()[4:] == [("creature", "artifact"), ("enchantment",), ("battle",)]
    bits = [int(CardType.CREATURE | CardType.ARTIFACT), int(CardType.ENCHANTMENT), int(CardType.BATTLE)]
    assert board.types.tolist() == [0, 0, 0, 0, *bits]
    assert board.power.tolist() == [0, 0, 0, 0, 2, 0, 0]
    assert board.toughness.tolist() == [0, 0, 0, 0, -3, 0, 0]
    assert board.damage.tolist() == [0, 0, 0, 0, 1, 0, 0]
    assert board.indestructible.tolist() == [False] * 4 + [True, False, False]
    assert board.chapters.tolist() == [0, 0, 0, 0, 0, 3, 0]
    assert board.protector.tolist() == [-1, -1, -1, -1, -1, -1, 3]
    assert board.phased_out.tolist() == [False] * 5 + [True, False]
    assert np.isnan(board.value[[0, 1, 2, 3, 4, 6]]).all() and board.value[5] == 2.5
    assert board.names.tolist() == ["", "", "", "", "Bear", "", ""]
    assert board.subtypes.tolist()[5] == ("Saga",) and board.keywords.tolist()[4] == ("indestructible",)
    assert (board.thr_object.tolist(), board.thr_kind.tolist(), board.thr_at.tolist()) == ([5], [5], [4])
    assert board.thr_effect == (7,) and board.thr_label == ("done",)
    assert (board.cv_object.tolist(), board.cv_kind.tolist(), board.cv_value.tolist()) == ([5], [6], [3.0])
    assert board.permanents[1].thresholds == (Threshold("quest", 4, 7, "done"),)


def test_board_build_still_refuses_inconsistent_objects() -> None:
    board = load_board(generate(BoardSpec(8, "duel")))
    stray = dataclasses.replace(board.permanents[0], controller="nobody")
    with pytest.raises(ValueError, match="'nobody' is not a player"):
        Board.build(variant="duel", proliferator="alice", players=board.players, permanents=[stray])
    with pytest.raises(ValueError, match="ids must be unique"):
        Board.build(variant="duel", proliferator="alice", players=board.players, permanents=[board.permanents[0]] * 2)
    with pytest.raises(ValueError, match="is not a player"):
        Board.build(variant="duel", proliferator="zed", players=board.players)


def test_loading_benchmark_runs_against_a_baseline_checkout(tmp_path: Path) -> None:
    """``benchmarks.loading`` as documented, with this checkout as its own baseline: identical boards, ratio column."""
    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "loading.json"
    command = [sys.executable, "-m", "benchmarks.loading", "--sizes", "20", "--rounds", "1", "--samples", "1"]
    command += ["--sample-seconds", "0.001", "--baseline", str(root), "--json", str(out)]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "| 20 duel x1 +thr/fx" in done.stdout and "speed-up" in done.stdout
    cases = json.loads(out.read_text())["cases"]
    assert [c["label"] for c in cases][-1].startswith("analysis mix")
    assert all(c["same"] and set(c["best_s"]) == {"new", "baseline"} for c in cases)


# ---------------------------------------------------------------------------- what loading works out, and when
def test_loading_accepts_a_board_far_below_the_magnitude_limit_without_running_the_card_rules() -> None:
    """The gains (614, 616.1) are worked out when a board is decided, not to load it: a bound clears it."""
    from solver.board import GAIN
    from solver.effects import gain, gain_bound

    board = load_board(generate(BoardSpec(200, "free_for_all", extras=True, seed=4)))
    assert board.effects and GAIN not in board.__dict__
    assert (gain(board) <= gain_bound(board)).all()


def test_the_gain_bound_is_every_plus_one_then_every_doubling() -> None:
    """Hardened Scales (+1) then Doubling Season and Primal Vigor (x2, x2): at most (1 + 1) x 4 counters."""
    from solver.effects import gain, gain_bound

    data = generate(BoardSpec(20, "duel", seed=2))
    data["effects"] = [{"card": c, "controller": data["proliferator"]} for c in
                       ("Hardened Scales", "Doubling Season", "Primal Vigor")]  # fmt: skip
    board = load_board(data)
    assert gain_bound(board) == 8
    assert 0 < gain(board).max() <= 8


@pytest.mark.parametrize("near", [False, True])
def test_a_board_near_the_magnitude_limit_is_judged_by_its_exact_magnitude(near: bool) -> None:
    """A bound above the limit is not a refusal: the exact magnitude decides, at the object that passes.

    Twenty Doubling Seasons bound every gain by 2**20, but they double only their controller's
    permanents' counters, and alice has none: bob's creature gets one +1/+1 counter (701.34a).
    """
    from solver import limits
    from solver.boardjson import magnitude_rows
    from solver.effects import gain_bound
    from solver.errors import BoardError

    worth = limits.MAX_MAGNITUDE - (1.0 if near else 10.0)
    data = {
        "variant": "duel",
        "proliferator": "alice",
        "players": [{"id": "alice"}, {"id": "bob"}],
        "permanents": [
            {"id": "vault", "controller": "bob", "types": ["artifact"], "value": worth},
            {"id": "bear", "controller": "bob", "types": ["creature"], "power": 2, "toughness": 2,
             "counters": {"+1/+1": 1}},
        ],
        "effects": [{"card": "Doubling Season", "controller": "alice"}] * 20,
    }  # fmt: skip
    if near:  # the vault, then 1 + 1 counters and the bear's 3 points: past the limit at the bear
        with pytest.raises(BoardError, match=r"permanents\[1\]: the board's numbers pass the magnitude limit"):
            load_board(data)
        return
    board = load_board(data)
    assert gain_bound(board) == 2**20
    assert magnitude_rows(board).sum() == worth + 5.0


# ---------------------------------------------------------------------- free text of a mapping
def test_a_mapping_with_a_lone_surrogate_still_has_it_refused_at_its_path() -> None:
    """A mapping's free text is checked for lone surrogates (JSON text cannot hold one): the checker names it."""
    from solver import BoardError

    data = generate(BoardSpec(20, "duel", seed=3))
    data["permanents"][4]["name"] = "Bad \ud800 name"
    with pytest.raises(BoardError) as caught:
        load_board(data)
    assert [p.path for p in caught.value.problems] == ["permanents[4].name"]
    assert "lone surrogate" in caught.value.problems[0].message
    data["permanents"][4]["name"] = "Good name"
    assert load_board(data) == load_board(json.dumps(data))
