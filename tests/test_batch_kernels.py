"""The small kernels the batched core is built from, against their plain numpy definitions."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.kernels.exact import _programme, _programme_into, team_options
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


@settings(deadline=None)  # the first example may compile the kernel
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


@settings(deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_programme_into_reused_scratch_equals_the_programme(seed: int) -> None:
    """A batch's programme runs in scratch reused board after board (larger than the board needs, holding the
    last board's numbers): the same first options and best total as with fresh arrays."""
    rng = np.random.default_rng(seed)
    n_units, width = (int(x) for x in rng.integers(1, 4, size=2))
    n_states = 1 << int(rng.integers(0, 3))
    n_opt = rng.integers(1, width + 1, size=n_units).astype(np.int64)
    keys = rng.integers(-5, 6, size=(n_units, width)).astype(np.int64)
    compact = rng.integers(0, n_states, size=(n_units, width)).astype(np.int64)
    terminal = rng.integers(-5, 6, size=n_states).astype(np.int64)
    first, best = _programme(n_opt, keys, compact, terminal)
    stale = rng.integers(-99, 99, size=3 * n_states + 5).astype(np.int64)
    first_into = np.full((n_units, n_states), 7, dtype=np.int64)
    got = _programme_into(n_opt, keys, compact, terminal, first_into, stale.copy(), stale[::-1].copy())
    assert got == best and np.array_equal(first_into, first)


def _team_options_reference(
    rounds: int, ok: list[bool], poisoned: bool, gains: list[int]
) -> list[tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...]]]:
    """701.34b in plain Python: per round a subset of the heads that can be chosen (larger subsets first, in
    combination order) and, with team poison (810.10), the chosen head receiving the team's counter; the first
    pattern (round-major) per outcome (times per head, poison given) kept, most picks first (stable)."""
    heads = [h for h in range(len(ok)) if ok[h]]
    entries: list[tuple[int, int]] = []
    for size in range(len(heads), -1, -1):
        for combo in itertools.combinations(heads, size):
            mask = sum(1 << h for h in combo)
            entries += [(mask, h) for h in combo] if poisoned and size else [(mask, -1)]
    Option = tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...]]
    found: list[Option] = [((0,) * len(ok), 0, (), ())]
    for _ in range(rounds):
        seen: set[tuple[tuple[int, ...], int]] = set()
        nxt: list[Option] = []
        for times, so_far, masks, recipients in found:
            for mask, head in entries:
                t = tuple(times[h] + ((mask >> h) & 1) for h in range(len(ok)))
                g = so_far + (gains[head] if head >= 0 else 0)
                if (t, g) not in seen:
                    seen.add((t, g))
                    nxt.append((t, g, (*masks, mask), (*recipients, head)))
        found = nxt
    return sorted(found, key=lambda option: -sum(option[0]))


@settings(deadline=None)
@given(
    st.integers(1, 3),
    st.lists(st.booleans(), min_size=1, max_size=3),
    st.booleans(),
    st.lists(st.integers(0, 3), min_size=3, max_size=3),
)
def test_a_2hg_teams_options_are_the_first_pattern_per_outcome_most_picks_first_701_34b_810_10(
    rounds: int, ok: list[bool], poisoned: bool, gains: list[int]
) -> None:
    """The compiled team options (an open-addressing set of outcomes, a counting sort by picks) against
    :func:`_team_options_reference`: the same options in the same order, the canonical tie-break's."""
    gains = gains[: len(ok)]
    times, poison, picks, masks, recipients = team_options(
        rounds, np.array(ok, dtype=np.bool_), poisoned, np.array(gains, dtype=np.int64)
    )
    want = _team_options_reference(rounds, ok, poisoned, gains)
    assert [tuple(t) for t in times.tolist()] == [w[0] for w in want]
    assert poison.tolist() == [w[1] for w in want]
    assert picks.tolist() == [sum(w[0]) for w in want]
    assert [tuple(m[:rounds]) for m in masks.tolist()] == [w[2] for w in want]
    assert [tuple(r[:rounds]) for r in recipients.tolist()] == [w[3] for w in want]
