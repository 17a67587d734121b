"""One handle on an engine's arrays, so that a step is one compiled call with three arguments (issue 28).

Passing the state (:data:`~env.kernels.game.STATE_ORDER`), the tables and the views to a compiled
function as tuples costs numba's dispatcher about 50 ns an array to type and unbox, and ~5 µs a
call for their 47 arrays: more than many steps of a small game.  A :class:`Handle` (a numba
structref) holds those tuples, the observation buffers and the step's outputs, built once per
set of arrays; the per-step entries below take the handle, the games and their actions, and
call the same kernels (:func:`~env.kernels.game.step_one`, :func:`~env.kernels.game.observe`,
:func:`~env.kernels.game.reset_one`) on the tuples it holds.  There is no second game model here:
the entries only fuse a step with its observation and check the actions first.

The action check is :func:`env.actions.check_actions`' rule (subset bits each 0 or 1, a sequential
index in ``[0, n_bits)``) on actions already cast to int64 by a caller that knows they are
integers; a step whose actions break it changes nothing and returns :data:`BAD_ACTION`, and the
caller lets :func:`~env.actions.check_actions` raise its ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange, types
from numba.experimental import structref

from solver.core import inner

from .game import AGENT, PYTHON, observe, observe_row, reset_one, step_one

__all__ = [
    "BAD_ACTION",
    "H_HORIZON",
    "H_NBITS",
    "H_REGRET",
    "H_SEQUENTIAL",
    "H_VALUE",
    "Handle",
    "make_handle",
    "observe_games",
    "reset_observe",
    "step_observe",
    "step_observe_parallel",
    "vector_step",
    "vector_step_parallel",
]

#: What a step entry returns when an action is not a point of the action space (nothing has changed).
BAD_ACTION = -1
#: Entries of the handle's ``flags``: the horizon, sequential mode, the reward terms wanted, the action's bits.
H_HORIZON, H_SEQUENTIAL, H_VALUE, H_REGRET, H_NBITS = range(5)


@structref.register
class HandleType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(typ)) for name, typ in fields)  # type: ignore[no-untyped-call]


class Handle(structref.StructRefProxy):
    """The arrays of one engine and its observation buffers, for the compiled entries (see the module docstring).

    Fields: ``S``, ``T``, ``V`` (the kernels' tuples), ``obs`` (one buffer per observation key, a row per
    game), ``out_f`` / ``out_i`` (the step's reward terms and flags, a row per game), ``over`` (per game: the
    episode is over), ``decision_key`` (per game: bumped when a decision completes), ``one_hot`` (the variant)
    and ``flags`` (the ``H_`` entries).
    """

    # The fields (properties made by ``define_proxy``), declared for the type checker.
    S: tuple[np.ndarray, ...]
    T: tuple[np.ndarray, ...]
    V: tuple[np.ndarray, ...]
    obs: tuple[np.ndarray, ...]
    out_f: np.ndarray
    out_i: np.ndarray
    over: np.ndarray
    decision_key: np.ndarray
    one_hot: np.ndarray
    flags: np.ndarray


structref.define_proxy(  # type: ignore[no-untyped-call]
    Handle, HandleType, ["S", "T", "V", "obs", "out_f", "out_i", "over", "decision_key", "one_hot", "flags"]
)


@njit(cache=True)
def make_handle(
    S: tuple, T: tuple, V: tuple, obs: tuple, out_f: np.ndarray, out_i: np.ndarray, over: np.ndarray,  # type: ignore[type-arg]
    decision_key: np.ndarray, one_hot: np.ndarray, flags: np.ndarray,
) -> Handle:  # fmt: skip
    """A :class:`Handle` on these arrays (they are held, not copied)."""
    return Handle(S, T, V, obs, out_f, out_i, over, decision_key, one_hot, flags)  # type: ignore[no-untyped-call]


@njit(cache=True)
def _bad(h: Handle, actions: np.ndarray) -> bool:
    """Whether any action breaks :func:`env.actions.check_actions`' rule (read only)."""
    sequential = h.flags[H_SEQUENTIAL] == 1
    n_bits = h.flags[H_NBITS]
    for j in range(actions.shape[0]):
        for b in range(actions.shape[1]):
            a = actions[j, b]
            if (a < 0 or a >= n_bits) if sequential else (a != 0 and a != 1):
                return True
    return False


@inner
def _complete(out: np.ndarray, g: int, over: np.ndarray, key: np.ndarray) -> None:
    """After game ``g``'s step (its outputs row ``out``): a completed decision's episode state (over, decision key);
    a game handed to a Python seat is left to the caller."""
    if out[2] != PYTHON and out[1] != 0:
        over[g] = out[2] != AGENT
        key[g] += 1


@njit(cache=True)
def _completed(h: Handle, games: np.ndarray) -> int:
    """After the games' steps: :func:`_complete` of each; the number of games a Python seat must decide."""
    for j in range(len(games)):
        _complete(h.out_i[j], games[j], h.over, h.decision_key)
    return _handed(h.out_i, len(games))


@njit(cache=True)
def _finish(h: Handle, games: np.ndarray) -> int:
    """:func:`_completed`, then the games' observations (row ``j`` is ``games[j]``)."""
    handed = _completed(h, games)
    observe_games(h, games)
    return handed


@njit(cache=True)
def step_observe(h: Handle, games: np.ndarray, actions: np.ndarray) -> int:
    """One agent step in each game of ``games`` (row ``j`` of ``actions`` is ``games[j]``'s), then their
    observations into the handle's buffers (row ``j``); :data:`BAD_ACTION` (nothing changed) or the number of
    games handed to a Python seat."""
    if _bad(h, actions):
        return BAD_ACTION
    S, T, V, out_f, out_i = h.S, h.T, h.V, h.out_f, h.out_i
    want_value, want_regret = h.flags[H_VALUE] == 1, h.flags[H_REGRET] == 1
    for j in range(len(games)):
        step_one(S, T, V, games[j], actions[j], out_f[j], out_i[j], want_value, want_regret)
    return _finish(h, games)


@njit(cache=True)
def step_observe_parallel(h: Handle, games: np.ndarray, actions: np.ndarray) -> int:
    """:func:`step_observe` with the games' steps over numba's threads (each game's work and draws are its own,
    so the results are those of one thread)."""
    if _bad(h, actions):
        return BAD_ACTION
    flags = h.flags
    _steps_parallel(h.S, h.T, h.V, games, actions, h.out_f, h.out_i, flags[H_VALUE] == 1, flags[H_REGRET] == 1, False)
    return _finish(h, games)


@njit(cache=True, parallel=True)
def _steps_parallel(
    S: tuple, T: tuple, V: tuple, games: np.ndarray, actions: np.ndarray, out_f: np.ndarray, out_i: np.ndarray,  # type: ignore[type-arg]
    want_value: bool, want_regret: bool, by_game: bool,
) -> None:  # fmt: skip
    """:func:`~env.kernels.game.step_one` of each game of ``games`` over numba's threads, its action row
    ``games[j]`` (``by_game``) or ``j``, its outputs row ``j``.  The parallel loops take plain arrays, never the
    handle (a structref inside numba's parallel region crashed when loaded from the cache)."""
    for j in prange(len(games)):
        g = games[j]
        step_one(S, T, V, g, actions[g] if by_game else actions[j], out_f[j], out_i[j], want_value, want_regret)


@njit(cache=True)
def reset_observe(
    h: Handle, games: np.ndarray, states: np.ndarray, pool: np.ndarray, teams: np.ndarray, given: bool,
    status: np.ndarray,
) -> None:  # fmt: skip
    """Start a game in each of ``games`` (:func:`~env.kernels.game.reset_one`, ``games[j]``'s stream at
    ``states[j]``; its episode not over), the statuses into ``status``, then their observations into the
    handle's buffers (a game a Python seat must decide first is observed again by the caller)."""
    _restart(h, games, states, pool, teams, given, status)
    observe_games(h, games)


@njit(cache=True)
def observe_games(h: Handle, games: np.ndarray) -> None:
    """The observations of ``games`` (row ``j`` is ``games[j]``) into the handle's buffers."""
    k = len(games)
    done = np.empty(k, dtype=np.bool_)
    for j in range(k):
        done[j] = h.over[games[j]]
    flags = h.flags
    observe(h.S, h.V, games, done, flags[H_HORIZON], flags[H_SEQUENTIAL] == 1, h.one_hot, h.obs)


@njit(cache=True)
def _restart(
    h: Handle, games: np.ndarray, states: np.ndarray, pool: np.ndarray, teams: np.ndarray, given: bool,
    status: np.ndarray,
) -> None:  # fmt: skip
    """Start a game in each of ``games`` (:func:`~env.kernels.game.reset_one`, ``games[j]``'s stream at
    ``states[j]``, a given board's or a sampled one; its episode not over), the statuses into ``status``."""
    S, T, V = h.S, h.T, h.V
    rng = S[11]
    for j in range(len(games)):
        rng[games[j]] = states[j]
        status[j] = reset_one(S, T, V, games[j], pool, teams, given)
        h.over[games[j]] = False


@inner
def _vector_game(
    S: tuple, T: tuple, V: tuple, obs: tuple, g: int, row: np.ndarray, actions: np.ndarray, states: np.ndarray,  # type: ignore[type-arg]
    pool: np.ndarray, teams: np.ndarray, status: np.ndarray, out_f: np.ndarray, out_i: np.ndarray, over: np.ndarray,
    key: np.ndarray, want_value: bool, want_regret: bool, horizon: int, sequential: bool, one_hot: np.ndarray,
) -> None:  # fmt: skip
    """Game ``g``'s part of a vector step: a new game if ``row[1, g] >= 0`` (its stream at ``states[row[1, g]]``,
    its status into ``status[row[1, g]]``), else the agent's step if ``row[0, g] >= 0`` (its action row ``g``,
    its outputs row ``row[0, g]``, then its completed decision's episode state, :func:`_complete`);
    then its observation into row ``g`` of ``obs``.  It reads and writes game ``g``'s arrays only."""
    j = row[1, g]
    if j >= 0:
        S[11][g] = states[j]
        status[j] = reset_one(S, T, V, g, pool, teams, False)
        over[g] = False
    elif row[0, g] >= 0:
        j = row[0, g]
        step_one(S, T, V, g, actions[g], out_f[j], out_i[j], want_value, want_regret)
        _complete(out_i[j], g, over, key)
    observe_row(S, V, g, g, over[g], horizon, sequential, one_hot, obs)


@njit(cache=True)
def _rows(n: int, moving: np.ndarray, restart: np.ndarray) -> np.ndarray:
    """Per game its row in the step's outputs (``[0, g]``, -1: not moving) and in the restarts (``[1, g]``)."""
    row = np.full((2, n), -1, dtype=np.int64)
    for j in range(len(moving)):
        row[0, moving[j]] = j
    for j in range(len(restart)):
        row[1, restart[j]] = j
    return row


@njit(cache=True)
def _handed(out_i: np.ndarray, k: int) -> int:
    """The moving games (rows ``0 .. k - 1`` of the outputs) handed to a Python seat."""
    handed = 0
    for j in range(k):
        if out_i[j, 2] == PYTHON:
            handed += 1
    return handed


@njit(cache=True, parallel=True)
def _vector_parallel(
    S: tuple, T: tuple, V: tuple, obs: tuple, row: np.ndarray, actions: np.ndarray, states: np.ndarray,  # type: ignore[type-arg]
    pool: np.ndarray, teams: np.ndarray, status: np.ndarray, out_f: np.ndarray, out_i: np.ndarray, over: np.ndarray,
    key: np.ndarray, want_value: bool, want_regret: bool, horizon: int, sequential: bool, one_hot: np.ndarray,
) -> None:  # fmt: skip
    """:func:`_vector_game` of every game over numba's threads (plain arrays, as :func:`_steps_parallel`)."""
    for g in prange(over.shape[0]):
        _vector_game(S, T, V, obs, g, row, actions, states, pool, teams, status, out_f, out_i, over, key, want_value,
                     want_regret, horizon, sequential, one_hot)  # fmt: skip


@njit(cache=True)
def vector_step(
    h: Handle, moving: np.ndarray, actions: np.ndarray, restart: np.ndarray, states: np.ndarray, pool: np.ndarray,
    teams: np.ndarray, status: np.ndarray,
) -> int:  # fmt: skip
    """A vector env's step in one call: the agent's step in each game of ``moving`` (row ``moving[j]`` of
    ``actions``, the outputs' row ``j``), a new game in each of ``restart`` (``restart[j]``'s stream at
    ``states[j]``, its status into ``status[j]``), then every game's observation into row ``g`` of the buffers
    (:func:`_vector_game`, game after game); :data:`BAD_ACTION` (nothing changed) if any row of ``actions`` is not a
    point of the action space, else the number of moving games handed to a Python seat."""
    if _bad(h, actions):
        return BAD_ACTION
    S, T, V, obs, out_f, out_i, over, key = h.S, h.T, h.V, h.obs, h.out_f, h.out_i, h.over, h.decision_key
    flags = h.flags
    want_value, want_regret, sequential = flags[H_VALUE] == 1, flags[H_REGRET] == 1, flags[H_SEQUENTIAL] == 1
    row = _rows(over.shape[0], moving, restart)
    for g in range(over.shape[0]):
        _vector_game(S, T, V, obs, g, row, actions, states, pool, teams, status, out_f, out_i, over, key, want_value,
                     want_regret, flags[H_HORIZON], sequential, h.one_hot)  # fmt: skip
    return _handed(h.out_i, len(moving))


@njit(cache=True)
def vector_step_parallel(
    h: Handle, moving: np.ndarray, actions: np.ndarray, restart: np.ndarray, states: np.ndarray, pool: np.ndarray,
    teams: np.ndarray, status: np.ndarray,
) -> int:  # fmt: skip
    """:func:`vector_step` with the games over numba's threads (each game's work and draws are its own, so the
    results are those of one thread), the observations in the same parallel loop."""
    if _bad(h, actions):
        return BAD_ACTION
    flags = h.flags
    row = _rows(h.over.shape[0], moving, restart)
    _vector_parallel(h.S, h.T, h.V, h.obs, row, actions, states, pool, teams, status, h.out_f, h.out_i, h.over,
                     h.decision_key, flags[H_VALUE] == 1, flags[H_REGRET] == 1, flags[H_HORIZON],
                     flags[H_SEQUENTIAL] == 1, h.one_hot)  # fmt: skip
    return _handed(h.out_i, len(moving))
