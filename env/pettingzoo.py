"""PettingZoo adapters (AEC and parallel): every seat of a duel, Two-Headed Giant or free-for-all game is an agent.

The Gymnasium env has one learning seat and scripts the others; multi-agent users (self-play,
team play, independent learners) want every seat decided from outside.  This adapter plays the
Gymnasium envs' own game, the v1 engine (:mod:`env.kernels`: one game's state in arrays, stepped
by the compiled kernels), with no agent seat (:data:`env.kernels.game.NO_AGENT`): every decision
comes back to Python (:func:`env.kernels.game.advance` returns ``PYTHON``), the acting seat's
bits are taken by the kernels' :func:`~env.kernels.game.take_action` over that seat's view
(:func:`~env.kernels.game.build_view_of`), and the completed decision is valued from the
decider's side (:func:`~env.kernels.game.choice_value`) and resolved, the game run on to the
next decision (:func:`~env.kernels.game.resume_one`).  Nothing about the game or its rules is
implemented here: this module only maps seats to agents and kernels' outputs to PettingZoo's
dicts.

:class:`ProliferateParallel` (``parallel_env``) is the same game through PettingZoo's parallel
API: every live agent sends an action each step, and only the acting agent's (the one whose
``action_mask`` is not all zeros) is taken; the others are ignored, as they are in the AEC env.

Only this module imports PettingZoo, and ``env/__init__.py`` does not import it, so
``import env`` works without the ``rl`` extra.  See the PettingZoo section of
``docs/environments.md``.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv

from solver.core import Policy, Variant

from .actions import check_actions
from .config import EnvConfig
from .events import EventParams
from .kernels import game as K
from .kernels.engine import TEAMS, view_arrays
from .kernels.rng import seeded_state, stream_seed
from .kernels.state import (
    G_OVER,
    G_PENDING,
    G_PROUND,
    G_PROUNDS,
    G_PSEAT,
    G_STEPS,
    S_IN,
    S_TEAM,
    GameArrays,
)
from .kernels.tables import I_VARIANT, build_tables
from .scenarios import ARCHETYPES
from .spaces import observation_space

__all__ = ["ProliferateAEC", "ProliferateParallel", "aec_env", "parallel_env"]

RewardMode = Literal["terminal", "delta"]
#: Rewards and ``game_result`` by :func:`env.kernels.game.result_of_seat`'s code (0: undecided).
_TERMINAL = (0.0, 1.0, -1.0, 0.0)
_RESULTS = (None, "win", "loss", "draw")
_VARIANTS = (Variant.DUEL, Variant.TWO_HEADED_GIANT, Variant.FREE_FOR_ALL)
#: The observation's keys in the order :func:`env.kernels.game.observe` writes them.
_OBSERVED = (
    "counters",
    "kind",
    "relation",
    "stats",
    "present",
    "eligible",
    "times",
    "picked",
    "action_mask",
    "globals",
)


class _Flat:
    """``gymnasium.spaces.flatten`` of the observation Dict, as float32 in one preallocated pass per call.

    The layout is gymnasium's (tested equal): the Dict's keys in its order, Box and MultiBinary values as they are,
    MultiDiscrete values one-hot over each element's ``nvec`` (from its ``start``); gymnasium's generic flatten
    costs about half of a step of this adapter.
    """

    def __init__(self, space: spaces.Dict) -> None:
        self.parts: list[tuple[str, int, int, npt.NDArray[np.int64] | None]] = []
        at = 0
        for key, part in space.spaces.items():
            if isinstance(part, spaces.MultiDiscrete):
                nvec = part.nvec.astype(np.int64).ravel()
                first = (
                    np.concatenate([[0], np.cumsum(nvec)[:-1]]).astype(np.int64) - part.start.astype(np.int64).ravel()
                )
                self.parts.append((key, at, int(nvec.sum()), first))
            elif isinstance(part, (spaces.Box, spaces.MultiBinary)):
                self.parts.append((key, at, int(np.prod(part.shape)), None))
            else:  # the observation space has no other kind
                raise TypeError(f"observation key {key!r}: cannot flatten {part}")
            at += self.parts[-1][2]
        self.size = at

    def __call__(self, raw: dict[str, npt.NDArray[Any]]) -> npt.NDArray[np.float32]:
        out = np.zeros(self.size, dtype=np.float32)
        for key, at, size, first in self.parts:
            value = raw[key].ravel()
            if first is None:
                out[at : at + size] = value
            else:
                out[at + first + value] = 1.0
        return out


class _Game:
    """One game in the v1 engine's arrays with no agent seat, and one view per seat (rebuilt when the state moved)."""

    def __init__(self, config: EnvConfig) -> None:
        self.arrays = arrays = GameArrays(1, config.variant, config.n_seats, config.slots)
        tables = build_tables(
            config, arrays.catalogue, opponent=K.POLICY_PYTHON, bandit=False, sequential=False, penalty=0.0
        )
        arrays._widen()
        self.S: tuple[np.ndarray, ...] = tuple(getattr(arrays, name) for name in K.STATE_ORDER)
        self.T = tables.as_tuple()
        self.pool = np.array([ARCHETYPES.index(a) for a in (config.archetypes or ARCHETYPES)], dtype=np.int64)
        self.teams = np.array(TEAMS[config.variant.value], dtype=np.int64)
        self.one_hot = np.zeros(3, dtype=np.float32)
        self.one_hot[int(tables.ints[I_VARIANT])] = 1.0
        self.views = [view_arrays(1, config.slots) for _ in range(config.n_seats)]
        self.version = 0
        self._built = [-1] * config.n_seats
        self.game = arrays.game[0]
        self.seat = arrays.seat[0]

    def start(self, state: np.uint64, first: int) -> None:
        """A new game on the stream ``state``, seat ``first`` opening (:func:`env.kernels.game.reset_seats`)."""
        self.arrays.rng[0] = state
        status = K.reset_seats(self.S, self.T, 0, self.pool, self.teams, first)
        self.moved()
        if status != K.PYTHON:  # cannot happen: the opening always proliferates
            raise RuntimeError("the game ended before its first decision")

    def moved(self) -> None:
        """The state changed: every seat's view is stale."""
        self.version += 1

    def view(self, seat: int) -> tuple[np.ndarray, ...]:
        """The game laid out from ``seat``'s side, built once per state."""
        if self._built[seat] != self.version:
            K.build_view_of(self.S, self.T, 0, self.views[seat], seat)
            self._built[seat] = self.version
        return self.views[seat]

    @property
    def deciding(self) -> int:
        """The seat with a decision pending, or -1."""
        return int(self.game[G_PSEAT]) if self.game[G_PENDING] and not self.game[G_OVER] else -1

    @property
    def over(self) -> bool:
        return bool(self.game[G_OVER])

    def result(self, seat: int) -> int:
        return int(K.result_of_seat(self.seat, self.game, seat))


class ProliferateAEC(AECEnv):  # type: ignore[misc]
    """One agent per seat (``player_i`` = seat ``pi``; two in a duel, else four), each deciding its own proliferates.

    Observation: ``{"observation": Box(float32), "action_mask": int8}``.  ``observation`` is the
    Gymnasium env's observation (:func:`env.spaces.observation_space`) flattened by
    ``gymnasium.spaces.flatten`` and laid out from the observing agent's seat, so slot 0 is
    always the observer and one policy can play any seat.  The mask is the acting agent's
    eligibility bits (plus the 2HG recipient bits) and all zeros for everyone else.

    Action: ``MultiBinary(slots)``, ``MultiBinary(slots + 2)`` in 2HG, exactly as the
    Gymnasium env's subset mode (recipient bits: see the module docs).  Ineligible bits are
    ignored and counted in ``infos[agent]["illegal_bits"]``; a decision with several
    proliferates takes one step per proliferate, the same agent acting each time.

    Rewards: ``"terminal"`` pays +1/-1/0 when an agent's result is decided; ``"delta"`` pays the
    solver objective's value of each completed decision (points, from the decider's side) to the
    decider and its teammates.  In 2HG both kinds are team rewards: teammates always get equal
    rewards, because a team wins or loses together (810.8a) and a decision's value is the team's.

    ## Arguments
    - ``variant``: ``"duel"``, ``"two_headed_giant"`` or ``"free_for_all"``; ``slots``: default 48.
    - ``reward_mode``: ``"terminal"`` or ``"delta"``.
    - the game's keywords shared with the Gymnasium env (``events``, ``archetypes``,
      ``policy``, ``c_max``, ``p_activate``, ``p_spell``, ``p_fizzle``, ``max_turns``,
      ``horizon``), checked by :class:`env.config.EnvConfig`.

    An action outside the action space raises ``ValueError`` before any state changes.

    ## Version History
    - v1 (``proliferate_aec_v1``): the game is the v1 engine's (the Gymnasium ``-v1`` envs' compiled game, with
      every seat's decision handed to Python), not v0's Python game model: the same spaces, masks, rewards and
      ends, but a seed plays another trajectory.
    - v0 (``proliferate_aec_v0``): the first version, on v0's Python game model (``env.game.Game``); duels since
      issue 24.
    """

    metadata: dict[str, Any] = {"render_modes": [], "name": "proliferate_aec_v1", "is_parallelizable": False}  # noqa: RUF012

    def __init__(
        self,
        variant: str = "two_headed_giant",
        *,
        slots: int = 48,
        reward_mode: RewardMode = "terminal",
        events: EventParams | dict[str, float] | None = None,
        archetypes: tuple[str, ...] | None = None,
        policy: Policy | dict[str, Any] | None = None,
        c_max: int = 255,
        p_activate: float = 0.5,
        p_spell: float = 0.35,
        p_fizzle: float = 0.15,
        max_turns: int = 200,
        horizon: int = 64,
    ) -> None:
        super().__init__()
        if variant not in tuple(v.value for v in _VARIANTS):
            raise ValueError(f"variant must be 'duel', 'two_headed_giant' or 'free_for_all', not {variant!r}")
        if reward_mode not in ("terminal", "delta"):
            raise ValueError(f"reward_mode must be 'terminal' or 'delta', not {reward_mode!r}")
        self.settings = config = EnvConfig.build(
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
        self.variant = config.variant
        self.n_seats = config.n_seats
        self.slots = config.slots
        self.reward_mode: RewardMode = reward_mode
        self.policy = config.policy
        self.c_max = config.c_max
        self.horizon = config.horizon
        self.n_bits = self.slots + (2 if self.variant is Variant.TWO_HEADED_GIANT else 0)
        self._dict_space = observation_space(self.slots, self.n_bits, self.c_max)
        flat = spaces.flatten_space(self._dict_space)
        assert isinstance(flat, spaces.Box)  # a Dict of Box / MultiBinary / MultiDiscrete flattens to a Box
        self._flat = _Flat(self._dict_space)
        assert self._flat.size == flat.shape[0]
        parts = self._dict_space.spaces
        #: Each observation key, its shape for one game and its dtype, in the order the kernel writes them.
        self._layout = tuple((key, (1, *(parts[key].shape or ())), parts[key].dtype) for key in _OBSERVED)
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    flat.low.astype(np.float32), flat.high.astype(np.float32), flat.shape, np.float32
                ),
                "action_mask": spaces.Box(0, 1, (self.n_bits,), np.int8),
            }
        )
        self.possible_agents = [f"player_{i}" for i in range(self.n_seats)]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._action_spaces = {a: spaces.MultiBinary(self.n_bits) for a in self.possible_agents}
        self._obs_spaces = {a: self._obs_space for a in self.possible_agents}
        self._game = _Game(config)
        self._started = False
        self.np_random, _ = seeding.np_random(None)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options and "board" in options:  # not played silently as a sampled game
            raise ValueError("options['board']: the PettingZoo adapter samples its games; it takes no given board")
        if seed is not None or not self._started:
            self.np_random, _ = seeding.np_random(seed)
        rng = self.np_random
        # The game's stream is seeded by one draw from the env's generator (as the Gymnasium v1 envs seed theirs),
        # and the opening seat is drawn from it too: every seat opens as often.
        state = seeded_state(stream_seed(rng))
        first = int(rng.integers(self.n_seats))
        self._game.start(state, first)
        self._started = True
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def observe(self, agent: str) -> dict[str, Any]:
        if not self._started:
            raise RuntimeError("call reset() before observe()")
        game, seat = self._game, self._seat_of[agent]
        if not game.seat[seat, S_IN]:
            # A free-for-all player who has left the game (800.4a): nothing of theirs to show.
            empty = np.zeros(self._flat.size, np.float32)
            return {"observation": empty, "action_mask": np.zeros(self.n_bits, dtype=np.int8)}
        acting = game.deciding == seat and agent == self.agent_selection
        raw = self._raw_observation(seat, acting)
        flat = self._flat(raw)
        return {"observation": flat, "action_mask": raw["action_mask"].copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self._finished(agent):
            self._was_dead_step(action)
            return
        game = self._game
        bits = check_actions(action, "subset", self.n_bits, None)[0]
        seat = self._seat_of[agent]
        if game.deciding != seat:
            raise RuntimeError("no decision is pending: call reset()")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        game.game[G_STEPS] += 1
        illegal = int(K.take_action(game.S, game.T, 0, game.view(seat), bits, False))
        game.moved()
        done_rounds = int(game.game[G_PROUND])
        for a in self.agents:
            self.infos[a] = {}
        self.infos[agent] = {"illegal_bits": illegal, "round": done_rounds}
        if done_rounds >= game.game[G_PROUNDS]:
            self._resolve(seat)
        self._accumulate_rewards()
        self._select()

    def close(self) -> None:
        self._started = False

    # ------------------------------------------------------------------ internals
    def _raw_observation(self, seat: int, acting: bool) -> dict[str, npt.NDArray[Any]]:
        """The Gymnasium observation dict of ``seat``'s view (:func:`env.kernels.game.observe`); the decision's
        round, rounds and mask only for the acting seat (everyone else sees no decision)."""
        game = self._game
        view = game.view(seat)
        out = {key: np.zeros(shape, dtype=dtype) for key, shape, dtype in self._layout}
        K.observe(
            game.S, view, np.zeros(1, dtype=np.int64), np.array([not acting]), self.horizon, False, game.one_hot,
            tuple(out.values()),
        )  # fmt: skip
        return {key: value[0] for key, value in out.items()}

    def _finished(self, agent: str) -> bool:
        return bool(self.terminations.get(agent) or self.truncations.get(agent))

    def _resolve(self, seat: int) -> None:
        """The completed decision: its value to the decider's side, its resolution and the game run on to the next
        decision (in the kernels), then every live agent whose result is decided terminates."""
        game = self._game
        S, T = game.S, game.T
        if self.reward_mode == "delta":
            K.implicit_recipients(S, T, 0)
            value = int(K.choice_value(S, T, 0)) / 1000.0
            team = game.seat[seat, S_TEAM]
            for q, agent in enumerate(self.possible_agents):
                if game.seat[q, S_IN] and game.seat[q, S_TEAM] == team and agent in self.rewards:
                    self.rewards[agent] += value
        status = int(K.resume_one(S, T, game.view(seat), 0))
        game.moved()
        if status == K.OVER and not game.over:
            raise RuntimeError("the compiled game stopped with an error (an opportunity queue overflowed)")
        for q, agent in enumerate(self.possible_agents):
            if agent not in self.agents or self._finished(agent):
                continue
            result = game.result(q)
            if result:
                self.terminations[agent] = True
                self.infos[agent]["game_result"] = _RESULTS[result]
                if self.reward_mode == "terminal":
                    self.rewards[agent] += _TERMINAL[result]
            elif game.over:  # passed max_turns with this seat's result undecided
                self.truncations[agent] = True

    def _select(self) -> None:
        """The acting seat's agent is next; agents that just finished are stepped with None first."""
        deciding = self._game.deciding
        if deciding >= 0:
            self.agent_selection = self.possible_agents[deciding]
        elif self.agents:
            self.agent_selection = self.agents[0]
        self._deads_step_first()


def aec_env(variant: str = "two_headed_giant", **kwargs: Any) -> ProliferateAEC:
    """The AEC env for ``variant`` (``"duel"``, ``"two_headed_giant"`` or ``"free_for_all"``); kwargs go to it."""
    return ProliferateAEC(variant, **kwargs)


class ProliferateParallel(ParallelEnv):  # type: ignore[misc]
    """The AEC game through PettingZoo's parallel API: one step is one decision step of the acting agent.

    ``step(actions)`` takes ``actions[acting agent]`` (the agent whose ``action_mask`` has bits
    set; a missing entry is the empty choice) and ignores every other agent's action.  It
    returns observations, rewards, terminations, truncations and infos for every agent live
    at the start of the step; agents that finish leave ``agents`` afterwards.  The acting
    agent is ``acting_agent`` and ``infos[agent]["acting"]`` says so to learners.

    ## Version History
    - v1 (``proliferate_parallel_v1``): the AEC env's v1 game (see :class:`ProliferateAEC`).
    - v0 (``proliferate_parallel_v0``): the first version (issue 24), on v0's Python game model.
    """

    metadata: dict[str, Any] = {"render_modes": [], "name": "proliferate_parallel_v1"}  # noqa: RUF012

    def __init__(self, variant: str = "two_headed_giant", **kwargs: Any) -> None:
        self.aec = ProliferateAEC(variant, **kwargs)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.render_mode = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.action_space(agent)

    @property
    def acting_agent(self) -> str:
        """The agent whose action the next step takes."""
        return str(self.aec.agent_selection)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return self._observations(), {a: {"acting": a == self.acting_agent} for a in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        aec = self.aec
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        live = list(self.agents)
        acting = self.acting_agent
        action = actions.get(acting)
        aec.step(np.zeros(aec.n_bits, dtype=np.int8) if action is None else action)
        rewards = {a: float(aec.rewards.get(a, 0.0)) for a in live}
        terminations = {a: bool(aec.terminations.get(a, False)) for a in live}
        truncations = {a: bool(aec.truncations.get(a, False)) for a in live}
        infos = {a: dict(aec.infos.get(a, {})) for a in live}
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # a finished agent leaves (the AEC env's dead step)
        self.agents = list(aec.agents)
        observations = {a: aec.observe(a) for a in live}
        for a in live:
            infos[a]["acting"] = bool(self.agents) and a == self.acting_agent
        return observations, rewards, terminations, truncations, infos

    def observe(self, agent: str) -> dict[str, Any]:
        return self.aec.observe(agent)

    def close(self) -> None:
        self.aec.close()

    def _observations(self) -> dict[str, Any]:
        return {a: self.aec.observe(a) for a in self.agents}


def parallel_env(variant: str = "two_headed_giant", **kwargs: Any) -> ProliferateParallel:
    """The parallel env for ``variant`` (``"duel"``, ``"two_headed_giant"`` or ``"free_for_all"``)."""
    return ProliferateParallel(variant, **kwargs)
