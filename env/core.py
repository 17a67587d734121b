"""The Gymnasium environments: one class, parametrised by variant and by bandit/game mode.

The agent always plays seat ``p0`` of generated games (or the proliferator of a board
given with ``reset(options={"board": ...})``); the observation is relative to it, so slot
0 is always "me".  See :class:`ProliferateEnv` for spaces, rewards and episodes.  The game
itself is :mod:`env.kernels` (its state in fixed-slot arrays, stepped by compiled code),
through :class:`env.lockstep_v1.LockstepV1` with one game: the native vector env's engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from solver.core import Board, BoolArray, IntArray, Policy, Variant

from .actions import check_actions
from .config import ActionMode, AgentConfig, EnvConfig, Opponent, RewardMode
from .events import EventParams
from .lockstep_v1 import EpisodeV1, LockstepV1, PendingV1
from .render import render_ansi, render_rgb
from .spaces import View, maskable, observation_space

__all__ = ["ProliferateEnv", "action_space"]


class ProliferateEnv(gym.Env[dict[str, Any], Any]):
    """Proliferate decisions in a game of Magic, one agent decision per step.

    ## Description
    The agent controls seat ``p0``.  Whenever it gets to proliferate (Atraxa's end-step
    trigger, an activated ability, a "put a counter, then proliferate" spell, ...), it
    chooses which permanents and players with counters get one more counter of each kind
    they have (701.34a).  Between its decisions the game goes on: a seeded event model
    (infect and toxic damage, -1/-1 effects, +1/+1 growth, planeswalker activations,
    permanents entering with counters, creatures dying) and the other seats' own
    proliferates, decided by ``opponent``.  With ``bandit=True`` an episode is a single
    decision on a sampled position.  The game's state is kept in fixed-slot arrays and
    advanced by one compiled call per step (:mod:`env.kernels`, the engine of the native
    vector env with one game); its state-based actions, values and optima are the compiled
    core's (:mod:`solver`).

    ## Action space
    ``action_mode="subset"`` (default): ``MultiBinary(slots + extra)``; bit ``s`` chooses the
    object in slot ``s``.  In Two-Headed Giant ``extra = 2``: bit ``slots`` gives the
    agent's team's poison counter to the teammate (slot 1) instead of the agent (slot 0)
    when both are chosen, bit ``slots + 1`` gives the opposing team's to its second head
    (slot 3) instead of its first (slot 2) (701.34b).  ``action_mode="sequential"``:
    ``Discrete(slots + 1)``; each step picks one object, ``slots`` is DONE; in 2HG the head
    of a poisoned team picked first gets the team's poison.  A proliferate that happens
    several times in one resolution (Contagion Engine, Tekuthal) takes one subset (or one
    DONE-terminated run of picks) per proliferate.  Ineligible bits and picks are ignored,
    counted in ``info["illegal_bits"]`` and cost ``illegal_penalty`` each; they never raise.
    Anything that is not a point of the action space (a wrong shape, a bit that is not 0 or
    1, a non-integer index, NaN, a string) raises ``ValueError`` before any state changes.

    ## Observation space
    A single-level ``Dict``: ``counters`` (slots x 14 int16: a fixed kind vocabulary plus
    "other"), ``kind`` (object type code), ``relation`` (none/self/teammate/opponent),
    ``stats`` (printed power, toughness, damage, final chapter), ``present``, ``eligible``,
    ``times`` (rounds each object is already chosen in this decision), ``picked`` (picked in
    this round, sequential mode), ``action_mask`` and ``globals`` (round, rounds, progress,
    variant, and per seat: alive, life, poison relative to the losing threshold).

    ## Rewards
    Paid when a decision is complete (every round chosen).  ``"delta"``: the solver's
    objective value of the choice, from the agent's side, relative to choosing nothing, in
    points (``Objective(board).score_matrix``; one +1/+1 counter on one's creature = 1;
    game results are worth at least 1000).  ``"terminal"``: +1 win, -1 loss, 0 draw or
    unfinished.  ``"regret"``: minus the gap to the optimum (0 is optimal).  Each
    component is in ``info["reward_terms"]`` (the regret only when computed).

    ## Starting state
    A seeded scenario (``archetypes``: infect, superfriends, +1/+1, -1/-1, sagas and battles,
    mixed), starting at an opportunity of the agent; or the board in ``options["board"]``.

    ## Episode end
    Terminated when a seat the agent's result depends on loses (a duel or 2HG team: either
    side; free-for-all: the agent loses or is the last one left), or after the single
    decision of a bandit.  Truncated by the registered ``TimeLimit`` (agent steps), or
    when the game passes ``max_turns`` turns.

    ## Arguments
    - ``variant``: ``"duel"``, ``"two_headed_giant"`` or ``"free_for_all"`` (set by the id).
    - ``slots``: object slots, players included (default 32 in a duel, 48 otherwise).
    - ``action_mode``: ``"subset"`` or ``"sequential"``; ``reward_mode``: ``"delta"``,
      ``"terminal"`` or ``"regret"``; ``bandit``: one decision per episode.
    - ``opponent``: ``"rule"`` (default), ``"noop"``, ``"random"``, ``"oracle"`` or a callable
      ``(board, np_random) -> (chosen, recipients)`` deciding the other seats' proliferates
      (called through a slower path: the decision board is built from the arrays for each of
      its decisions).
    - ``events`` (:class:`env.EventParams` or a dict of its fields), ``archetypes`` (deck
      names of :data:`env.scenarios.ARCHETYPES`), ``policy`` (objective weights),
      ``p_activate``, ``p_spell``, ``p_fizzle``, ``max_turns``: the game
      (:class:`env.config.EnvConfig`, checked at construction).
    - ``illegal_penalty``, ``oracle_in_info``, ``horizon``, ``c_max``, ``render_mode``
      (``"ansi"`` or ``"rgb_array"``).

    ``gymnasium.make_vec(id, num_envs=N)`` gives :class:`env.vector.ProliferateVectorEnv`,
    N of these games stepped together by the same code.

    ## Version History
    - v1: the game's state is kept in fixed-slot arrays and stepped by compiled code
      (:mod:`env.kernels`); the single env is the vector env's engine with one game.  Each
      game has its own random stream (SplitMix64, seeded by one draw from the env's
      ``np_random``), so trajectories for a seed differ from v0's; the game is v0's
      (``benchmarks/results/same_game_compare.md``: 540 statistics over 2,016-10,008
      games per id, none more than 2.5 standard errors apart).  ``info`` no longer carries ``dies`` and
      ``losers``; a callable ``opponent`` goes through a slower path; a given board with
      what the arrays do not model (a card effect not in their tables, 2HG poison per
      head) is a ``ValueError``.
    - v0: retired (unregistered): a Python game model over immutable boards.  Its last
      commit is ``a0ec434``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        variant: str = "duel",
        *,
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
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
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
        self.render_mode = render_mode
        self.action_space: spaces.Space[Any] = action_space(self.agent)
        self.observation_space = observation_space(self.slots, self.n_bits, c_max)
        self._core = LockstepV1(self.settings, self.agent, 1)
        self._choosing = np.zeros(self.slots, dtype=np.int8)
        self._shape = (self.n_bits,)
        self._action = np.zeros((1, self.n_bits if action_mode == "subset" else 1), dtype=np.int64)

    # ------------------------------------------------------------------ configuration, read-only
    @property
    def variant(self) -> Variant:
        return self.settings.variant

    @property
    def n_seats(self) -> int:
        return self.settings.n_seats

    @property
    def slots(self) -> int:
        return self.settings.slots

    @property
    def policy(self) -> Policy:
        return self.settings.policy

    @property
    def action_mode(self) -> ActionMode:
        return self.agent.action_mode

    @property
    def reward_mode(self) -> RewardMode:
        return self.agent.reward_mode

    @property
    def bandit(self) -> bool:
        return self.agent.bandit

    @property
    def n_bits(self) -> int:
        return self.agent.n_bits

    @property
    def done_action(self) -> int:
        """The DONE index of the sequential mode."""
        return self.slots

    @property
    def actor(self) -> str:
        """The seat the agent plays in the current episode."""
        return self._episode().actor

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        obs, info = self._core.reset_single(self.np_random, options)
        self._choosing = np.zeros(self.slots, dtype=np.int8)  # the render's "last": this decision's slots
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        core = self._core
        ep = self._episode()
        ep.expect_pending()
        if self.render_mode is not None:
            actions = check_actions(action, self.action_mode, self.n_bits, None).reshape(1, -1)
            self._note_choice(ep, actions[0] if self.action_mode == "subset" else actions[0, 0])
        else:
            actions = self._fast_action(action)
        stepped = core.step_single(actions)
        if stepped is None:  # not a point of the action space: nothing changed, check_actions says why
            check_actions(action, self.action_mode, self.n_bits, None)
            raise ValueError(f"{action!r} is not a point of the action space {self.action_space}")
        if self.render_mode is not None and stepped[4]["decision_done"]:
            ep.last, self._choosing = self._choosing, np.zeros(self.slots, dtype=np.int8)
        return stepped

    def _fast_action(self, action: Any) -> npt.NDArray[np.int64]:
        """The action as the compiled step takes it, shape ``(1, width)``: an integer array of the subset's shape
        (or an ``int`` index) is cast into a buffer whose values the compiled step checks before anything changes;
        anything else goes through :func:`env.actions.check_actions`."""
        buffer = self._action
        if self.action_mode == "subset":
            if type(action) is np.ndarray and action.shape == self._shape and action.dtype.kind in "biu":
                buffer[0] = action
                return buffer
        elif type(action) is int and 0 <= action < self.n_bits:
            buffer[0, 0] = action
            return buffer
        return check_actions(action, self.action_mode, self.n_bits, None).reshape(1, -1)

    def render(self) -> Any:
        ep = self._core.episodes[0]
        if self.render_mode is None or ep is None or ep.game.pending is None:
            return None  # nothing to show before a reset or once the episode is over
        mask = self.current_mask()
        if self.render_mode == "ansi":
            return render_ansi(ep.view, mask[: self.slots], ep.last, self._pending().opportunity)
        return render_rgb(ep.view, mask[: self.slots], ep.last)

    # ------------------------------------------------------------------ masks and the oracle
    def current_mask(self) -> npt.NDArray[np.int8]:
        """The action mask (int8, 1 = allowed) of the current step, as in ``obs["action_mask"]``."""
        return self._core.mask(self._episode())

    def action_masks(self) -> BoolArray:
        """The mask in the layout sb3-contrib's MaskablePPO expects (2 bools per MultiBinary bit)."""
        return maskable(self.current_mask(), self.action_mode)

    def decision_board(self) -> Board:
        """The solver board of the decision being made (its proliferator is the agent)."""
        return self._pending().board

    def oracle_action(self) -> Any:
        """The optimal action now, in the current action format (the solver's exact optimum).

        The optimum is solved once per decision.  In a decision with several proliferates,
        each round's action is that round of the optimal plan.
        """
        plan = self._pending().optimum
        return self.action_for(plan.chosen, plan.recipients)

    def action_for(self, chosen: BoolArray, recipients: IntArray) -> Any:
        """Turn a whole-decision choice (solver matrices) into this step's action."""
        return self._core.action_for(self._episode(), chosen, recipients)

    # ------------------------------------------------------------------ internals
    def _note_choice(self, ep: EpisodeV1, action: npt.NDArray[np.int64]) -> None:
        """The slots this decision has chosen so far, for the render's "last" column: a subset step's legal bits,
        a sequential step's legal pick (a pick again takes it back); DONE adds nothing."""
        mask = self._core.mask(ep)[: self.slots].astype(bool)
        if self.action_mode == "subset":
            self._choosing |= (action[: self.slots].astype(bool) & mask).astype(np.int8)
        elif int(action) < self.slots and mask[int(action)]:
            self._choosing[int(action)] ^= 1

    def _episode(self) -> EpisodeV1:
        return self._core.episode(0)

    def _pending(self) -> PendingV1:
        return self._episode().pending()

    def _current_view(self) -> View:
        return self._episode().current_view()


def action_space(agent: AgentConfig) -> spaces.Space[Any]:
    """One agent's action space: ``MultiBinary`` in subset mode, ``Discrete`` in sequential mode."""
    if agent.action_mode == "subset":
        return spaces.MultiBinary(agent.n_bits)
    return spaces.Discrete(agent.n_bits)
