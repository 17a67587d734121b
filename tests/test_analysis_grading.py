"""Grades by the drop in winning chances, the Win% curve, accuracy and comments (solver.analysis.grading, winprob)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from analysis_helpers import creature, duel, record

from solver.analysis.analyze import analyze_record
from solver.analysis.grading import (
    FORMULAS,
    Grade,
    Thresholds,
    ThresholdsError,
    comment,
    decision_accuracy,
    format_accuracy,
    grade,
    normalised_regret,
)
from solver.analysis.records import parse_record
from solver.analysis.winprob import K, fit_k, material_balance, win_chances
from solver.boardjson import load_board


# ---------------------------------------------------------------------------- the curve
def test_win_chances_is_lichess_curve_with_our_constant() -> None:
    assert win_chances(0.0) == 50.0
    assert win_chances(10.0) == pytest.approx(50 + 50 * (2 / (1 + math.exp(-K * 10)) - 1))
    assert win_chances(10.0) + win_chances(-10.0) == pytest.approx(100.0)
    assert win_chances(1e6) == pytest.approx(100.0) and win_chances(-1e6) == pytest.approx(0.0)
    # Pinned: the fitted constant puts one point at an even board at about 1.5 Win% (benchmarks/winprob_fit.py).
    assert K == 0.059
    assert win_chances(1.0) - 50.0 == pytest.approx(1.48, abs=0.01)


def test_fit_k_recovers_the_slope_of_simulated_results() -> None:
    rng = np.random.default_rng(5)
    balances = rng.uniform(-60, 60, 20_000)
    scores = (rng.random(20_000) < 1 / (1 + np.exp(-0.08 * balances))).astype(float)
    assert fit_k(balances, scores) == pytest.approx(0.08, rel=0.08)
    assert fit_k(balances, np.full(20_000, 0.5)) == pytest.approx(0.0, abs=1e-6)  # results unrelated to material


def test_material_balance_counts_both_sides() -> None:
    bears = creature("a", "alice", {"+1/+1": 1})
    board = load_board(duel("alice", {}, {"poison": 3}, [bears]))
    mine = load_board(duel("alice", {}, {}, [bears]))
    theirs = load_board(duel("bob", {}, {}, [bears]))
    assert material_balance(mine) == -material_balance(theirs) > 0
    assert material_balance(board) == material_balance(mine) + 3  # their poison counters are mine to gain


# ---------------------------------------------------------------------------- grades
def test_default_thresholds_are_lichess_win_percent_drops() -> None:
    t = Thresholds()
    assert (t.inaccuracy, t.mistake, t.blunder) == (10.0, 20.0, 30.0)
    assert grade(0.0, 0.0, t, False) is Grade.BEST
    assert grade(5.0, 9.99, t, False) is Grade.GOOD
    assert grade(5.0, 10.0, t, False) is Grade.INACCURACY
    assert grade(5.0, 20.0, t, False) is Grade.MISTAKE
    assert grade(5.0, 30.0, t, False) is Grade.BLUNDER


def test_a_missed_win_or_self_inflicted_loss_is_a_blunder_whatever_the_drop() -> None:
    assert grade(1.0, 0.001, Thresholds(), True) is Grade.BLUNDER


def test_a_sub_point_slip_is_at_most_an_inaccuracy() -> None:
    assert grade(0.5, 45.0, Thresholds(), False) is Grade.INACCURACY
    assert grade(0.999, 12.0, Thresholds(), False) is Grade.INACCURACY
    assert grade(0.5, 3.0, Thresholds(), False) is Grade.GOOD
    assert grade(1.0, 45.0, Thresholds(), False) is Grade.BLUNDER


def _slip(points_taken: int, of: int, my_extra: int = 0) -> Grade:
    """Grade of proliferating ``points_taken`` of ``of`` own creatures with a +1/+1 counter each.

    Bob has the same creatures, so the board is even before the choice (unless ``my_extra`` 5/5s).
    """
    mine = [creature(f"c{i}", "alice", {"+1/+1": 1}) for i in range(of)]
    mine += [creature(f"b{i}", "bob", {"+1/+1": 1}) for i in range(of)]
    mine += [creature(f"x{i}", "alice", {}, 5, 5) for i in range(my_extra)]
    board = duel("alice", {}, {}, mine)
    chosen = [f"c{i}" for i in range(points_taken)]
    return analyze_record(parse_record(record(board, chosen))).grade


def test_grades_match_the_stakes() -> None:
    # One point lost on a four-point board: 1.5 Win%, no longer a ?? blunder.
    assert _slip(3, 4) is Grade.GOOD
    # Ten points lost at an even board cost ~15 Win%: an inaccuracy; twenty, ~28: a mistake.
    assert _slip(0, 10) is Grade.INACCURACY
    assert _slip(0, 20) is Grade.MISTAKE
    # The same ten points when far ahead already (twelve 5/5s) barely move the chances.
    assert _slip(0, 10, my_extra=12) is Grade.GOOD


def test_missed_lethal_stays_a_blunder_with_win_chances_100_for_the_best() -> None:
    board = duel("alice", {}, {"poison": 9}, [creature("bears", "alice", {"+1/+1": 1})])
    result = analyze_record(parse_record(record(board, ["bears"])))
    assert result.grade is Grade.BLUNDER
    assert result.win_chances_best == 100.0 and result.win_chances_chosen < 100.0


def test_104_2a_the_winning_play_is_best_whatever_counters_it_leaves_unadded() -> None:
    # Both at 9 poison (704.5c): choosing bob alone wins (104.2a).  Counters added to a finished game
    # are worth nothing, so the own +1/+1 creature left out costs no point (main graded it "Good").
    board = duel("alice", {"poison": 9}, {"poison": 9}, [creature("bears", "alice", {"+1/+1": 1})])
    result = analyze_record(parse_record(record(board, ["bob"])))
    assert result.grade is Grade.BEST
    assert result.regret == 0


def test_custom_thresholds_move_the_bands() -> None:
    t = Thresholds.parse("inaccuracy=5, mistake=8,blunder=12")
    assert (t.inaccuracy, t.mistake, t.blunder) == (5.0, 8.0, 12.0)
    assert grade(2.0, 6.0, t, False) is Grade.INACCURACY
    assert grade(2.0, 9.0, t, False) is Grade.MISTAKE
    assert Thresholds.parse("blunder=50") == Thresholds(blunder=50.0)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("mistake=x", "thresholds.mistake"),
        ("blunder=150", "thresholds.blunder"),
        ("inaccuracy=30,mistake=20", "thresholds.mistake"),
        ("mistake=2", "thresholds.mistake"),
        ("blunder=15", "thresholds.blunder"),
        ("panic=0.1", "'panic=0.1'"),
        ("mistake=10,mistake=20", "given twice"),
        ("inaccuracy=0", "thresholds.inaccuracy"),
    ],
)
def test_bad_thresholds_name_the_key(spec: str, fragment: str) -> None:
    with pytest.raises(ThresholdsError) as info:
        Thresholds.parse(spec)
    assert fragment in str(info.value)


def test_normalised_regret_is_a_share_of_the_spread() -> None:
    assert normalised_regret(3.0, 5.0) == pytest.approx(0.6)
    assert normalised_regret(0.0, 5.0) == 0.0
    assert normalised_regret(0.0, 0.0) == 0.0


# ---------------------------------------------------------------------------- accuracy and words
def test_accuracy_is_100_only_without_regret_and_falls_with_the_drop() -> None:
    assert decision_accuracy(0.0, 0.0) == 100.0
    assert decision_accuracy(0.5, 0.0) < 100.0  # a regret the curve cannot see still costs accuracy
    values = [decision_accuracy(1.0, d) for d in (0.0, 5.0, 10.0, 30.0, 100.0)]
    assert values == sorted(values, reverse=True)
    assert values[2] == pytest.approx(103.1668 * math.exp(-0.4354) - 3.1669)
    assert values[-1] == 0.0


def test_accuracy_is_shown_rounded_down_so_a_tiny_regret_never_reads_100() -> None:
    assert format_accuracy(decision_accuracy(0.001, 0.0)) == "99.9"
    assert format_accuracy(100.0) == "100.0"
    assert format_accuracy(None) == "—"


def test_comment_reads_like_the_lichess_line() -> None:
    text = comment(
        Grade.BLUNDER, 1001.0, (100.0, 60.0), "missed lethal", ["also proliferate bob (poison 9 -> 10)"], False
    )
    assert text == "Blunder: missed lethal — also proliferate bob (poison 9 -> 10)"
    assert comment(Grade.BEST, 0.0, (50.0, 50.0), None, [], True) == "Best."
    many = comment(Grade.MISTAKE, 20.0, (52.4, 30.1), None, ["a", "b", "c", "d", "e"], False)
    assert many == "Mistake: lost 20 points (winning chances 52% -> 30%) — a; b; c; and 2 more"


def test_the_formulas_state_the_constant_and_the_thresholds_rule() -> None:
    assert f"k = {K}" in FORMULAS["win_chances"]
    assert "benchmarks/winprob_fit.py" in FORMULAS["win_chances"]
    assert "under 1 point is at most an inaccuracy" in FORMULAS["grade"]
