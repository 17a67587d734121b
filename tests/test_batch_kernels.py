"""The small kernels the batched core is built from, against their plain numpy definitions."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from solver.kernels.exact import _programme
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


@given(st.integers(0, 2**32 - 1))
def test_the_programme_takes_the_first_optimal_combination(seed: int) -> None:
    """The compiled core's programme over coupled units against every combination of options.

    The best total, then, unit by unit in board order, the first optimal option; small keys
    make ties common, units have 1 to 3 options, and some boards have no seat at stake.
    """
    rng = np.random.default_rng(seed)
    n_units, width = (int(x) for x in rng.integers(1, 4, size=2))
    n_states = 1 << int(rng.integers(0, 3))
    n_opt = rng.integers(1, width + 1, size=n_units).astype(np.int64)
    keys = rng.integers(-2, 3, size=(n_units, width)).astype(np.int64)
    compact = rng.integers(0, n_states, size=(n_units, width)).astype(np.int64)
    terminal = rng.integers(-2, 3, size=n_states).astype(np.int64)
    first, best_total = _programme(n_opt, keys, compact, terminal)
    combos = list(itertools.product(*(range(int(k)) for k in n_opt)))

    def reached(combo: tuple[int, ...]) -> int:
        state = 0
        for u, o in enumerate(combo):
            state |= int(compact[u, o])
        return state

    def total(combo: tuple[int, ...]) -> int:
        return sum(int(keys[u, o]) for u, o in enumerate(combo)) + int(terminal[reached(combo)])

    best = max(map(total, combos))
    want = min(c for c in combos if total(c) == best)  # the first optimal option, unit by unit
    state, got = 0, []
    for u in range(n_units):
        o = int(first[u, state])
        got.append(o)
        state |= int(compact[u, o])
    assert best_total == best and tuple(got) == want
