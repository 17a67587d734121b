"""PettingZoo adapters (AEC and parallel): every seat of a duel, Two-Headed Giant or free-for-all game is an agent.

The Gymnasium env has one learning seat and scripts the others; multi-agent users (self-play,
team play, independent learners) want every seat decided from outside.  This adapter runs the
same :class:`env.game.Game` with ``external`` set to every seat and lays boards out with the
same :class:`env.spaces.View`, so nothing about the game or its rules is re-implemented:
decisions go through :func:`env.agents.matrices` (the solver's legality checks and implicit
poison recipients) and :func:`env.game.resolve_all` (``solver.rules.counters_after``, then the
state-based actions of :func:`solver.batch.settle_many`).

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

from solver.core import MILLI, Board, Policy, Variant

from .actions import check_actions
from .config import EnvConfig
from .events import EventParams
from .game import Game, PendingDecision, advance_all, resolve_all
from .opportunities import opening
from .policies import matrices
from .scenarios import sample_scenario, start_life
from .spaces import View, observation_space

__all__ = ["ProliferateAEC", "ProliferateParallel", "aec_env", "parallel_env"]

RewardMode = Literal["terminal", "delta"]
_TERMINAL = {"win": 1.0, "loss": -1.0, "draw": 0.0}
_VARIANTS = (Variant.DUEL, Variant.TWO_HEADED_GIANT, Variant.FREE_FOR_ALL)


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
    - v0 (``proliferate_aec_v0``): the first version; duels since issue 24.
    """

    metadata: dict[str, Any] = {"render_modes": [], "name": "proliferate_aec_v0", "is_parallelizable": False}  # noqa: RUF012

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
        self.n_bits = slots + (2 if self.variant is Variant.TWO_HEADED_GIANT else 0)
        self._dict_space = observation_space(slots, self.n_bits, c_max)
        flat = spaces.flatten_space(self._dict_space)
        assert isinstance(flat, spaces.Box)  # a Dict of Box / MultiBinary / MultiDiscrete flattens to a Box
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    flat.low.astype(np.float32), flat.high.astype(np.float32), flat.shape, np.float32
                ),
                "action_mask": spaces.Box(0, 1, (self.n_bits,), np.int8),
            }
        )
        self.possible_agents = [f"player_{i}" for i in range(self.n_seats)]
        self._seat_of = {agent: f"p{i}" for i, agent in enumerate(self.possible_agents)}
        self._agent_of = {seat: agent for agent, seat in self._seat_of.items()}
        self._action_spaces = {a: spaces.MultiBinary(self.n_bits) for a in self.possible_agents}
        self._obs_spaces = {a: self._obs_space for a in self.possible_agents}
        self._start_life = start_life(self.variant)
        self._kind_map: dict[tuple[str, ...], npt.NDArray[np.float64]] = {}
        self._orders: dict[tuple[object, ...], tuple[str, ...]] = {}
        self._views: dict[str, View] = {}
        self._game: Game | None = None
        self._steps = 0
        self.np_random, _ = seeding.np_random(None)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._game is None:
            self.np_random, _ = seeding.np_random(seed)
        rng = self.np_random
        config = self.settings
        scenario = sample_scenario(
            config.variant, rng, max_permanents=config.start_permanents, archetypes=config.archetypes
        )
        seats = scenario.seats
        game = Game(
            scenario.board,
            seats,
            scenario.archetypes,
            rng,
            external=frozenset(seats),
            policies={},
            config=config.game,
            policy=config.policy,
        )
        self._game = game
        self._steps = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        first = seats[int(rng.integers(len(seats)))]
        game.start(first, opening(scenario.board, first, rng))
        advance_all([game])
        if game.pending is None:  # cannot happen: the opening always proliferates
            raise RuntimeError("the game ended before its first decision")
        self._select()

    def observe(self, agent: str) -> dict[str, Any]:
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before observe()")
        mask = np.zeros(self.n_bits, dtype=np.int8)
        seat = self._seat_of[agent]
        if seat not in self._board().index:
            # A free-for-all player who has left the game (800.4a): nothing of theirs to show.
            return {"observation": np.zeros(self._obs_space["observation"].shape, np.float32), "action_mask": mask}
        view = self._view(seat)
        times = np.zeros(self.slots, dtype=np.int8)
        rounds, round_index = 1, 0
        decision = game.pending
        if decision is not None and decision.seat == seat and agent == self.agent_selection:
            mask[: self.slots] = view.eligible
            mask[self.slots :] = view.recipient_open
            for rows in decision.rows:
                times[view.slot_of_row[rows]] += 1
            rounds, round_index = max(decision.rounds, 1), decision.round
        picked = np.zeros(self.slots, dtype=np.int8)
        raw = view.observation(mask, times, picked, round_index, rounds, self._steps / self.horizon)
        flat = np.asarray(spaces.flatten(self._dict_space, raw), dtype=np.float32)
        return {"observation": flat, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self._finished(agent):
            self._was_dead_step(action)
            return
        game, decision = self._game, self._pending()
        assert game is not None
        bits = check_actions(action, "subset", self.n_bits, None)[0]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._steps += 1
        illegal = self._take(decision, bits)
        for a in self.agents:
            self.infos[a] = {}
        self.infos[agent] = {"illegal_bits": illegal, "round": decision.round}
        if decision.round >= decision.rounds:
            self._resolve(game, decision)
        self._accumulate_rewards()
        self._select()

    def close(self) -> None:
        self._game = None

    # ------------------------------------------------------------------ internals
    def _pending(self) -> PendingDecision:
        decision = None if self._game is None else self._game.pending
        if decision is None:
            raise RuntimeError("no decision is pending: call reset()")
        return decision

    def _finished(self, agent: str) -> bool:
        return bool(self.terminations.get(agent) or self.truncations.get(agent))

    def _board(self) -> Board:
        """The board being decided on, or the game's board between decisions and after the end."""
        game = self._game
        assert game is not None
        return game.pending.board if game.pending is not None else game.board

    def _view(self, seat: str) -> View:
        """The current board from ``seat``'s side, built once per board state and seat."""
        game = self._game
        assert game is not None
        board = self._board()
        cached = self._views.get(seat)
        if cached is not None and cached.board is board:
            return cached
        view = View.build(
            board, game.seats, seat, self.slots, self.c_max, self._kind_map, self._start_life, self._orders
        )
        self._views[seat] = view
        return view

    def _take(self, decision: PendingDecision, bits: npt.NDArray[np.int64]) -> int:
        """Record one proliferate of the acting seat's decision (checked bits); return how many were ignored."""
        view = self._view(decision.seat)
        on = bits != 0
        ok = view.eligible.astype(bool)
        open_bits = view.recipient_open.astype(bool)
        illegal = int((on[: self.slots] & ~ok).sum()) + int((on[self.slots :] & ~open_bits).sum())
        rows = {int(view.row_of_slot[s]) for s in np.flatnonzero(on[: self.slots] & ok)}
        named: dict[int, int] = {}
        for t, (first, second) in enumerate(view.recipient_heads):
            if open_bits[t] and first in rows and second in rows:
                named[int(decision.board.team[first])] = second if on[self.slots + t] else first
        decision.rows.append(sorted(rows))
        decision.recipients.append(named)
        return illegal

    def _resolve(self, game: Game, decision: PendingDecision) -> None:
        """Apply the completed decision through the solver, run the game on, and pay rewards."""
        chosen, recipients = matrices(decision.board, decision.rows, decision.recipients)
        outcome = resolve_all([game], [decision], [(chosen, recipients)])[0]
        if self.reward_mode == "delta":
            value = decision.objective.value_of(outcome.settled) / MILLI
            team = decision.board.team[decision.board.index[decision.seat]]
            for seat in game.seats:
                row = decision.board.index.get(seat)
                if row is not None and decision.board.team[row] == team and self._agent_of[seat] in self.rewards:
                    self.rewards[self._agent_of[seat]] += value
        game.pending = None
        if not game.over:
            advance_all([game])
        for seat in game.seats:
            agent = self._agent_of[seat]
            if agent not in self.agents or self._finished(agent):
                continue
            result = game.result(seat)
            if result is not None:
                self.terminations[agent] = True
                self.infos[agent]["game_result"] = result
                if self.reward_mode == "terminal":
                    self.rewards[agent] += _TERMINAL[result]
            elif game.over:  # passed max_turns with this seat's result undecided
                self.truncations[agent] = True

    def _select(self) -> None:
        """The acting seat's agent is next; agents that just finished are stepped with None first."""
        game = self._game
        assert game is not None
        if game.pending is not None:
            self.agent_selection = self._agent_of[game.pending.seat]
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
    """

    metadata: dict[str, Any] = {"render_modes": [], "name": "proliferate_parallel_v0"}  # noqa: RUF012

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
