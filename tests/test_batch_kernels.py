"""The small kernels the batched core is built from, against their plain numpy definitions."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from solver.rules import segment_reduce


@st.composite
def segments(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Some boards, a sorted board index per value (boards may have none), values and a start."""
    n = draw(st.integers(1, 40))
    size = draw(st.sampled_from([0, 5, 300, 1200]))  # below and above the reduceat threshold
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    segment = np.sort(rng.integers(0, n, size)).astype(np.int64)
    values = rng.integers(0, 1 << 40, size).astype(np.int64)
    start = rng.integers(0, 1 << 20, n).astype(np.int64)
    return segment, values, start


@given(segments())
def test_segment_reduce_is_ufunc_at(case: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    segment, values, start = case
    for ufunc in (np.add, np.bitwise_or, np.maximum):
        expected, got = start.copy(), start.copy()
        ufunc.at(expected, segment, values)
        segment_reduce(ufunc, got, segment, values)
        assert np.array_equal(got, expected), ufunc
