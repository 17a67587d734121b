"""The time-bound helper: an overrun is retried, a wrong answer is not, and a bound overrun every time fails."""

from __future__ import annotations

import pytest
from timing_helpers import TRIES, Overrun, retried_on_overrun, within


def test_within_passes_at_the_bound_and_fails_past_it() -> None:
    within(0.5, 0.5)
    with pytest.raises(Overrun, match=r"solve: 0\.600 s, the bound is 0\.500 s"):
        within(0.6, 0.5, "solve")


def test_an_overrun_once_is_run_again_and_passes() -> None:
    runs: list[int] = []

    @retried_on_overrun
    def timed() -> str:
        runs.append(1)
        within(1.0 if len(runs) == 1 else 0.1, 0.5)
        return "answer"

    assert timed() == "answer" and len(runs) == 2


def test_a_bound_overrun_every_time_fails() -> None:
    runs: list[int] = []

    @retried_on_overrun
    def always_slow() -> None:
        runs.append(1)
        within(1.0, 0.5)

    with pytest.raises(Overrun):
        always_slow()
    assert len(runs) == TRIES


def test_a_wrong_answer_is_never_retried() -> None:
    runs: list[int] = []

    @retried_on_overrun
    def wrong() -> None:
        runs.append(1)
        assert not runs, "a wrong answer"  # runs holds this run: fails every time

    with pytest.raises(AssertionError) as info:
        wrong()
    assert not isinstance(info.value, Overrun) and len(runs) == 1
