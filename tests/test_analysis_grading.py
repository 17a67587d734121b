"""Grades, thresholds, accuracy and comments (solver.analysis.grading)."""

from __future__ import annotations

import pytest

from solver.analysis.grading import (
    Grade,
    Thresholds,
    ThresholdsError,
    comment,
    decision_accuracy,
    format_accuracy,
    grade,
    normalised_regret,
)


def test_default_thresholds_split_the_grades_at_their_lower_bounds() -> None:
    t = Thresholds()
    assert grade(0.0, 0.0, t, False) is Grade.BEST
    assert grade(0.5, 0.049, t, False) is Grade.GOOD
    assert grade(0.5, 0.05, t, False) is Grade.INACCURACY
    assert grade(0.5, 0.0999, t, False) is Grade.INACCURACY
    assert grade(0.5, 0.10, t, False) is Grade.MISTAKE
    assert grade(0.5, 0.20, t, False) is Grade.BLUNDER
    assert grade(0.5, 1.0, t, False) is Grade.BLUNDER


def test_a_missed_win_or_self_inflicted_loss_is_a_blunder_whatever_the_normalised_regret() -> None:
    assert grade(1.0, 0.001, Thresholds(), True) is Grade.BLUNDER


def test_custom_thresholds_move_the_bands() -> None:
    t = Thresholds.parse("inaccuracy=0.2, mistake=0.4,blunder=0.6")
    assert (t.inaccuracy, t.mistake, t.blunder) == (0.2, 0.4, 0.6)
    assert grade(1.0, 0.3, t, False) is Grade.INACCURACY
    assert grade(1.0, 0.5, t, False) is Grade.MISTAKE
    assert Thresholds.parse("blunder=0.5") == Thresholds(blunder=0.5)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("mistake=x", "thresholds.mistake"),
        ("blunder=1.5", "thresholds.blunder"),
        ("inaccuracy=0.3,mistake=0.2", "inaccuracy <= mistake <= blunder"),
        ("panic=0.1", "'panic=0.1'"),
        ("mistake=0.1,mistake=0.2", "given twice"),
        ("inaccuracy=0", "thresholds.inaccuracy"),
    ],
)
def test_bad_thresholds_name_the_key(spec: str, fragment: str) -> None:
    with pytest.raises(ThresholdsError, match=None) as info:
        Thresholds.parse(spec)
    assert fragment in str(info.value)


def test_normalised_regret_is_a_share_of_the_spread() -> None:
    assert normalised_regret(3.0, 5.0) == pytest.approx(0.6)
    assert normalised_regret(0.0, 5.0) == 0.0
    assert normalised_regret(0.0, 0.0) == 0.0


def test_accuracy_is_100_only_without_regret_and_falls_with_it() -> None:
    assert decision_accuracy(0.0) == 100.0
    values = [decision_accuracy(r) for r in (1e-6, 0.05, 0.1, 0.2, 1.0)]
    assert all(v < 100.0 for v in values)
    assert values == sorted(values, reverse=True)
    assert values[-1] == 0.0


def test_accuracy_is_shown_rounded_down_so_a_tiny_regret_never_reads_100() -> None:
    assert format_accuracy(decision_accuracy(1e-6)) == "99.9"
    assert format_accuracy(100.0) == "100.0"
    assert format_accuracy(None) == "—"


def test_comment_reads_like_the_lichess_line() -> None:
    text = comment(Grade.BLUNDER, 1001.0, 1.0, "missed lethal", ["also proliferate bob (poison 9 -> 10)"], False)
    assert text == "Blunder: missed lethal — also proliferate bob (poison 9 -> 10)"
    assert comment(Grade.BEST, 0.0, 0.0, None, [], True) == "Best."
    many = comment(Grade.MISTAKE, 2.0, 0.12, None, ["a", "b", "c", "d", "e"], False)
    assert many.startswith("Mistake: lost 2 points (12% of the spread") and many.endswith("a; b; c; and 2 more")
