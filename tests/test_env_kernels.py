"""The env's compiled parts (env.kernels) against the Python game model they replace (issue 28)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import boards

from env.kernels import gains as G
from env.kernels.rng import draw_below, draw_u64, draw_unit, seeded_state, seeded_states, stream_seed
from env.kernels.state import EFFECT_NAMES, Catalogue, GameArrays
from env.scenarios import sample_scenario
from solver.board import Board
from solver.effects import gain
from solver.terms import Variant

SEATS = {Variant.DUEL: 2, Variant.TWO_HEADED_GIANT: 4, Variant.FREE_FOR_ALL: 4}
CATALOGUE = Catalogue()
TABLE = G.scope_table({k: i for i, k in enumerate(CATALOGUE.kinds)})


def _scenarios(variant: Variant, n: int) -> list[Board]:
    return [sample_scenario(variant, np.random.default_rng(seed), max_permanents=28).board for seed in range(n)]


def _carried(board: Board) -> bool:
    """Whether the arrays carry everything of ``board`` (see ``env.lockstep_v1.unmodelled``)."""
    from env.lockstep_v1 import unmodelled

    try:
        unmodelled(board)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------- the random stream
def test_splitmix64_reference_output() -> None:
    """SplitMix64 from state 0 gives the published first output (Steele, Lea and Flood 2014)."""
    states = np.zeros(1, dtype=np.uint64)
    assert int(draw_u64(states, 0)) == 0xE220A8397B1DCDAF
    assert int(draw_u64(states, 0)) == 0x6E789E6AA1B965F4


def test_a_stream_reads_and_advances_only_its_own_cell() -> None:
    alone = np.array([seeded_state(7)], dtype=np.uint64)
    among = np.array([seeded_state(1), seeded_state(7), seeded_state(9)], dtype=np.uint64)
    neighbours = among[[0, 2]].copy()
    want = [draw_unit(alone, 0) for _ in range(50)]
    got = []
    for _ in range(50):
        draw_below(among, 0, 5)  # the neighbours draw too, in between
        got.append(draw_unit(among, 1))
    assert got == want
    assert among[2] == neighbours[1]


@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.MT19937, np.random.SFC64])
def test_a_stream_seed_is_the_generators_own_draw_below_2_63(bits: type[np.random.BitGenerator]) -> None:
    """stream_seed reads a PCG64 (Gymnasium's) raw: the same draws, the generator left in the same state."""
    ours, theirs = np.random.Generator(bits(11)), np.random.Generator(bits(11))
    for _ in range(2_000):
        assert stream_seed(ours) == int(theirs.integers(0, 2**63))
    assert ours.random() == theirs.random()  # advanced alike
    gym_rng, same = seeding.np_random(5)[0], seeding.np_random(5)[0]
    assert [stream_seed(gym_rng) for _ in range(100)] == [int(same.integers(0, 2**63)) for _ in range(100)]


def _splitmix64_first_output(seed: int) -> int:
    """SplitMix64's first output from state ``seed`` in Python integers: the reference the seeding is held to."""
    mask = (1 << 64) - 1
    z = (seed + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


@given(st.lists(st.integers(min_value=-(2**70), max_value=2**70), max_size=40))
def test_a_seeds_state_is_splitmix64s_first_output_from_it(seeds: list[int]) -> None:
    """A stream starts at the seed (modulo 2**64) mixed once: SplitMix64's first output from it, for any integers."""
    got = seeded_states(seeds)
    assert got.dtype == np.uint64 and got.shape == (len(seeds),)
    assert got.tolist() == [_splitmix64_first_output(seed % 2**64) for seed in seeds]
    assert [int(seeded_state(seed)) for seed in seeds] == got.tolist()


def test_the_seed_0_stream_starts_at_the_published_first_output() -> None:
    assert int(seeded_state(0)) == 0xE220A8397B1DCDAF == _splitmix64_first_output(0)
    assert int(seeded_state(2**64)) == 0xE220A8397B1DCDAF


def test_draws_are_in_range_and_roughly_uniform() -> None:
    states = np.array([seeded_state(3)], dtype=np.uint64)
    units = np.array([draw_unit(states, 0) for _ in range(20_000)])
    assert units.min() >= 0.0 and units.max() < 1.0
    assert abs(units.mean() - 0.5) < 0.01
    picks = np.array([draw_below(states, 0, 3) for _ in range(30_000)], dtype=np.int64)
    assert set(np.unique(picks).tolist()) == {0, 1, 2}
    assert np.abs(np.bincount(picks) / 30_000 - 1 / 3).max() < 0.01
    assert draw_below(states, 0, 1) == 0


# ---------------------------------------------------------------------- Board <-> arrays
@pytest.mark.parametrize("variant", list(SEATS))
def test_generated_boards_round_trip_through_the_arrays(variant: Variant) -> None:
    games = GameArrays(3, variant, SEATS[variant], 48, CATALOGUE)
    for k, board in enumerate(_scenarios(variant, 40)):
        games.load(k % 3, board)
        assert games.board(k % 3) == board


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(boards())
def test_any_board_round_trips_through_the_arrays(board: Board) -> None:
    """Any board the v1 envs take (not one with an effect the compiled gains do not model yet)."""
    assume(not {e.card for e in board.effects} & G.UNTABLED and _carried(board))
    seats = max(SEATS[board.variant], board.n_players)
    games = GameArrays(1, board.variant, seats, seats + board.n_objects, CATALOGUE)
    games.load(0, board)
    assert games.board(0) == board


def test_a_board_larger_than_the_slots_is_refused_naming_the_slots() -> None:
    board = _scenarios(Variant.DUEL, 1)[0]
    games = GameArrays(1, Variant.DUEL, 2, 3, CATALOGUE)
    with pytest.raises(ValueError, match="slots"):
        games.load(0, board)


# ---------------------------------------------------------------------- gains (616.1)
def _check_gains(games: GameArrays, board: Board) -> None:
    out = np.zeros(games.counts.shape[1:], dtype=np.int64)
    cat = games.catalogue
    G.game_gains(
        games.counts[0], games.card[0], games.controller[0], games.protector[0], games.player_in[0], games.team[0],
        games.n_perm[0], games.effects[0], games.n_effects[0], games.proliferator[0], cat.types, TABLE.scopes,
        TABLE.n_scopes, G.wanted_kinds(cat.kinds), cat.kinds.index("defense"), out,
    )  # fmt: skip
    rows = [*range(board.n_players), *(games.seats + np.arange(board.n_objects - board.n_players)).tolist()]
    cols = [cat.kinds.index(k) for k in board.kinds]
    assert out[np.ix_(rows, cols)].tolist() == gain(board).tolist()
    rounds = G.game_rounds(
        games.effects[0], games.n_effects[0], games.proliferator[0], games.proliferates[0], TABLE.factor
    )
    assert rounds == board.rounds


@pytest.mark.parametrize("variant", list(SEATS))
def test_gains_equal_the_solvers_on_generated_boards_for_every_proliferator(variant: Variant) -> None:
    games = GameArrays(1, variant, SEATS[variant], 48, CATALOGUE)
    for board in _scenarios(variant, 60):
        for p in range(board.n_players):
            turned = board.with_proliferator(p)
            games.load(0, turned)
            _check_gains(games, turned)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(boards())
def test_gains_equal_the_solvers_with_every_card_of_the_registry(board: Board) -> None:
    """Every replacement effect the tables model (614, 616.1) and Tekuthal's factor, in every variant."""
    assume(not {e.card for e in board.effects} & G.UNTABLED and _carried(board))
    seats = max(SEATS[board.variant], board.n_players)
    games = GameArrays(1, board.variant, seats, seats + board.n_objects, CATALOGUE)
    games.load(0, board)
    _check_gains(games, board)


def test_the_scope_table_covers_every_card_of_the_registry() -> None:
    """Every card has a row; those it cannot express are named, and no card of the env's decks is among them."""
    from env.scenarios import CARDS as DECKS

    assert TABLE.scopes.shape[0] == len(EFFECT_NAMES)
    assert not {spec.name for specs in DECKS.values() for spec in specs} & G.UNTABLED
    for name in G.UNTABLED:
        assert (TABLE.n_scopes[EFFECT_NAMES.index(name)] == -1).all()
    static = EFFECT_NAMES.index("Hardened Scales")
    assert TABLE.n_scopes[static].tolist() == [[1] * 3] * 3
    assert TABLE.factor[EFFECT_NAMES.index("Tekuthal, Inquiry Dominus")] == 2


def test_the_warm_entry_compiles_every_kernel_the_envs_call_from_python() -> None:
    """``python -m env.kernels.warm`` (the Makefile's install step) reaches each compiled entry point of the v1 envs,
    so numba's cache holds them all after it."""
    from env.kernels import game as K
    from env.kernels import handle as H
    from env.kernels.warm import warm

    assert warm() >= 0.0
    entries = (K.reset_games, K.step_games, K.step_games_parallel, K.observe, K.oracle_choice, K.resume_one,
               H.make_handle, H.step_observe, H.step_observe_parallel, H.reset_observe, H.observe_games)  # fmt: skip
    assert all(kernel.signatures for kernel in entries)
