"""One random stream per game: SplitMix64, its 64-bit state kept in a caller's ``uint64`` array.

A game's stream is seeded from the reset seed and the game's index, ``seed + index``, so
sub-env ``i`` of a vector env reset with ``seed`` draws what a single env reset with
``seed + i`` draws (as Gymnasium's own vector envs seed their sub-envs).  Each draw reads and
advances only its game's cell: a trajectory does not depend on N, on the other games, on
the thread that steps it, or on a neighbour's autoreset.

SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014; the seeding generator of Java's ``SplittableRandom`` and of xoshiro) is a
counter plus a 64-bit finaliser: the state advances by the golden-ratio increment and the
output is the state mixed by two xor-shift-multiply rounds.  Every constant is a
``np.uint64`` so that numba keeps the arithmetic in unsigned 64 bits (a mixed
``uint64``/``int64`` expression would be promoted to float64).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from solver.core import inner

__all__ = [
    "StreamGenerator",
    "draw_below",
    "draw_u64",
    "draw_unit",
    "seeded_state",
    "seeded_states",
    "stream_seed",
]

U64 = npt.NDArray[np.uint64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_ZERO = np.uint64(0)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@inner
def draw_u64(states: U64, g: int) -> np.uint64:
    """The next 64 random bits of game ``g``'s stream."""
    s = states[g] + _GOLDEN
    states[g] = s
    return _mix(s)


@inner
def draw_unit(states: U64, g: int) -> float:
    """A float in [0, 1) with 53 random bits (as ``numpy.random.Generator.random``)."""
    return float(draw_u64(states, g) >> _S11) * _UNIT


@inner
def draw_below(states: U64, g: int, n: int) -> np.int64:
    """An integer in ``[0, n)``, uniform and unbiased (rejection of the top partial range); 0 if ``n <= 1``."""
    if n <= 1:
        return np.int64(0)
    bound = np.uint64(n)
    # The largest multiple of n that fits in 2**64, as (2**64 - (2**64 mod n)); draws at or above it are redrawn.
    limit = _ZERO - ((_ZERO - bound) % bound)
    while True:
        r = draw_u64(states, g)
        if limit == _ZERO or r < limit:
            return np.int64(r % bound)


@njit(cache=True)
def _seed_into(z: U64) -> None:
    """Each cell's starting state from its seed: the first draw of a stream whose state is the seed (the seed
    mixed once, so that nearby seeds start far apart)."""
    for i in range(len(z)):
        z[i] = draw_u64(z, i)


def seeded_states(seeds: Sequence[int]) -> U64:
    """The starting state of the stream of each of ``seeds`` (any Python integers, reduced modulo 2**64)."""
    z = np.array([seed % (1 << 64) for seed in seeds], dtype=np.uint64)
    _seed_into(z)
    return z


def seeded_state(seed: int) -> np.uint64:
    """The starting state of the stream of ``seed``: :func:`seeded_states` of one."""
    state: np.uint64 = seeded_states((seed,))[0]
    return state


def stream_seed(rng: np.random.Generator) -> int:
    """The seed of a game's stream: one draw from the generator Gymnasium gives the game, ``rng.integers(0, 2**63)``.

    Of a PCG64 generator (Gymnasium's, :func:`gymnasium.utils.seeding.np_random`) the draw is read from its bit
    generator, five times faster: numpy bounds a 64-bit draw below 2**63 by Lemire's method, whose product with
    2**63 never falls in the rejected range, so the draw is the raw 64-bit output shifted right by one, the
    generator advanced alike.  Any other generator is asked as it is.
    """
    bits = rng.bit_generator
    if type(bits) is np.random.PCG64:
        return int(bits.random_raw()) >> 1
    return int(rng.integers(0, 2**63))


class StreamGenerator:
    """A game's stream behind the two methods of :class:`numpy.random.Generator` a Python policy calls.

    ``random()`` is :func:`draw_unit` and ``integers(low, high)`` is ``low + draw_below(high - low)``, the draws
    the compiled policies make (``env.kernels.game.decide_scripted``): a Python policy given this for a game's
    stream draws what the compiled policy draws there (``benchmarks.games`` checks its Python-path games so).
    """

    def __init__(self, seed: int) -> None:
        self.state = np.array([seeded_state(seed)], dtype=np.uint64)

    def random(self, size: int | None = None) -> float | npt.NDArray[np.float64]:
        if size is None:
            return draw_unit(self.state, 0)
        return np.array([draw_unit(self.state, 0) for _ in range(int(size))], dtype=np.float64)

    def integers(self, low: int, high: int | None = None) -> int:
        if high is None:
            low, high = 0, low
        return int(low) + int(draw_below(self.state, 0, int(high) - int(low)))
