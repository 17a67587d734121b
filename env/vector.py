"""The native vector env: ``gymnasium.make_vec(id, num_envs=N)`` steps N games kept as arrays.

It is the same :class:`~env.lockstep_v1.LockstepV1` as the single env, over N games, so sub-env
``i`` reset with ``seed + i`` plays exactly the game a single env reset with ``seed + i``
plays, given the same actions (as Gymnasium's built-in vector envs seed their sub-envs).
The registered ``TimeLimit`` is applied here too (``max_episode_steps``, passed by
``make_vec``), so trajectories match ``gymnasium.make(id)``'s.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.spaces import Space
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from solver.core import Board, BoolArray, IntArray, Policy

from .actions import check_actions
from .config import ActionMode, AgentConfig, EnvConfig, Opponent, RewardMode, whole_number
from .core import action_space
from .events import EventParams
from .infos import batch_infos
from .lockstep_v1 import Info, LockstepV1, Obs, PendingV1
from .spaces import maskable, observation_space

__all__ = ["ProliferateVectorEnv", "batch_infos"]

Step = tuple[Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], list[Info]]


class PerGameInfosVectorEnv(VectorEnv[dict[str, Any], Any, Any], ABC):
    """A vector env built on :meth:`reset_each` / :meth:`step_each`, which give one info dict per sub-env.

    :meth:`reset` and :meth:`step` batch those infos as Gymnasium does (:func:`batch_infos`);
    SB3's adapter reads the per-game form directly.
    """

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        obs, infos = self.reset_each(seed=seed, options=options)
        return obs, batch_infos(infos)

    def step(self, actions: Any) -> tuple[Obs, npt.NDArray[np.float64], BoolArray, BoolArray, dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = self.step_each(actions)
        return obs, rewards, terminated, truncated, batch_infos(infos)

    def _seed_own(self, seed: int | Sequence[int | None] | None) -> None:
        """Seed the vector env's own ``np_random`` (for users; the sub-envs have their own generators)."""
        VectorEnv.reset(self, seed=seed if isinstance(seed, int) else None)

    @abstractmethod
    def reset_each(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, list[Info]]:
        """:meth:`reset` with one info dict per sub-env."""

    @abstractmethod
    def step_each(self, actions: Any) -> Step:
        """:meth:`step` with one info dict per sub-env."""


class ProliferateVectorEnv(PerGameInfosVectorEnv):
    """``num_envs`` games of :class:`~env.core.ProliferateEnv` kept as arrays and stepped by one compiled call.

    ## Description
    Each sub-env is a :class:`~env.core.ProliferateEnv` game (same spaces, rewards, episodes
    and keywords); all N are in the same fixed-slot arrays and one compiled call advances
    them all (the agents' choices, the state-based actions, the rewards, the other seats'
    turns up to each game's next agent decision, the observations and masks).  From 64
    games the step runs over numba's threads, with the same results as one thread.  See
    ``docs/environments.md``.

    ## Arguments
    - ``num_envs``: the number of games.
    - ``autoreset_mode``: ``AutoresetMode.NEXT_STEP`` (default, like Gymnasium's built-in
      vector envs: the step after an episode ends resets that sub-env, ignores its action and
      returns reward 0) or ``AutoresetMode.SAME_STEP`` (the ending step resets at once and puts
      the last observation and info in ``info["final_obs"]`` / ``info["final_info"]``).
    - ``max_episode_steps``: agent steps before truncation, as ``TimeLimit`` does for a single
      env (``make_vec`` passes the registered value; None for no limit).
    - every keyword of :class:`~env.core.ProliferateEnv` but ``render_mode``.

    ``reset(seed=s)`` seeds sub-env ``i`` with ``s + i``; a list of seeds gives one per sub-env;
    each game has its own random stream, so a game plays the same whatever N, the threads or
    its neighbours' autoresets.  ``info["action_mask"]`` (with its ``_action_mask`` companion)
    is the batched mask, and :meth:`action_masks` gives sb3-contrib's layout;
    :class:`env.sb3.SB3VecEnv` adapts this env to Stable-Baselines3.

    ## Version History
    - v1: the games in arrays, one compiled step for all of them, a random stream per
      game; trajectories for a seed differ from v0's (the game is the same: see
      :class:`~env.core.ProliferateEnv`).  From 8 sub-envs the infos are batched by key
      straight from the arrays (equal to batching the per-game dicts).
    - v0: retired (unregistered): N Python game models stepped in lockstep, their solver
      calls batched.  Its last commit is ``a0ec434``.
    """

    #: From this many sub-envs the infos are batched by key (:meth:`~env.lockstep_v1.LockstepV1.step_reset`); fewer cost
    #: less as per-game dicts (one thread's CPU time: 1 sub-env ~100 us a step by dicts, ~120-150 by key; 8 sub-envs
    #: 49-57 us a game step by dicts, 41-49 by key).
    columns_from = 8

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        variant: str = "duel",
        *,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        max_episode_steps: int | None = None,
        slots: int | None = None,
        action_mode: ActionMode = "subset",
        reward_mode: RewardMode = "delta",
        bandit: bool = False,
        opponent: Opponent = "rule",
        events: EventParams | Mapping[str, float] | None = None,
        archetypes: Sequence[str] | None = None,
        policy: Policy | Mapping[str, Any] | None = None,
        illegal_penalty: float = 0.0,
        oracle_in_info: bool = False,
        horizon: int = 64,
        c_max: int = 255,
        p_activate: float = 0.5,
        p_spell: float = 0.35,
        p_fizzle: float = 0.15,
        max_turns: int = 200,
    ) -> None:
        num_envs = whole_number("num_envs", num_envs, 1)
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, not {mode.value!r}")
        self.num_envs = num_envs
        self.settings = EnvConfig.build(
            variant,
            slots=slots,
            events=events,
            archetypes=archetypes,
            policy=policy,
            c_max=c_max,
            horizon=horizon,
            p_activate=p_activate,
            p_spell=p_spell,
            p_fizzle=p_fizzle,
            max_turns=max_turns,
        )
        self.agent = AgentConfig.build(
            self.settings,
            action_mode=action_mode,
            reward_mode=reward_mode,
            bandit=bandit,
            opponent=opponent,
            illegal_penalty=illegal_penalty,
            oracle_in_info=oracle_in_info,
        )
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.max_episode_steps = max_episode_steps
        self.single_observation_space = observation_space(self.settings.slots, self.agent.n_bits, c_max)
        self.single_action_space: Space[Any] = action_space(self.agent)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._core = LockstepV1(self.settings, self.agent, self.num_envs)
        self._rngs: list[np.random.Generator] | None = None
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)
        self._needs_reset = np.zeros(self.num_envs, dtype=np.bool_)
        self._all = list(range(self.num_envs))

    # ------------------------------------------------------------------ gymnasium VectorEnv API
    def reset_each(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, list[Info]]:
        """:meth:`reset` with one info dict per sub-env (as a single env gives it) instead of batched infos."""
        self._seed_own(seed)
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed must be an int or {self.num_envs} seeds, not {len(seeds)}")
        if self._rngs is None:
            self._rngs = [seeding.np_random(s)[0] for s in seeds]
        else:
            old = self._rngs
            self._rngs = [seeding.np_random(s)[0] if s is not None else rng for s, rng in zip(seeds, old, strict=True)]
        obs, infos = self._core.reset(self._all, self._rngs, options)
        self._elapsed[:] = 0
        self._needs_reset[:] = False
        return obs, infos

    def step(self, actions: Any) -> tuple[Obs, npt.NDArray[np.float64], BoolArray, BoolArray, dict[str, Any]]:
        """:meth:`step_each`'s step with the infos batched straight from the games' arrays
        (:meth:`LockstepV1.step_reset`), as :func:`batch_infos` would batch the per-game dicts (same-step autoreset:
        through those dicts)."""
        if self.metadata["autoreset_mode"] is not AutoresetMode.NEXT_STEP or self.num_envs < self.columns_from:
            return super().step(actions)  # through the per-game dicts
        if self._rngs is None:
            raise RuntimeError("call reset() before step()")
        n = self.num_envs
        checked = self._fast_actions(actions)
        restart = np.flatnonzero(self._needs_reset)
        moving = np.flatnonzero(~self._needs_reset)
        stepped = self._core.step_reset(moving, checked, restart, [self._rngs[i] for i in restart.tolist()])
        if stepped is None:  # not a point of the action space: nothing changed, check_actions says why
            check_actions(actions, self.agent.action_mode, self.agent.n_bits, n)
            raise ValueError(f"the actions are not a point of the action space {self.action_space}")
        obs, rewards, terminated, truncated, infos = stepped
        self._elapsed[moving] += 1
        self._elapsed[restart] = 0
        if self.max_episode_steps is not None:
            truncated[moving] |= self._elapsed[moving] >= self.max_episode_steps
        self._needs_reset = terminated | truncated
        return obs, rewards, terminated, truncated, infos

    def _fast_actions(self, actions: Any) -> npt.NDArray[np.int64]:
        """The actions as the compiled step takes them, a row per sub-env: an integer array of the batch's shape is
        cast to int64 and its values checked by the compiled step before anything changes; anything else goes
        through :func:`env.actions.check_actions`."""
        n, mode = self.num_envs, self.agent.action_mode
        if type(actions) is np.ndarray:
            if mode == "subset" and actions.shape == (n, self.agent.n_bits) and actions.dtype.kind in "biu":
                return actions.astype(np.int64)
            if mode == "sequential" and actions.shape == (n,) and actions.dtype.kind in "iu":
                return actions.astype(np.int64).reshape(n, 1)
        return check_actions(actions, mode, self.agent.n_bits, n).reshape(n, -1)

    def step_each(self, actions: Any) -> Step:
        """:meth:`step` with one info dict per sub-env (as a single env gives it) instead of batched infos."""
        if self._rngs is None:
            raise RuntimeError("call reset() before step()")
        checked = check_actions(actions, self.agent.action_mode, self.agent.n_bits, self.num_envs)
        n = self.num_envs
        restart = np.flatnonzero(self._needs_reset).tolist()
        moving = np.flatnonzero(~self._needs_reset).tolist()
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        infos: list[Info] = [{} for _ in range(n)]
        parts: list[tuple[list[int], Obs]] = []
        if moving:
            obs_m, rew_m, term_m, trunc_m, info_m = self._core.step(moving, checked[moving])
            self._elapsed[moving] += 1
            rewards[moving], terminated[moving], truncated[moving] = rew_m, term_m, trunc_m
            if self.max_episode_steps is not None:
                truncated[moving] |= self._elapsed[moving] >= self.max_episode_steps
            for i, info in zip(moving, info_m, strict=True):
                infos[i] = info
            parts.append((moving, obs_m))
        if restart:
            parts.append((restart, self._restart(restart, infos)))
        obs = _merge(parts, n)
        ended = terminated | truncated
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP and ended.any():
            done = np.flatnonzero(ended).tolist()
            final = {i: ({key: value[i].copy() for key, value in obs.items()}, infos[i]) for i in done}
            fresh = self._restart(done, infos)
            for key, value in fresh.items():
                obs[key][done] = value
            for i in done:
                infos[i] = {**infos[i], "final_obs": final[i][0], "final_info": final[i][1]}
            self._needs_reset[:] = False
        else:
            self._needs_reset = ended
        return obs, rewards, terminated, truncated, infos

    def _restart(self, indices: list[int], infos: list[Info]) -> Obs:
        assert self._rngs is not None
        obs, fresh = self._core.reset(indices, [self._rngs[i] for i in indices], None)
        self._elapsed[indices] = 0
        for i, info in zip(indices, fresh, strict=True):
            infos[i] = info
        return obs

    # ------------------------------------------------------------------ masks and the oracle
    def current_masks(self) -> npt.NDArray[np.int8]:
        """Every sub-env's action mask (int8, 1 = allowed), as in ``obs["action_mask"]`` (one compiled call)."""
        core = self._core
        for i in self._all:
            core.episode(i)  # RuntimeError before any reset
        return core._masks(np.arange(self.num_envs, dtype=np.int64))

    def action_masks(self) -> BoolArray:
        """Every sub-env's mask in sb3-contrib's layout: ``(num_envs, 2 * n_bits)`` or ``(num_envs, n_bits)``."""
        masks = self.current_masks()
        return np.stack([maskable(m, self.agent.action_mode) for m in masks])

    def oracle_actions(self) -> npt.NDArray[np.int64]:
        """The optimal action of every sub-env now (each decision's optimum is solved once)."""
        return self.policy_actions(lambda board, decision: (decision.optimum.chosen, decision.optimum.recipients))

    def policy_actions(self, decide: Callable[[Board, PendingV1], tuple[BoolArray, IntArray]]) -> npt.NDArray[np.int64]:
        """Every sub-env's action for the whole-decision choice ``decide(board, decision)`` returns.

        ``decide`` returns solver matrices (rounds x objects, rounds x teams).  Sub-envs whose
        episode is over (their next step resets them) get "choose nothing" / DONE.
        """
        core = self._core
        out = []
        for i in self._all:
            ep = core.episode(i)
            decision = ep.game.pending
            if decision is None:
                nothing = np.zeros(self.agent.n_bits, dtype=np.int64)
                out.append(nothing if self.agent.action_mode == "subset" else self.settings.slots)
            else:
                out.append(core.action_for(ep, *decide(decision.board, decision)))
        return np.asarray(np.stack(out) if self.agent.action_mode == "subset" else np.array(out), dtype=np.int64)

    def close_extras(self, **kwargs: Any) -> None:
        self._core.episodes = [None] * self.num_envs


def _merge(parts: list[tuple[list[int], Obs]], n: int) -> Obs:
    """Observations of disjoint groups of sub-envs put back in sub-env order."""
    if len(parts) == 1 and len(parts[0][0]) == n:
        return parts[0][1]
    first = parts[0][1]
    out: Obs = {key: np.zeros((n, *value.shape[1:]), dtype=value.dtype) for key, value in first.items()}
    for indices, obs in parts:
        for key, value in obs.items():
            out[key][indices] = value
    return out
