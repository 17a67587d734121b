"""The native vector env over several processes: each steps a share of the games, in parallel.

One process runs its Python on one core at a time (its compiled step uses numba's threads from 64
games), so the games can also be split into ``shards`` contiguous shares, each a
:class:`~env.vector.ProliferateVectorEnv` in a worker process, stepped at the same time (the way
EnvPool and PufferLib use cores; Gymnasium's ``AsyncVectorEnv`` does it one env per process).
Sub-env ``i`` is still seeded ``seed + i``
and plays exactly the game it plays unsharded, given the same actions: the shards only change
where the games run.  ``gymnasium.make_vec(id, num_envs=N, shards=2)`` makes one.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import signal
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.spaces import Space
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from solver.core import Board, BoolArray, IntArray

from .actions import check_actions
from .config import AgentConfig, EnvConfig, whole_number
from .lockstep_v1 import Info, Obs, PendingV1
from .vector import PerGameInfosVectorEnv, ProliferateVectorEnv, Step

__all__ = ["ShardedVectorEnv", "make_vector_env"]


def make_vector_env(num_envs: int, *, shards: int = 1, **kwargs: Any) -> ProliferateVectorEnv | ShardedVectorEnv:
    """The registered ``vector_entry_point``: one process (``shards=1``, the default) or :class:`ShardedVectorEnv`."""
    if whole_number("shards", shards, 1) == 1:
        return ProliferateVectorEnv(num_envs, **kwargs)
    return ShardedVectorEnv(num_envs, shards, **kwargs)


class ShardedVectorEnv(PerGameInfosVectorEnv):
    """:class:`~env.vector.ProliferateVectorEnv`'s games, split over ``shards`` worker processes.

    ## Description
    The same spaces, rewards, episodes, autoreset modes and infos as the one-process env of
    ``num_envs`` games (the infos are batched here from the shards' per-game infos, in
    sub-env order); every step sends each shard its slice of the actions and waits for all.
    Worth it when a step's games take much longer than sending the observations and infos
    between processes (1-2 ms a step for 128 Duel games, about 260 kB pickled), which the
    compiled step seldom does: ``benchmarks.env_throughput --shards K`` measures it.

    ## Arguments
    - ``num_envs``: the number of games, at least ``shards``; shard ``k`` plays a contiguous
      share of them (sizes differ by at most one).
    - ``shards``: worker processes (at least 2; :func:`make_vector_env` gives the one-process
      env for 1).
    - ``context``: the :mod:`multiprocessing` start method (default ``"spawn"``, safe with
      threads in the parent such as torch's; as with any method but ``"fork"``, a script
      that makes one must guard its entry point with ``if __name__ == "__main__":``).
    - every keyword of :class:`~env.vector.ProliferateVectorEnv`.

    :meth:`policy_actions` sends ``decide`` to the workers, so it must be picklable (a
    module-level function or a :func:`functools.partial` of one, not a lambda).  Errors raised
    in a worker (a bad action, say) are raised here, as the one-process env raises them.

    ## Version History
    - v1: each shard is a v1 :class:`~env.vector.ProliferateVectorEnv` (its games in arrays,
      one compiled step); the ``version`` switch between v0 and v1 shards went with v0.
      Sharding never changes a game, so trajectories are the one-process env's.
    - v0: retired (unregistered): shards of v0's vector env.  Its last commit is ``a0ec434``.
    """

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int, shards: int = 2, *, context: str | None = None, **kwargs: Any) -> None:
        shards = whole_number("shards", shards, 2)  # 1 is ProliferateVectorEnv
        num_envs = whole_number("num_envs", num_envs, 1)
        if num_envs < shards:
            raise ValueError(f"num_envs ({num_envs!r}) must be an integer of at least shards ({shards})")
        self.num_envs = num_envs
        sizes = [len(part) for part in np.array_split(np.arange(num_envs), shards)]
        self._offsets = np.cumsum([0, *sizes]).tolist()
        ctx: Any = multiprocessing.get_context(context or "spawn")  # typeshed's BaseContext lists no Process
        self._conns: list[Connection] = []
        self._processes: list[multiprocessing.process.BaseProcess] = []
        self.closed = False
        self._broken: str | None = None  # why the env can no longer step, once a worker is gone
        try:
            for size in sizes:
                parent, child = ctx.Pipe()
                process = ctx.Process(target=_serve, args=(child, size, kwargs), daemon=True, name="proliferate-shard")
                process.start()
                child.close()
                self._conns.append(parent)
                self._processes.append(process)
            ready = self._gather()
        except BaseException:
            self._stop()
            raise
        first = ready[0]
        self.single_observation_space: Space[Any] = first["observation_space"]
        self.single_action_space: Space[Any] = first["action_space"]
        self.metadata = {**self.metadata, "autoreset_mode": first["autoreset_mode"]}
        self.settings: EnvConfig = first["settings"]
        self.agent: AgentConfig = first["agent"]
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None

    @property
    def shards(self) -> int:
        return len(self._conns)

    # ------------------------------------------------------------------ gymnasium VectorEnv API
    def reset_each(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, list[Info]]:
        """:meth:`reset` with one info dict per sub-env, as :meth:`ProliferateVectorEnv.reset_each`."""
        self._seed_own(seed)
        if seed is None or isinstance(seed, int):
            shard_seeds: list[Any] = [None if seed is None else seed + lo for lo in self._offsets[:-1]]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed must be an int or {self.num_envs} seeds, not {len(seeds)}")
            shard_seeds = [seeds[lo:hi] for lo, hi in self._spans()]
        for k, shard_seed in enumerate(shard_seeds):
            self._send(k, "reset_each", seed=shard_seed, options=options)
        parts = self._gather()
        return _concat_obs([obs for obs, _ in parts]), [info for _, infos in parts for info in infos]

    def step_each(self, actions: Any) -> Step:
        """:meth:`step` with one info dict per sub-env, as :meth:`ProliferateVectorEnv.step_each`."""
        checked = check_actions(actions, self.agent.action_mode, self.agent.n_bits, self.num_envs)
        for k, (lo, hi) in enumerate(self._spans()):
            self._send(k, "step_each", checked[lo:hi])
        parts = self._gather()
        return (
            _concat_obs([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]),
            np.concatenate([p[3] for p in parts]),
            [info for p in parts for info in p[4]],
        )

    # ------------------------------------------------------------------ masks and other seats' actions
    def action_masks(self) -> BoolArray:
        """Every sub-env's mask in sb3-contrib's layout, as :meth:`ProliferateVectorEnv.action_masks`."""
        masks: BoolArray = self._concat("action_masks")
        return masks

    def current_masks(self) -> npt.NDArray[np.int8]:
        """Every sub-env's action mask (int8), as :meth:`ProliferateVectorEnv.current_masks`."""
        masks: npt.NDArray[np.int8] = self._concat("current_masks")
        return masks

    def oracle_actions(self) -> npt.NDArray[np.int64]:
        """The optimal action of every sub-env now, as :meth:`ProliferateVectorEnv.oracle_actions`."""
        actions: npt.NDArray[np.int64] = self._concat("oracle_actions")
        return actions

    def policy_actions(self, decide: Callable[[Board, PendingV1], tuple[BoolArray, IntArray]]) -> npt.NDArray[np.int64]:
        """:meth:`ProliferateVectorEnv.policy_actions`, each shard's in its worker (``decide`` must be picklable)."""
        actions: npt.NDArray[np.int64] = self._concat("policy_actions", decide)
        return actions

    def close_extras(self, **kwargs: Any) -> None:
        self._stop()

    # ------------------------------------------------------------------ the workers
    def _spans(self) -> list[tuple[int, int]]:
        return list(zip(self._offsets[:-1], self._offsets[1:], strict=True))

    def _concat(self, method: str, *args: Any) -> Any:
        for k in range(self.shards):
            self._send(k, method, *args)
        return np.concatenate(self._gather())

    def _send(self, k: int, method: str, *args: Any, **options: Any) -> None:
        """Ask shard ``k`` to call ``method``; a worker that is gone (killed, out of memory) is an error naming it."""
        if self._broken is not None:  # the other shards' replies no longer match: nothing more can be asked
            raise RuntimeError(self._broken)
        try:
            self._conns[k].send((method, args, options))
        except OSError as exc:
            raise self._stopped(k) from exc

    def _stopped(self, k: int) -> RuntimeError:
        process = self._processes[k]
        process.join(timeout=1)
        self._broken = f"shard {k} of the vector env has stopped (exit code {process.exitcode}); close the env"
        return RuntimeError(self._broken)

    def _gather(self) -> list[Any]:
        """Every shard's reply, in shard order; the first error any raised is raised here."""
        replies = []
        for k, conn in enumerate(self._conns):
            try:
                replies.append(conn.recv())
            except (EOFError, OSError) as exc:
                raise self._stopped(k) from exc
        for k, (status, value) in enumerate(replies):
            if status == "error":
                error, text = value
                remote = RuntimeError(f"in shard {k} of the vector env:\n{text}")
                if isinstance(error, BaseException):
                    raise error from remote
                raise remote
        return [value for _, value in replies]

    def _stop(self) -> None:
        for conn in self._conns:
            with contextlib.suppress(OSError, ValueError):  # the worker may be gone already
                conn.send(("close", (), {}))
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
        for conn in self._conns:
            conn.close()
        self._conns, self._processes = [], []


def _serve(conn: Connection, num_envs: int, kwargs: dict[str, Any]) -> None:
    """A worker: one ProliferateVectorEnv of ``num_envs`` games, its methods called from the parent until ``close``.

    Ctrl-C reaches every process of the terminal's group: the workers ignore it, and the
    parent, which gets it too, stops them (or they end with it, being daemons).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        venv = ProliferateVectorEnv(num_envs, **kwargs)
        ready = {
            "observation_space": venv.single_observation_space,
            "action_space": venv.single_action_space,
            "autoreset_mode": venv.metadata["autoreset_mode"],
            "settings": venv.settings,
            "agent": venv.agent,
        }
    except Exception as exc:
        conn.send(("error", (_picklable(exc), traceback.format_exc())))
        return
    conn.send(("ok", ready))
    while True:
        try:
            method, args, options = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):  # the parent is gone or interrupted
            break
        if method == "close":
            break
        try:
            conn.send(("ok", getattr(venv, method)(*args, **options)))
        except Exception as exc:
            conn.send(("error", (_picklable(exc), traceback.format_exc())))
    venv.close()
    conn.close()


def _picklable(exc: BaseException) -> BaseException | None:
    """The exception itself if it survives pickling (to be raised as is in the parent), else None."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return None
    return exc


def _concat_obs(parts: Sequence[Obs]) -> Obs:
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
