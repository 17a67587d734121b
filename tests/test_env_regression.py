"""The envs' trajectories are pinned: the speed work on them must not change a single value.

``EXPECTED`` holds digests of seeded trajectories (every observation, reward, termination,
truncation and info of a vector env and of a single env, random legal actions from a fixed
generator) recorded with the v1 envs; any change to what the envs return, or to the order
each game draws from its stream, changes them.  Regenerate only
for an intended change of behaviour: ``python tests/test_env_regression.py`` prints them.
The derived boards the envs build on every turn are checked against boards built from
scratch.
"""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import env  # noqa: F401  (registers the ids)
from env.scenarios import CARDS, make_permanent, sample_scenario, with_columns
from env.spaces import _layout, seat_order
from solver.board import GAIN
from solver.core import SUPPORTED_CARDS, Board, Effect, Permanent, Variant
from solver.effects import gain

CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "duel": ("proliferate/Duel-v1", {}),
    "2hg": ("proliferate/TwoHeadedGiant-v1", {}),
    "ffa": ("proliferate/FreeForAll-v1", {}),
    "duel-sequential": ("proliferate/Duel-v1", {"action_mode": "sequential"}),
    "2hg-sequential": ("proliferate/TwoHeadedGiant-v1", {"action_mode": "sequential"}),
    "duel-regret-oracle": ("proliferate/Duel-v1", {"reward_mode": "regret", "oracle_in_info": True}),
    "ffa-random": ("proliferate/FreeForAll-v1", {"opponent": "random", "max_turns": 40}),
    "2hg-oracle": ("proliferate/TwoHeadedGiant-v1", {"opponent": "oracle"}),
}

#: Recorded with the v1 envs (``python tests/test_env_regression.py``) when v0 was retired: the same
#: configurations as v0's pins, which guarded issue 24 (a resolution that ends the game is worth its result
#: alone, 104.2a, 104.3) and issue 25 (``info["action_mask"]`` of a terminating sequential step is the
#: observation's mask, DONE = 1, which v1 had lost and has again); those behaviours are pinned here on v1's
#: trajectories.
EXPECTED: dict[str, str] = {
    "2hg": "d58c1d5212adbfeca44833375929892364e1c6518e4ff966ec023847b03d38c5",
    "2hg-oracle": "b3023d29c305038e3ae82644bd9159360a128ee80054537ec93b351ccce27832",
    "2hg-sequential": "7da279d923a0f68544abc2955b3f6f506f4f622683083f89bb3eb33bd5300e3b",
    "duel": "0666de2a9418fb9a7c30133bb3d60ab612b37eafe83508d14e401fd47afa2076",
    "duel-regret-oracle": "6864fa179e611b481fd60501be9733136fdb5a81628c4f218e0247b8346615a8",
    "duel-sequential": "a118662ac58e389c42df994d0f4a51eac909f8801472705293588e4b4e03550a",
    "ffa": "052066bb47aec53581d326b71dd3238371941f7b7f250b7335b16c8f6f7d609a",
    "ffa-random": "5e5f7412b8be6475eaa31594bab47fabf259a5d8127a87ac36ebebdab5e13aa6",
}


def _feed(digest: Any, value: Any) -> None:
    """Hash ``value`` exactly: dict keys sorted, arrays by dtype, shape and bytes, scalars by type and repr."""
    if isinstance(value, dict):
        for key in sorted(value, key=str):
            digest.update(repr(key).encode())
            _feed(digest, value[key])
    elif isinstance(value, list | tuple):
        digest.update(b"[%d" % len(value))
        for item in value:
            _feed(digest, item)
    elif isinstance(value, np.ndarray) and value.dtype == object:
        digest.update(repr(value.shape).encode())
        _feed(digest, value.ravel().tolist())
    elif isinstance(value, np.ndarray):
        digest.update(f"{value.dtype}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    else:
        digest.update(repr((type(value).__name__, value)).encode())


def _action(mask: np.ndarray, sequential: bool, rng: np.random.Generator) -> Any:
    if sequential:
        return np.array([int(rng.choice(np.flatnonzero(row))) for row in mask], dtype=np.int64)
    return (mask.astype(bool) & (rng.random(mask.shape) < 0.5)).astype(np.int8)


def trajectory_digest(env_id: str, kwargs: dict[str, Any], num_envs: int = 6, steps: int = 25) -> str:
    """The digest of a seeded vector-env run and a seeded single-env run (with resets) of one configuration."""
    digest = hashlib.sha256()
    rng = np.random.default_rng(1)
    sequential = kwargs.get("action_mode") == "sequential"
    vec = gym.make_vec(env_id, num_envs=num_envs, **kwargs)
    obs, info = vec.reset(seed=3)
    _feed(digest, (obs, info))
    for _ in range(steps):
        obs, *rest = vec.step(_action(obs["action_mask"], sequential, rng))
        _feed(digest, (obs, *rest))
    single = gym.make(env_id, **kwargs)
    obs, info = single.reset(seed=11)
    _feed(digest, (obs, info))
    for _ in range(steps):
        action = _action(obs["action_mask"][None], sequential, rng)[0]
        obs, reward, terminated, truncated, info = single.step(action)
        _feed(digest, (obs, reward, terminated, truncated, info))
        if terminated or truncated:
            obs, info = single.reset()
            _feed(digest, (obs, info))
    return digest.hexdigest()


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_seeded_trajectories_match_the_recorded_baseline(name: str) -> None:
    env_id, kwargs = CONFIGS[name]
    assert trajectory_digest(env_id, kwargs) == EXPECTED[name]


def _board(seed: int, variant: Variant = Variant.DUEL) -> Board:
    return with_columns(sample_scenario(variant, np.random.default_rng(seed), max_permanents=12).board)


def _by_kind(board: Board, per_kind: np.ndarray) -> dict[str, list[int]]:
    """An (objects x kinds) array by kind name, without the all-zero columns (a rebuild has none)."""
    return {kind: per_kind[:, k].tolist() for k, kind in enumerate(board.kinds) if per_kind[:, k].any()}


def _rebuilt(board: Board, permanents: list[Permanent], effects: tuple[Effect, ...]) -> Board:
    return Board.build(
        variant=board.variant,
        proliferator=board.proliferator_id,
        players=board.players,
        permanents=permanents,
        effects=effects,
        proliferates=board.proliferates,
    )


@pytest.mark.parametrize("variant", [Variant.DUEL, Variant.TWO_HEADED_GIANT, Variant.FREE_FOR_ALL])
def test_entering_permanents_match_a_board_built_from_scratch(variant: Variant) -> None:
    """Repeated cards with other counts, ids and controllers hit the memoised one-permanent boards."""
    board = _board(5, variant)
    rng = np.random.default_rng(7)
    seats = [p.id for p in board.players]
    for n in range(40):
        spec = CARDS["mixed"][n % 6]
        controller = seats[n % len(seats)]
        perm = make_permanent(spec, f"new{n}", controller, seats[(n + 1) % len(seats)], rng)
        effects = (Effect(spec.name, controller),) if spec.name in SUPPORTED_CARDS else ()
        grown = board.with_permanent(perm, effects)
        expected = _rebuilt(board, [*board.permanents, perm], (*board.effects, *effects))
        assert grown == expected
        assert _by_kind(grown, gain(grown)) == _by_kind(expected, gain(expected))
        board = grown if n % 3 else board


def test_an_entering_permanent_with_thresholds_and_values_matches_a_rebuild() -> None:
    board = _board(2)
    perm = Permanent(
        "sieged",
        "p1",
        types=("battle",),
        name="Invasion",
        counters={"defense": 3},
        protector="p0",
        value=2.5,
        counter_values={"defense": 0.5},
    )
    for p in (perm, Permanent("x", "p0", types=("artifact",), counters={"charge": 2, "oil": 1})):
        assert board.with_permanent(p) == _rebuilt(board, [*board.permanents, p], board.effects)


def test_removing_permanents_matches_a_rebuild() -> None:
    board = _board(9)
    for start in range(board.n_players, board.n_objects):
        gone = np.zeros(board.n_objects, dtype=bool)
        gone[start::3] = True
        kept = [p for i, p in enumerate(board.permanents, start=board.n_players) if not gone[i]]
        smaller = board.without(gone)
        assert smaller == _rebuilt(board, kept, board.effects)
        np.testing.assert_array_equal(smaller.counts, board.counts[~gone])  # the same columns


def test_derived_boards_recompute_what_they_do_not_keep() -> None:
    """A count change that gives an object a new kind drops the cached gain; one that does not keeps it."""
    board = _board(4)
    gain(board)  # filled in the instance dict
    counts = board.counts.copy()
    row = board.n_players
    kind = int(np.flatnonzero(counts[row] == 0)[0])
    counts[row, kind] = 1
    changed = board.with_counts(counts)
    assert GAIN not in changed.__dict__
    rebuilt = _rebuilt(changed, list(changed.permanents), changed.effects)
    assert _by_kind(changed, gain(changed)) == _by_kind(rebuilt, gain(rebuilt))
    same = board.with_counts(board.counts + (board.counts > 0))
    assert same.__dict__[GAIN] is board.__dict__[GAIN]


VARIANTS = [Variant.DUEL, Variant.TWO_HEADED_GIANT, Variant.FREE_FOR_ALL]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_layout_orders_permanents_by_controller_rank_then_row(variant: Variant) -> None:
    """The layout's stable sort on the controller's rank alone keeps the rows ascending within a rank."""
    for seed in range(12):
        board = _board(seed, variant)
        seats = tuple(p.id for p in board.players)
        for actor in seats:
            order = seat_order(board, seats, actor)
            rank = {board.index[seat]: r for r, seat in enumerate(order)}
            row_of_slot, slot_of_row = _layout(board, order, len(seats), 48)
            perms = sorted(range(board.n_players, board.n_objects), key=lambda r: (rank[int(board.controller[r])], r))
            assert row_of_slot[len(seats) : len(seats) + len(perms)].tolist() == perms
            filled = row_of_slot >= 0
            assert slot_of_row[row_of_slot[filled]].tolist() == np.flatnonzero(filled).tolist()


if __name__ == "__main__":
    for key in sorted(CONFIGS):
        print(f'    "{key}": "{trajectory_digest(*CONFIGS[key])}",')
