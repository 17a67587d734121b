"""Warm numba's on-disk cache of the env kernels: ``python -m env.kernels.warm`` (run by the Makefile's install step).

The v1 envs' compiled game (:mod:`env.kernels.game`, :mod:`env.kernels.gains`,
:mod:`env.kernels.rng`) takes one to three minutes to compile on its first use; loading it
from numba's cache takes about a second.  This plays a few steps of every variant through
every entry point the envs call (the step on one thread and over numba's threads, the envs' fused
step, reset and observation entries of :mod:`env.kernels.handle`, a reset on
a sampled and on a given board, the optimum, the value of a choice, a Python opponent's
resume, whole games), so the first ``gymnasium.make("proliferate/Duel-v1")`` after installing loads cached
code.  The compiled core it calls (:mod:`solver.kernels`) is warmed by
``python -m solver.kernels.warm``, which runs first.  The cache lives in ``__pycache__``
beside the sources when that is writable, else in numba's user-wide cache directory;
``NUMBA_CACHE_DIR`` overrides both.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

__all__ = ["main", "warm"]


def _noop(board: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A Python opponent choosing nothing (it reaches the slower path's kernels)."""
    return np.zeros((board.rounds, board.n_objects), dtype=bool), np.full((board.rounds, board.n_teams), -1)


def warm() -> float:
    """Step every variant's games through every compiled entry point; the seconds it took."""
    from ..config import AgentConfig, EnvConfig
    from ..lockstep_v1 import LockstepV1
    from ..scenarios import sample_scenario
    from . import game as K
    from .engine import Engine

    start = time.perf_counter()
    for variant in ("duel", "two_headed_giant", "free_for_all"):
        config = EnvConfig.build(variant)
        for threads, opponent in ((False, "rule"), (True, "oracle"), (False, _noop)):
            agent = AgentConfig.build(config, reward_mode="regret", opponent=opponent)
            engine = Engine(config, agent, 2, threads=threads)
            games = np.arange(2, dtype=np.int64)
            engine.reset([0, 1], [0, 1])
            for _ in range(4):
                engine.optimum(0)
                _, out_i = engine.step(games, np.zeros((2, agent.n_bits), dtype=np.int64))
                over = np.flatnonzero(out_i[:, 2] != K.AGENT).tolist()
                if over:
                    engine.reset(over, over)
            if opponent == "rule":
                engine.play([0, 1], "random")  # whole games (benchmarks.games), over numba's threads
        board = sample_scenario(config.variant, np.random.default_rng(0), max_permanents=config.start_permanents)
        engine = Engine(config, AgentConfig.build(config), 1, threads=False)
        engine.reset([0], [0], board.board)
        agent = AgentConfig.build(config)
        for threads in (False, True):  # the envs' entries (env.kernels.handle): step, reset and observations
            core = LockstepV1(config, agent, 2)
            core.engine.threads = threads
            core.reset([0, 1], [np.random.default_rng(0), np.random.default_rng(1)], None)
            core.step([0, 1], np.zeros((2, agent.n_bits), dtype=np.int64))
            core.mask(core.episode(0))
        e = core.engine  # the observations' kernel alone (the PettingZoo adapter calls it)
        K.observe(e.S, e.views, games, np.zeros(2, dtype=np.bool_), config.horizon, False, e.one_hot, e.obs)
    return time.perf_counter() - start


def main() -> int:
    import os

    seconds = warm()
    where = os.environ.get("NUMBA_CACHE_DIR") or "__pycache__ beside the sources (user-wide if read-only)"
    print(f"env kernels ready in {seconds:.1f} s (numba cache: {where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
