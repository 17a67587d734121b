"""The equality fixture of issue 26: today's decisions on 100,000 seeded boards, one digest each.

The quick check decides a seeded subset of the boards again and compares digests; the full
check is ``python -m benchmarks.fixture check`` (a few minutes).
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.fixture import FIXTURE, N_BOARDS, PATHS, board_dict, check, subset


def test_the_fixture_covers_sizes_2_to_2000_and_every_variant() -> None:
    data = np.load(FIXTURE)
    assert data["digests"].shape == (N_BOARDS, 16)
    sizes = data["sizes"]
    assert int(sizes.min()) == 2 and int(sizes.max()) == 2_000
    assert {board_dict(i)["variant"] for i in range(50)} == {"duel", "free_for_all", "two_headed_giant"}


def test_a_board_is_rebuilt_from_its_index_alone() -> None:
    assert board_dict(12_345) == board_dict(12_345)
    assert board_dict(499)["permanents"] != board_dict(999)["permanents"]


@pytest.mark.parametrize("path", PATHS)
def test_the_solver_reproduces_the_fixture_on_a_seeded_subset(path: str) -> None:
    """``solve_many`` (batch) and ``solve`` one board at a time (single) both give the recorded decisions."""
    indices = subset(2_000)
    assert any(i % 500 == 499 for i in indices)  # large boards are among them
    moved = check(indices, path=path)
    assert not moved, {cause: boards[:10] for cause, boards in moved.items()}
