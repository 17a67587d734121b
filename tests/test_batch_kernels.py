"""The small kernels the batched core is built from, against their plain numpy definitions."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from solver.fast import NO_OPTION, best_options
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
def test_best_options_is_the_first_optimal_combination(seed: int) -> None:
    """The programme against every combination of options: the best total, then the first in unit order.

    Small keys make ties common; some options are padding, and some boards have no seat at stake.
    """
    rng = np.random.default_rng(seed)
    n_boards, n_units, n_options = (int(x) for x in rng.integers(1, 4, size=3))
    n_states = 1 << int(rng.integers(0, 3))
    keys = rng.integers(-2, 3, size=(n_boards, n_units, n_options))
    padded = rng.random((n_boards, n_units, n_options)) < 0.3
    padded[:, :, 0] = False
    keys = np.where(padded, NO_OPTION, keys)
    events = rng.integers(0, n_states, size=(n_boards, n_units, n_options))
    game = rng.integers(-2, 3, size=(n_boards, n_states))
    chosen, state = best_options(keys, events, game)
    for b in range(n_boards):
        combos = [
            c for c in itertools.product(range(n_options), repeat=n_units) if not padded[b, range(n_units), c].any()
        ]

        def total(combo: tuple[int, ...], b: int = b) -> int:
            reached = 0
            for u, o in enumerate(combo):
                reached |= int(events[b, u, o])
            return sum(int(keys[b, u, o]) for u, o in enumerate(combo)) + int(game[b, reached])

        best = max(map(total, combos))
        first = min(c for c in combos if total(c) == best)  # the first optimal option, unit by unit
        assert tuple(chosen[b].tolist()) == first
        reached = 0
        for u, o in enumerate(first):
            reached |= int(events[b, u, o])
        assert int(state[b]) == reached
