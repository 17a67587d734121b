"""Actions are checked whole, before any state changes, the same way in both action modes (and in the AEC)."""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from env import IDS
from env.actions import check_actions
from env.core import ProliferateEnv

N_BITS = 34  # a 32-slot duel in sequential mode: 32 objects + DONE; subset mode: 32 bits


def _pair(mode: str) -> tuple[ProliferateEnv, ProliferateEnv]:
    """Two envs in the same state: one gets the bad action, the other is the control."""
    envs = []
    for _ in range(2):
        made = gym.make("proliferate/Duel-v1", action_mode=mode).unwrapped
        assert isinstance(made, ProliferateEnv)
        made.reset(seed=12)
        envs.append(made)
    return envs[0], envs[1]


BAD_SEQUENTIAL: list[Any] = [
    None,
    [0, 1],
    np.array([1, 2]),
    math.inf,
    -math.inf,
    math.nan,
    0.3,
    3.0,
    -1,
    33,
    10**30,
    "2",
    True,
    {},
]
BAD_SUBSET: list[Any] = [
    None,
    [0],
    np.array([1, 2]),
    math.inf,
    "1" * 32,
    [math.nan] * 32,
    [0.3] * 32,
    [-1] * 32,
    [2] * 32,
    ["1"] * 32,
]


@pytest.mark.parametrize(
    ("mode", "bad"), [("sequential", b) for b in BAD_SEQUENTIAL] + [("subset", b) for b in BAD_SUBSET]
)
def test_an_action_outside_the_space_raises_value_error_and_changes_nothing(mode: str, bad: Any) -> None:
    e, control = _pair(mode)
    with pytest.raises(ValueError, match=f"a {mode} action must be"):
        e.step(bad)
    legal = e.oracle_action()
    # The rejected step left no trace: not in the step counter (globals[2]), not in the decision.
    assert data_equivalence(e.step(legal), control.step(legal))


def test_points_of_the_space_in_any_integer_or_boolean_form_are_accepted() -> None:
    e, control = _pair("subset")
    bits = np.asarray(e.oracle_action(), dtype=np.int8)
    as_bools = bits.astype(bool)
    assert data_equivalence(e.step(as_bools.tolist()), control.step(bits.astype(np.float64)))
    seq, seq_control = _pair("sequential")
    index = int(seq.oracle_action())
    assert data_equivalence(seq.step(np.array([index], dtype=np.uint8)), seq_control.step(np.int64(index)))


def test_the_aec_adapter_checks_its_actions_the_same_way() -> None:
    pytest.importorskip("pettingzoo")
    from env.pettingzoo import aec_env

    game = aec_env("free_for_all")
    game.reset(seed=2)
    before = game.observe(game.agent_selection)
    with pytest.raises(ValueError, match="a subset action must be"):
        game.step([0.3] * game.n_bits)
    assert data_equivalence(before, game.observe(game.agent_selection))


_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.lists(st.one_of(st.integers(-3, 3), st.floats(allow_nan=True), st.booleans(), st.text(max_size=1)), max_size=40),
)


def _legal_subset(value: Any) -> bool:
    arr = np.asarray(value) if not isinstance(value, str) else np.asarray([value])
    return arr.shape == (32,) and arr.dtype.kind in "biuf" and bool(np.isin(arr, (0, 1)).all())


def _legal_index(value: Any) -> bool:
    """One integer (not a bool) in range, alone or as the only element of a list."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 33


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_JUNK, mode=st.sampled_from(["subset", "sequential"]))
def test_fuzz_every_action_is_taken_or_refused_with_value_error(value: Any, mode: str) -> None:
    n_bits = 32 if mode == "subset" else 33
    legal = _legal_subset(value) if mode == "subset" else _legal_index(value)
    try:
        checked = check_actions(value, mode, n_bits, None)
    except ValueError as exc:
        assert not legal, exc
        assert f"a {mode} action must be" in str(exc)
        return
    assert legal
    assert checked.dtype == np.int64
    assert checked.shape == ((1, n_bits) if mode == "subset" else (1,))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=_JUNK | st.lists(st.integers(0, 1), min_size=32, max_size=32), mode=st.sampled_from(["subset", "sequential"])
)
def test_fuzz_a_refused_env_step_leaves_the_env_as_it_was(value: Any, mode: str) -> None:
    e, control = _pair(mode)
    try:
        result = e.step(value)
    except ValueError:
        legal = e.oracle_action()
        assert data_equivalence(e.step(legal), control.step(legal))
        return
    # Accepted: a point of the space, so the control env takes it too, with the same result.
    assert data_equivalence(result, control.step(value))


@pytest.mark.parametrize("mode", ["sequential", "subset"])
@pytest.mark.parametrize("env_id", sorted(IDS))
def test_info_mask_is_the_observation_mask_on_every_step_including_the_last(env_id: str, mode: str) -> None:
    """docs/environments.md, Masks: ``info["action_mask"]`` is the same array as ``obs["action_mask"]``,
    on the terminating step too (sequential mode: all zero bar DONE, which is always 1).  Issue 25's regression,
    which v1 had again: the info's mask of a terminated sequential step had DONE = 0."""
    made = gym.make(env_id, action_mode=mode)
    obs, info = made.reset(seed=3)
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(400):
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        if mode == "sequential":
            legal = np.flatnonzero(info["action_mask"])
            action: Any = int(legal[-1] if rng.random() < 0.3 else rng.choice(legal))
        else:
            n = int(np.prod(made.action_space.shape or (1,)))
            action = (rng.random(n) < 0.3).astype(np.int8) * obs["action_mask"][:n]
        obs, _, terminated, truncated, info = made.step(action)
        if terminated or truncated:
            ends += 1
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            if mode == "sequential" and terminated:  # (a TimeLimit truncation leaves the decision as it was)
                assert info["action_mask"][-1] == 1 and not info["action_mask"][:-1].any()
            obs, info = made.reset(seed=ends)
    assert ends > 0


#: Arrays of the subset space's shape whose bits the compiled step checks (the fast path casts them to int64 first).
BAD_BIT_ARRAYS: list[Any] = [
    np.full(32, 2, dtype=np.int8),
    np.array([0] * 31 + [-1], dtype=np.int64),
    np.full(32, 2**63, dtype=np.uint64),  # wraps to a negative int64: still refused
    np.array([0] * 31 + [256], dtype=np.int16),
]


@pytest.mark.parametrize("bad", BAD_BIT_ARRAYS, ids=lambda a: str(a.dtype))
def test_an_integer_array_of_the_spaces_shape_with_a_bad_bit_raises_and_changes_nothing(bad: Any) -> None:
    """The single env's fast path: the compiled step refuses the bits before anything changes, and
    ``check_actions`` gives the ValueError (701.34a: a subset of the objects, one bit each)."""
    e, control = _pair("subset")
    with pytest.raises(ValueError, match="a subset action must be"):
        e.step(bad)
    legal = e.oracle_action()
    assert data_equivalence(e.step(legal), control.step(legal))


@pytest.mark.parametrize("mode", ["subset", "sequential"])
def test_a_vector_step_with_one_bad_row_raises_and_changes_no_game(mode: str) -> None:
    """The vector env's fast path checks every row in the compiled call, the rows of sub-envs being reset too."""
    n = 20  # from 16 sub-envs: the batched step
    vecs = [gym.make_vec("proliferate/Duel-v1", num_envs=n, action_mode=mode) for _ in range(2)]
    for vec in vecs:
        vec.reset(seed=3)
    width: tuple[int, ...] = vecs[0].action_space.shape or (n,)
    bad = np.zeros(width, dtype=np.int64) if mode == "subset" else np.full(n, 32, dtype=np.int64)
    if mode == "subset":
        bad[7, 3] = 2
    else:
        bad[7] = 33  # one past DONE
    with pytest.raises(ValueError, match=f"a {mode} action must be"):
        vecs[0].step(bad)
    legal = np.zeros(width, dtype=np.int64) if mode == "subset" else np.full(n, 32, dtype=np.int64)
    for _ in range(3):
        assert data_equivalence(vecs[0].step(legal), vecs[1].step(legal))
